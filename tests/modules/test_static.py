"""The HCL itself: formatting, validation of every root/module/example, native `terraform test`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.helpers import REPO_ROOT, example_dirs, module_dirs
from tooling.terraform import Terraform

pytestmark = pytest.mark.static

TF_DIRS = [REPO_ROOT, *module_dirs(), *example_dirs()]
TEST_DIRS = [d for d in TF_DIRS if list((d / "tests").glob("*.tftest.hcl"))]


def _id(d: Path) -> str:
    return str(d.relative_to(REPO_ROOT)) or "root"


def _params(dirs: list[Path]):
    # tests that init the same directory run on the same xdist worker (--dist loadgroup)
    return [pytest.param(d, id=_id(d), marks=pytest.mark.xdist_group(f"tfdir:{_id(d)}")) for d in dirs]


def test_fmt_clean():
    changed = Terraform(REPO_ROOT).fmt_check()
    assert changed == [], f"terraform fmt would rewrite {changed}: run `terraform fmt -recursive`"


@pytest.mark.parametrize("tf_dir", _params(TF_DIRS))
def test_validate(tf_dir: Path):
    tf = Terraform(tf_dir)
    tf.init(backend=False)
    result = tf.validate()  # raises TerraformError with the diagnostics when invalid (tests/testing/test_terraform.py)
    warnings = [d for d in result.get("diagnostics", []) if d.get("severity") == "warning"]
    assert warnings == [], f"validate warnings in {_id(tf_dir)}: {warnings}"


@pytest.mark.parametrize("tf_dir", _params(TEST_DIRS))
def test_terraform_test(tf_dir: Path):
    tf = Terraform(tf_dir)
    tf.init(backend=False)
    result = tf.test()
    events = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    # one summary per command: Terraform.test() holds each command to a few runs
    summaries = [e["test_summary"] for e in events if e.get("type") == "test_summary"]
    summary = {"status": "pass" if all(s["status"] == "pass" for s in summaries) else "fail",
               "passed": sum(s.get("passed", 0) for s in summaries),
               "failed": sum(s.get("failed", 0) for s in summaries),
               "errored": sum(s.get("errored", 0) for s in summaries)} if summaries else None
    failures = [
        f"{e.get('@testfile', '')}/{e.get('@testrun', '')}: {e['diagnostic'].get('summary')} - {e['diagnostic'].get('detail', '')}"
        for e in events
        if e.get("type") == "diagnostic" and e.get("@level") == "error"
    ]
    assert summary is not None, f"terraform test produced no summary:\n{result.stderr[-3000:]}"
    assert summary["status"] == "pass" and result.returncode == 0, "\n".join(failures) or json.dumps(summary)
    assert summary["passed"] > 0
