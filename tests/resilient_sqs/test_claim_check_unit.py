"""resilient_sqs.claim_check without AWS: key prefixing, settings, and no global patch of boto3.

Its behaviour against S3 and SQS is tested on the applied examples/complete
(tests/examples/test_complete_behaviour.py)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from resilient_sqs.claim_check import extended_client, is_pointer

ENV = {"region_name": "us-east-1", "aws_access_key_id": "x", "aws_secret_access_key": "x"}


def test_payload_keys_go_under_the_prefix():
    sqs = extended_client("bucket", "payloads/", **ENV)
    stored = []
    sqs.s3_client.put_object = lambda **kw: stored.append(kw)
    body, attrs = sqs.store_message_in_s3("x" * 300_000, {})
    kind, pointer = json.loads(body)
    assert kind == "software.amazon.payloadoffloading.PayloadS3Pointer"
    assert pointer["s3Key"].startswith("payloads/") and len(pointer["s3Key"]) == len("payloads/") + 36
    assert stored[0]["Key"] == pointer["s3Key"] and stored[0]["Bucket"] == "bucket"
    assert attrs["ExtendedPayloadSize"] == {"DataType": "Number", "StringValue": "300000"}
    # an S3Key attribute names the object, still under the prefix
    body, _ = sqs.store_message_in_s3("x" * 300_000, {"S3Key": {"DataType": "String", "StringValue": "fixed"}})
    assert json.loads(body)[1]["s3Key"] == "payloads/fixed"
    # small messages stay inline; payloads are never deleted with their messages
    assert sqs.store_message_in_s3("small", {}) == ("small", {})
    assert sqs.delete_payload_from_s3 is False


@pytest.mark.parametrize("kwargs,message", [
    ({"bucket": ""}, "bucket: give the claim-check bucket"),
    ({"bucket": "b", "prefix": "payloads"}, "prefix: 'payloads' must end with '/'"),
])
def test_bad_settings_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        extended_client(**kwargs, **ENV)


def test_a_plain_session_is_refused():
    import boto3

    with pytest.raises(ValueError, match="session: Session makes plain SQS clients"):
        extended_client("b", session=boto3.session.Session(**{k: v for k, v in ENV.items()}))


def test_is_pointer_reads_both_size_attributes():
    assert is_pointer({"messageAttributes": {"ExtendedPayloadSize": {}}, "body": "[]"})
    assert is_pointer({"messageAttributes": {"SQSLargePayloadSize": {}}, "body": "[]"})
    assert not is_pointer({"messageAttributes": {}, "body": "x"})


def test_the_library_import_does_not_patch_boto3_for_everyone():
    """sqs_extended_client's __init__ replaces boto3.Session process-wide; extended_client does not leak that."""
    code = (
        "import boto3\n"
        "from resilient_sqs.claim_check import extended_client\n"
        "ext = extended_client('b', region_name='us-east-1')\n"
        "plain = boto3.client('sqs', region_name='us-east-1')\n"
        "print(hasattr(ext, 'large_payload_support'), hasattr(plain, 'large_payload_support'), boto3.Session.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False", "Session"]
    # what a bare import of the library does, for contrast (the reason for the guard)
    bare = "import boto3, sqs_extended_client\nprint(hasattr(boto3.client('sqs', region_name='us-east-1'), 'large_payload_support'))"
    assert subprocess.run([sys.executable, "-c", bare], capture_output=True, text=True, check=True).stdout.strip() == "True"
