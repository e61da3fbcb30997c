"""The redrive policy of an ``aws_sqs_queue_redrive_policy`` that gives an existing queue (read
by a ``data "aws_sqs_queue"``) a DLQ of the stack, with ``--source-dir`` (issue #23, section 3).

The policy embeds the DLQ's ARN, known only after apply, so the plan knows none of its JSON.
The configuration decides it: with the source, SQS003 judges maxReceiveCount, and SQS002 /
SQS004 find the DLQ even through a local value, as they do for a queue of the stack (whose
redrive policy went through the resolver already: ``aws_sqs_queue.inline`` here). Before,
these resources read only the plan: maxReceiveCount stayed unknown with the source, a DLQ
named through a local was "cannot be told", and a DLQ named by its URL passed SQS002.
Without the source maxReceiveCount stays unknown, saying to run with --source-dir, and a queue
without a DLQ of its own may be the DLQ named through the local (unknown, not failed).

A real offline plan; each data source waits for a queue of the plan (``depends_on``), so
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

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("redrive-source-of-existing-queue")]


def _dlq(key: str) -> str:
    return f'''
resource "aws_sqs_queue" "{key}_dlq" {{
  name                      = "{key}-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}}
'''


def _existing(key: str, target: str, mrc: int) -> str:
    """An existing queue ``key`` and a redrive policy giving it ``target`` as its DLQ."""
    return f'''
data "aws_sqs_queue" "{key}" {{
  name       = "{key}"
  depends_on = [aws_sqs_queue.{key}_dlq]
}}

resource "aws_sqs_queue_redrive_policy" "{key}" {{
  queue_url = data.aws_sqs_queue.{key}.url
  redrive_policy = jsonencode({{
    deadLetterTargetArn = {target}
    maxReceiveCount     = {mrc}
  }})
}}
'''


STACK = OFFLINE_PROVIDER + ''.join(_dlq(k) for k in ("legacy", "hasty", "shared", "wrong", "inline")) + (
    _existing("legacy", "aws_sqs_queue.legacy_dlq.arn", 5)
    + _existing("hasty", "aws_sqs_queue.hasty_dlq.arn", 1)
    + _existing("shared", "local.shared_dlq_arn", 4)
    + _existing("wrong", "aws_sqs_queue.wrong_dlq.url", 5)) + '''
# existing DLQs given a redrive-allow policy naming a queue of the stack (unknown in the plan)
data "aws_sqs_queue" "old_dlq" {
  name       = "old-dlq"
  depends_on = [aws_sqs_queue.inline]
}

resource "aws_sqs_queue_redrive_allow_policy" "old_dlq" {
  queue_url            = data.aws_sqs_queue.old_dlq.url
  redrive_allow_policy = jsonencode({ redrivePermission = "byQueue", sourceQueueArns = [aws_sqs_queue.inline.arn] })
}

data "aws_sqs_queue" "open_dlq" {
  name       = "open-dlq"
  depends_on = [aws_sqs_queue.inline]
}

resource "aws_sqs_queue_redrive_allow_policy" "open_dlq" {
  queue_url            = data.aws_sqs_queue.open_dlq.url
  redrive_allow_policy = jsonencode({ redrivePermission = "allowAll", sourceQueueArns = [aws_sqs_queue.inline.arn] })
}

# known at plan, but without a DLQ: SQS rejects it
data "aws_sqs_queue" "bare" {
  name       = "bare"
  depends_on = [aws_sqs_queue.legacy_dlq]
}

resource "aws_sqs_queue_redrive_policy" "bare" {
  queue_url      = data.aws_sqs_queue.bare.url
  redrive_policy = jsonencode({ maxReceiveCount = 5 })
}

locals {
  shared_dlq_arn = aws_sqs_queue.shared_dlq.arn
}

resource "aws_sqs_queue" "inline" {
  name                      = "inline"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.inline_dlq.arn
    maxReceiveCount     = 5
  })
}
'''

POLICIES = [f"aws_sqs_queue_redrive_policy.{k}" for k in ("legacy", "hasty", "shared", "wrong")]


@pytest.fixture(scope="module")
def stack():
    work = Path(tempfile.mkdtemp(prefix="redrive-source-existing-"))
    try:
        (work / "main.tf").write_text(STACK)
        yield work, plan_cache.load(work, offline=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _of(report, rule: str) -> dict:
    return {f.address: f for f in report.passed + report.findings if f.rule_id == rule}


def test_the_plan_knows_none_of_the_redrive_policies(stack):
    _, plan = stack
    changes = {rc["address"]: rc["change"] for rc in plan["resource_changes"]}
    for address in POLICIES + ["aws_sqs_queue.inline"]:
        assert changes[address]["after_unknown"].get("redrive_policy") is True, address
    assert not any(rc["address"].startswith("aws_sqs_queue.") and rc["name"] in ("legacy", "hasty", "shared", "wrong")
                   for rc in plan["resource_changes"] if rc["mode"] == "managed")


def test_with_the_source_sqs003_judges_max_receive_count(stack):
    work, plan = stack
    got = _of(evaluate(plan, source_dir=str(work)), "SQS003")
    status = {a: (f.status, f.severity) for a, f in got.items()}
    assert status == {
        "aws_sqs_queue_redrive_policy.legacy": ("pass", "error"),
        "aws_sqs_queue_redrive_policy.hasty": ("fail", "error"),
        "aws_sqs_queue_redrive_policy.shared": ("pass", "error"),
        "aws_sqs_queue_redrive_policy.wrong": ("pass", "error"),
        "aws_sqs_queue.inline": ("pass", "error"),
        "aws_sqs_queue_redrive_policy.bare": ("pass", "error")}, {a: (f.status, f.message) for a, f in got.items()}
    line = STACK.splitlines().index('resource "aws_sqs_queue_redrive_policy" "legacy" {') + 3  # its redrive_policy
    assert got["aws_sqs_queue_redrive_policy.legacy"].message == f"maxReceiveCount 5 within 3..5 (from main.tf:{line})"
    assert got["aws_sqs_queue_redrive_policy.hasty"].message.startswith("maxReceiveCount 1 < 2: one ghost receive")
    assert got["aws_sqs_queue_redrive_policy.shared"].message.startswith("maxReceiveCount 4 within 3..5")


def test_without_the_source_max_receive_count_is_unknown_and_says_how_to_know_it(stack):
    _, plan = stack
    got = _of(evaluate(plan), "SQS003")
    assert {a: f.status for a, f in got.items()} == {
        **{a: "unknown" for a in POLICIES + ["aws_sqs_queue.inline"]}, "aws_sqs_queue_redrive_policy.bare": "pass"}
    for f in (got[a] for a in POLICIES + ["aws_sqs_queue.inline"]):
        assert "only known after apply" in f.message and "run the check with --source-dir" in f.message, f.message
        assert "--source-dir" in f.remediation


def test_with_the_source_sqs002_finds_the_dlq_through_a_local_and_refuses_a_url(stack):
    work, plan = stack
    without, with_source = _of(evaluate(plan), "SQS002"), _of(evaluate(plan, source_dir=str(work)), "SQS002")
    shared = "aws_sqs_queue_redrive_policy.shared"
    assert without[shared].status == "unknown" and "--source-dir" in without[shared].remediation, without[shared].message
    assert (with_source[shared].status, with_source[shared].message) == (
        "pass", "the existing queue data.aws_sqs_queue.shared has the dead-letter queue aws_sqs_queue.shared_dlq")
    wrong = with_source["aws_sqs_queue_redrive_policy.wrong"]
    assert (wrong.status, wrong.severity) == ("fail", "error"), wrong.message
    assert wrong.message.startswith("deadLetterTargetArn is the URL of aws_sqs_queue.wrong_dlq, not its ARN"), wrong.message
    for key in ("legacy", "hasty"):
        assert with_source[f"aws_sqs_queue_redrive_policy.{key}"].status == "pass"


def test_a_dlq_named_through_a_local_is_never_taken_for_a_queue_without_dlq(stack):
    """Without the source, the DLQ of the redrive policy through a local may be any queue of
    the plan: a queue without a DLQ of its own is unknown, not failed; with the source it is
    that policy's DLQ and needs none."""
    work, plan = stack
    without, with_source = _of(evaluate(plan), "SQS002"), _of(evaluate(plan, source_dir=str(work)), "SQS002")
    got = without["aws_sqs_queue.shared_dlq"]
    assert got.status == "unknown", got.message
    assert "dead-letter queue named by the redrive policy aws_sqs_queue_redrive_policy.shared" in got.message, got.message
    assert "--source-dir" in got.message
    assert "aws_sqs_queue.shared_dlq" not in with_source


