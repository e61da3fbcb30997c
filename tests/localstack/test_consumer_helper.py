"""resilient_sqs.consumer with events built from real received messages (LocalStack):
partial batch failures, the x-redrive-count kill switch, permanent failures, FIFO order."""
from __future__ import annotations

import json
import uuid

import pytest

from resilient_sqs.consumer import BatchProcessor, PermanentFailure, lambda_event
from tests.helpers import load_dlq_redrive

pytestmark = pytest.mark.localstack


def _queue(sqs, name: str, fifo: bool = False) -> tuple[str, str]:
    attrs = {"FifoQueue": "true", "ContentBasedDeduplication": "true"} if fifo else {}
    url = sqs.create_queue(QueueName=name + (".fifo" if fifo else ""), Attributes=attrs)["QueueUrl"]
    return url, sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def _receive(sqs, url: str, n: int) -> list[dict]:
    got: list[dict] = []
    while len(got) < n:
        msgs = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=min(10, n - len(got)), WaitTimeSeconds=2,
            MessageAttributeNames=["All"], AttributeNames=["All"],
        ).get("Messages", [])
        if not msgs:
            break
        got += msgs
    return got


def _settle(sqs, url: str, messages: list[dict], result: dict) -> None:
    """What Lambda does with the response: delete every record not reported as failed."""
    failed = {f["itemIdentifier"] for f in result["batchItemFailures"]}
    done = [m for m in messages if m["MessageId"] not in failed]
    if done:
        sqs.delete_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)])
    # failed ones return at once (as if their visibility timeout had passed)
    for m in messages:
        if m["MessageId"] in failed:
            sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=0)


def test_partial_batch_failure_retries_only_the_failed(aws):
    sqs = aws.client("sqs")
    url, arn = _queue(sqs, f"consumer-{uuid.uuid4().hex[:8]}")
    sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": json.dumps({"n": i})} for i in range(6)])
    msgs = _receive(sqs, url, 6)
    seen = []

    def handle(record):
        n = json.loads(record["body"])["n"]
        seen.append(n)
        if n in (1, 4):
            raise RuntimeError("downstream timeout")

    result = BatchProcessor(log=lambda _: None).process(lambda_event(msgs, arn), handle)
    assert sorted(seen) == list(range(6))
    failed_ids = {f["itemIdentifier"] for f in result["batchItemFailures"]}
    assert failed_ids == {m["MessageId"] for m in msgs if json.loads(m["Body"])["n"] in (1, 4)}
    _settle(sqs, url, msgs, result)
    again = _receive(sqs, url, 6)
    assert sorted(json.loads(m["Body"])["n"] for m in again) == [1, 4]


def test_redrive_count_over_limit_is_failed_without_processing(aws):
    sqs = aws.client("sqs")
    url, arn = _queue(sqs, f"consumer-{uuid.uuid4().hex[:8]}")
    for i, count in enumerate([0, 2, 3, 7]):
        attrs = {"x-redrive-count": {"DataType": "Number", "StringValue": str(count)}} if count else {}
        sqs.send_message(QueueUrl=url, MessageBody=str(i), MessageAttributes=attrs)
    msgs = _receive(sqs, url, 4)
    handled = []
    lines: list[str] = []
    result = BatchProcessor(max_redrive_count=2, log=lines.append).process(lambda_event(msgs, arn), lambda r: handled.append(r["body"]))
    by_body = {m["Body"]: m["MessageId"] for m in msgs}
    assert sorted(handled) == ["0", "1"]
    assert {f["itemIdentifier"] for f in result["batchItemFailures"]} == {by_body["2"], by_body["3"]}
    assert sum('"poison"' in x for x in lines) == 2


def test_permanent_failure_is_dead_lettered_with_reason_then_archived(aws):
    """PermanentFailure -> straight to the DLQ with x-failure-reason -> the redrive function archives it."""
    sqs, s3 = aws.client("sqs"), aws.client("s3")
    name = f"consumer-{uuid.uuid4().hex[:8]}"
    url, arn = _queue(sqs, name)
    dlq_url, _ = _queue(sqs, name + "-dlq")
    sqs.send_message(QueueUrl=url, MessageBody=json.dumps({"bad": True}), MessageAttributes={"tenant": {"DataType": "String", "StringValue": "t1"}})
    sqs.send_message(QueueUrl=url, MessageBody=json.dumps({"id": 1}))
    msgs = _receive(sqs, url, 2)

    def handle(record):
        if "id" not in json.loads(record["body"]):
            raise PermanentFailure("VALIDATION_ERROR")

    result = BatchProcessor(dlq_url=dlq_url, sqs=sqs, log=lambda _: None).process(lambda_event(msgs, arn), handle)
    assert result == {"batchItemFailures": []}
    _settle(sqs, url, msgs, result)
    assert _receive(sqs, url, 1) == []
    dead = _receive(sqs, dlq_url, 1)
    assert len(dead) == 1
    assert dead[0]["MessageAttributes"]["x-failure-reason"]["StringValue"] == "VALIDATION_ERROR"
    assert dead[0]["MessageAttributes"]["tenant"]["StringValue"] == "t1"
    sqs.change_message_visibility(QueueUrl=dlq_url, ReceiptHandle=dead[0]["ReceiptHandle"], VisibilityTimeout=0)

    bucket = f"consumer-archive-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=bucket)
    mod = load_dlq_redrive()
    cfg = mod.Config.from_env({
        "DLQ_URL": dlq_url, "SOURCE_QUEUE_URL": url, "ARCHIVE_BUCKET": bucket,
        "PERMANENT_FAILURE_REASONS": '["VALIDATION_ERROR"]',
    })
    summary = mod.Redriver(cfg, sqs, s3, log=lambda _: None).run()
    assert (summary.redriven, summary.archived) == (0, 1)
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]]
    doc = json.loads(s3.get_object(Bucket=bucket, Key=keys[0])["Body"].read())
    assert doc["reason"] == "permanent-failure:VALIDATION_ERROR" and json.loads(doc["body"]) == {"bad": True}


def test_fifo_stops_at_first_failure(aws):
    sqs = aws.client("sqs")
    url, arn = _queue(sqs, f"consumer-{uuid.uuid4().hex[:8]}", fifo=True)
    for i in range(5):
        sqs.send_message(QueueUrl=url, MessageBody=f"step-{i}", MessageGroupId="order-1")
    msgs = _receive(sqs, url, 5)
    assert [m["Body"] for m in msgs] == [f"step-{i}" for i in range(5)]
    handled = []

    def handle(record):
        handled.append(record["body"])
        if record["body"] == "step-2":
            raise RuntimeError("boom")

    result = BatchProcessor(log=lambda _: None).process(lambda_event(msgs, arn), handle)
    assert handled == ["step-0", "step-1", "step-2"]
    assert [f["itemIdentifier"] for f in result["batchItemFailures"]] == [m["MessageId"] for m in msgs[2:]]
