"""Baselines: record today's findings, fail only on new ones, report the fixed ones."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from tests.support.helpers import sqs_policy_in_process as cli  # main() in this process: the answers are judged
from tests.policies import plans
from tests.support.policy_cli import _one_line_error

PLAN = "tests/policies/plans/queue-bad.json"


def _edit(doc: dict, address: str, **values) -> dict:
    """The plan with one resource's planned values changed (in planned_values and resource_changes)."""
    doc = copy.deepcopy(doc)
    hits = 0
    for rc in doc["resource_changes"]:
        if rc["address"] == address:
            rc["change"]["after"].update(values)
            hits += 1
    for r in doc["planned_values"]["root_module"]["resources"]:
        if r["address"] == address:
            r["values"].update(values)
            hits += 1
    assert hits == 2, address
    return doc


def _check(plan: Path, *args: str) -> tuple[int, dict]:
    proc = cli("check", str(plan), "--format", "json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_only_the_new_finding_counts(tmp_path):
    base = tmp_path / "baseline.json"
    proc = cli("baseline", PLAN, "-o", str(base))
    assert proc.returncode == 0 and proc.stdout == b"", proc.stderr
    assert "19 finding(s) recorded" in proc.stderr.decode()
    data = json.loads(base.read_text())
    assert data["sqs-policy-baseline"] == "1.1" and sum(e["count"] for e in data["findings"]) == 19
    # the same plan: everything baselined, exit 0
    rc, out = _check(Path(PLAN), "--baseline", str(base))
    assert rc == 0 and out["summary"]["errors"] == 0 and out["summary"]["baselined"] == 19
    assert {f["baseline"] for f in out["findings"]} == {"unchanged"}
    # one resource changes: encryption switched off on a queue that passed -> exactly one new finding
    doc = plans.load("config:queue-bad")
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(_edit(doc, 'aws_sqs_queue.src["ok"]', sqs_managed_sse_enabled=False)))
    rc, out = _check(changed, "--baseline", str(base))
    new = [f for f in out["findings"] if f["baseline"] == "new"]
    assert rc == 1 and out["summary"]["errors"] == 1 and out["summary"]["baselined"] == 19
    assert [(f["rule_id"], f["address"]) for f in new] == [("SQS001", 'aws_sqs_queue.src["ok"]')]
    assert out["baseline"]["fixed"] == []
    # without the baseline all 20 count
    rc, out = _check(changed)
    assert out["summary"]["errors"] + out["summary"]["warnings"] + out["summary"]["unknown"] == 20


def test_fixed_findings_are_reported_and_update_shrinks(tmp_path):
    base = tmp_path / "b.json"
    assert cli("baseline", PLAN, "-o", str(base)).returncode == 0
    doc = plans.load("config:queue-bad")
    # fix one finding (encryption on the plain DLQ) and break another resource
    doc = _edit(doc, 'aws_sqs_queue.dlq["plaindlq"]', sqs_managed_sse_enabled=True)
    doc = _edit(doc, 'aws_sqs_queue.src["ok"]', sqs_managed_sse_enabled=False)
    p = tmp_path / "p.json"
    p.write_text(json.dumps(doc))
    rc, out = _check(p, "--baseline", str(base))
    assert rc == 1
    # encrypting the DLQ fixes its own SQS001 and its source's SQS006 (source encrypted, DLQ not)
    assert [(e["rule"], e["address"]) for e in out["baseline"]["fixed"]] == [
        ("SQS001", 'aws_sqs_queue.dlq["plaindlq"]'), ("SQS006", 'aws_sqs_queue.src["plaindlq"]')]
    text = cli("check", str(p), "--baseline", str(base)).stdout.decode()
    assert 'FIXED   SQS001 queue-encryption  aws_sqs_queue.dlq["plaindlq"]' in text
    assert "1 error(s)" in text and "17 baselined, 2 fixed" in text
    sarif = json.loads(cli("check", str(p), "--baseline", str(base), "--format", "sarif").stdout)
    from tests.support.policy_reports import SARIF

    SARIF.validate(sarif)  # the absent (fixed) results too
    states = [r["baselineState"] for r in sarif["runs"][0]["results"]]
    assert states.count("new") == 1 and states.count("unchanged") == 17 and states.count("absent") == 2
    # --update drops the fixed one and does not add the new one
    proc = cli("baseline", str(p), "-o", str(base), "--update")
    assert proc.returncode == 0, proc.stderr
    assert "17 finding(s) kept, 2 fixed one(s) removed, 1 new one(s) not added" in proc.stderr.decode()
    rc, out = _check(p, "--baseline", str(base))
    assert rc == 1 and out["baseline"]["fixed"] == [] and out["summary"]["baselined"] == 17


