"""Every plan Terraform writes is read, never refused as edited.

The plan-feature fixtures (tests/policies/plans/features/, made by tooling/plan_features.py
with the real terraform binary and the mirrored AWS provider from the configurations in
tests/policies/features/) hold one real plan per plan feature. Each must be current (its
inputs' digest), must show the feature it was made for (so a configuration that stopped
producing it is noticed), and must be read by the loader and checked by the CLI (exit 0 or 1).
Plans Terraform versions write differently (a ``forget`` in planned_values before 1.15.6,
hashicorp/terraform#38641) are read in both shapes; disagreements Terraform never writes stay
refused."""
from __future__ import annotations

import copy
import json

import pytest

from resilient_sqs.policy import loader
from resilient_sqs.policy.errors import InputError
from tests.policies import fixture_plans
from tests.support.helpers import sqs_policy_in_process
from tooling import plan_features

OUT = plan_features.OUT
MANIFEST = fixture_plans.Manifest.load(OUT)
NAMES = sorted(MANIFEST.fixtures)


def _plan(name: str) -> dict:
    return json.loads(MANIFEST.path(name).read_text())


def _changes(doc: dict) -> list[dict]:
    return doc.get("resource_changes") or []


def _acts(doc: dict) -> dict[str, list[str]]:
    return {rc["address"] + (f" deposed {rc['deposed']}" if rc.get("deposed") else ""): rc["change"]["actions"]
            for rc in _changes(doc)}


def _planned(doc: dict) -> dict[str, dict]:
    out, stack = {}, [(doc.get("planned_values") or {}).get("root_module") or {}]
    while stack:
        m = stack.pop()
        out.update({r["address"]: r for r in m.get("resources") or ()})
        stack.extend(m.get("child_modules") or ())
    return out


def _reasons(doc: dict) -> set[str]:
    return {rc.get("action_reason") for rc in _changes(doc)} - {None}


# What each feature's plan shows: Terraform's own shape of the feature, asserted on the fixture.
SHOWS = {
    "create": lambda d: _acts(d) and all(a == ["create"] for a in _acts(d).values()),
    "update-replace-delete": lambda d: {("no-op",), ("update",), ("create",), ("delete",), ("delete", "create"),
                                        ("create", "delete")} <= {tuple(a) for a in _acts(d).values()},
    "replace-option": lambda d: "replace_by_request" in _reasons(d),
    "destroy": lambda d: _acts(d) and all(a == ["delete"] for a in _acts(d).values()) and not _planned(d),
    "refresh-only": lambda d: all(a == ["no-op"] for a in _acts(d).values()) and d["prior_state"],
    "refresh-false": lambda d: "delete_because_no_resource_config" in _reasons(d),
    "target": lambda d: "terraform_data.other" not in _acts(d) and "aws_sqs_queue.untargeted" not in _acts(d),
    "moved": lambda d: sum(1 for rc in _changes(d) if rc.get("previous_address")) == 3,
    "removed-forget": lambda d: [a for a in _acts(d).values() if a == ["forget"]] == [["forget"]] * 2
    and {a for a, r in _planned(d).items() if "values" not in r} == {"terraform_data.handed_over", "module.old.terraform_data.x"},
    "removed-destroy": lambda d: [a for a in _acts(d).values() if a == ["delete"]] == [["delete"]] * 2,
    "import": lambda d: sum(1 for rc in _changes(d) if rc.get("change", {}).get("importing")) == 3,
    "import-generate-config": lambda d: any(rc["change"].get("generated_config") for rc in _changes(d)),
    "check-blocks": lambda d: {c["status"] for c in d.get("checks", [])} >= {"pass", "fail", "unknown"},
    "data-sources": lambda d: {"read_because_config_unknown", "read_because_dependency_pending"} <= _reasons(d)
    and any(r["mode"] == "data" for r in _planned(d).values()),
    "replace-triggered-by": lambda d: "replace_by_triggers" in _reasons(d),
    "sensitive": lambda d: any(rc["change"].get("before_sensitive") and rc["change"].get("after_sensitive")
                               for rc in _changes(d)) and any(o.get("sensitive") for o in d["planned_values"]["outputs"].values()),
    "count-zero": lambda d: set(_acts(d)) == {"aws_sqs_queue.jobs"},
    "module-for-each": lambda d: 'module.pair["say \\"hi\\""].module.dlq[0].aws_sqs_queue.this' in _acts(d)
    and 'module.pair["größe"].aws_sqs_queue.this' in _acts(d) and 'module.pair["back\\\\slash"].aws_sqs_queue.this' in _acts(d),
    "write-only-ephemeral": lambda d: all(_planned(d)[a]["values"]["value_wo"] is None for a in _planned(d)
                                          if a.startswith("aws_ssm_parameter.")) and len(_planned(d)) == 4,
    "errored": lambda d: d.get("errored") is True and d.get("applyable") is False and _changes(d),
    "deposed": lambda d: [rc["change"]["actions"] for rc in _changes(d) if rc.get("deposed")] == [["delete"]]
    and len({rc["address"] for rc in _changes(d)}) == 1 < len(_changes(d)),
    "no-changes": lambda d: _acts(d) and all(a == ["no-op"] for a in _acts(d).values()),
    "empty": lambda d: not _changes(d) and not _planned(d),
    "outputs-only": lambda d: all(a == ["no-op"] for a in _acts(d).values())
    and {o["actions"][0] for o in d["output_changes"].values()} >= {"create", "update", "delete"},
    "sqs-removed-forget": lambda d: sum(1 for a in _acts(d).values() if a == ["forget"]) == 2
    and sum(1 for rc in _changes(d) if rc.get("previous_address")) == 2 and not any("delete" in a for a in _acts(d).values()),
    "sqs-moved": lambda d: sorted(rc["previous_address"] for rc in _changes(d) if rc.get("previous_address")) == [
        "aws_sqs_queue.audit", 'module.pairs["orders"].aws_sqs_queue.dlq', 'module.pairs["orders"].aws_sqs_queue.this']
    and all(a == ["no-op"] for a in _acts(d).values()),
    "sqs-moved-before": lambda d: set(_acts(d)) == {"aws_sqs_queue.audit", 'module.pairs["orders"].aws_sqs_queue.dlq',
                                                    'module.pairs["orders"].aws_sqs_queue.this'}
    and all(a == ["no-op"] for a in _acts(d).values()) and d["prior_state"],
    "sqs-import": lambda d: sum(1 for rc in _changes(d) if rc["change"].get("importing")) == 2,
    "sqs-refresh-only-drift": lambda d: d.get("resource_drift") and all(a == ["no-op"] for a in _acts(d).values()),
    "sqs-destroy": lambda d: sum(1 for rc in _changes(d) if rc["type"] == "aws_sqs_queue"
                                 and rc["change"]["actions"] == ["delete"]) == 2,
}


