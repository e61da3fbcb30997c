"""Rules judge only what they are about (issue 33 §3), on the real plan of
tests/policies/configs/judged-scope: a KMS key policy is no IAM001/IAM002 subject; a bucket
that is the system of record and notifies its queue is no claim-check store (S3004) unless the
configuration names it (``claim_check_buckets``, which also opts in a bucket tied to its queues
by a naming convention only); S3003 decides a TLS-only Deny naming a bucket with a generated name
by reference; a queue's missing alarm is placed in the alarms module of its own region."""
from __future__ import annotations

import pytest

from resilient_sqs.policy.config import Config, load_config
from resilient_sqs.policy.engine import evaluate
from resilient_sqs.policy.errors import InputError
from tests.policies import plans

NAME = "config:judged-scope"


def _source() -> str:
    return str(plans.subjects()[NAME][0])


def _by(report, rule_id: str, address: str):
    return [f for f in report.findings + report.passed if f.rule_id == rule_id and f.address == address]


def test_key_policies_are_not_iam_subjects(plan_doc):
    """AWS's default key policy (kms:* for the account root) and a statement letting SNS use
    the key ("*": this key) gave IAM001 and IAM002 errors; the role's policy is still judged."""
    report = evaluate(plan_doc(NAME))
    judged = {f.address for f in report.findings + report.passed if f.rule_id in ("IAM001", "IAM002")}
    assert "data.aws_iam_policy_document.topic_key" not in judged
    assert "aws_iam_role_policy.reader" in judged


def test_a_notifying_system_of_record_is_no_claim_check_store(plan_doc):
    """The consumer reads the objects the notifications name (its role and environment name
    the bucket beside the queue): S3004 used to fail it for having no payload expiry."""
    doc = plan_doc(NAME)
    assert _by(evaluate(doc), "S3004", "aws_s3_bucket.records") == []
    # named by the configuration, it is judged all the same
    cfg = Config(options={"S3004": {"claim_check_buckets": ["records-of-*"]}})
    got = _by(evaluate(doc, cfg), "S3004", "aws_s3_bucket.records")
    assert [f.status for f in got] == ["fail"] and "no enabled lifecycle expiration" in got[0].message


def test_claim_check_buckets_opts_in_a_bucket_linked_by_name_only(plan_doc):
    doc = plan_doc(NAME)
    assert _by(evaluate(doc), "S3004", "aws_s3_bucket.payloads") == []
    for pattern in ("*-payloads", "aws_s3_bucket.payloads", "orders-payloads"):
        got = _by(evaluate(doc, Config(options={"S3004": {"claim_check_buckets": [pattern]}})), "S3004",
                  "aws_s3_bucket.payloads")
        # 3 days against the DLQs of the root module's queues (14 days)
        assert [f.status for f in got] == ["fail"], pattern
        assert "3 d" in got[0].message and "1209600 s (14 d)" in got[0].message, got[0].message
    # a glob that names another bucket opts nothing in
    assert _by(evaluate(doc, Config(options={"S3004": {"claim_check_buckets": ["*-archive"]}})), "S3004",
               "aws_s3_bucket.payloads") == []


def test_claim_check_buckets_is_checked_when_read(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text("rules:\n  S3004:\n    claim_check_buckets: ['*-payloads']\n")
    cfg = load_config(str(good))
    assert cfg.rule_options("CHG006")["claim_check_buckets"] == ["*-payloads"]  # one setting, every rule
    assert cfg.rule_options("CHG007")["claim_check_buckets"] == ["*-payloads"]
    for bad, words in (("[1]", "claim_check_buckets[0]: 1 must be a non-empty string"),
                       ("['']", "claim_check_buckets[0]: '' must be a non-empty string"),
                       ("'*-payloads'", "claim_check_buckets")):
        path = tmp_path / "bad.yaml"
        path.write_text(f"rules:\n  S3004:\n    claim_check_buckets: {bad}\n")
        with pytest.raises(InputError) as e:
            load_config(str(path))
        assert words in str(e.value), str(e.value)


def test_tls_deny_naming_a_generated_bucket_by_reference_is_decided_with_the_source(plan_doc):
    doc = plan_doc(NAME)
    assert [f.status for f in _by(evaluate(doc), "S3003", "aws_s3_bucket.generated")] == ["unknown"]
    got = _by(evaluate(doc, source_dir=_source()), "S3003", "aws_s3_bucket.generated")
    assert [f.status for f in got] == ["pass"], [f.message for f in got]


def test_missing_alarms_are_placed_in_the_alarms_module_of_the_queues_region(plan_doc):
    report = evaluate(plan_doc(NAME))
    for rule_id, address in (("CW001", 'aws_sqs_queue.eu_dlq["orders"]'), ("CW002", 'aws_sqs_queue.eu["orders"]')):
        (f,) = _by(report, rule_id, address)
        assert f.status == "fail" and "module.alarms_eu" in f.message and "alarms_us" not in f.message, f.message
        assert "(eu-west-1)" in f.message
    # the queue of the same name in us-east-1 is watched by its own region's module
    for rule_id, address in (("CW001", "aws_sqs_queue.orders_dlq"), ("CW002", "aws_sqs_queue.orders")):
        (f,) = _by(report, rule_id, address)
        assert f.status == "pass" and "module.alarms_us" in f.message, f.message
