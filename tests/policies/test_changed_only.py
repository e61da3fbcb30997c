"""check --changed-only on the committed update plans (real prior state, LocalStack-planned)."""
from __future__ import annotations

import copy
import json
from pathlib import Path

from tests.policies.fixture_plans import UPDATE_PLANS
from tests.support.helpers import sqs_policy_in_process as cli  # main() in this process: the reports are judged


def _run(plan: Path, *args: str) -> tuple[int, dict]:
    proc = cli("check", str(plan), "--format", "json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def _judged(out: dict) -> set[tuple[str, str]]:
    return {(f["rule_id"], f["address"]) for f in out["findings"] if f.get("judged", True)}


def test_only_what_the_plan_changes_is_judged(tmp_path):
    # the lifecycle rule of the claim-check bucket changes; nothing else does
    plan = UPDATE_PLANS / "raw-expiry-shortened.json"
    rc_all, everything = _run(plan)
    rc, out = _run(plan, "--changed-only")
    assert out["changed_only"]["changed"] == ["aws_s3_bucket_lifecycle_configuration.payloads"]
    # the bucket the lifecycle configures is judged (its expiry now loses payloads), the queues are not
    assert _judged(out) == {("CHG007", "aws_s3_bucket.payloads"), ("S3002", "aws_s3_bucket.payloads"),
                            ("S3003", "aws_s3_bucket.payloads"), ("S3004", "aws_s3_bucket.payloads")}
    skipped = [f for f in out["findings"] if f.get("judged") is False]
    assert len(skipped) == out["summary"]["not_judged"] == len(everything["findings"]) - 4
    assert {f["address"] for f in skipped} == {"aws_sqs_queue.jobs", "aws_sqs_queue.jobs_dlq"}
    assert out["summary"]["errors"] == 4 and rc == 1
    # the same plan with one more resource changed (the DLQ's retention): exactly its findings,
    # and those of the queue whose DLQ it is, join the judged ones
    doc = json.loads(plan.read_text())
    doc = copy.deepcopy(doc)
    rc_ = next(r for r in doc["resource_changes"] if r["address"] == "aws_sqs_queue.jobs_dlq")
    assert rc_["change"]["actions"] == ["no-op"]
    rc_["change"]["actions"] = ["update"]
    changed = tmp_path / "p.json"
    changed.write_text(json.dumps(doc))
    _, out2 = _run(changed, "--changed-only")
    newly = _judged(out2) - _judged(out)
    assert newly == {(f["rule_id"], f["address"]) for f in skipped}
    assert out2["summary"]["not_judged"] == 0


def test_change_rules_and_deleted_links(tmp_path):
    # a DLQ deleted while its source stays: CHG002 on the deleted DLQ, and the source queue whose
    # redrive policy still names it is judged (linked through the deleted DLQ's ARN)
    plan = UPDATE_PLANS / "raw-dlq-removed.json"
    _, full = _run(plan)
    _, out = _run(plan, "--changed-only")
    chg = lambda o: [f for f in o["findings"] if f["rule_id"].startswith("CHG")]  # noqa: E731
    assert chg(out) == chg(full) and chg(out)
    assert ("SQS004", "aws_sqs_queue.jobs") in _judged(out)


def test_unchanged_plan_judges_nothing_but_change_rules(tmp_path):
    plan = UPDATE_PLANS / "raw-expiry-shortened.json"
    doc = json.loads(plan.read_text())
    for r in doc["resource_changes"]:
        r["change"]["actions"] = ["no-op"]
    p = tmp_path / "p.json"
    p.write_text(json.dumps(doc))
    proc = cli("check", str(p), "--changed-only")
    text = proc.stdout.decode()
    assert "note: --changed-only: the plan changes no resource" in text
    # CHG rules compare prior and planned values whatever the actions say: they still judge
    assert "ERROR   CHG007 claim-check-expiry-shortened" in text
    assert "1 error(s), 0 warning(s), 0 unknown, 0 waived, 9 not judged" in text and proc.returncode == 1


def test_not_judged_in_sarif_and_junit(tmp_path):
    plan = UPDATE_PLANS / "raw-expiry-shortened.json"
    sarif = json.loads(cli("check", str(plan), "--changed-only", "--format", "sarif").stdout)
    from tests.support.policy_reports import SARIF

    SARIF.validate(sarif)
    na = [r for r in sarif["runs"][0]["results"] if r.get("kind") == "notApplicable"]
    assert len(na) == 6 and all(r["level"] == "none" for r in na)
    xml = cli("check", str(plan), "--changed-only", "--format", "junit").stdout.decode()
    assert xml.count('<skipped message="not judged (--changed-only') == 6