def test_every_feature_has_a_fixture_and_a_shape():
    features = {ft.name for ft in plan_features.features()}
    files = {p.stem for p in OUT.glob("*.json") if p.name != "MANIFEST.json"}
    assert set(MANIFEST.fixtures) == files, "MANIFEST.json and the plan files disagree"
    assert features == files, f"features without a fixture: {sorted(features - files)}; fixtures without a feature: " \
                              f"{sorted(files - features)} (run `{plan_features.COMMAND} --stale`)"
    assert set(SHOWS) == features, f"say what each feature's plan shows: {sorted(features ^ set(SHOWS))}"


@pytest.mark.parametrize("name", NAMES)
def test_fixture_is_current_and_shows_its_feature(name):
    why = plan_features.stale_reason(plan_features.load_feature(plan_features.FEATURES / name))
    if why:
        pytest.fail(why, pytrace=False)
    entry = MANIFEST.fixtures[name]
    assert entry["environment"]["terraform"].startswith("Terraform v")
    doc = _plan(name)
    assert SHOWS[name](doc), f"{name}: the plan no longer shows {entry['description']!r}"
    assert doc.get("errored", False) is (entry["plan_exit"] != 0)


@pytest.mark.parametrize("name", NAMES)
def test_loader_reads_every_real_plan(name):
    path = str(MANIFEST.path(name))
    doc = _plan(name)
    assert loader.views_disagree(doc) is None
    if doc.get("errored"):
        # incomplete by Terraform's own word: said as such, never as an edited or malformed file
        try:
            loader.load(path)
        except InputError as e:
            assert "errored" in str(e) and "disagree" not in str(e) and "well-formed" not in str(e), str(e)
        return
    assert loader.load(path)["format_version"] == doc["format_version"]


@pytest.mark.parametrize("name", NAMES)
def test_checker_judges_every_real_plan(name):
    proc = sqs_policy_in_process("check", str(MANIFEST.path(name)), "--no-source", "--format", "json")
    if _plan(name).get("errored") and proc.returncode == 2:
        assert b"errored" in proc.stderr, proc.stderr
        return
    assert proc.returncode in (0, 1), proc.stderr.decode()
    assert json.loads(proc.stdout)["summary"]