def test_the_key_is_not_the_message(tmp_path):
    """Rewording (here: a recorded message that no longer matches) or a different wrong value keeps the key."""
    base = tmp_path / "b.json"
    assert cli("baseline", PLAN, "-o", str(base)).returncode == 0
    data = json.loads(base.read_text())
    for e in data["findings"]:
        e["message"] = "reworded"
    base.write_text(json.dumps(data))
    doc = plans.load("config:queue-bad")
    # maxReceiveCount 1 -> 0 on the mrc1 pair: still the same problem on the same queue
    doc = _edit(doc, 'aws_sqs_queue.src["mrc1"]', redrive_policy=json.dumps(
        {"deadLetterTargetArn": "arn:aws:sqs:us-east-1:123456789012:bad-mrc1-dlq", "maxReceiveCount": 0}))
    p = tmp_path / "p.json"
    p.write_text(json.dumps(doc))
    rc, out = _check(p, "--baseline", str(base))
    assert rc == 0 and out["summary"]["baselined"] == 19, [f for f in out["findings"] if f.get("baseline") == "new"]


def test_related_resource_is_part_of_the_key(tmp_path, plan_files):
    """Two findings of one rule on one queue (two consumers) are told apart by the consumer."""
    base = tmp_path / "b.json"
    plan = str(plan_files["config:consumers"])
    assert cli("baseline", plan, "-o", str(base)).returncode == 0
    entries = json.loads(base.read_text())["findings"]
    esm = [e for e in entries if e["rule"] == "ESM001"]
    assert len(esm) == len({(e["address"], tuple(e["related"])) for e in esm}) >= 2
    assert all(e["count"] == 1 for e in esm)
    rc, out = _check(Path(plan), "--baseline", str(base))
    assert out["summary"]["errors"] == 0 and rc == 0


@pytest.mark.parametrize("content,needles", [
    ("not json", ["not valid JSON", "sqs-policy baseline PLAN.json -o FILE"]),
    ('{"findings": []}', ["not a sqs-policy baseline"]),
    ('{"sqs-policy-baseline": "2.0", "findings": []}', ["format 2.0 is from another major version", "reads 1.x"]),
    ('{"sqs-policy-baseline": "1.0", "findings": [{"rule": "SQS099", "address": "a.b"}]}',
     ["findings[0]: unknown rule 'SQS099' (did you mean SQS009?)"]),
    ('{"sqs-policy-baseline": "1.0", "findings": [{"rule": "SQS001", "address": "a.b", "count": 0}]}',
     ["findings[0]: count 0 must be a whole number >= 1"]),
    ('{"sqs-policy-baseline": "1.0", "findings": {}}', ["findings must be a list"]),
    ('{"sqs-policy-baseline": "1.1", "source_read": "yes", "findings": []}',
     ["source_read 'yes' must be true or false"]),
])
def test_bad_baseline_is_exit_2(tmp_path, content, needles):
    b = tmp_path / "b.json"
    b.write_text(content)
    _one_line_error(cli("check", PLAN, "--baseline", str(b)), str(b), *needles)


def test_missing_baseline(tmp_path):
    _one_line_error(cli("check", PLAN, "--baseline", str(tmp_path / "nope.json")), "no such file")
    _one_line_error(cli("baseline", PLAN, "-o", str(tmp_path / "nope.json"), "--update"), "no such file")


