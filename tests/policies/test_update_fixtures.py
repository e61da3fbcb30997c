"""The committed update-plan fixtures (tests/policies/plans/update/) match the scenarios
that produce them (tests/policies/updates/), with the manifest format of
tests/policies/fixture_plans.py. No LocalStack: the LocalStack tier regenerates a sample
(tests/policies/test_update_plans.py)."""
from __future__ import annotations

import re
import shutil
import uuid

import pytest

from tests.policies import fixture_plans
from tooling import update_plans
from tooling.terraform import REPO_ROOT

SCENARIOS = fixture_plans.update_plan_names()


@pytest.mark.parametrize("name", SCENARIOS)
def test_fixture_is_current_and_an_update_plan(name):
    try:
        doc = fixture_plans.update_plan(name)
    except fixture_plans.StaleFixture as e:
        doc, stale = None, str(e)
    if doc is None:
        pytest.fail(stale, pytrace=False)
    # made against real prior state: objects in prior_state, changes read against them
    prior = doc["prior_state"]["values"]["root_module"]
    assert prior.get("resources") or prior.get("child_modules"), f"{name}: no prior state"
    assert any(rc["change"].get("before") is not None for rc in doc["resource_changes"]), name
    assert not doc.get("errored")
    # no trace of the instance's port: the plan shows LocalStack's default one
    text = fixture_plans.Manifest.load(fixture_plans.UPDATE_PLANS).path(name).read_text()
    assert not re.search(r"localstack\.cloud:(?!4566)\d+", text)


def test_every_fixture_has_a_scenario_and_an_entry():
    manifest = fixture_plans.Manifest.load(fixture_plans.UPDATE_PLANS)
    files = {p.stem for p in fixture_plans.UPDATE_PLANS.glob("*.json") if p.name != "MANIFEST.json"}
    assert set(manifest.fixtures) == files, "MANIFEST.json and the plan files disagree"
    orphans = files - set(SCENARIOS)
    assert not orphans, f"fixtures without a scenario directory (remove them): {sorted(orphans)}"
    for name, entry in manifest.fixtures.items():
        assert entry["regenerate"] == f"{update_plans.COMMAND} {name}"
        assert entry["environment"]["terraform"].startswith("Terraform v") and entry["localstack"]


def test_normalize_replaces_only_the_instance_port():
    text = ('"url": "http://sqs.us-east-1.localhost.localstack.cloud:41587/000000000000/q", '
            '"endpoint": "http://127.0.0.1:41587", "other": "x:41587y", "port": 415870')
    got = update_plans.normalize(text, "http://127.0.0.1:41587")
    assert "localhost.localstack.cloud:4566/000000000000/q" in got and "127.0.0.1:4566" in got
    assert "x:41587y" in got and "415870" in got


@pytest.fixture
def scratch(monkeypatch):
    """A scenario inside the repository (digests name repo-relative paths): common and
    per-phase files, a local module called from a phase file, an external module."""
    root = REPO_ROOT / ".cache" / f"update-fixture-test-{uuid.uuid4().hex[:8]}"
    sc_dir = root / "scenarios" / "demo"
    (sc_dir / "after").mkdir(parents=True)
    (root / "mod" / "dist").mkdir(parents=True)
    (root / "modules-dir" / "ext-v1").mkdir(parents=True)
    (sc_dir / "scenario.json").write_text('{"description": "demo", "after": {"variables": {"n": 2}}, '
                                          '"external_modules": {"external/ext": "ext-v1"}}')
    (sc_dir / "main.tf").write_text('variable "n" {\n  default = 1\n}\n')
    # sources are relative to the scenario directory, also from a phase directory
    (sc_dir / "after" / "mod.tf").write_text('module "m" {\n  source = "../../mod"\n}\n\n'
                                             'module "e" {\n  source = "./external/ext"\n}\n')
    (root / "mod" / "main.tf").write_text("# module\n")
    (root / "mod" / "dist" / "pkg.zip").write_bytes(b"zip")
    (root / "modules-dir" / "ext-v1" / "main.tf").write_text("# external module\n")
    monkeypatch.setattr(update_plans, "OUT", root / "out")
    yield root, update_plans.load_scenario(sc_dir), str(root / "modules-dir")
    shutil.rmtree(root, ignore_errors=True)


def _record(sc, modules_dir):
    update_plans.write(sc, {"format_version": "1.2"}, {"localstack": "test"}, update_plans.inputs(sc, modules_dir),
                       {"terraform": "Terraform vX", "providers": {}})


def test_inputs_follow_sources_from_phase_directories_and_leave_external_modules_out(scratch):
    root, sc, mdir = scratch
    files = {str(p.relative_to(root)) for p in update_plans.scenario_files(sc)}
    assert files == {"scenarios/demo/scenario.json", "scenarios/demo/main.tf", "scenarios/demo/after/mod.tf",
                     "mod/main.tf", "mod/dist/pkg.zip"}
    _, variables, external = update_plans.inputs(sc, mdir)
    assert variables == {"before": {}, "after": {"n": 2}}
    assert external["ext-v1"].startswith("sha256:")