# -- forget: the two shapes Terraform versions write ------------------------------------------------------
def _as_terraform_1_15_6(doc: dict) -> dict:
    """The plan as Terraform 1.15.6 and later write it: internal/command/jsonplan/values.go
    skips a Forget change in marshalPlannedValues/marshalPlanResources as it skips a Delete
    (hashicorp/terraform#38665), so the forgotten resources, and modules left empty, are absent."""
    new = copy.deepcopy(doc)
    gone = {rc["address"] for rc in _changes(doc) if rc["change"]["actions"] == ["forget"]}

    def prune(m):
        m["resources"] = [r for r in m.get("resources", []) if r["address"] not in gone]
        m["child_modules"] = [c for c in m.get("child_modules", []) if prune(c)]
        for k in ("resources", "child_modules"):
            if not m[k]:
                del m[k]
        return bool(m)

    prune(new["planned_values"]["root_module"])
    return new


@pytest.mark.parametrize("name", ["removed-forget", "sqs-removed-forget"])
def test_forget_is_read_in_both_shapes(name, tmp_path):
    old = _plan(name)
    forgotten = {rc["address"] for rc in _changes(old) if rc["change"]["actions"] == ["forget"]}
    assert forgotten and forgotten <= set(_planned(old)), "Terraform 1.11 lists forgotten resources in planned_values"
    new = _as_terraform_1_15_6(old)
    assert not forgotten & set(_planned(new))
    outs = []
    for shape, doc in (("old", old), ("new", new)):
        p = tmp_path / f"{shape}.json"
        p.write_text(json.dumps(doc))
        loaded = loader.load(str(p))
        assert not forgotten & set(_planned(loaded)), f"{shape}: a forgotten resource is still read as planned"
        proc = sqs_policy_in_process("check", str(p), "--no-source", "--format", "json")
        assert proc.returncode in (0, 1), proc.stderr.decode()
        report = json.loads(proc.stdout)
        outs.append(sorted((f["rule_id"], f["address"], f["status"]) for f in report["findings"]))
        assert not any(f["address"] in forgotten for f in report["findings"]), f"{shape}: judged a forgotten resource"
    assert outs[0] == outs[1], "the two shapes of one plan are judged alike"


def _write(tmp_path, doc) -> str:
    p = tmp_path / "plan.json"
    p.write_text(json.dumps(doc))
    return str(p)


def _refused(tmp_path, doc, *words):
    with pytest.raises(InputError) as e:
        loader.load(_write(tmp_path, doc))
    assert "two views of the plan disagree" in str(e.value)
    for w in words:
        assert w in str(e.value), str(e.value)


def test_forgotten_resource_with_planned_values_is_refused(tmp_path):
    """Terraform lists a forgotten resource in planned_values without values or not at all: one
    with values would be judged as if it stayed, so it is an edit."""
    doc = _plan("removed-forget")
    entry = _planned(doc)["terraform_data.handed_over"]
    rc = next(rc for rc in _changes(doc) if rc["address"] == "terraform_data.handed_over")
    entry["values"] = rc["change"]["before"]
    _refused(tmp_path, doc, "terraform_data.handed_over", "will be forget with nothing after it", "with values")


def test_deleted_resource_still_in_planned_values_is_refused_for_real_plans(tmp_path):
    doc = _plan("removed-destroy")
    rc = next(rc for rc in _changes(doc) if rc["change"]["actions"] == ["delete"])
    doc["planned_values"]["root_module"].setdefault("resources", []).append(
        {"address": rc["address"], "mode": "managed", "type": rc["type"], "name": rc["name"], "values": rc["change"]["before"]})
    _refused(tmp_path, doc, "will be delete with nothing after it")


def test_deposed_object_listed_twice_is_refused(tmp_path):
    doc = _plan("deposed")
    doc["resource_changes"].append(copy.deepcopy(next(rc for rc in _changes(doc) if rc.get("deposed"))))
    _refused(tmp_path, doc, "deposed object", "twice")


def test_deposed_object_with_values_after_is_refused(tmp_path):
    doc = _plan("deposed")
    current = next(rc for rc in _changes(doc) if not rc.get("deposed"))
    dep = next(rc for rc in _changes(doc) if rc.get("deposed"))
    dep["change"]["after"] = current["change"]["after"]
    _refused(tmp_path, doc, "a deposed object can only be destroyed")


def test_current_object_listed_twice_is_still_refused(tmp_path):
    doc = _plan("deposed")
    dep = next(rc for rc in _changes(doc) if rc.get("deposed"))
    del dep["deposed"]
    _refused(tmp_path, doc, "lists terraform_data.worker twice")


