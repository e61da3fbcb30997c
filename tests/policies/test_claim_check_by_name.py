"""A flat root stack whose claim-check bucket is linked to its queue only by name, not
by reference: the consumer function is told the bucket in its environment
(``PAYLOAD_BUCKET = local.payload_bucket``), a role's policy writes the bucket's ARN out
(``"arn:aws:s3:::${local.payload_bucket}/*"``) beside the queue's ARN. The bucket is a
claim-check bucket (S3004 judges its expiry), and renaming it, which replaces it and
deletes every payload, is a CHG006 error. Neither was seen before.

Real Terraform: the prior state holds the bucket under its old name (written here, as the
plan needs no AWS access: ``-refresh=false``); the stack renames it.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

import pytest

from resilient_sqs.policy.engine import evaluate
from tooling.terraform import terraform_bin, terraform_env
from tests.support.helpers import OFFLINE_PROVIDER

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("claim-check-by-name")]

STACK = OFFLINE_PROVIDER + '''
locals {
  payload_bucket = "orders-payloads-v2"
}

resource "aws_sqs_queue" "orders" {
  name                       = "orders"
  receive_wait_time_seconds  = 20
  sqs_managed_sse_enabled    = true
  visibility_timeout_seconds = 180
}

resource "aws_s3_bucket" "payloads" {
  bucket = "orders-payloads-v2"
}

resource "aws_s3_bucket_lifecycle_configuration" "payloads" {
  bucket = aws_s3_bucket.payloads.id
  rule {
    id     = "expire-payloads"
    status = "Enabled"
    filter {}
    expiration {
      days = 15
    }
  }
}

resource "aws_iam_role" "worker" {
  name = "orders-worker"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "lambda.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
}

resource "aws_lambda_function" "worker" {
  function_name = "orders-worker"
  role          = aws_iam_role.worker.arn
  handler       = "index.handler"
  runtime       = "python3.12"
  filename      = "fn.zip"
  timeout       = 30
  environment {
    variables = { PAYLOAD_BUCKET = local.payload_bucket }
  }
}

resource "aws_lambda_event_source_mapping" "worker" {
  event_source_arn        = aws_sqs_queue.orders.arn
  function_name           = aws_lambda_function.worker.arn
  batch_size              = 10
  function_response_types = ["ReportBatchItemFailures"]
}

# a second pair, linked only by a role policy (no function): its JSON names the queue's
# ARN, known after apply, so only the source tells the bucket in it
resource "aws_sqs_queue" "audit" {
  name                      = "audit"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_s3_bucket" "audit" {
  bucket = "audit-payloads"
}

resource "aws_iam_role_policy" "auditor" {
  role = aws_iam_role.worker.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      { Effect = "Allow", Action = ["sqs:ReceiveMessage", "sqs:DeleteMessage"], Resource = aws_sqs_queue.audit.arn },
      { Effect = "Allow", Action = ["s3:GetObject", "s3:PutObject"], Resource = "arn:aws:s3:::audit-payloads/*" },
    ]
  })
}
'''

# the bucket as the last apply left it, under its old name
STATE = {"version": 4, "terraform_version": "1.11.4", "serial": 1, "lineage": "3f2b8a3c-0000-4000-8000-000000000001",
         "outputs": {}, "resources": [{
             "mode": "managed", "type": "aws_s3_bucket", "name": "payloads",
             "provider": "provider[\"registry.terraform.io/hashicorp/aws\"]",
             "instances": [{"schema_version": 0, "attributes": {
                 "id": "orders-payloads", "bucket": "orders-payloads", "arn": "arn:aws:s3:::orders-payloads",
                 "force_destroy": False, "region": "us-east-1", "tags": {}, "tags_all": {}}}]}]}


@pytest.fixture(scope="module")
def stack():
    work = Path(tempfile.mkdtemp(prefix="claim-check-by-name-"))
    try:
        (work / "main.tf").write_text(STACK)
        (work / "terraform.tfstate").write_text(json.dumps(STATE))
        with zipfile.ZipFile(work / "fn.zip", "w") as z:
            z.writestr("index.py", "def handler(event, context):\n    return {}\n")
        env = terraform_env()
        for args in (["init", "-input=false", "-no-color"],
                     ["plan", "-refresh=false", "-input=false", "-no-color", "-out=update.tfplan"]):
            proc = subprocess.run([terraform_bin(), *args], cwd=work, env=env, capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        show = subprocess.run([terraform_bin(), "show", "-json", "update.tfplan"], cwd=work, env=env,
                              capture_output=True, text=True, timeout=120, check=True)
        yield work, json.loads(show.stdout)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _by(report, rule: str, address: str) -> list:
    return [(f.status, f.message) for f in report.passed + report.findings if f.rule_id == rule and f.address == address]


def test_the_rename_replaces_the_bucket(stack):
    _, plan = stack
    got = {rc["address"]: rc["change"]["actions"] for rc in plan["resource_changes"] if rc["type"] == "aws_s3_bucket"}
    assert got["aws_s3_bucket.payloads"] == ["delete", "create"], got


def test_bucket_named_in_the_consumers_environment_is_a_claim_check_bucket(stack):
    _, plan = stack
    report = evaluate(plan)
    got = _by(report, "S3004", "aws_s3_bucket.payloads")
    assert [s for s, _ in got] == ["pass"] and "(aws_sqs_queue.orders)" in got[0][1], got
    got = _by(report, "CHG006", "aws_s3_bucket.payloads")
    assert [s for s, _ in got] == ["fail"], got
    assert "claim-check bucket 'orders-payloads' is replaced" in got[0][1] and '"orders-payloads-v2"' in got[0][1]


def test_bucket_named_in_a_policy_known_after_apply_is_linked_with_the_source(stack):
    work, plan = stack
    assert _by(evaluate(plan), "S3004", "aws_s3_bucket.audit") == []  # the plan alone cannot tell
    got = _by(evaluate(plan, source_dir=str(work)), "S3004", "aws_s3_bucket.audit")
    assert [s for s, _ in got] == ["fail"] and "payloads are never deleted" in got[0][1], got