@pytest.mark.parametrize("change, expect", [
    (lambda r: (r / "mod" / "main.tf").write_text("# edited\n"), "inputs changed"),
    (lambda r: (r / "mod" / "dist" / "pkg.zip").write_bytes(b"new zip"), "inputs changed"),
    (lambda r: (r / "scenarios" / "demo" / "after" / "extra.tf").write_text("# new\n"), "after/extra.tf"),
    (lambda r: (r / "modules-dir" / "ext-v1" / "main.tf").write_text("# v2\n"), "inputs changed"),
], ids=["module-file", "module-package", "new-phase-file", "external-module"])
def test_a_changed_input_makes_the_fixture_stale(scratch, change, expect):
    root, sc, mdir = scratch
    _record(sc, mdir)
    assert update_plans.stale_reason(sc, mdir) is None
    change(root)
    why = update_plans.stale_reason(update_plans.load_scenario(sc.directory), mdir)
    assert why and why.startswith("stale fixture") and expect in why
    assert why.endswith(f"run `{update_plans.COMMAND} demo`")


def test_an_absent_external_module_is_taken_from_the_manifest_and_the_rest_still_checked(scratch, tmp_path):
    root, sc, mdir = scratch
    _record(sc, mdir)
    nowhere = str(tmp_path)  # the external module is not found there (nor in the default places)
    assert update_plans.inputs(sc, nowhere)[2] == {"ext-v1": None}
    assert update_plans.stale_reason(sc, nowhere) is None
    (root / "mod" / "main.tf").write_text("# edited\n")
    assert "inputs changed" in update_plans.stale_reason(sc, nowhere)


def test_missing_fixture_is_stale(scratch):
    root, sc, mdir = scratch
    assert "not committed yet" in update_plans.stale_reason(sc, mdir)


def test_malformed_scenarios_are_refused_by_name(tmp_path):
    d = tmp_path / "bad"
    d.mkdir()
    with pytest.raises(update_plans.ScenarioError, match="no scenario.json"):
        update_plans.load_scenario(d)
    (d / "scenario.json").write_text('{"description": "x", "befor": {}}')
    with pytest.raises(update_plans.ScenarioError, match="unknown key.*befor"):
        update_plans.load_scenario(d)
    (d / "scenario.json").write_text('{"description": "x"}')
    with pytest.raises(update_plans.ScenarioError, match="before configuration has no"):
        update_plans.load_scenario(d)
    (d / "main.tf").write_text("")
    (d / "after").mkdir()
    (d / "after" / "main.tf").write_text("")
    with pytest.raises(update_plans.ScenarioError, match="repeats common file"):
        update_plans.load_scenario(d).files("after")


def test_a_scenario_is_planned_with_the_shared_localstack_provider_file():
    shared = update_plans.SCENARIOS / "_provider" / "providers.tf"
    sc = update_plans.load_scenario(update_plans.SCENARIOS / "raw-queue-rename")
    for phase in update_plans.PHASES:
        files = sc.files(phase)
        assert files[-1] == shared and [f.name for f in files].count("providers.tf") == 1
    # the shared file declares var.name_prefix: the scenario's resources are named with its name
    assert "name_prefix" in sc.declared("before") and sc.phase_variables("before")["name_prefix"] == "raw-queue-rename"
    inputs = update_plans.scenario_files(sc)
    assert (sc.directory.resolve() / "providers.tf", shared) in inputs


def test_a_scenario_with_its_own_provider_file_is_refused(monkeypatch):
    from tooling import terraform

    root = REPO_ROOT / ".cache" / f"update-provider-test-{uuid.uuid4().hex[:8]}" / "updates"
    try:
        (root / "_provider").mkdir(parents=True)
        (root / "_provider" / "providers.tf").write_text("")
        (root / "demo" / "after").mkdir(parents=True)
        (root / "demo" / "scenario.json").write_text('{"description": "demo"}')
        (root / "demo" / "main.tf").write_text("")
        monkeypatch.setattr(terraform, "FIXTURE_ROOTS", (root,))
        sc = update_plans.load_scenario(root / "demo")
        assert sc.files("before")[-1] == root / "_provider" / "providers.tf"
        (root / "demo" / "after" / "providers.tf").write_text("")
        with pytest.raises(update_plans.ScenarioError, match=r"^demo: after/providers.tf clashes with the shared"):
            update_plans.load_scenario(root / "demo")
        (root / "demo" / "after" / "providers.tf").unlink()
        (root / "demo" / "providers.tf").write_text("")
        with pytest.raises(update_plans.ScenarioError, match=r"^demo: .*demo/providers.tf: fixture configurations under"):
            update_plans.load_scenario(root / "demo")
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)
