"""Producers into queues (issue 33 §1): the PRD rules on the real plans of
tests/policies/configs/producers-good and producers-bad (and the source they were planned
from). Every delivery the plan links is judged (a link that is not made would be a silent
pass), and each broken path is named with what breaks it."""
from __future__ import annotations

import pytest

from resilient_sqs.policy.engine import evaluate
from resilient_sqs.policy.rules import RULES
from tests.policies import plans

GOOD, BAD = "config:producers-good", "config:producers-bad"
PRD = [r for r in RULES if r.startswith("PRD")]

# (rule, resource) that each delivery of producers-good must pass: a rule that did not link a
# delivery would give nothing at all
GOOD_PASSES = {
    *{(r, a) for r in ("PRD001", "PRD002", "PRD003", "PRD008")
      for a in ("aws_sns_topic_subscription.fanout", "aws_sns_topic_subscription.ledger")},
    *{(r, a) for r in ("PRD004", "PRD006", "PRD008")
      for a in ("aws_cloudwatch_event_target.jobs", "aws_cloudwatch_event_target.ordered")},
    ("PRD005", "aws_cloudwatch_event_target.ordered"),
    ("PRD007", "aws_s3_bucket_notification.uploads"), ("PRD008", "aws_s3_bucket_notification.uploads"),
    ("PRD009", "aws_sns_topic.oncall"),
    ("PRD010", "aws_lambda_function_event_invoke_config.worker"), ("PRD010", "aws_scheduler_schedule.jobs"),
    ("PRD006", "aws_scheduler_schedule.jobs"),
    *{("PRD010", a) for a in ("aws_pipes_pipe.fanout_to_uploads", "aws_api_gateway_integration.ingest",
                              "aws_apigatewayv2_integration.ingest")},
}


def _source(name: str) -> str:
    return str(plans.subjects()[name][0])


def _reports(plan_doc, name):
    doc = plan_doc(name)
    return {"plan": evaluate(doc), "source": evaluate(doc, source_dir=_source(name))}


@pytest.mark.parametrize("how", ["plan", "source"])
def test_every_good_delivery_is_linked_and_passes(plan_doc, how):
    report = _reports(plan_doc, GOOD)[how]
    passed = {(f.rule_id, f.address) for f in report.passed if f.rule_id in PRD}
    assert passed == GOOD_PASSES
    assert [f for f in report.findings if f.rule_id in PRD] == []


@pytest.mark.parametrize("how", ["plan", "source"])
def test_broken_paths_say_what_breaks_them(plan_doc, how):
    report = _reports(plan_doc, BAD)[how]
    msg = {(f.rule_id, f.address): f.message for f in report.findings}
    # the stale topic is named, not only "another producer"
    stale = msg[("PRD001", "aws_sns_topic_subscription.payments")]
    assert "only for aws_sns_topic.payments_v1, not aws_sns_topic.payments" in stale, stale
    assert "no aws:SourceArn condition" in msg[("PRD001", "aws_sns_topic_subscription.audit")]
    assert "arn:aws:s3:::* in statement 'AllowAnyBucket'" in msg[("PRD007", "aws_s3_bucket_notification.scans")]
    assert "cannot deliver to FIFO queue module.ledger.aws_sqs_queue.this" in msg[
        ("PRD002", "aws_sns_topic_subscription.ledger")]
    assert "has no redrive_policy" in msg[("PRD003", "aws_sns_topic_subscription.payments")]
    assert "subscription DLQ aws_sqs_queue.audit_undelivered has a queue policy with no statement" in msg[
        ("PRD003", "aws_sns_topic_subscription.audit")]
    assert "no dead_letter_config" in msg[("PRD006", "aws_cloudwatch_event_target.reports")]
    assert "no sqs_target.message_group_id" in msg[("PRD005", "aws_cloudwatch_event_target.ordered")]
    assert "alias/aws/sqs" in msg[("PRD008", "aws_sns_topic_subscription.payments")]
    assert "aws_kms_key.reports has no key policy" in msg[("PRD008", "aws_cloudwatch_event_target.reports")]
    # a key outside the plan: unknown, naming the key
    (outside,) = [f for f in report.findings if (f.rule_id, f.address) == ("PRD008", "aws_s3_bucket_notification.scans")]
    assert outside.status == "unknown" and "key/0d5e1c2a-3b4c-4d5e-8f90-1a2b3c4d5e6f is not created by this plan" in \
        outside.message
    assert "alias/aws/sns" in msg[("PRD009", "aws_sns_topic.oncall")]
    assert "role aws_iam_role.worker may not sqs:SendMessage" in msg[
        ("PRD010", "aws_lambda_function_event_invoke_config.worker")]
    assert "module.reports.aws_sqs_queue.this, but role aws_iam_role.scheduler may not" in msg[
        ("PRD010", "aws_scheduler_schedule.reports")]
    # a schedule sends with its role: to a FIFO queue it needs a message group, and its role
    # must reach its DLQ
    assert "sets no target.sqs_parameters.message_group_id" in msg[("PRD005", "aws_scheduler_schedule.ordered")]
    assert "its DLQ is aws_sqs_queue.events_undelivered, but role aws_iam_role.scheduler may not" in msg[
        ("PRD006", "aws_scheduler_schedule.ordered")]


def test_a_retry_policy_left_to_the_defaults_is_a_warning(plan_doc):
    (f,) = [f for f in evaluate(plan_doc(BAD)).findings
            if (f.rule_id, f.address) == ("PRD006", "aws_cloudwatch_event_target.ordered")]
    assert (f.status, f.severity) == ("fail", "warning") and "no retry_policy" in f.message


def test_the_subscription_dlq_named_through_a_local_is_judged_with_the_source(plan_doc):
    """service-dlq-locals: the subscription's redrive_policy is a local value; the plan cannot
    tell its DLQ (unknown), the source can (its policy admits no topic: fail)."""
    name = "config:service-dlq-locals"
    doc = plan_doc(name)

    def prd003(report):
        return [(f.status, f.message) for f in report.findings if f.rule_id == "PRD003"]

    assert [s for s, _ in prd003(evaluate(doc))] == ["unknown"]
    (got,) = prd003(evaluate(doc, source_dir=_source(name)))
    assert got[0] == "fail" and 'aws_sqs_queue.dlq["svcl-sns-dlq"]' in got[1], got


def test_every_producer_rule_is_explained():
    from resilient_sqs.policy.references import REFERENCES

    for rid in PRD:
        rule = RULES[rid]
        assert rule.area == "producers" and rule.why and rule.remediation
        assert all(k in REFERENCES for k in rule.sources)
