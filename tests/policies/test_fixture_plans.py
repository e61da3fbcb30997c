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


# ------------------------------------------------------------------------------------------
# the provider file a fixture configuration is planned with (kept once per kind)
# ------------------------------------------------------------------------------------------
def test_no_fixture_carries_a_provider_file_of_its_own():
    from tooling import terraform, update_plans

    configs = [plans.CONFIGS / n for n in plans.fixture_names()]
    scenarios = update_plans.scenario_dirs()
    assert len(configs) >= 20 and len(scenarios) >= 30
    for directory in [*configs, *scenarios]:
        shared = terraform.supplied_provider(directory)  # raises on a providers.tf of its own
        assert shared == directory.parent / "_provider" / "providers.tf" and shared.is_file(), directory
    assert plans.CONFIGS / "_provider" not in configs and plans.CONFIGS / "_provider" not in scenarios
    # examples, modules and module fixtures carry their own providers: nothing is added
    assert terraform.supplied_provider(REPO_ROOT / "examples" / "basic") is None
    assert terraform.supplied_provider(REPO_ROOT / "modules" / "queue") is None


@pytest.fixture
def fixture_root(monkeypatch):
    """A fixture root inside the repository (digests name repo-relative paths), with its
    shared provider file and one fixture configuration."""
    import shutil
    import uuid

    from tooling import terraform

    root = REPO_ROOT / ".cache" / f"provider-test-{uuid.uuid4().hex[:8]}" / "configs"
    (root / "_provider").mkdir(parents=True)
    (root / "demo").mkdir()
    (root / "_provider" / "providers.tf").write_text('provider "aws" {\n  region = "us-east-1"\n}\n')
    (root / "demo" / "main.tf").write_text('resource "aws_sqs_queue" "q" {}\n')
    monkeypatch.setattr(terraform, "FIXTURE_ROOTS", (root,))
    yield root
    shutil.rmtree(root.parent, ignore_errors=True)


def test_supplied_provider_is_digested_as_if_it_lay_in_the_fixture(fixture_root):
    demo, shared = fixture_root / "demo", fixture_root / "_provider" / "providers.tf"
    supplied = fixture_plans.supplied_files(demo)
    assert supplied == [(demo / "providers.tf", shared)]
    inputs = [*fixture_plans.configuration_files(demo), *supplied]
    with_supplied = fixture_plans.digest(inputs, {"v": 1})
    m = Manifest(fixture_root, {})
    m.record("demo", inputs, {"v": 1}, "make fixture-plans")
    assert m.fixtures["demo"]["files"][-1].endswith("configs/demo/providers.tf")
    # the same bytes in the directory itself: the same digest (a copy moved out stays valid)
    (demo / "providers.tf").write_bytes(shared.read_bytes())
    assert fixture_plans.digest(fixture_plans.configuration_files(demo), {"v": 1}) == with_supplied
    (demo / "providers.tf").unlink()
    # an edit of the shared file makes the fixture stale
    shared.write_text(shared.read_text() + "# edited\n")
    assert fixture_plans.digest(inputs, {"v": 1}) != with_supplied
    assert m.check_inputs("demo", inputs, {"v": 1}) is not None


def test_a_fixture_with_its_own_provider_file_is_refused_by_name(fixture_root):
    from tooling import terraform

    demo = fixture_root / "demo"
    (demo / "providers.tf").write_text("")
    with pytest.raises(terraform.FixtureProviderError) as e:
        terraform.supplied_provider(demo)
    rel = str(fixture_root.relative_to(REPO_ROOT))
    assert str(e.value).startswith(f"{rel}/demo/providers.tf: fixture configurations under {rel}/")
    assert f"{rel}/_provider/providers.tf" in str(e.value) and "remove this file" in str(e.value)


def test_a_planning_copy_of_a_fixture_gets_the_provider_file_and_others_do_not(fixture_root):
    import shutil

    from tooling import terraform

    demo = fixture_root / "demo"
    work = terraform.copy_config(demo)
    try:
        assert sorted(p.name for p in work.iterdir()) == ["main.tf", "providers.tf"]
        assert (work / "providers.tf").read_bytes() == (fixture_root / "_provider" / "providers.tf").read_bytes()
        # the same depth below the repository as the fixture (relative module sources resolve)
        assert len(work.relative_to(REPO_ROOT).parts) == len(demo.relative_to(REPO_ROOT).parts)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    work = terraform.offline_copy(REPO_ROOT / "examples" / "basic")
    try:
        # an example keeps its own provider file, with the offline override beside it
        assert (work / "providers.tf").read_bytes() == (REPO_ROOT / "examples" / "basic" / "providers.tf").read_bytes()
        assert (work / "offline_override.tf").exists()
    finally:
        shutil.rmtree(work, ignore_errors=True)
