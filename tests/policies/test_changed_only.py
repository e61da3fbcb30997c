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
    chg = lambda o: [{k: v for k, v in f.items() if k != "judged_because"}  # noqa: E731
                     for f in o["findings"] if f["rule_id"].startswith("CHG")]
    assert chg(out) == chg(full) and chg(out)
    assert {f["judged_because"]["reason"] for f in out["findings"] if f["rule_id"].startswith("CHG")} == {"change-rule"}
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


# ---- why a finding on an unchanged resource is judged (issue 31 §3) ------------------------------------
def _dlq_updated(tmp_path) -> Path:
    """raw-expiry-shortened with the DLQ's retention changed too (actions update)."""
    doc = json.loads((UPDATE_PLANS / "raw-expiry-shortened.json").read_text())
    rc_ = next(r for r in doc["resource_changes"] if r["address"] == "aws_sqs_queue.jobs_dlq")
    rc_["change"]["actions"] = ["update"]
    p = tmp_path / "dlq-updated.json"
    p.write_text(json.dumps(doc))
    return p


def _because(out: dict) -> dict[tuple[str, str], dict]:
    return {(f["rule_id"], f["address"]): f.get("judged_because") for f in out["findings"] if f.get("judged", True)}


def test_each_judged_finding_says_why(tmp_path):
    _, out = _run(UPDATE_PLANS / "raw-expiry-shortened.json", "--changed-only")
    why = _because(out)
    lifecycle = "aws_s3_bucket_lifecycle_configuration.payloads"
    assert why[("CHG007", "aws_s3_bucket.payloads")]["reason"] == "change-rule"
    # the bucket does not change: it is judged through the lifecycle configuration that does
    for rule in ("S3002", "S3003", "S3004"):
        assert why[(rule, "aws_s3_bucket.payloads")] == {
            "reason": "linked", "through": [lifecycle],
            "text": f"linked to {lifecycle} (a resource configuring it), which the plan updates"}
    # not judged ones carry no reason
    assert all("judged_because" not in f for f in out["findings"] if f.get("judged") is False)
    # the DLQ updated too: its own findings say so, its source's name the DLQ
    _, out = _run(_dlq_updated(tmp_path), "--changed-only")
    why = _because(out)
    assert why[("SQS007", "aws_sqs_queue.jobs_dlq")] == {"reason": "changed", "through": ["aws_sqs_queue.jobs_dlq"],
                                                        "text": "the plan updates it"}
    queue = {k: v for k, v in why.items() if k[1] == "aws_sqs_queue.jobs"}
    assert queue and all(v == {"reason": "linked", "through": ["aws_sqs_queue.jobs_dlq"],
                               "text": "linked to aws_sqs_queue.jobs_dlq (its DLQ), which the plan updates"}
                         for v in queue.values()), queue
    # without --changed-only nothing is said
    _, full = _run(_dlq_updated(tmp_path))
    assert not any("judged_because" in f for f in full["findings"])


def test_judged_through_a_deleted_resource_and_a_move():
    # the DLQ is deleted: it is not in the plan any more, its source is judged through its ARN
    _, out = _run(UPDATE_PLANS / "raw-dlq-removed.json", "--changed-only")
    why = _because(out)
    assert why[("SQS004", "aws_sqs_queue.jobs")] == {
        "reason": "linked", "through": ["aws_sqs_queue.jobs_dlq"],
        "text": "linked to aws_sqs_queue.jobs_dlq, which the plan deletes (this one's values name its name, ARN, URL "
                "or ID)"}
    # an ESM deleted: the queue its prior values named, and the DLQ of that queue, one step further
    _, out = _run(UPDATE_PLANS / "raw-consumer-removed.json", "--changed-only")
    texts = {v["text"] for v in _because(out).values()}
    assert ("linked to aws_lambda_event_source_mapping.orders, which the plan deletes (its prior values name this "
            "one's arn)") in texts
    assert ("linked to aws_sqs_queue.orders (the queue it is the DLQ of), which is linked to "
            "aws_lambda_event_source_mapping.orders, which the plan deletes") in texts
    _, out = _run(UPDATE_PLANS / "raw-moved-with-block.json", "--changed-only")
    assert {v["text"] for v in _because(out).values()} == {"the plan moves it from aws_sqs_queue.jobs",
                                                           "the plan moves it from aws_sqs_queue.jobs_dlq"}


def test_every_format_says_why(tmp_path):
    """Where a report shows a finding it shows why --changed-only judged it, read back with each
    format's parser (and schema)."""
    import xml.etree.ElementTree as ET

    import jsonschema

    from tests.support.policy_reports import GH_LINE, GITLAB, JUNIT, SARIF

    plan = str(_dlq_updated(tmp_path))
    why = "judged (--changed-only): linked to aws_sqs_queue.jobs_dlq (its DLQ), which the plan updates"

    def render(fmt: str) -> str:
        proc = cli("check", plan, "--changed-only", "--format", fmt)
        assert proc.returncode == 1, proc.stderr
        return proc.stdout.decode()

    text = render("text").splitlines()
    i = text.index("ERROR   SQS009 queue-policy-tls-only  aws_sqs_queue.jobs")
    assert text[i + 2] == f"        {why}"
    sarif = json.loads(render("sarif"))
    SARIF.validate(sarif)
    res = [r for r in sarif["runs"][0]["results"] if r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
           == "aws_sqs_queue.jobs"]
    assert res and all(r["properties"]["judgedBecause"]["through"] == ["aws_sqs_queue.jobs_dlq"]
                       and r["message"]["text"].endswith(f"({why})") for r in res)
    xml = render("junit")
    JUNIT.validate(xml)
    cases = [c for c in ET.fromstring(xml).iter("testcase") if c.get("name") == "aws_sqs_queue.jobs" and len(c)]
    assert cases and all(why[:1].upper() + why[1:] in (c[0].text or "") for c in cases)
    gh = [line for line in render("github").splitlines() if "aws_sqs_queue.jobs:" in line]
    assert gh and all(GH_LINE.match(line) and line.endswith(f"({why})") for line in gh)
    cq = json.loads(render("gitlab"))
    jsonschema.validate(cq, GITLAB)
    mine = [i for i in cq if "aws_sqs_queue.jobs:" in i["description"]]
    assert mine and all(i["description"].endswith(f"({why})") for i in mine)
    run_task = json.loads(render("hcp-run-task"))["data"]["relationships"]["outcomes"]["data"]
    mine = [o["attributes"]["body"] for o in run_task if o["attributes"]["outcome-id"].endswith(":aws_sqs_queue.jobs")]
    assert mine and all(b.endswith("judged \\(\\-\\-changed\\-only\\)\\: linked to aws\\_sqs\\_queue\\.jobs\\_dlq "
                                   "\\(its DLQ\\)\\, which the plan updates") for b in mine), mine
    md = render("markdown")
    row = next(line for line in md.splitlines() if "SQS009 queue-policy-tls-only | <code>aws\\_sqs\\_queue\\.jobs<" in line)
    assert "<br>judged \\(\\-\\-changed\\-only\\)\\: linked to aws\\_sqs\\_queue\\.jobs\\_dlq \\(its DLQ\\)" in row, row
