"""The README's shared-DLQ pattern (docs/module.md): queues of the module use one DLQ of the
stack, ``dlq_arn = aws_sqs_queue.shared_dlq.arn`` with ``create_dlq = false``.

The redrive policy embeds the shared DLQ's ARN, so the plan knows none of it. The module's
``max_receive_count`` is known in the source, though: the queue's own value, else the
``queue_defaults`` one, else the queue module's default (5). With ``--source-dir`` SQS003 is
decided from it; without, it is unknown, never a fail.

A real plan of a stack in a temporary directory outside the repository that calls this
checkout by a relative path (as a stack beside a clone would).
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from resilient_sqs.policy.engine import evaluate
from resilient_sqs.policy.graph import Plan
from resilient_sqs.policy.source import Source
from tests.support import plan_cache
from tests.support.helpers import OFFLINE_ACCOUNT, OFFLINE_PROVIDER
from tooling.terraform import REPO_ROOT

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("shared-dlq")]

STACK = OFFLINE_PROVIDER + '''
resource "aws_sqs_queue" "shared_dlq" {
  name                      = "shared-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

module "messaging" {
  source         = "{source}"
  account_id     = "%s"
  alarms         = { create_sns_topic = false }
  queue_defaults = { dlq_arn = aws_sqs_queue.shared_dlq.arn, create_dlq = false }
  queues = {
    orders   = {}
    emails   = { max_receive_count = 4 }
    payments = { max_receive_count = 9 }
  }
}
''' % OFFLINE_ACCOUNT

QUEUE = 'module.messaging.module.queue["%s"]'


@pytest.fixture(scope="module")
def stack():
    """(directory, plan) of the stack above; the directory is removed afterwards."""
    work = Path(tempfile.mkdtemp(prefix="shared-dlq-"))
    try:
        (work / "main.tf").write_text(STACK.replace("{source}", os.path.relpath(REPO_ROOT, work)))
        yield work, plan_cache.load(work, offline=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _sqs003(report, key: str) -> list:
    return [(f.status, f.severity, f.message) for f in report.passed + report.findings
            if f.rule_id == "SQS003" and f.address == f"{QUEUE % key}.aws_sqs_queue.this"]


def test_the_plan_does_not_know_the_redrive_policy(stack):
    """The premise: without it the test below would not test the source."""
    _, plan = stack
    for key in ("orders", "emails", "payments"):
        rc = next(r for r in plan["resource_changes"] if r["address"] == f"{QUEUE % key}.aws_sqs_queue.this")
        assert rc["change"]["after_unknown"].get("redrive_policy") is True, key


def test_module_inputs_are_read_as_terraform_converts_them(stack):
    """queue_defaults is typed with optional attributes: an attribute the user did not write
    reads null (not a failure that sends try() to its fallback), so a queue's own
    max_receive_count wins, and null given to the non-nullable variable is its default."""
    work, plan = stack
    src = Source(Plan(plan), work, extra_roots=(str(REPO_ROOT),))
    got = {k: src.evaluator.variable(QUEUE % k, "max_receive_count") for k in ("orders", "emails", "payments")}
    assert got == {"orders": 5, "emails": 4, "payments": 9}


def test_sqs003_decided_with_the_source(stack):
    work, plan = stack
    report = evaluate(plan, source_dir=str(work), source_roots=(str(REPO_ROOT),))
    assert [s[:2] for s in _sqs003(report, "orders")] == [("pass", "error")], _sqs003(report, "orders")
    assert "maxReceiveCount 5 within 3..5" in _sqs003(report, "orders")[0][2]
    assert "maxReceiveCount 4 within 3..5" in _sqs003(report, "emails")[0][2]
    assert [s[:2] for s in _sqs003(report, "payments")] == [("fail", "warning")], _sqs003(report, "payments")
    assert "maxReceiveCount 9 is outside 3..5" in _sqs003(report, "payments")[0][2]


def test_sqs003_unknown_without_the_source(stack):
    _, plan = stack
    report = evaluate(plan)
    for key in ("orders", "emails", "payments"):
        got = _sqs003(report, key)
        assert [s[0] for s in got] == ["unknown"], (key, got)
        assert "only known after apply" in got[0][2]
