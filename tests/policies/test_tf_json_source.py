"""The configuration source in Terraform's JSON syntax (``main.tf.json``: CDK for Terraform
writes only JSON): ``--source-dir`` reads it like ``.tf`` files (resources, data sources,
locals, variables with their types, module calls, outputs; strings are templates, a string
that is one interpolation is its expression's value), where it used to note "JSON
configuration ... not read" and leave every value known only after apply unknown.

A real plan of a flat JSON stack in a temporary directory.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from resilient_sqs.policy.engine import evaluate
from resilient_sqs.policy.graph import Plan
from resilient_sqs.policy.source import Pending, Source
from tests.support import plan_cache

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("tf-json-source")]

STACK = {
    "//": "as CDK for Terraform writes it",
    "provider": {"aws": [{"region": "us-east-1", "access_key": "offline-plan", "secret_key": "offline-plan",
                          "skip_credentials_validation": True, "skip_requesting_account_id": True,
                          "skip_metadata_api_check": True, "max_retries": 1}]},
    "variable": {
        "receives": {"type": "number", "default": 1},
        "settings": {"type": "object({ retention = optional(number, 1209600), label = optional(string) })",
                     "default": {}},
    },
    "locals": {"dlq_name": "orders-dlq"},
    "resource": {
        "aws_sqs_queue": {
            "dlq": {"name": "${local.dlq_name}", "message_retention_seconds": "${var.settings.retention}",
                    "receive_wait_time_seconds": 20, "sqs_managed_sse_enabled": True},
            "orders": {"name": "orders", "receive_wait_time_seconds": 20, "sqs_managed_sse_enabled": True,
                       "redrive_policy": "${jsonencode({deadLetterTargetArn = aws_sqs_queue.dlq.arn, "
                                         "maxReceiveCount = var.receives})}"},
        },
    },
    "output": {"dlq_arn_suffix": {"value": "${aws_sqs_queue.dlq.arn}/x"}, "dlq_arn": {"value": "${aws_sqs_queue.dlq.arn}"}},
}


@pytest.fixture(scope="module")
def stack():
    work = Path(tempfile.mkdtemp(prefix="tf-json-"))
    try:
        (work / "main.tf.json").write_text(json.dumps(STACK, indent=2))
        yield work, plan_cache.load(work, offline=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _sqs003(report):
    return [(f.status, f.message) for f in report.passed + report.findings
            if f.rule_id == "SQS003" and f.address == "aws_sqs_queue.orders"]


def test_the_plan_does_not_know_the_redrive_policy(stack):
    _, plan = stack
    assert [s for s, _ in _sqs003(evaluate(plan))] == ["unknown"]


def test_sqs003_decided_from_the_json_source(stack):
    work, plan = stack
    report = evaluate(plan, source_dir=str(work))
    got = _sqs003(report)
    assert [s for s, _ in got] == ["fail"], got
    assert "maxReceiveCount 1 < 2" in got[0][1] and "main.tf.json" in got[0][1], got
    assert not [n for n in report.notes if "not read" in n], report.notes


def test_json_blocks_read_as_terraform_reads_them(stack):
    """Locals, typed variables (optional defaults), outputs: a template with text around an
    interpolation is a string; one that is only an interpolation is the value itself."""
    work, plan = stack
    src = Source(Plan(plan), work)
    ev = src.evaluator
    assert ev.variable("", "receives") == 1
    whole = ev.output("", "dlq_arn")
    assert isinstance(whole, Pending) and whole.res.address == "aws_sqs_queue.dlq" and whole.path == ("arn",)
    assert not isinstance(ev.output("", "dlq_arn_suffix"), Pending)
    assert ev.local("", "dlq_name") == "orders-dlq"
    assert not src.notes, src.notes  # the JSON source matches the plan (the dlq's known values included)


def test_invalid_json_is_said_naming_the_file(tmp_path, stack):
    _, plan = stack
    (tmp_path / "main.tf.json").write_text('{"resource": {"aws_sqs_queue": ')
    report = evaluate(plan, source_dir=str(tmp_path))
    assert any("main.tf.json cannot be parsed" in n for n in report.notes), report.notes