def test_a_baseline_is_read_as_bounded_as_a_config(tmp_path):
    """Issue #30 §5: the baseline is read like the config file (files.read_regular): a regular
    file within its cap (32 MiB), never a pipe or a device, and each error names the baseline."""
    import os

    from tests.support.policy_cli import cli as run

    plan = str(plans.plan_path("config:queue-bad"))
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:  # 600 MB, sparse: refused from its size, never read
        fh.truncate(600 << 20)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # nobody writes: a blocking read would hang
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000)
    for path, needle in ((big, "larger than the 32 MiB cap"), (fifo, "named pipe"), ("/dev/zero", "character device"),
                         (tmp_path, "directory"), (deep, "nests too deeply")):
        proc = run("check", plan, "--no-source", "--baseline", str(path))
        err = proc.stderr.decode()
        assert proc.returncode == 2 and len(err.splitlines()) == 1, err
        assert f"baseline {path}" in err and needle in err and "plan" not in err.split(":", 2)[1], err


# ---- moved blocks: a pure refactor keeps its baselined findings (issue 31 §3) ----------------------
# real plans (tooling/plan_features.py, LocalStack): sqs-moved-before is the stack before the refactor,
# sqs-moved the plan whose moved blocks rename a module's for_each key and a queue
FEATURE_PLANS = Path("tests/policies/plans/features")
BEFORE, MOVED = FEATURE_PLANS / "sqs-moved-before.json", FEATURE_PLANS / "sqs-moved.json"


def _moves(doc: dict) -> dict[str, str]:
    return {rc["previous_address"]: rc["address"] for rc in doc["resource_changes"] if rc.get("previous_address")}


def test_a_pure_refactor_keeps_the_baseline(tmp_path):
    before, after = json.loads(BEFORE.read_text()), json.loads(MOVED.read_text())
    moves = _moves(after)
    # the refactor moves every resource of the plan the baseline is made from, and changes nothing else
    assert set(moves) == {rc["address"] for rc in before["resource_changes"]}
    assert all(rc["change"]["actions"] == ["no-op"] for rc in after["resource_changes"])
    base = tmp_path / "b.json"
    assert cli("baseline", str(BEFORE), "-o", str(base), "--no-source").returncode == 0
    recorded = json.loads(base.read_text())["findings"]
    assert sum(e["count"] for e in recorded) == 13 and {e["address"] for e in recorded} == set(moves)
    # a related address moves too: SQS004 on the source queue names its DLQ
    assert any(e["related"] == ['module.pairs["orders"].aws_sqs_queue.dlq'] for e in recorded if e["rule"] == "SQS004")
    rc, out = _check(MOVED, "--baseline", str(base), "--no-source")
    assert [f for f in out["findings"] if f["baseline"] != "unchanged"] == [] and out["baseline"]["fixed"] == []
    assert rc == 0 and out["summary"]["baselined"] == 13 and out["summary"]["errors"] == 0
    # each says where the baseline recorded it
    assert {(f["address"], f["baseline_address"]) for f in out["findings"]} == set(
        (new, old) for old, new in moves.items() if any(e["address"] == old for e in recorded))
    text = cli("check", str(MOVED), "--baseline", str(base), "--no-source").stdout.decode()
    assert ('in the baseline as module.pairs["orders"].aws_sqs_queue.this (moved since): a known finding, not counted'
            in text), text
    sarif = json.loads(cli("check", str(MOVED), "--baseline", str(base), "--no-source", "--format", "sarif").stdout)
    assert {r["baselineState"] for r in sarif["runs"][0]["results"]} == {"unchanged"}


