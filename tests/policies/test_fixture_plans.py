"""The committed plan fixtures (tests/policies/plans) against what produces them.

Fast tier: each fixture's manifest digest matches its configuration, module files and
variables (a stale one fails with the command that regenerates it). Full tier: each
committed plan equals a fresh `terraform plan` of the same inputs (timestamps and list
order aside), planned with the Terraform and provider versions the manifest records.
"""
from __future__ import annotations

import json
import subprocess

import pytest

from tests.support.helpers import REPO_ROOT
from tests.policies import fixture_plans, plans
from tests.policies.fixture_plans import Manifest


def test_committed_plans_are_current():
    problems = fixture_plans.stale()
    assert problems == [], "\n".join(problems)


def test_every_subject_has_its_own_fixture_file():
    names = [fixture_plans.fixture_name(s) for s in plans.subjects()]
    assert len(set(names)) == len(names)
    assert fixture_plans.fixture_name("config:queue-bad") == "queue-bad"  # the shared convention
    assert fixture_plans.fixture_name("example:basic") == "example-basic"
    assert fixture_plans.fixture_name("bench:3") == "bench-3"


@pytest.mark.plan
@pytest.mark.parametrize("subject", list(plans.subjects()))
def test_committed_plan_equals_a_fresh_plan(fresh_plan_files, subject):
    committed = json.loads(plans.plan_path(subject).read_text())
    fresh = json.loads(fresh_plan_files[subject].read_text())
    assert fixture_plans.normalized(committed) == fixture_plans.normalized(fresh), (
        f"{plans.plan_path(subject).relative_to(REPO_ROOT)} differs from a fresh plan of its inputs: "
        f"run `{fixture_plans.REGENERATE}`")


@pytest.mark.plan
def test_fixtures_were_planned_with_this_terraform_and_provider():
    env = fixture_plans.environment()
    manifest = Manifest.load(fixture_plans.PLANS)
    problems = [p for name in manifest.fixtures if (p := manifest.check_environment(name, env))]
    assert problems == [], "\n".join(problems)


# ------------------------------------------------------------------------------------------
# the helper itself (the manifest format other fixture directories reuse)
# ------------------------------------------------------------------------------------------
def test_configuration_files_follow_local_module_sources():
    files = {str(f.relative_to(REPO_ROOT)) for f in fixture_plans.configuration_files(REPO_ROOT / "examples" / "basic")}
    assert {"examples/basic/main.tf", "main.tf", "variables.tf", "modules/queue/main.tf",
            "modules/dlq-redrive/dist/dlq-redrive.zip"} <= files
    # documentation, tests and files of the repository root other than *.tf are not inputs
    assert not [f for f in files if f.endswith(".md") or "/tests/" in f or f.startswith(("tests/", "docs/"))]
    raw = {str(f.relative_to(REPO_ROOT)) for f in fixture_plans.configuration_files(plans.CONFIGS / "raw-good")}
    assert raw and all(f.startswith("tests/policies/configs/raw-good/") for f in raw)  # no module: only its own files


def test_manifest_names_what_changed_and_the_command(tmp_path, monkeypatch):
    monkeypatch.setattr(fixture_plans, "REPO_ROOT", tmp_path)
    config = tmp_path / "cfg"
    config.mkdir()
    (config / "main.tf").write_text('resource "aws_sqs_queue" "q" {}\n')
    plans_dir = tmp_path / "plans"
    plans_dir.mkdir()
    files = [config / "main.tf"]
    m = Manifest(plans_dir, {})
    assert "not committed yet; run `make fixture-plans`" in m.check_inputs("q", files, {})
    m.record("q", files, {"n": 1}, "make regen-q", environment={"terraform": "Terraform v1"})
    (plans_dir / "q.json").write_text("{}")
    m.save()
    m = Manifest.load(plans_dir)
    assert m.check_inputs("q", files, {"n": 1}) is None
    assert m.check_inputs("q", files, {"n": 2}) == \
        "stale fixture plans/q.json: its inputs changed (file contents or variables); run `make regen-q`"
    (config / "main.tf").write_text('resource "aws_sqs_queue" "q" { name = "x" }\n')
    assert "its inputs changed" in m.check_inputs("q", files, {"n": 1})
    (config / "extra.tf").write_text("")
    assert "(cfg/extra.tf)" in m.check_inputs("q", [*files, config / "extra.tf"], {"n": 1})
    assert m.check_environment("q", {"terraform": "Terraform v1"}) is None
    assert "planned with" in m.check_environment("q", {"terraform": "Terraform v2"})


def test_normalized_ignores_timestamp_and_list_order_only():
    a = {"timestamp": "1", "resource_changes": [{"address": "a", "v": 1}, {"address": "b", "v": 2}], "x": [2, 1]}
    b = {"timestamp": "2", "resource_changes": [{"address": "b", "v": 2}, {"address": "a", "v": 1}], "x": [2, 1]}
    assert fixture_plans.normalized(a) == fixture_plans.normalized(b)
    assert fixture_plans.normalized(a) != fixture_plans.normalized({**b, "x": [1, 2]})  # scalar lists keep order
    c = {**b, "resource_changes": [{"address": "b", "v": 3}, {"address": "a", "v": 1}]}
    assert fixture_plans.normalized(a) != fixture_plans.normalized(c)


def _ignored_by_git(paths: list[str]) -> list[str]:
    """The paths `.gitignore` keeps out of every commit (so out of every fresh clone)."""
    proc = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], cwd=REPO_ROOT, text=True,
                          input="\n".join(paths), capture_output=True)
    assert proc.returncode in (0, 1), proc.stderr  # 1: none ignored
    return proc.stdout.split()


def test_inputs_of_committed_fixtures_are_not_ignored_by_git():
    # A configuration may read a file that exists in the working tree but that .gitignore
    # keeps out of commits (a Lambda zip under dist/, a state fixture): the suite passes
    # here and every fresh clone fails. Every input file of every committed plan, and every
    # file of the data directories the tests read, must be committable.
    update = fixture_plans.PLANS / "update"
    files = {f for directory in (fixture_plans.PLANS, update) if (directory / "MANIFEST.json").exists()
             for fixture in Manifest.load(directory).fixtures.values() for f in fixture.get("files", [])}
    for pattern in ("tests/fixtures/**/*", "examples/*/dist/*", "modules/*/dist/*"):
        files |= {str(p.relative_to(REPO_ROOT)) for p in REPO_ROOT.glob(pattern)
                  if p.is_file() and "__pycache__" not in p.parts and ".terraform" not in p.parts}
    assert files
    ignored = _ignored_by_git(sorted(files))
    assert ignored == [], ("needed by the tests but ignored by .gitignore, so missing from every clone: "
                           + ", ".join(ignored) + " (add a `!path` exception to .gitignore and commit them)")
