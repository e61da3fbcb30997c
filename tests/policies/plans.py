"""Real plan JSON for the policy tests: `terraform plan` + `show -json` of the
configurations under tests/policies/configs/, of the examples and of the
module fixtures, offline.

The engine's tests read the committed copies (tests/policies/plans/, see
fixture_plans.py), so they need no Terraform. The full suite checks that every
committed plan still equals a fresh plan (tests/policies/test_fixture_plans.py);
fresh plans come from the shared cache (tests/support/plan_cache.py): keyed by content,
planned once however many workers or sessions ask. The examples are planned
with the same variables as the other plan tests (tests/examples/test_examples_plan.py,
tests/examples/test_complete_plan.py), so each is planned once for all of them.
"""
from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.support.helpers import EXAMPLES, FIXTURES, OFFLINE_ACCOUNT, REPO_ROOT, example_dirs

CONFIGS = Path(__file__).parent / "configs"
SOURCE_EVAL = Path(__file__).parent / "source_eval"

# every example is planned with these; the name prefix keeps copies apart
EXAMPLE_PREFIX = "plantest"
# what an example needs beyond them to plan everything it can create
EXAMPLE_EXTRA = {
    # the event source mappings exist only for an (existing) consumer function
    "complete": {"consumer_function_name": f"{EXAMPLE_PREFIX}-consumer"},
}
# module fixtures (tests/fixtures/*) whose plans the policy engine must also accept
MODULE_FIXTURES = ["dlq-redrive"]


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
    # expressions whose planned values the configuration-source evaluator must reproduce
    out["eval:source"] = (SOURCE_EVAL, {}, False)
    return out


# A configuration planned with its local module calls turned into absolute-path sources,
# which `terraform init` copies into its data directory (as it does registry and git
# modules): the source reader must find them through modules.json. Not committed (the plan
# holds this checkout's absolute paths): planned fresh, with Terraform.
COPIES = REPO_ROOT / ".cache" / "fixtures"


def copied_dir(name: str) -> Path:
    return COPIES / f"{name}-copied"


def materialize_copied(name: str) -> Path:
    """``configs/<name>`` with ``source = "./x"`` module calls pointing at an absolute
    copy of ``x`` (inside the copy, so the plan cache's digest covers it), and the offline
    provider file the fixture is planned with (configs/_provider/providers.tf)."""
    import re
    import shutil

    from tooling.terraform import SUPPLIED_PROVIDER, supplied_provider

    src, dst = CONFIGS / name, copied_dir(name)
    tmp = dst.with_name(dst.name + f".{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src, tmp, ignore=shutil.ignore_patterns(".terraform", ".terraform.lock.hcl"))
    shutil.copy2(supplied_provider(src), tmp / SUPPLIED_PROVIDER)
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


def copied_plan(name: str) -> tuple[Path, Path, Path]:
    """(plan JSON, configuration directory, TF_DATA_DIR with modules.json) of the copied
    variant of ``configs/<name>`` (Terraform, through the plan cache)."""
    from tests.support import plan_cache

    directory = materialize_copied(name)
    return (plan_cache.plan_path(directory, {}, offline=False), directory,
            plan_cache.data_dir(directory, {}, offline=False))


class MissingFixture(AssertionError):
    pass


def plan_path(name: str, wait: bool = True) -> Path:
    """The committed plan JSON of subject ``name`` (no Terraform)."""
    from tests.policies import fixture_plans

    if name not in subjects():
        raise KeyError(f"no plan subject {name!r}; known: {sorted(subjects())}")
    path = fixture_plans.PLANS / f"{fixture_plans.fixture_name(name)}.json"
    if not path.exists():
        raise MissingFixture(f"stale fixture {path.relative_to(fixture_plans.REPO_ROOT)}: not committed yet; "
                             f"run `{fixture_plans.REGENERATE}`")
    return path


def fresh_plan_path(name: str, wait: bool = True) -> Path | None:
    """A fresh plan of subject ``name`` (Terraform, through the plan cache); the binary plan
    file is beside it (``.with_suffix(".tfplan")``). With ``wait=False`` a plan another
    process is making right now is not waited for: None is returned."""
    from tests.support import plan_cache

    directory, variables, offline = subjects()[name]
    return plan_cache.plan_path(directory, variables, offline, wait=wait)


def ensure_all(names: list[str] | None = None) -> dict[str, Path]:
    """{subject: committed plan path} for every subject (or ``names``)."""
    return {n: plan_path(n) for n in (names or list(subjects()))}


def ensure_fresh(names: list[str] | None = None) -> dict[str, Path]:
    """Every fresh plan, generated in parallel: under pytest-xdist each worker plans what
    no other worker is planning, then waits for the rest."""
    names = names or list(subjects())
    threads = 1 if os.environ.get("PYTEST_XDIST_WORKER") else 4
    with ThreadPoolExecutor(max_workers=threads) as ex:
        list(ex.map(lambda n: fresh_plan_path(n, wait=False), names))
        return dict(zip(names, ex.map(fresh_plan_path, names)))


def load(name: str) -> dict:
    return json.loads(plan_path(name).read_text())


__all__ = ["CONFIGS", "EXAMPLES", "EXAMPLE_PREFIX", "MissingFixture", "copied_dir", "copied_plan", "ensure_all",
           "ensure_fresh", "example_variables", "fixture_names", "fresh_plan_path", "load", "plan_path", "subjects"]
