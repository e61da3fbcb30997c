"""SQS012 on the committed queue-bad plan (planned by real Terraform): a source queue whose
delay + maxReceiveCount x visibility timeout reaches its retention loses failing messages
before they reach the DLQ; the finding gives the numbers and the changes that mend it."""
from __future__ import annotations

from resilient_sqs.policy.engine import evaluate


def _sqs012(doc) -> dict:
    report = evaluate(doc)
    return {f.address: f for f in report.findings + report.passed if f.rule_id == "SQS012"}


def test_the_numbers_and_the_fix(plan_doc):
    got = _sqs012(plan_doc("config:queue-bad"))
    f = got['aws_sqs_queue.expiring["expiring"]']
    assert (f.status, f.severity) == ("fail", "error")
    assert "maxReceiveCount 3 x visibility timeout 43200 s (12 h) = 129600 s (1.5 d) >= retention 86400 s (1 d)" in f.message
    assert "lost without a trace" in f.message
    # 2 x 43200 s is the retention itself: no maxReceiveCount of 2 or more mends it
    assert "lower maxReceiveCount" not in f.remediation
    assert "lower visibility_timeout_seconds to at most 28799" in f.remediation
    assert "raise message_retention_seconds above 129600" in f.remediation


def test_the_delay_counts(plan_doc):
    f = _sqs012(plan_doc("config:queue-bad"))['aws_sqs_queue.expiring["delayed"]']
    # 4 x 21600 s alone is exactly one day; the 900 s delay comes first
    assert f.status == "fail"
    assert "delay 900 s (15 min) + maxReceiveCount 4 x visibility timeout 21600 s (6 h) = 87300 s" in f.message
    assert "lower maxReceiveCount to at most 3" in f.remediation
    assert "lower visibility_timeout_seconds to at most 21374" in f.remediation


def test_seconds_to_spare_pass(plan_doc):
    f = _sqs012(plan_doc("config:queue-bad"))['aws_sqs_queue.expiring["just_in_time"]']
    assert f.status == "pass"
    assert "maxReceiveCount 4 x visibility timeout 21599 s = 86396 s < retention 86400 s (1 d)" in f.message


def test_an_unknown_redrive_policy_is_not_passed(plan_doc):
    # the redrive policy embeds the DLQ's real ARN: maxReceiveCount is known only after apply
    f = _sqs012(plan_doc("config:queue-bad"))["aws_sqs_queue.defaults"]
    assert f.status == "unknown"
    assert "maxReceiveCount is only known after apply" in f.message