def test_with_the_source_sqs004_names_the_dlq_found_through_a_local(stack):
    work, plan = stack
    without, with_source = _of(evaluate(plan), "SQS004"), _of(evaluate(plan, source_dir=str(work)), "SQS004")
    shared = "aws_sqs_queue_redrive_policy.shared"
    assert without[shared].status == with_source[shared].status == "unknown"
    assert "aws_sqs_queue.shared_dlq" not in without[shared].message
    assert "the DLQ aws_sqs_queue.shared_dlq, retention 1209600 s" in with_source[shared].message, with_source[shared].message


@pytest.mark.parametrize("with_source", [False, True])
def test_a_redrive_policy_without_a_dlq_fails_sqs002(stack, with_source):
    """Known at plan: it was judged by SQS003 alone (maxReceiveCount 5 passed) and SQS002 said nothing."""
    work, plan = stack
    report = evaluate(plan, source_dir=str(work)) if with_source else evaluate(plan)
    got = _of(report, "SQS002")["aws_sqs_queue_redrive_policy.bare"]
    assert (got.status, got.severity) == ("fail", "error"), got.message
    assert got.message == "redrive_policy has no deadLetterTargetArn: the queue it configures gets no dead-letter queue"


def test_sqs011_reads_the_redrive_allow_policy_of_an_existing_queue_from_the_source(stack):
    """The same gap on aws_sqs_queue_redrive_allow_policy: its JSON names a queue of the stack by
    ARN, so the plan knows none of it; the source decides redrivePermission."""
    work, plan = stack
    allow = [f"aws_sqs_queue_redrive_allow_policy.{k}" for k in ("old_dlq", "open_dlq")]
    without, with_source = _of(evaluate(plan), "SQS011"), _of(evaluate(plan, source_dir=str(work)), "SQS011")
    for a in allow:
        assert without[a].status == "unknown", without[a].message
        assert without[a].message == ("the redrive-allow policy is only known after apply; run the check with "
                                      "--source-dir to read it from the configuration")
    old, open_ = (with_source[a] for a in allow)
    assert (old.status, old.message) == ("pass", f"redrivePermission byQueue (from main.tf:{_line(allow[0])})")
    assert (open_.status, open_.severity) == ("fail", "warning"), open_.message
    assert open_.message.startswith('redrivePermission is \'allowAll\', not "byQueue"'), open_.message


def _line(address: str) -> int:
    """The line of the redrive-allow policy in the stack's main.tf."""
    typ, name = address.split(".")
    return STACK.splitlines().index(f'resource "{typ}" "{name}" {{') + 3
