"""SQS004 on an ``aws_sqs_queue_redrive_policy`` that gives an existing queue (read by a
``data "aws_sqs_queue"``) a new DLQ of the stack: the source queue is not in the plan, so its
retention cannot be compared with the DLQ's. The rule says so (unknown, naming the data
source and the DLQ), with or without the source; it used to say nothing at all.

A real plan of a flat stack; the data source waits for the DLQ (``depends_on``), so Terraform
reads it at apply and the plan needs no AWS access.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from resilient_sqs.policy.engine import evaluate
from tests.support import plan_cache
from tests.support.helpers import OFFLINE_PROVIDER

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("redrive-of-existing-queue")]

STACK = OFFLINE_PROVIDER + '''
resource "aws_sqs_queue" "legacy_dlq" {
  name                      = "legacy-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

data "aws_sqs_queue" "legacy" {
  name       = "legacy"
  depends_on = [aws_sqs_queue.legacy_dlq]
}

resource "aws_sqs_queue_redrive_policy" "legacy" {
  queue_url = data.aws_sqs_queue.legacy.url
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.legacy_dlq.arn
    maxReceiveCount     = 5
  })
}
'''


@pytest.fixture(scope="module")
def stack():
    work = Path(tempfile.mkdtemp(prefix="redrive-existing-"))
    try:
        (work / "main.tf").write_text(STACK)
        yield work, plan_cache.load(work, offline=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_the_source_queue_is_only_a_data_source(stack):
    _, plan = stack
    queues = {rc["address"] for rc in plan["resource_changes"] if rc["type"] == "aws_sqs_queue" and rc["mode"] == "managed"}
    assert queues == {"aws_sqs_queue.legacy_dlq"}
    assert any(rc["address"] == "data.aws_sqs_queue.legacy" for rc in plan["resource_changes"])


@pytest.mark.parametrize("with_source", [False, True])
def test_sqs004_is_unknown_naming_the_existing_queue_and_the_dlq(stack, with_source):
    work, plan = stack
    report = evaluate(plan, source_dir=str(work)) if with_source else evaluate(plan)
    got = [(f.status, f.address, f.message) for f in report.passed + report.findings if f.rule_id == "SQS004"]
    assert [(s, a) for s, a, _ in got] == [("unknown", "aws_sqs_queue_redrive_policy.legacy")], got
    message = got[0][2]
    assert "data.aws_sqs_queue.legacy" in message and "aws_sqs_queue.legacy_dlq, retention 1209600 s" in message, message
