"""SQS002 on a redrive policy that names its DLQ by URL instead of ARN (issue #23):
``jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.url, ... })`` (or ``.id``, also the
URL), or a literal ``https://sqs...`` URL. SQS rejects the redrive policy, so the apply fails.
The plan knows no JSON that embeds a queue's URL or ARN, but its configuration references name
the attribute (``aws_sqs_queue.dlq.url``): without ``--source-dir`` SQS002 fails it too, for an
inline ``redrive_policy`` and an ``aws_sqs_queue_redrive_policy`` (of a queue of the stack, or
of an existing queue), naming the attribute and the fix (``.arn``). Before, only the
referenced queue was followed and the policy passed.

The queue so named (by a reference, or a literal URL that matches one queue of the plan) is
still the DLQ the source means: it is judged as a DLQ (no SQS002 or CW002 of its own; CW001,
and SQS004 compares it with its source), and SQS002's fix names the exact change. Before, it
was judged as a source queue: SQS002 "has no dead-letter queue" and CW002 on it, no CW001.

A real offline plan; the data source waits for a queue of the plan (``depends_on``), so
Terraform reads it at apply and the plan needs no AWS access.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from resilient_sqs.policy.engine import evaluate
from tests.support import plan_cache
from tests.support.helpers import OFFLINE_PROVIDER

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("redrive-dlq-by-url")]

LITERAL = "https://sqs.us-east-1.amazonaws.com/123456789012/literal-dlq"
ELSEWHERE = "https://sqs.eu-west-1.amazonaws.com/210987654321/elsewhere-dlq"  # no queue of the plan
# queue -> its deadLetterTargetArn (an inline redrive_policy)
INLINE = {
    "by_url": "aws_sqs_queue.by_url_dlq.url",
    "by_id": "aws_sqs_queue.by_id_dlq.id",
    "literal": f'"{LITERAL}"',
    "by_arn": "aws_sqs_queue.by_arn_dlq.arn",
}


def _queue(key: str, redrive: str = "") -> str:
    return f'''
resource "aws_sqs_queue" "{key}" {{
  name                    = "{key.replace("_", "-")}"
  sqs_managed_sse_enabled = true{redrive}
}}
'''


def _redrive(target: str) -> str:
    return f'''
  redrive_policy = jsonencode({{
    deadLetterTargetArn = {target}
    maxReceiveCount     = 5
  }})'''


STACK = OFFLINE_PROVIDER + "".join(
    _queue(f"{k}_dlq") + _queue(k, _redrive(t)) for k, t in INLINE.items() if k != "literal") \
    + _queue("literal_dlq") + _queue("literal", _redrive(INLINE["literal"])) \
    + _queue("elsewhere", _redrive(f'"{ELSEWHERE}"')) + _queue("separate_dlq") + _queue("separate") + '''
resource "aws_sqs_queue_redrive_policy" "separate" {
  queue_url = aws_sqs_queue.separate.id''' + _redrive("aws_sqs_queue.separate_dlq.url") + '''
}
''' + _queue("existing_dlq") + '''
data "aws_sqs_queue" "existing" {
  name       = "existing"
  depends_on = [aws_sqs_queue.existing_dlq]
}

resource "aws_sqs_queue_redrive_policy" "existing" {
  queue_url = data.aws_sqs_queue.existing.url''' + _redrive("aws_sqs_queue.existing_dlq.url") + '''
}

resource "aws_cloudwatch_metric_alarm" "by_url_dlq_depth" {
  alarm_name          = "by-url-dlq-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = aws_sqs_queue.by_url_dlq.name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  actions_enabled     = false
}
'''
# the redrive policy (source queue, or resource of an existing queue) -> (its DLQ, the attribute
# naming it: url / id, None for a literal URL)
NAMED_BY_URL = {
    "aws_sqs_queue.by_url": ("aws_sqs_queue.by_url_dlq", "url"),
    "aws_sqs_queue.by_id": ("aws_sqs_queue.by_id_dlq", "id"),
    "aws_sqs_queue.literal": ("aws_sqs_queue.literal_dlq", None),
    "aws_sqs_queue.separate": ("aws_sqs_queue.separate_dlq", "url"),
    "aws_sqs_queue_redrive_policy.existing": ("aws_sqs_queue.existing_dlq", "url"),
}


@pytest.fixture(scope="module")
def stack():
    work = Path(tempfile.mkdtemp(prefix="redrive-dlq-by-url-"))
    try:
        (work / "main.tf").write_text(STACK)
        yield work, plan_cache.load(work, offline=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _sqs002(report) -> dict:
    return {f.address: f for f in report.passed + report.findings if f.rule_id == "SQS002"}


def test_the_plan_knows_no_redrive_policy_that_references_a_queue(stack):
    _, plan = stack
    changes = {rc["address"]: rc["change"] for rc in plan["resource_changes"]}
    for address in ("aws_sqs_queue.by_url", "aws_sqs_queue.by_id", "aws_sqs_queue_redrive_policy.separate",
                    "aws_sqs_queue_redrive_policy.existing"):
        assert changes[address]["after_unknown"].get("redrive_policy") is True, address
    assert LITERAL in changes["aws_sqs_queue.literal"]["after"]["redrive_policy"]


@pytest.mark.parametrize("address, attr", [
    ("aws_sqs_queue.by_url", "aws_sqs_queue.by_url_dlq.url"),
    ("aws_sqs_queue.by_id", "aws_sqs_queue.by_id_dlq.id"),
    ("aws_sqs_queue.separate", "aws_sqs_queue.separate_dlq.url"),
    ("aws_sqs_queue_redrive_policy.existing", "aws_sqs_queue.existing_dlq.url"),
])
def test_without_the_source_a_dlq_referenced_by_its_url_fails(stack, address, attr):
    _, plan = stack
    f = _sqs002(evaluate(plan))[address]
    assert (f.status, f.severity) == ("fail", "error"), f.message
    dlq = attr.rsplit(".", 1)[0]
    assert f"deadLetterTargetArn is {attr}, the queue's URL, not its ARN: SQS rejects the redrive policy, so the " \
           f"apply fails; use {dlq}.arn" in f.message, f.message


def test_a_literal_url_fails_with_or_without_the_source(stack):
    work, plan = stack
    for report in (evaluate(plan), evaluate(plan, source_dir=str(work))):
        f = _sqs002(report)["aws_sqs_queue.literal"]
        assert (f.status, f.severity) == ("fail", "error"), f.message
        assert f.message.startswith(f'deadLetterTargetArn "{LITERAL}" is a queue URL, not the queue\'s ARN: SQS '
                                    "rejects the redrive policy"), f.message
        assert "aws_sqs_queue.<dlq>.arn" in f.message


def test_a_dlq_referenced_by_its_arn_passes(stack):
    work, plan = stack
    for report in (evaluate(plan), evaluate(plan, source_dir=str(work))):
        f = _sqs002(report)["aws_sqs_queue.by_arn"]
        assert f.status == "pass", f.message
        assert "aws_sqs_queue.by_arn_dlq" in f.message


def test_with_the_source_the_url_fails_as_well(stack):
    work, plan = stack
    got = _sqs002(evaluate(plan, source_dir=str(work)))
    for address in ("aws_sqs_queue.by_url", "aws_sqs_queue.by_id", "aws_sqs_queue.separate",
                    "aws_sqs_queue_redrive_policy.existing"):
        assert got[address].status == "fail", (address, got[address].message)
        assert "not its ARN" in got[address].message, got[address].message


def _of(report, rule_id: str) -> dict:
    return {f.address: f for f in report.passed + report.findings if f.rule_id == rule_id}


@pytest.mark.parametrize("with_source", [False, True], ids=["plan", "source"])
def test_the_queue_named_by_url_is_judged_as_a_dlq(stack, with_source):
    work, plan = stack
    report = evaluate(plan, source_dir=str(work) if with_source else None)
    sqs002, cw001, cw002 = _of(report, "SQS002"), _of(report, "CW001"), _of(report, "CW002")
    for source, (dlq, _attr) in NAMED_BY_URL.items():
        assert sqs002[source].status == "fail", (source, sqs002[source].message)  # the URL still fails the source
        assert dlq not in sqs002, (dlq, sqs002[dlq].message)  # needs no DLQ of its own
        assert dlq not in cw002, (dlq, cw002[dlq].message)  # nor an age alarm
        assert dlq in cw001, dlq  # but a depth alarm
    assert cw001["aws_sqs_queue.by_url_dlq"].status == "pass", cw001["aws_sqs_queue.by_url_dlq"].message
    f = cw001["aws_sqs_queue.by_id_dlq"]
    assert (f.status, f.severity) == ("fail", "warning"), f.message
    assert "DLQ has no alarm on ApproximateNumberOfMessagesVisible" in f.message, f.message
    # a URL that names no queue of the plan links nothing: that queue is a source queue like any other
    assert "aws_sqs_queue.elsewhere" in sqs002 and "aws_sqs_queue.elsewhere" in cw002


@pytest.mark.parametrize("with_source", [False, True], ids=["plan", "source"])
def test_the_dlq_rules_compare_the_source_with_the_queue_named_by_url(stack, with_source):
    work, plan = stack
    sqs004 = _of(evaluate(plan, source_dir=str(work) if with_source else None), "SQS004")
    for source, (dlq, _attr) in NAMED_BY_URL.items():
        f = sqs004[source]
        assert dlq in f.message, (source, f.message)
        if source.startswith("aws_sqs_queue."):  # both keep the default 4 days
            assert f.status == "fail" and f.message.startswith(f"DLQ {dlq} retention 345600 s (4 d) <= source"), f.message


@pytest.mark.parametrize("with_source", [False, True], ids=["plan", "source"])
def test_the_fix_names_the_exact_change(stack, with_source):
    work, plan = stack
    sqs002 = _of(evaluate(plan, source_dir=str(work) if with_source else None), "SQS002")
    for source, (dlq, attr) in NAMED_BY_URL.items():
        fix = sqs002[source].remediation
        if attr:
            assert fix == f"Set deadLetterTargetArn = {dlq}.arn (the queue's ARN) in place of {dlq}.{attr} (its URL) " \
                          "in the redrive policy.", (source, fix)
        else:
            assert fix == f'Set deadLetterTargetArn = {dlq}.arn (the queue\'s ARN) in place of the URL "{LITERAL}".', fix
    assert sqs002["aws_sqs_queue.elsewhere"].remediation == (
        "Set deadLetterTargetArn to the queue's ARN, arn:aws:sqs:eu-west-1:210987654321:elsewhere-dlq, in place of "
        "its URL.")
