"""The Atlantis custom_policy_check workflow of docs/atlantis.md, run as Atlantis runs it.

The `run` step of the documented repos.yaml runs with `sh -c` in the project's directory with
the environment Atlantis gives a run step (server/core/runtime/run_step_runner.go), and its
output is judged with Atlantis' own rules (tooling/report_consumers.atlantis_policy_set)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.support.helpers import REPO_ROOT, sqs_policy_in_process
from tooling.report_consumers import atlantis_policy_set, check_runner

DOC = REPO_ROOT / "docs" / "atlantis.md"


def _workflow() -> dict:
    block = re.search(r"```yaml\n(.*?)```", DOC.read_text(), flags=re.DOTALL).group(1)
    return yaml.safe_load(block)


def test_the_documented_repos_yaml_is_a_custom_policy_check():
    cfg = _workflow()
    repo = cfg["repos"][0]
    assert repo["policy_check"] is True and repo["custom_policy_check"] is True
    steps = cfg["workflows"][repo["workflow"]]["policy_check"]["steps"]
    assert steps[0] == "show" and "run" in steps[1]
    assert [s["name"] for s in cfg["policies"]["policy_sets"]] == ["sqs-policy"]


def _run_step(tmp_path: Path, plan: Path | None, text: str | None = None) -> subprocess.CompletedProcess:
    """The workflow's run step in project directory ``tmp_path/repo/infra/prod`` after Atlantis'
    `show` step wrote the plan JSON to $SHOWFILE."""
    steps = _workflow()["workflows"]["sqs-policy"]["policy_check"]["steps"]
    command = steps[1]["run"]
    project = tmp_path / "repo" / "infra" / "prod"
    project.mkdir(parents=True)
    show = project / "default.tfplan.json"  # ctx.GetShowResultFileName() for workspace "default"
    if plan is not None:
        shutil.copy(plan, show)
    else:
        show.write_text(text or "")
    env = {
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",  # the checker's bin/ on PATH
        "HOME": str(tmp_path),
        "ATLANTIS_TERRAFORM_VERSION": "1.11.4", "BASE_BRANCH_NAME": "main", "BASE_REPO_NAME": "infra",
        "BASE_REPO_OWNER": "acme", "COMMENT_ARGS": "", "DIR": str(project), "HEAD_BRANCH_NAME": "queues",
        "HEAD_COMMIT": "0" * 40, "HEAD_REPO_NAME": "infra", "HEAD_REPO_OWNER": "acme",
        "PLANFILE": str(project / "default.tfplan"), "SHOWFILE": str(show),
        "POLICYCHECKFILE": str(project / "default-policycheck.json"), "PROJECT_NAME": "", "PULL_AUTHOR": "dev",
        "PULL_NUM": "7", "PULL_URL": "https://github.com/acme/infra/pull/7", "REPO_REL_DIR": "infra/prod",
        "USER_NAME": "dev", "WORKSPACE": "default",
    }
    # Atlantis runs a step's command with `sh -c` and reads stdout and stderr
    return subprocess.run(["sh", "-c", command], cwd=project, env=env, capture_output=True, text=True, timeout=120)


def test_a_failing_plan_fails_the_policy_set_with_its_counts(tmp_path, plan_files):
    p = _run_step(tmp_path, plan_files["config:queue-bad"])
    assert p.returncode == 0, p.stderr  # a non-zero exit would lose the output in Atlantis
    passed, summary = atlantis_policy_set(p.stdout + p.stderr)
    want = json.loads(sqs_policy_in_process("check", str(plan_files["config:queue-bad"]), "--format", "json",
                                            "--no-source").stdout)["summary"]
    assert not passed
    fails, warns = want["errors"], want["warnings"] + want["unknown"]
    assert summary == (f"{fails + warns + want['passed'] + want['waived']} tests, {want['passed']} passed, "
                       f"{warns} warnings, {fails} failures, {want['waived']} exceptions")
    assert "fix: " in p.stdout  # the report itself is in the PR comment
    # the documented policy_item_regex (sticky approvals) picks exactly the failing findings' first lines
    sticky = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", DOC.read_text(), flags=re.DOTALL)][1]
    item = sticky["policies"]["policy_sets"][0]["policy_item_regex"]
    errors = json.loads(sqs_policy_in_process("check", str(plan_files["config:queue-bad"]), "--format", "json",
                                              "--no-source").stdout)["findings"]
    want = {f"{f['rule_id']} {f['slug']}  {f['address']}" for f in errors if f["status"] == "fail"
            and f["severity"] == "error" and "waiver" not in f}
    got = {" ".join(m.split()[1:3]) + "  " + m.split()[3] for m in re.findall(item, p.stdout)}
    assert got == want and len(re.findall(item, p.stdout)) == fails
    assert check_runner(p.stdout, "text") == []


def test_a_clean_plan_passes(tmp_path, plan_files):
    p = _run_step(tmp_path, plan_files["bench:3"])
    passed, summary = atlantis_policy_set(p.stdout + p.stderr)
    assert p.returncode == 0 and passed, p.stdout + p.stderr
    assert re.fullmatch(r"(\d+) tests, \1 passed, 0 warnings, 0 failures, 0 exceptions", summary)


@pytest.mark.parametrize("text", ["", '{"format_version": "1.2"}', "not json"])
def test_a_refused_plan_fails_the_policy_set(tmp_path, text):
    p = _run_step(tmp_path, None, text)
    assert p.returncode == 0
    passed, summary = atlantis_policy_set(p.stdout + p.stderr)
    assert not passed and summary == "1 tests, 0 passed, 0 warnings, 1 failures, 0 exceptions"
    assert p.stdout.startswith("FAIL - sqs-policy: error: ") and "default.tfplan.json" in p.stdout


def test_the_consumer_reads_as_atlantis_does():
    """The port of Atlantis' rules against the outputs its own tests use."""
    assert atlantis_policy_set("") == (False, "")
    assert atlantis_policy_set("FAIL - x\n") == (False, "")
    assert atlantis_policy_set("10 tests, 10 passed, 0 warnings, 0 failures, 0 exceptions")[0]
    assert not atlantis_policy_set("2 tests, 1 passed, 0 warnings, 1 failure, 0 exceptions")[0]
    assert not atlantis_policy_set('{"failures": [1]}')[0]
