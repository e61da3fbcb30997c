"""A repository of several stacks: the check runs from a stack's folder (``infra/prod``, the
Action's working-directory), the stack calls ``../../modules/queue``, and every report's
locations are relative to the repository root, where GitHub, GitLab and SARIF viewers resolve
them. A real git repository (``git init``; a linked ``git worktree`` too), a real offline
plan, the real CLI from the stack's folder."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from tests.support.helpers import OFFLINE_PROVIDER, sqs_policy_in_process
from tooling.terraform import Terraform

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("monorepo")]

MODULE = '''variable "name" {
  type = string
}

locals {
  dlq_arn = aws_sqs_queue.dlq.arn
}

resource "aws_sqs_queue" "dlq" {
  name                      = "${var.name}-dlq"
  sqs_managed_sse_enabled   = true
  message_retention_seconds = 1209600
}

resource "aws_sqs_queue" "this" {
  # sqs-policy:ignore SQS009 reason="the queue policy is managed by the platform team's stack"
  name                    = var.name
  sqs_managed_sse_enabled = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = local.dlq_arn
    maxReceiveCount     = 5
  })
}
'''
STACK = '''module "queue" {
  source = "../../modules/queue"
  name   = "orders"
}
'''


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"})


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """A git repository with modules/queue and the stack infra/prod, planned in infra/prod."""
    if not shutil.which("git"):
        pytest.skip("git is not installed (only used to make the repository; the checker does not need it)")
    root = tmp_path_factory.mktemp("mono") / "repo"
    (root / "modules" / "queue").mkdir(parents=True)
    (root / "infra" / "prod").mkdir(parents=True)
    (root / "modules" / "queue" / "main.tf").write_text(MODULE)
    (root / "infra" / "prod" / "main.tf").write_text(STACK)
    (root / "infra" / "prod" / "providers.tf").write_text(OFFLINE_PROVIDER)
    _git("init", "-q", ".", cwd=root)
    _git("add", ".", cwd=root)
    _git("commit", "-q", "-m", "stack", cwd=root)
    stack = root / "infra" / "prod"
    tf = Terraform(stack)
    tf.init()
    (stack / "plan.json").write_text(json.dumps(tf.plan_json(out="tfplan")))
    return root


def _reports(stack, *extra, env=None):
    """Every location-bearing format from one check in ``stack`` (the current directory)."""
    old = {k: os.environ.get(k) for k in ("GITHUB_WORKSPACE", "CI_PROJECT_DIR")}
    for k in old:
        os.environ.pop(k, None)
    os.environ.update(env or {})
    try:
        proc = sqs_policy_in_process("check", "plan.json", "--format", "json", "--report", "sarif=out.sarif",
                                     "--report", "github=out.github", "--report", "gitlab=out.gitlab.json",
                                     "--report", "junit=out.xml", "--report", "markdown=out.md", *extra, cwd=stack)
    finally:
        for k, v in old.items():
            os.environ.pop(k, None)
            if v is not None:
                os.environ[k] = v
    assert proc.returncode in (0, 1), proc.stderr.decode()
    sarif = json.loads((stack / "out.sarif").read_text())["runs"][0]
    return {
        "json": json.loads(proc.stdout),
        "sarif": sarif,
        "sarif_uris": {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["results"]},
        "github": set(re.findall(r"^::\w+ file=([^,]+),", (stack / "out.github").read_text(), flags=re.M)),
        "gitlab": {i["location"]["path"] for i in json.loads((stack / "out.gitlab.json").read_text())},
        "junit": {m.group(1) for el in ET.parse(stack / "out.xml").iter() if el.tag in ("failure", "skipped")
                  for m in [re.search(r"^At: (.+):\d+$", el.text or "", flags=re.M)] if m},
        "markdown": (stack / "out.md").read_text(),
    }


def test_locations_are_relative_to_the_repository_root(repo):
    got = _reports(repo / "infra" / "prod")
    want = {"modules/queue/main.tf"}
    assert got["sarif_uris"] == want, got["sarif_uris"]
    assert got["github"] == want and got["gitlab"] == want and got["junit"] == want
    assert "modules/queue/main.tf:" in got["markdown"].replace("\\", "")  # Markdown escapes its punctuation
    # one category per stack: two stacks of one repository keep their own code-scanning alerts
    assert got["sarif"]["automationDetails"] == {"id": "sqs-policy/infra/prod/"}


def test_the_stack_reads_its_module_in_the_repository_without_a_flag(repo):
    """The module's source is read (its waiver applies, the DLQ link through a local is known):
    no --source-root needed inside one repository."""
    got = _reports(repo / "infra" / "prod")
    findings = got["json"]["findings"]
    sqs009 = [f for f in findings if f["rule_id"] == "SQS009" and f["address"] == "module.queue.aws_sqs_queue.this"]
    assert sqs009 and sqs009[0].get("waiver"), sqs009
    assert not any(f["rule_id"] in ("SQS002", "SQS003") and f["status"] != "pass" for f in findings), findings
    assert not any("outside --source-dir" in n for n in got["json"]["notes"]), got["json"]["notes"]


def test_a_module_linked_from_outside_the_repository_is_not_read(repo, tmp_path):
    """Never outside the work tree, never through a symlink: a module directory that links out of
    the repository is refused with a note, as --source-root documents."""
    outside = tmp_path / "elsewhere"
    shutil.copytree(repo / "modules" / "queue", outside)
    work = tmp_path / "copy"
    shutil.copytree(repo, work, symlinks=True)
    shutil.rmtree(work / "modules" / "queue")
    (work / "modules" / "queue").symlink_to(outside, target_is_directory=True)
    got = _reports(work / "infra" / "prod")
    assert any("outside" in n for n in got["json"]["notes"]), got["json"]["notes"]
    assert got["sarif_uris"] == {"infra/prod/plan.json"}, got["sarif_uris"]


def test_a_linked_worktree_is_its_own_root(repo, tmp_path):
    wt = tmp_path / "wt"
    _git("worktree", "add", "-q", str(wt), cwd=repo)
    stack = wt / "infra" / "prod"
    shutil.copy(repo / "infra" / "prod" / "plan.json", stack / "plan.json")
    shutil.copytree(repo / "infra" / "prod" / ".terraform", stack / ".terraform", symlinks=True)
    assert (wt / ".git").is_file()
    got = _reports(stack)
    assert got["sarif_uris"] == {"modules/queue/main.tf"} and got["github"] == {"modules/queue/main.tf"}


def test_without_git_the_ci_workspace_or_repo_root_is_the_root(repo, tmp_path):
    export = tmp_path / "export"
    shutil.copytree(repo, export, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    stack = export / "infra" / "prod"
    # a CI that exports the sources without .git: its workspace variable
    assert _reports(stack, env={"GITHUB_WORKSPACE": str(export)})["sarif_uris"] == {"modules/queue/main.tf"}
    assert _reports(stack, env={"CI_PROJECT_DIR": str(export)})["gitlab"] == {"modules/queue/main.tf"}
    # --repo-root says it
    got = _reports(stack, "--repo-root", "../..")
    assert got["sarif_uris"] == {"modules/queue/main.tf"} and got["sarif"]["automationDetails"]["id"] == "sqs-policy/infra/prod/"
    # nothing says it: the module is outside --source-dir, said in a note (and --source-root reads it)
    got = _reports(stack)
    assert got["sarif_uris"] == {"plan.json"}, got["sarif_uris"]
    assert any("--source-root" in n for n in got["json"]["notes"]), got["json"]["notes"]
    assert _reports(stack, "--source-root", "../..")["sarif_uris"] == {"../../modules/queue/main.tf"}


def test_sarif_category_options(repo):
    stack = repo / "infra" / "prod"
    assert _reports(stack, "--category", "terraform/prod")["sarif"]["automationDetails"] == {"id": "terraform/prod/"}
    # empty: left out, so github/codeql-action/upload-sarif's category input applies
    assert "automationDetails" not in _reports(stack, "--category", "")["sarif"]


def test_a_bad_repo_root_is_refused(repo):
    proc = sqs_policy_in_process("check", "plan.json", "--repo-root", "nowhere", cwd=repo / "infra" / "prod")
    assert proc.returncode == 2 and b"--repo-root nowhere: not a directory" in proc.stderr
