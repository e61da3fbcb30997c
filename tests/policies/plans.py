"""Real plan JSON for the policy tests: `terraform plan` + `show -json` of the
configurations under tests/policies/configs/ and of the examples, through
tooling.terraform, offline.

Plans are cached in .cache/policy-plans/ under a hash of everything that can
change them (the configuration's files, the repository's modules, the
variables, the Terraform version), so a test session only plans what changed.
Generation runs in parallel threads; a lock file per plan makes concurrent
pytest workers plan each configuration once.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.helpers import EXAMPLES, OFFLINE_ACCOUNT, REPO_ROOT
from tooling.terraform import Terraform, offline_copy, terraform_bin

CONFIGS = Path(__file__).parent / "configs"
CACHE = REPO_ROOT / ".cache" / "policy-plans"


def fixture_names() -> list[str]:
    return sorted(p.name for p in CONFIGS.iterdir() if p.is_dir() and not p.name.startswith("_") and list(p.glob("*.tf")))


# name -> (directory, variables, offline_copy needed)
def subjects() -> dict[str, tuple[Path, dict, bool]]:
    out = {f"config:{n}": (CONFIGS / n, {}, False) for n in fixture_names()}
    # the benchmark's template at N = 3, to check its plan generator against Terraform
    out["bench:3"] = (CONFIGS / "bench", {"pairs": 3}, True)
    for ex in sorted(p for p in EXAMPLES.iterdir() if p.is_dir() and list(p.glob("*.tf"))):
        out[f"example:{ex.name}"] = (ex, {"account_id": OFFLINE_ACCOUNT, "name_prefix": "policy"}, True)
    return out


_tf_version: str | None = None


def _terraform_version() -> str:
    global _tf_version
    if _tf_version is None:
        _tf_version = subprocess.run([terraform_bin(), "version"], capture_output=True, text=True).stdout.split("\n")[0]
    return _tf_version


def _digest(directory: Path, variables: dict) -> str:
    h = hashlib.sha256()
    h.update(_terraform_version().encode())
    h.update(json.dumps(variables, sort_keys=True).encode())
    roots = [directory, CONFIGS / "_lib", REPO_ROOT / "modules"]
    files = sorted(p for r in roots if r.exists() for p in r.rglob("*")
                   if p.is_file() and ".terraform" not in p.parts and p.suffix in (".tf", ".json", ".tpl"))
    files += sorted(REPO_ROOT.glob("*.tf"))
    for f in files:
        h.update(str(f.relative_to(REPO_ROOT)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _generate(name: str, directory: Path, variables: dict, copy: bool, out: Path) -> None:
    safe = name.replace(":", "-")
    data_dir = CACHE / "tfdata" / safe
    work = offline_copy(directory) if copy else directory
    try:
        tf = Terraform(work, variables=variables, env={"TF_DATA_DIR": str(data_dir)})
        tf.init()
        plan_file = out.with_suffix(".tfplan")  # kept: the binary plan is a test input too
        tf.plan(out=str(plan_file))
        doc = tf.show_json(plan_file)
    finally:
        if copy:
            shutil.rmtree(work, ignore_errors=True)
        else:
            (directory / ".terraform.lock.hcl").unlink(missing_ok=True)
    tmp = out.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc))
    tmp.replace(out)


def _target(name: str) -> Path:
    directory, variables, _ = subjects()[name]
    return CACHE / f"{name.replace(':', '-')}-{_digest(directory, variables)}.json"


def _cached(out: Path) -> bool:
    return out.exists() and out.with_suffix(".tfplan").exists()


def plan_path(name: str, wait: bool = True) -> Path | None:
    """Path of the cached plan JSON of one subject, generating it if needed.

    A lock file per subject makes concurrent pytest workers plan it once. With
    ``wait=False`` a subject another process is already planning is skipped
    (returns None) so that the caller can plan something else meanwhile.
    """
    directory, variables, copy = subjects()[name]
    CACHE.mkdir(parents=True, exist_ok=True)
    safe = name.replace(":", "-")
    out = _target(name)
    if _cached(out):
        return out
    with open(CACHE / f"{safe}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return None
        if not _cached(out):
            for stale in [*CACHE.glob(f"{safe}-*.json"), *CACHE.glob(f"{safe}-*.tfplan")]:
                stale.unlink(missing_ok=True)
            _generate(name, directory, variables, copy, out)
    return out


def ensure_all(names: list[str] | None = None) -> dict[str, Path]:
    """Every plan, generated in parallel: under pytest-xdist each worker plans what
    no other worker is planning, then waits for the rest."""
    names = names or list(subjects())
    threads = 1 if os.environ.get("PYTEST_XDIST_WORKER") else 4
    with ThreadPoolExecutor(max_workers=threads) as ex:
        list(ex.map(lambda n: plan_path(n, wait=False), names))
        return dict(zip(names, ex.map(plan_path, names)))


def load(name: str) -> dict:
    return json.loads(plan_path(name).read_text())
