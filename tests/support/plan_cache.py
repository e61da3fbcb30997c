"""Offline plans shared by every test that reads one: planned once per content,
however many tests, pytest-xdist workers or test sessions ask for it.

A plan is cached in ``.cache/plans/`` under a digest of everything that can
change it: the configuration directory's files (with the provider file a fixture
configuration is planned with, ``tooling.terraform.supplied_provider``), every file under ``modules/`` and ``internal/``
and the root ``*.tf`` (what relative module sources reach), the variables,
whether it was planned offline (provider override), the Terraform version and
the providers in the local mirror. A lock file per digest makes concurrent
workers plan it once; the others wait and read the result. The binary plan file
is kept beside the JSON (some tests read it too).
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from tooling.terraform import (MIRROR_DIR, REPO_ROOT, SUPPLIED_PROVIDER, Terraform, copy_config, mirrored_providers,
                              offline_copy, supplied_provider, terraform_bin, terraform_env)

CACHE = REPO_ROOT / ".cache" / "plans"
# files that cannot change a plan
_IGNORED_PARTS = {".terraform", "__pycache__", ".pytest_cache"}
_IGNORED_SUFFIXES = {".tfplan", ".tfstate", ".pyc", ".lock", ".tmp"}
_PRUNE_AFTER = 3 * 86400  # cached plans nobody read for 3 days are removed

_environment: str | None = None


def _environment_digest() -> str:
    """Terraform's version and the mirrored provider versions."""
    global _environment
    if _environment is None:
        version = subprocess.run([terraform_bin(), "version"], capture_output=True, text=True,
                                 env=terraform_env()).stdout.split("\n")[0]
        providers = []
        for p in mirrored_providers():
            d = MIRROR_DIR / p
            providers.append(f"{p}={','.join(sorted(x.name for x in d.iterdir()))}")
        _environment = "\n".join([version, *providers])
    return _environment


def _files(root: Path) -> list[Path]:
    if not root.exists():
        return []
    return sorted(
        p for p in root.rglob("*")
        if p.is_file() and not (_IGNORED_PARTS & set(p.relative_to(root).parts)) and p.suffix not in _IGNORED_SUFFIXES
        and p.name != ".terraform.lock.hcl"
    )


def digest(directory: Path, variables: dict, offline: bool = True) -> str:
    directory = Path(directory).resolve()
    h = hashlib.sha256()
    h.update(_environment_digest().encode())
    h.update(json.dumps(variables, sort_keys=True).encode())
    h.update(b"offline" if offline else b"as-is")
    for f in [*_files(directory), *_files(REPO_ROOT / "modules"), *_files(REPO_ROOT / "internal"), *sorted(REPO_ROOT.glob("*.tf"))]:
        # a configuration outside the repository (a consumer stack) is named by its own paths
        h.update(str(f.relative_to(REPO_ROOT if f.is_relative_to(REPO_ROOT) else directory)).encode() + b"\0")
        h.update(f.read_bytes())
    provider = supplied_provider(directory)
    if provider is not None:  # a fixture configuration is planned with its kind's provider file
        h.update(str((directory / SUPPLIED_PROVIDER).relative_to(REPO_ROOT)).encode() + b"\0" + provider.read_bytes())
    return h.hexdigest()[:20]


def _slug(directory: Path) -> str:
    directory = Path(directory).resolve()
    if not directory.is_relative_to(REPO_ROOT):  # a consumer stack outside the repository: its content names it
        return "external"
    return str(directory.relative_to(REPO_ROOT)).replace("/", "-") or "root"


def _generate(directory: Path, variables: dict, offline: bool, out: Path, data_dir: Path) -> None:
    # offline: a copy with the provider override; a fixture configuration: a copy with its
    # kind's provider file (tooling.terraform.supplied_provider); anything else: in place
    in_copy = offline or supplied_provider(directory) is not None
    work = offline_copy(directory) if offline else copy_config(directory) if in_copy else directory
    try:
        # a data dir per configuration survives the copy: init only checks it
        tf = Terraform(work, variables=variables, env={"TF_DATA_DIR": str(data_dir)})
        tf.init()
        plan_file = out.with_suffix(".tfplan")
        tf.plan(out=str(plan_file))
        doc = tf.show_json(plan_file)
    finally:
        if in_copy:
            shutil.rmtree(work, ignore_errors=True)
        else:
            (directory / ".terraform.lock.hcl").unlink(missing_ok=True)
    tmp = out.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc))
    tmp.replace(out)


def _cached(out: Path) -> bool:
    return out.exists() and out.with_suffix(".tfplan").exists()


def _prune() -> None:
    cutoff = time.time() - _PRUNE_AFTER
    for p in [*CACHE.glob("*.json"), *CACHE.glob("*.tfplan"), *CACHE.glob("*.lock")]:
        try:
            if p.stat().st_mtime < cutoff:
                p.unlink()
        except FileNotFoundError:
            pass
    for d in (CACHE / "tfdata").glob("*"):
        try:
            if d.stat().st_mtime < cutoff and not (CACHE / f"{d.name}.json").exists():
                shutil.rmtree(d, ignore_errors=True)
        except FileNotFoundError:
            pass


def data_dir(directory: Path, variables: dict | None = None, offline: bool = True) -> Path:
    """Terraform's data directory of the cached plan of ``directory`` (TF_DATA_DIR): after
    planning it keeps ``modules/`` (what `terraform init` installed for module calls)."""
    directory = Path(directory).resolve()
    return CACHE / "tfdata" / f"{_slug(directory)}-{digest(directory, dict(variables or {}), offline)}"


def plan_path(directory: Path, variables: dict | None = None, offline: bool = True, wait: bool = True) -> Path | None:
    """Path of the cached plan JSON of ``directory`` planned with ``variables``
    (offline: in a copy with the provider override; else in place), planning it
    if needed. With ``wait=False`` a plan another process is making right now is
    not waited for: None is returned, so the caller can plan something else."""
    directory = Path(directory).resolve()
    variables = dict(variables or {})
    key = digest(directory, variables, offline)
    slug = _slug(directory)
    CACHE.mkdir(parents=True, exist_ok=True)
    out = CACHE / f"{slug}-{key}.json"
    if _cached(out):
        os.utime(out)
        return out
    with open(CACHE / f"{slug}-{key}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return None
        if not _cached(out):
            data = CACHE / "tfdata" / f"{slug}-{key}"
            _generate(directory, variables, offline, out, data)
            # keep what `terraform init` installed for module calls (modules.json and the
            # module copies, small): the source-reading tests find modules through it
            for p in data.iterdir() if data.is_dir() else ():
                if p.name != "modules":
                    shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
            _prune()
    (CACHE / f"{slug}-{key}.lock").unlink(missing_ok=True)
    return out


def load(directory: Path, variables: dict | None = None, offline: bool = True) -> dict:
    return json.loads(plan_path(directory, variables, offline).read_text())
