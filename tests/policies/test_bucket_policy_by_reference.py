"""S3003 on a bucket policy that names its bucket by reference, as configurations
usually do: ``Resource = [aws_s3_bucket.b.arn, "${aws_s3_bucket.b.arn}/*"]``.

The plan leaves such a policy unknown (the bucket's ARN is known only after apply), but the
bucket's name is known, and so is its ARN (``arn:aws:s3:::<name>``): with ``--source-dir``
the rule decides whether the TLS-only Deny covers the bucket and its objects. A reference it
cannot decide (another bucket's ARN) is unknown, never "covers neither".

A real plan of a flat root stack (no module) in a temporary directory.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from resilient_sqs.policy.engine import evaluate
from tests.support import plan_cache
from tests.support.helpers import OFFLINE_PROVIDER

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("bucket-policy-by-reference")]



def _bucket(key: str, resources: str) -> str:
    return f'''
resource "aws_s3_bucket" "{key}" {{
  bucket = "orders-{key}-payloads"
}}

resource "aws_s3_bucket_policy" "{key}" {{
  bucket = aws_s3_bucket.{key}.id
  policy = jsonencode({{
    Version = "2012-10-17"
    Statement = [{{
      Sid       = "TlsOnly"
      Effect    = "Deny"
      Principal = "*"
      Action    = "s3:*"
      Resource  = {resources}
      Condition = {{ Bool = {{ "aws:SecureTransport" = "false" }} }}
    }}]
  }})
}}
'''


STACK = OFFLINE_PROVIDER + '''
resource "aws_sqs_queue" "orders" {
  name                      = "orders"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

# the worker reads and writes the payloads of the orders queue: every bucket below is a
# claim-check bucket of that queue
data "aws_iam_policy_document" "worker" {
  statement {
    actions   = ["sqs:ReceiveMessage", "sqs:DeleteMessage"]
    resources = [aws_sqs_queue.orders.arn]
  }
  statement {
    actions   = ["s3:GetObject", "s3:PutObject"]
    resources = ["${aws_s3_bucket.arn.arn}/*", "${aws_s3_bucket.bucketonly.arn}/*", "${aws_s3_bucket.byid.arn}/*",
                 "${aws_s3_bucket.other.arn}/*"]
  }
}
''' + _bucket("arn", '[aws_s3_bucket.arn.arn, "${aws_s3_bucket.arn.arn}/*"]') \
    + _bucket("bucketonly", "[aws_s3_bucket.bucketonly.arn]") \
    + _bucket("byid", '["arn:aws:s3:::${aws_s3_bucket.byid.id}", "arn:aws:s3:::${aws_s3_bucket.byid.id}/*"]') \
    + _bucket("other", '[aws_s3_bucket.arn.arn, "${aws_s3_bucket.arn.arn}/*"]')


@pytest.fixture(scope="module")
def stack():
    work = Path(tempfile.mkdtemp(prefix="bucket-policy-ref-"))
    try:
        (work / "main.tf").write_text(STACK)
        yield work, plan_cache.load(work, offline=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _s3003(report) -> dict:
    return {f.address: (f.status, f.message) for f in report.passed + report.findings if f.rule_id == "S3003"}


def test_the_plan_leaves_the_policies_unknown(stack):
    _, plan = stack
    got = {rc["address"]: rc["change"]["after_unknown"].get("policy") for rc in plan["resource_changes"]
           if rc["type"] == "aws_s3_bucket_policy"}
    assert got and all(v is True for v in got.values()), got
    assert {s for s, _ in _s3003(evaluate(plan)).values()} == {"unknown"}


def test_policy_naming_its_own_bucket_is_decided_from_source(stack):
    work, plan = stack
    got = _s3003(evaluate(plan, source_dir=str(work)))
    assert got["aws_s3_bucket.arn"] == ("pass", "bucket policy denies s3:* without TLS on the bucket and its objects")
    assert got["aws_s3_bucket.byid"][0] == "pass", got["aws_s3_bucket.byid"]
    status, message = got["aws_s3_bucket.bucketonly"]
    assert status == "fail" and "on the bucket but not on its objects" in message, got["aws_s3_bucket.bucketonly"]


def test_policy_naming_another_bucket_is_unknown_not_a_miss(stack):
    """The Deny of bucket `other` names bucket `arn` by reference: which ARN that is, the
    rule does not decide (it only reads the bucket's own): unknown, never a fail."""
    work, plan = stack
    status, message = _s3003(evaluate(plan, source_dir=str(work)))["aws_s3_bucket.other"]
    assert status == "unknown" and "only known after apply" in message, (status, message)