def test_a_refactor_does_not_hide_new_findings(tmp_path):
    base = tmp_path / "b.json"
    assert cli("baseline", str(BEFORE), "-o", str(base), "--no-source").returncode == 0
    doc = json.loads(MOVED.read_text())
    # the moved DLQ loses its encryption in the same plan: one new finding on its new address, and SQS006
    # on its source (the source is encrypted, the DLQ not)
    rc_ = next(r for r in doc["resource_changes"] if r["address"] == 'module.pairs["order-events"].aws_sqs_queue.dlq')
    rc_["change"]["actions"] = ["update"]
    rc_["change"]["after"]["sqs_managed_sse_enabled"] = False
    for m in doc["planned_values"]["root_module"]["child_modules"]:
        for r in m["resources"]:
            if r["address"] == rc_["address"]:
                r["values"]["sqs_managed_sse_enabled"] = False
    p = tmp_path / "p.json"
    p.write_text(json.dumps(doc))
    rc, out = _check(p, "--baseline", str(base), "--no-source")
    new = sorted((f["rule_id"], f["address"]) for f in out["findings"] if f["baseline"] == "new")
    assert new == [("SQS001", 'module.pairs["order-events"].aws_sqs_queue.dlq'),
                   ("SQS006", 'module.pairs["order-events"].aws_sqs_queue.this')] and rc == 1
    assert out["summary"]["baselined"] == 13


def test_update_after_a_refactor_records_the_new_addresses(tmp_path):
    base = tmp_path / "b.json"
    assert cli("baseline", str(BEFORE), "-o", str(base), "--no-source").returncode == 0
    proc = cli("baseline", str(MOVED), "-o", str(base), "--update", "--no-source")
    assert proc.returncode == 0, proc.stderr
    assert "13 finding(s) kept (3 resource(s) recorded at their new address), 0 fixed one(s) removed" in proc.stderr.decode()
    moves = _moves(json.loads(MOVED.read_text()))
    data = json.loads(base.read_text())["findings"]
    assert {e["address"] for e in data} == set(moves.values())
    assert all(r in moves.values() for e in data for r in e["related"])
    # the next plan, once the moves are applied, has no previous_address: all still baselined
    doc = json.loads(MOVED.read_text())
    for rc_ in doc["resource_changes"]:
        rc_.pop("previous_address", None)
    p = tmp_path / "applied.json"
    p.write_text(json.dumps(doc))
    rc, out = _check(p, "--baseline", str(base), "--no-source")
    assert rc == 0 and out["summary"]["baselined"] == 13 and "baseline_address" not in str(out["findings"])


def test_a_move_onto_a_recorded_address(tmp_path):
    """A queue moved away and a new one created at its old address, each with the same finding:
    the baseline made before the move covers the moved one; the new one's finding is new. A baseline
    made from the refactor's own plan covers both."""
    base = tmp_path / "b.json"
    assert cli("baseline", str(BEFORE), "-o", str(base), "--no-source").returncode == 0
    doc = json.loads(MOVED.read_text())
    old = next(rc for rc in doc["resource_changes"] if rc["address"] == "aws_sqs_queue.audit_log")
    fresh = copy.deepcopy(old)
    fresh.pop("previous_address")
    fresh.update(address="aws_sqs_queue.audit", name="audit")
    fresh["change"]["actions"] = ["create"]
    fresh["change"]["before"] = None
    fresh["change"]["after"]["name"] = fresh["change"]["after"]["name"] + "-2"
    doc["resource_changes"].append(fresh)
    res = next(r for r in doc["planned_values"]["root_module"]["resources"] if r["address"] == "aws_sqs_queue.audit_log")
    res2 = copy.deepcopy(res)
    res2.update(address="aws_sqs_queue.audit", name="audit")
    res2["values"]["name"] = fresh["change"]["after"]["name"]
    doc["planned_values"]["root_module"]["resources"].append(res2)
    p = tmp_path / "p.json"
    p.write_text(json.dumps(doc))
    rc, out = _check(p, "--baseline", str(base), "--no-source")
    new = {f["address"] for f in out["findings"] if f["baseline"] == "new"}
    assert new == {"aws_sqs_queue.audit"} and out["summary"]["baselined"] == 13 and out["baseline"]["fixed"] == []
    assert cli("baseline", str(p), "-o", str(base), "--no-source").returncode == 0
    rc, out = _check(p, "--baseline", str(base), "--no-source")
    assert rc == 0 and out["summary"]["baselined"] == len(out["findings"]) > 13 and out["baseline"]["fixed"] == []


# ---- the source: a baseline made with it and a check without it (or the reverse) is said --------------
SOURCE_PLAN = "tests/policies/plans/source-bad.json"  # 19 findings undecided without its source, 1 with it
SOURCE_DIR = "tests/policies/configs/source-bad"


