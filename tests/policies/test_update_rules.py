"""Every rule of the catalog on update plans with real prior state (tests/policies/updates/:
rules-raw-pass, rules-raw-fail, rules-module-pass, made on LocalStack by tooling/update_plans.py),
and every update-plan fixture read without error.

An update plan carries what the provider stores in state where a first-apply plan carries
nothing: an unset redrive-allow policy, policy, redrive policy or list is "" or [] there.
"""
from __future__ import annotations

import pytest

from resilient_sqs.policy.engine import evaluate
from resilient_sqs.policy.rules import RULES
from tests.policies import fixture_plans

E, W = "error", "warning"
FAIL = "fail"
# the change rules have their own tests; the producer rules read nothing of the prior state and
# have their own fixtures (producers-good, producers-bad: tests/policies/test_producers.py); the
# rules stack's SNS subscription is checked on the update plan below
CATALOG = {rid for rid in RULES if not rid.startswith(("CHG", "PRD"))}


def _report(name: str):
    return evaluate(fixture_plans.update_plan(name))


@pytest.mark.parametrize("name", fixture_plans.update_plan_names())
def test_every_update_plan_is_evaluated(name):
    """No update plan ends in an error (10 of them did: the redrive-allow rule read "" as a document)."""
    report = evaluate(fixture_plans.update_plan(name))
    assert report.passed or report.findings


# The stack of tests/policies/updates/_rules-stack (shared by rules-raw-pass and rules-raw-fail)
# gives its alarms no alarm_actions: CW001/CW002 warn on every alarm that passes otherwise. Giving
# them actions means re-applying both scenarios on LocalStack; their other findings are what
# these tests are about, so the warnings are expected here, and named.
def _silent_alarm_warnings(report) -> set:
    return {(f.rule_id, f.status, f.severity, f.address.removeprefix("module.stack.")) for f in report.findings
            if f.rule_id in ("CW001", "CW002") and "notifies nobody: it has no alarm_actions" in f.message}


def test_a_stack_that_passes_every_rule_still_passes_after_an_update():
    """Applied good, then only a tag changes: every rule applies and passes on the update plan,
    but for its alarms paging nobody (CW001/CW002 warnings, gone with `require_actions: false`)."""
    from resilient_sqs.policy.config import Config

    report = _report("rules-raw-pass")
    silent = {("CW001", FAIL, W, f"aws_sqs_queue.{q}_dlq") for q in "abef"} | \
             {("CW002", FAIL, W, f"aws_sqs_queue.{q}") for q in "abcef"}
    assert _silent_alarm_warnings(report) == silent
    assert len(report.findings) == len(silent), [(f.rule_id, f.address, f.message) for f in report.findings]
    opted_out = evaluate(fixture_plans.update_plan("rules-raw-pass"),
                         Config(options={"CW001": {"require_actions": False}, "CW002": {"require_actions": False}}))
    assert opted_out.findings == [], [(f.rule_id, f.address, f.message) for f in opted_out.findings]
    assert {f.rule_id for f in opted_out.passed} >= CATALOG
    # the subscription's queue and DLQ admit the topic by its ARN, which state now carries
    sub = "module.stack.aws_sns_topic_subscription.e"
    assert {f.rule_id for f in opted_out.passed if f.address == sub and f.rule_id.startswith("PRD")} == {
        "PRD001", "PRD002", "PRD003", "PRD008"}


# every finding of the catalog's rules on the broken update (the change rules' are in test_change_rules.py)
BROKEN = {
    ("CW001", FAIL, W, "aws_sqs_queue.a_dlq"), ("CW002", FAIL, W, "aws_sqs_queue.a"),
    ("CW002", FAIL, W, "aws_sqs_queue.b"), ("CW002", FAIL, W, "aws_sqs_queue.g[0]"),
    ("DDB001", FAIL, E, "aws_dynamodb_table.idempotency"), ("DDB002", FAIL, E, "aws_dynamodb_table.idempotency"),
    ("DDB003", FAIL, W, "aws_dynamodb_table.idempotency"),
    ("ESM001", FAIL, E, "aws_sqs_queue.a"), ("ESM001", FAIL, E, "aws_sqs_queue.f"),
    ("ESM002", FAIL, E, "aws_lambda_event_source_mapping.a"), ("ESM003", FAIL, W, "aws_lambda_event_source_mapping.a"),
    ("ESM004", FAIL, E, "aws_lambda_event_source_mapping.f"), ("ESM005", FAIL, E, "aws_lambda_event_source_mapping.f"),
    ("IAM001", FAIL, E, "aws_iam_policy.producer"), ("IAM001", FAIL, E, "data.aws_iam_policy.sqs_full"),
    ("IAM002", FAIL, E, "aws_iam_policy.producer"), ("IAM002", FAIL, E, "data.aws_iam_policy.sqs_full"),
    ("S3001", FAIL, E, "aws_s3_bucket.payloads"), ("S3002", FAIL, E, "aws_s3_bucket.payloads"),
    ("S3003", FAIL, E, "aws_s3_bucket.payloads"), ("S3004", FAIL, E, "aws_s3_bucket.payloads"),
    ("SQS001", FAIL, E, "aws_sqs_queue.a_dlq"), ("SQS002", FAIL, E, "aws_sqs_queue.g[0]"),
    ("SQS003", FAIL, E, "aws_sqs_queue.a"), ("SQS004", FAIL, E, "aws_sqs_queue.b"), ("SQS004", FAIL, E, "aws_sqs_queue.c"),
    ("SQS005", FAIL, E, "aws_sqs_queue.f"), ("SQS006", FAIL, E, "aws_sqs_queue.a"), ("SQS007", FAIL, W, "aws_sqs_queue.a"),
    ("SQS008", FAIL, E, "aws_sqs_queue.b"), ("SQS009", FAIL, E, "aws_sqs_queue.g[0]"),
    ("SQS010", FAIL, E, "aws_sqs_queue.a_dlq"), ("SQS011", FAIL, W, "aws_sqs_queue.e_dlq"),
    ("SQS012", FAIL, E, "aws_sqs_queue.b"),  # 4 receives x 900 s reach the 1-hour retention
    # the alarms that fire in time page nobody (the stack gives no alarm_actions; see above)
    ("CW001", FAIL, W, "aws_sqs_queue.b_dlq"), ("CW001", FAIL, W, "aws_sqs_queue.e_dlq"),
    ("CW001", FAIL, W, "aws_sqs_queue.f_dlq"),
    ("CW002", FAIL, W, "aws_sqs_queue.c"), ("CW002", FAIL, W, "aws_sqs_queue.e"), ("CW002", FAIL, W, "aws_sqs_queue.f"),
}