def test_deposed_object_is_not_judged_as_the_address(tmp_path):
    """The current object's replacement is the change of the address; the deposed object's delete
    is not a second change of it (changed-only reads it as changed, never as deleted)."""
    from resilient_sqs.policy.changes import Changes
    from resilient_sqs.policy.changes_only import changed_addresses

    doc = _plan("deposed")
    ch = Changes(doc)
    assert [c.actions for c in ch.items] == [["create", "delete"]]
    changed, deleted, _s, _i = changed_addresses(doc)
    assert changed == {"terraform_data.worker"} and not deleted


# -- the tool itself, with real Terraform ------------------------------------------------------------------
@pytest.mark.plan
@pytest.mark.parametrize("name", ["create", "import"])
def test_tool_reproduces_the_committed_plan(name):
    """The committed fixture is what the tool makes with this machine's Terraform and provider
    (features without random IDs: a plan of them is the same plan every time)."""
    env = fixture_plans.environment()
    problem = MANIFEST.check_environment(name, env)
    if problem:
        pytest.fail(problem, pytrace=False)
    doc, made_with = plan_features.generate(plan_features.load_feature(plan_features.FEATURES / name))
    assert made_with["plan_exit"] == 0
    assert fixture_plans.normalized(doc) == fixture_plans.normalized(_plan(name))


def test_a_malformed_feature_is_refused_with_what_to_fix(tmp_path):
    d = tmp_path / "bad"
    d.mkdir()
    cases = [
        ("{}", "needs a description"),
        ('{"description": "x", "provider": "aws"}', "provider 'aws' is not one of"),
        ('{"description": "x", "steps": [{"plan": ""}, {"apply": ""}]}', "the last step, and only it, must be a plan step"),
        ('{"description": "x", "steps": [{"plan": "", "args": ["-out=x"]}]}', "may not set -out"),
        ('{"description": "x", "steps": [{"apply": "before"}, {"plan": ""}]}', "phase directory before/ does not exist"),
        ('{"description": "x", "colour": 1}', "unknown key(s) ['colour']"),
    ]
    for text, words in cases:
        (d / "feature.json").write_text(text)
        with pytest.raises(plan_features.FeatureError) as e:
            plan_features.load_feature(d)
        assert words in str(e.value), (text, str(e.value))


def test_a_partial_plan_is_said_and_refused_under_strict(tmp_path):
    """Issue #30 §6, on Terraform's own plans: a -target plan (complete: false) is checked with a
    note in every report that says it is partial; --strict refuses it (exit 2, one line); an
    errored plan is refused with or without --strict; a plan with nothing to change
    (applyable: false, complete: true) is whole. A plan with deferred changes (written by hand:
    the deferral is an experiment of Terraform's alpha builds) names them."""
    import json

    from tests.support.policy_cli import cli

    target = str(MANIFEST.path("target"))
    proc = cli("check", target, "--no-source", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert any("partial" in n and "-target" in n for n in json.loads(proc.stdout)["notes"])
    proc = cli("check", target, "--no-source", "--format", "github")
    assert b"::notice title=sqs-policy::the plan is partial" in proc.stdout
    proc = cli("check", target, "--no-source", "--strict")
    assert proc.returncode == 2 and proc.stdout == b"" and b"partial" in proc.stderr
    assert len(proc.stderr.splitlines()) == 1
    for strict in ((), ("--strict",)):
        proc = cli("check", str(MANIFEST.path("errored")), "--no-source", *strict)
        assert proc.returncode == 2 and b"errored" in proc.stderr
    proc = cli("check", str(MANIFEST.path("no-changes")), "--no-source", "--strict", "--format", "json")
    assert proc.returncode == 0 and not any("partial" in n for n in json.loads(proc.stdout)["notes"])
    doc = json.loads(MANIFEST.path("create").read_text())
    doc["complete"] = False
    doc["deferred_changes"] = [{"reason": "resource_config_unknown", "resource_change": {
        "address": f'aws_sqs_queue.later["{i}"]'}} for i in range(5)]
    p = tmp_path / "deferred.json"
    p.write_text(json.dumps(doc))
    proc = cli("check", str(p), "--no-source")
    assert proc.returncode in (0, 1) and b'5 change(s) are deferred' in proc.stdout
    assert b'aws_sqs_queue.later["0"]' in proc.stdout and b"and 2 more" in proc.stdout
    assert cli("check", str(p), "--no-source", "--strict").returncode == 2