def _notes(out: dict) -> list[str]:
    return [n for n in out["notes"] if n.startswith("baseline ")]


def test_the_baseline_records_whether_the_source_was_read(tmp_path):
    without, with_ = tmp_path / "without.json", tmp_path / "with.json"
    proc = cli("baseline", SOURCE_PLAN, "-o", str(without), "--no-source")
    assert proc.returncode == 0 and "without the configuration source" in proc.stderr.decode()
    assert cli("baseline", SOURCE_PLAN, "-o", str(with_), "--source-dir", SOURCE_DIR).returncode == 0
    assert json.loads(without.read_text())["source_read"] is False
    assert json.loads(with_.read_text())["source_read"] is True
    # made as the check runs: nothing to say, nothing new
    for base, mode in ((without, ["--no-source"]), (with_, ["--source-dir", SOURCE_DIR])):
        rc, out = _check(Path(SOURCE_PLAN), "--baseline", str(base), *mode)
        assert rc == 0 and _notes(out) == [], _notes(out)
    # made without the source, checked with it: the findings the source decides are new; the note says why
    rc, out = _check(Path(SOURCE_PLAN), "--baseline", str(without), "--source-dir", SOURCE_DIR)
    new = [f for f in out["findings"] if f["baseline"] == "new"]
    assert rc == 1 and new
    [note] = _notes(out)
    assert f"baseline {without} was made without the configuration source (--no-source, or a --source-dir that " \
           "does not match the plan), and this check runs with the configuration source read" in note, note
    assert re.search(r"of the new findings, (\d+) recorded as undecided fail here", note), note
    assert "re-create the baseline as the check runs" in note
    # the reverse: made with it, checked without it
    rc, out = _check(Path(SOURCE_PLAN), "--baseline", str(with_), "--no-source")
    [note] = _notes(out)
    assert rc == 1 and f"baseline {with_} was made with the configuration source read" in note
    assert "recorded as failing cannot be decided here" in note, note
    # every format that carries notes carries it: the text report's note line, SARIF's notifications
    text = cli("check", SOURCE_PLAN, "--baseline", str(with_), "--no-source").stdout.decode()
    assert f"note: baseline {with_} was made with the configuration source read" in text
    sarif = json.loads(cli("check", SOURCE_PLAN, "--baseline", str(with_), "--no-source", "--format", "sarif").stdout)
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert any(n["message"]["text"].startswith(f"baseline {with_} was made with") for n in notes)


def test_a_baseline_that_does_not_say_is_said_to_be_unknown(tmp_path):
    base = tmp_path / "old.json"
    assert cli("baseline", SOURCE_PLAN, "-o", str(base), "--no-source").returncode == 0
    data = json.loads(base.read_text())
    del data["source_read"]
    data["sqs-policy-baseline"] = "1.0"
    base.write_text(json.dumps(data))
    rc, out = _check(Path(SOURCE_PLAN), "--baseline", str(base), "--no-source")
    [note] = _notes(out)
    assert rc == 0 and "does not record whether the configuration source was read" in note
    assert "cannot be told" in note and f"sqs-policy baseline PLAN --update -o {base}" in note
    # --update records it (and the check then has nothing to say)
    assert cli("baseline", SOURCE_PLAN, "-o", str(base), "--update", "--no-source").returncode == 0
    assert json.loads(base.read_text())["source_read"] is False
    assert _notes(_check(Path(SOURCE_PLAN), "--baseline", str(base), "--no-source")[1]) == []


def test_update_refuses_a_baseline_made_the_other_way(tmp_path):
    base = tmp_path / "b.json"
    assert cli("baseline", SOURCE_PLAN, "-o", str(base), "--no-source").returncode == 0
    before = base.read_text()
    _one_line_error(cli("baseline", SOURCE_PLAN, "-o", str(base), "--update", "--source-dir", SOURCE_DIR),
                    f"baseline {base}: made without the configuration source", "--update would drop as fixed",
                    "re-create the baseline without --update")
    assert base.read_text() == before