def test_every_rule_fails_on_a_broken_update():
    report = _report("rules-raw-fail")
    got = {(f.rule_id, f.status, f.severity, f.address.removeprefix("module.stack.")) for f in report.findings
           if f.rule_id in CATALOG}
    assert got == BROKEN, f"unexpected: {sorted(got - BROKEN)}; missing: {sorted(BROKEN - got)}"
    assert {r for r, *_ in BROKEN} == CATALOG


def test_unset_redrive_allow_policy_in_state_reads_as_none():
    """e_dlq was created without a redrive-allow policy: state (and the plan) carry ""; when a
    queue starts sending its failures there, SQS011 says it has none (it used to crash)."""
    doc = fixture_plans.update_plan("rules-raw-fail")
    prior = next(r for m in doc["prior_state"]["values"]["root_module"]["child_modules"] for r in m["resources"]
                 if r["address"] == "module.stack.aws_sqs_queue.e_dlq")
    assert prior["values"]["redrive_allow_policy"] == ""
    f = next(f for f in evaluate(doc).findings if f.rule_id == "SQS011")
    assert "has no redrive_allow_policy" in f.message and "module.stack.aws_sqs_queue.e" in f.message


def test_this_module_passes_every_rule_after_an_update():
    """This module with every part on, applied, then a tag changed: nothing fails; the one
    unknown is the consumer function's timeout (the function is not in the plan)."""
    report = _report("rules-module-pass")
    assert {(f.rule_id, f.status) for f in report.findings} == {("ESM001", "unknown")}
    assert all("is not in this plan" in f.message for f in report.findings)
    assert {f.rule_id for f in report.passed} >= CATALOG - {"ESM001"}


def test_alarms_added_to_existing_queues_watch_them():
    """The queues exist (their ARNs, with the account, are known from state); the new alarms'
    ARNs are not. One provider configuration creates them all, so the alarms are in the
    queues' Region and account: CW001 and CW002 pass (they were unknown, "its account may
    differ from the queue's")."""
    from resilient_sqs.policy.config import Config

    report = _report("raw-alarms-added")
    # the scenario's alarms have no alarm_actions (re-applying it on LocalStack to give them
    # some is not worth it): each is linked to its queue, and warned about as paging nobody
    cw = {(f.rule_id, f.status, f.address): f.message for f in report.findings if f.rule_id.startswith("CW")}
    assert set(cw) == {("CW001", FAIL, "aws_sqs_queue.dlq"), ("CW002", FAIL, "aws_sqs_queue.jobs")}, cw
    assert cw[("CW001", FAIL, "aws_sqs_queue.dlq")].startswith(
        "depth alarm aws_cloudwatch_metric_alarm.dlq_depth notifies nobody: it has no alarm_actions")
    assert cw[("CW002", FAIL, "aws_sqs_queue.jobs")].startswith(
        "age alarm aws_cloudwatch_metric_alarm.jobs_age notifies nobody: it has no alarm_actions")
    opted_out = evaluate(fixture_plans.update_plan("raw-alarms-added"),
                         Config(options={"CW001": {"require_actions": False}, "CW002": {"require_actions": False}}))
    assert [f for f in opted_out.findings if f.rule_id.startswith("CW")] == []
    passed = {(f.rule_id, f.address): f.message for f in opted_out.passed}
    assert passed[("CW001", "aws_sqs_queue.dlq")].startswith("depth alarm aws_cloudwatch_metric_alarm.dlq_depth ")
    assert passed[("CW002", "aws_sqs_queue.jobs")].startswith("age alarm aws_cloudwatch_metric_alarm.jobs_age ")
