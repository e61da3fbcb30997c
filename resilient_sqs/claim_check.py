"""Claim check on the module's bucket with the AWS SQS extended client
(``amazon-sqs-extended-client``), which writes the pointer format of the Java library.

    from resilient_sqs.claim_check import extended_client, resolve

    sqs = extended_client(bucket["name"], prefix=bucket["payload_prefix"])   # module output claim_check_bucket
    sqs.send_message(QueueUrl=url, MessageBody=big_json)   # > 256 KiB: payload to S3, pointer to SQS
    sqs.receive_message(QueueUrl=url, MessageAttributeNames=["All"])       # bodies come back resolved

    def record_handler(record):        # Lambda: records arrive without the client
        order = json.loads(resolve(record, sqs))

What this adds to the library, and only that:

* **key prefix**: the Python client names a payload with a bare UUID at the bucket root
  (or exactly the value of an ``S3Key`` message attribute); it has no prefix setting. The
  module's lifecycle rule expires, and its IAM policies grant, only ``payload_prefix``:
  :func:`extended_client` makes the client write ``<prefix><uuid>`` keys (an ``S3Key``
  attribute's value goes under the prefix too);
* :func:`resolve` for Lambda event records, through the client's own S3 retrieval
  (the library resolves pointers only in its ``receive_message``);
* no global side effect: importing ``sqs_extended_client`` replaces ``boto3.Session``
  (and the default session) with its own, so every SQS client the process creates
  afterwards (Powertools', yours) silently fetches pointers' payloads in
  ``receive_message`` with an S3 client of its own. This module imports it and puts
  boto3 back as it was; only the clients made here are extended.

Payloads are not deleted with their messages (the library's default, kept): the bucket's
lifecycle rule expires them, and a retried or redriven message still needs its payload.
"""
from __future__ import annotations

import uuid
from typing import Any

SIZE_ATTRIBUTES = ("ExtendedPayloadSize", "SQSLargePayloadSize")  # current, legacy (older Java clients)


def extended_client(bucket: str, prefix: str = "payloads/", *, session: Any = None, s3: Any = None, **client_kwargs: Any):
    """An SQS client of the extended-client library, storing large payloads in ``bucket`` under ``prefix``.

    ``session``: an ``sqs_extended_client.SQSExtendedClientSession`` (default: a new one);
    ``s3``: the S3 client for payloads (default: the library's, from the session);
    ``client_kwargs``: for ``session.client("sqs", ...)`` (region_name, endpoint_url, config).
    """
    if not bucket:
        raise ValueError("bucket: give the claim-check bucket's name (module output claim_check_bucket.name)")
    if prefix and not prefix.endswith("/"):
        raise ValueError(f"prefix: {prefix!r} must end with '/' (module output claim_check_bucket.payload_prefix)")
    session = session or extended_session_class()()
    sqs = session.client("sqs", **client_kwargs)
    if not hasattr(type(sqs), "large_payload_support"):
        raise ValueError(f"session: {type(session).__name__} makes plain SQS clients; give an "
                         "SQSExtendedClientSession (resilient_sqs.claim_check.extended_session_class()()) or none")
    if s3 is not None:
        sqs.s3_client = s3
    sqs.large_payload_support = bucket
    sqs.delete_payload_from_s3 = False

    def prefixed_key(message_attributes: dict) -> str:
        given = message_attributes.get("S3Key", {}).get("StringValue")
        return f"{prefix}{given or uuid.uuid4()}"

    # the library asks self.get_s3_key(attributes) for each payload's key
    sqs.get_s3_key = prefixed_key
    return sqs


def extended_session_class():
    """``sqs_extended_client.SQSExtendedClientSession``, imported without its global patch of boto3."""
    import boto3
    import boto3.session

    saved = (boto3.session.Session, boto3.Session, boto3.DEFAULT_SESSION)
    try:
        from sqs_extended_client.client import SQSExtendedClientSession
    finally:
        boto3.session.Session, boto3.Session, boto3.DEFAULT_SESSION = saved
    return SQSExtendedClientSession


def is_pointer(record: Any) -> bool:
    raw = record if isinstance(record, dict) else record.raw_event
    return any(name in raw.get("messageAttributes", {}) for name in SIZE_ATTRIBUTES)


def resolve(record: Any, sqs: Any) -> str:
    """The body of a Lambda SQS record (dict or Powertools SQSRecord): fetched from S3 by
    the extended client ``sqs`` when the record is a pointer. A missing payload raises
    (the record is retried, not dropped)."""
    raw = record if isinstance(record, dict) else record.raw_event
    if not is_pointer(raw):
        return raw["body"]
    return sqs.retrieve_message_from_s3(raw["body"])


__all__ = ["SIZE_ATTRIBUTES", "extended_client", "extended_session_class", "is_pointer", "resolve"]
