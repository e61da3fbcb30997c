"""Real plan JSON for the policy tests: `terraform plan` + `show -json` of the
configurations under tests/policies/configs/, of the examples and of the
module fixtures, through tooling.terraform, offline.

Plans come from the shared cache (tests/plan_cache.py): keyed by content,
planned once however many workers or sessions ask. The examples are planned
with the same variables as the other plan tests (tests/test_examples_plan.py,
tests/test_complete_plan.py), so each is planned once for all of them.
"""
from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests import plan_cache
from tests.helpers import EXAMPLES, FIXTURES, OFFLINE_ACCOUNT, REPO_ROOT, example_dirs

CONFIGS = Path(__file__).parent / "configs"

# every example is planned with these; the name prefix keeps copies apart
EXAMPLE_PREFIX = "plantest"
# what an example needs beyond them to plan everything it can create
EXAMPLE_EXTRA = {
    # the event source mappings exist only for an (existing) consumer function
    "complete": {"consumer_function_name": f"{EXAMPLE_PREFIX}-consumer"},
}
# module fixtures (tests/fixtures/*) whose plans the policy engine must also accept
MODULE_FIXTURES = ["dlq-redrive"]


# configurations also planned with their local module calls turned into absolute-path
# sources, which `terraform init` copies into .terraform/modules (as it does registry
# and git modules): the source reader must find them through modules.json
COPIED = ["source-good"]
COPIES = REPO_ROOT / ".cache" / "fixtures"


def copied_dir(name: str) -> Path:
    return COPIES / f"{name}-copied"


def materialize_copied(name: str) -> Path:
    """``configs/<name>`` with ``source = "./x"`` module calls pointing at an absolute
    copy of ``x`` (inside the copy, so the plan cache's digest covers it)."""
    import re
    import shutil

    src, dst = CONFIGS / name, copied_dir(name)
    tmp = dst.with_name(dst.name + f".{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src, tmp, ignore=shutil.ignore_patterns(".terraform", ".terraform.lock.hcl"))
    for tf in tmp.glob("*.tf"):
        text = tf.read_text()
        text = re.sub(r'(source\s*=\s*)"\./([^"]+)"', lambda m: f'{m.group(1)}"{(dst / m.group(2)).as_posix()}"', text)
        tf.write_text(text)
    if dst.exists():
        same = all((dst / p.relative_to(tmp)).is_file() and (dst / p.relative_to(tmp)).read_bytes() == p.read_bytes()
                   for p in tmp.rglob("*") if p.is_file())
        if same:
            shutil.rmtree(tmp, ignore_errors=True)
            return dst
        shutil.rmtree(dst, ignore_errors=True)
    try:
        tmp.rename(dst)
    except OSError:  # another worker made it first
        shutil.rmtree(tmp, ignore_errors=True)
    return dst


def example_variables(name: str) -> dict:
    return {"account_id": OFFLINE_ACCOUNT, "name_prefix": EXAMPLE_PREFIX, **EXAMPLE_EXTRA.get(name, {})}


def fixture_names() -> list[str]:
    return sorted(p.name for p in CONFIGS.iterdir() if p.is_dir() and not p.name.startswith("_") and list(p.glob("*.tf")))


# name -> (directory, variables, offline copy needed)
def subjects() -> dict[str, tuple[Path, dict, bool]]:
    out = {f"config:{n}": (CONFIGS / n, {}, False) for n in fixture_names()}
    # the benchmark's template at N = 3, to check its plan generator against Terraform
    out["bench:3"] = (CONFIGS / "bench", {"pairs": 3}, True)
    for ex in example_dirs():
        out[f"example:{ex.name}"] = (ex, example_variables(ex.name), True)
    for name in MODULE_FIXTURES:
        out[f"fixture:{name}"] = (FIXTURES / name, {"account_id": OFFLINE_ACCOUNT}, True)
    for name in COPIED:
        out[f"copied:{name}"] = (copied_dir(name), {}, False)
    return out


def plan_path(name: str, wait: bool = True) -> Path | None:
    directory, variables, offline = subjects()[name]
    if name.startswith("copied:"):
        materialize_copied(name.split(":", 1)[1])
    return plan_cache.plan_path(directory, variables, offline, wait=wait)


def data_dir(name: str) -> Path:
    """TF_DATA_DIR the subject was planned with (it keeps the modules init installed)."""
    directory, variables, offline = subjects()[name]
    return plan_cache.data_dir(directory, variables, offline)


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


__all__ = ["CONFIGS", "EXAMPLES", "EXAMPLE_PREFIX", "copied_dir", "data_dir", "ensure_all", "example_variables",
           "fixture_names", "load", "plan_path", "subjects"]
