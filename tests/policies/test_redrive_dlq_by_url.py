"""SQS002 on a redrive policy that names its DLQ by URL instead of ARN (issue #23):
``jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.url, ... })`` (or ``.id``, also the
URL), or a literal ``https://sqs...`` URL. SQS rejects the redrive policy, so the apply fails.
The plan knows no JSON that embeds a queue's URL or ARN, but its configuration references name
the attribute (``aws_sqs_queue.dlq.url``): without ``--source-dir`` SQS002 fails it too, for an
inline ``redrive_policy`` and an ``aws_sqs_queue_redrive_policy`` (of a queue of the stack, or
of an existing queue), naming the attribute and the fix (``.arn``). Before, only the
referenced queue was followed and the policy passed.

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
    + _queue("literal", _redrive(INLINE["literal"])) + _queue("separate_dlq") + _queue("separate") + '''
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
'''


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
