"""The committed update-plan fixtures (tests/policies/plans/update/) match the scenarios
that produce them (tests/policies/updates/), and the digest check catches every kind of
change. No LocalStack: the LocalStack tier regenerates a sample (tests/localstack/test_update_plans.py).
"""
from __future__ import annotations

import json
import shutil
import uuid

import pytest

from tests.policies import fixture_plans
from tooling import update_plans
from tooling.terraform import REPO_ROOT

SCENARIOS = [s.name for s in update_plans.scenarios()]


@pytest.mark.parametrize("name", SCENARIOS)
def test_fixture_is_current_and_an_update_plan(name):
    sc = update_plans.load_scenario(update_plans.SCENARIOS / name)
    entry = update_plans.manifest_entry(sc)
    try:
        path = fixture_plans.check(fixture_plans.UPDATE_PLANS, name, entry)
    except fixture_plans.StaleFixture as e:
        path, stale = None, str(e)
    if path is None:
        pytest.fail(stale, pytrace=False)
    doc = json.loads(path.read_text())
    # made against real prior state: objects in prior_state, changes read against them
    prior = doc["prior_state"]["values"]["root_module"]
    assert prior.get("resources") or prior.get("child_modules"), f"{name}: no prior state"
    assert any(rc["change"].get("before") is not None for rc in doc["resource_changes"]), name
    assert not doc.get("errored")
    # no trace of the instance's port: the plan shows LocalStack's default one
    assert not __import__("re").search(r"localstack\.cloud:(?!4566)\d+", path.read_text())


def test_every_fixture_has_a_scenario_and_an_entry():
    manifest = fixture_plans.Manifest.load(fixture_plans.UPDATE_PLANS)
    files = {p.stem for p in fixture_plans.UPDATE_PLANS.glob("*.json") if p.name != fixture_plans.MANIFEST}
    assert set(manifest.fixtures) == files, "MANIFEST.json and the plan files disagree"
    orphans = files - set(SCENARIOS)
    assert not orphans, f"fixtures without a scenario directory (remove them): {sorted(orphans)}"


def test_normalize_replaces_only_the_instance_port():
    text = ('"url": "http://sqs.us-east-1.localhost.localstack.cloud:41587/000000000000/q", '
            '"endpoint": "http://127.0.0.1:41587", "other": "x:41587y", "port": 415870')
    got = update_plans.normalize(text, "http://127.0.0.1:41587")
    assert "localhost.localstack.cloud:4566/000000000000/q" in got and "127.0.0.1:4566" in got
    assert "x:41587y" in got and "415870" in got


@pytest.fixture
def scratch():
    """A scenario-like configuration inside the repository (digests name repo-relative paths)."""
    root = REPO_ROOT / ".cache" / f"fixture-test-{uuid.uuid4().hex[:8]}"
    (root / "cfg").mkdir(parents=True)
    (root / "mod" / "dist").mkdir(parents=True)
    (root / "cfg" / "main.tf").write_text('module "m" {\n  source = "../mod"\n}\n')
    (root / "mod" / "main.tf").write_text('locals {\n  zip = "${path.module}/dist/pkg.zip"\n}\n')
    (root / "mod" / "dist" / "pkg.zip").write_bytes(b"zip")
    (root / "mod" / "notes.md").write_text("not an input")
    (root / "ext").mkdir()
    (root / "ext" / "main.tf").write_text("# external module\n")
    (root / "out").mkdir()
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _entry(root, external_present=True):
    inputs = fixture_plans.terraform_inputs(root / "cfg")
    ext = {"ext-v1": fixture_plans.tree_digest(root / "ext") if external_present else None}
    return fixture_plans.entry(inputs, {"variables": {"a": 1}}, ext, "regen cfg")


def _record(root, entry):
    m = fixture_plans.Manifest.load(root / "out")
    m.fixtures["cfg"] = entry
    m.save()
    (root / "out" / "cfg.json").write_text("{}")


def test_digest_covers_the_configuration_its_modules_and_the_files_they_read(scratch):
    inputs = {str(p.relative_to(scratch)) for p in fixture_plans.terraform_inputs(scratch / "cfg")}
    assert inputs == {"cfg/main.tf", "mod/main.tf", "mod/dist/pkg.zip"}


@pytest.mark.parametrize("change, expect", [
    (lambda r: (r / "mod" / "main.tf").write_text("# edited\n"), "changed: "),
    (lambda r: (r / "mod" / "dist" / "pkg.zip").write_bytes(b"new zip"), "pkg.zip"),
    (lambda r: (r / "cfg" / "extra.tf").write_text("# new\n"), "new: "),
    (lambda r: (r / "ext" / "main.tf").write_text("# v2\n"), "external module ext-v1 changed"),
], ids=["module-file", "file-read-by-module", "new-config-file", "external-module"])
def test_a_changed_input_makes_the_fixture_stale(scratch, change, expect):
    _record(scratch, _entry(scratch))
    assert fixture_plans.check(scratch / "out", "cfg", _entry(scratch)).name == "cfg.json"
    change(scratch)
    with pytest.raises(fixture_plans.StaleFixture) as err:
        fixture_plans.check(scratch / "out", "cfg", _entry(scratch))
    assert expect in str(err.value) and "run `regen cfg`" in str(err.value) and "stale fixture" in str(err.value)


def test_changed_settings_or_missing_entry_are_stale(scratch):
    _record(scratch, _entry(scratch))
    other = fixture_plans.entry(fixture_plans.terraform_inputs(scratch / "cfg"), {"variables": {"a": 2}},
                                {"ext-v1": fixture_plans.tree_digest(scratch / "ext")}, "regen cfg")
    with pytest.raises(fixture_plans.StaleFixture, match="settings changed"):
        fixture_plans.check(scratch / "out", "cfg", other)
    with pytest.raises(fixture_plans.StaleFixture, match="no fixture recorded"):
        fixture_plans.check(scratch / "out", "other", _entry(scratch))
    (scratch / "out" / "cfg.json").unlink()
    with pytest.raises(fixture_plans.StaleFixture, match="missing"):
        fixture_plans.check(scratch / "out", "cfg", _entry(scratch))


def test_an_absent_external_module_is_taken_from_the_manifest_and_the_rest_still_checked(scratch):
    _record(scratch, _entry(scratch))
    absent = _entry(scratch, external_present=False)
    assert fixture_plans.external_status(absent) == ["ext-v1"]
    fixture_plans.check(scratch / "out", "cfg", absent)  # not stale: only the external part is unverifiable
    (scratch / "cfg" / "main.tf").write_text('module "m" {\n  source = "../mod"\n}\n# edited\n')
    with pytest.raises(fixture_plans.StaleFixture, match="cfg/main.tf"):
        fixture_plans.check(scratch / "out", "cfg", _entry(scratch, external_present=False))


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
