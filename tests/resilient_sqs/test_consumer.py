"""Powertools' batch processors with resilient_sqs.consumer.redrive_guard, on events built
from really received messages (LocalStack): partial batch failures, the x-redrive-count
kill switch, permanent failures routed to the DLQ, FIFO order, and the DLQ send's time budget."""
from __future__ import annotations

import json
import time
import uuid

import pytest
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    SqsFifoPartialProcessor,
    process_partial_response,
)

from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

from resilient_sqs.consumer import PermanentFailure, redrive_count, redrive_guard, lambda_event
from tests.support.helpers import load_dlq_redrive
from tests.support.faults import FakeContext, FaultProxy
from tooling.redrive_scenario import EndpointSession

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
    for m in messages:  # failed ones return at once (as if their visibility timeout had passed)
        if m["MessageId"] in failed:
            sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=0)


def _count(n: int) -> dict:
    return {"x-redrive-count": {"DataType": "Number", "StringValue": str(n)}} if n else {}


def test_mixed_batch_with_the_kill_switch_and_a_permanent_failure(aws):
    """ok, transient error, redriven too often, permanent failure, ok: exactly the transient
    one and the over-limit one are reported failed; the permanent one is in the DLQ."""
    sqs = aws.client("sqs")
    name = f"consumer-{uuid.uuid4().hex[:8]}"
    url, arn = _queue(sqs, name)
    dlq_url, _ = _queue(sqs, name + "-dlq")
    kinds = {"ok-1": 0, "transient": 1, "over-limit": 3, "permanent": 0, "ok-2": 2}
    for body, count in kinds.items():
        attrs = {"tenant": {"DataType": "String", "StringValue": "t1"}, **_count(count)}
        sqs.send_message(QueueUrl=url, MessageBody=body, MessageAttributes=attrs)
    msgs = _receive(sqs, url, len(kinds))
    ran: list[str] = []
    lines: list[str] = []

    @redrive_guard(max_redrive_count=2, dlq_url=dlq_url, session=aws, log=lines.append)
    def record_handler(record):
        ran.append(record.body)
        if record.body == "transient":
            raise ConnectionError("downstream timeout")
        if record.body == "permanent":
            raise PermanentFailure("VALIDATION_ERROR")

    result = process_partial_response(event=lambda_event(msgs, arn), record_handler=record_handler,
                                      processor=BatchProcessor(event_type=EventType.SQS), context=FakeContext(30))
    ids = {m["Body"]: m["MessageId"] for m in msgs}
    assert {f["itemIdentifier"] for f in result["batchItemFailures"]} == {ids["transient"], ids["over-limit"]}
    assert sorted(ran) == ["ok-1", "ok-2", "permanent", "transient"]  # the over-limit one never ran
    assert sorted((json.loads(x)["outcome"], json.loads(x)["message_id"]) for x in lines) == [
        ("dead-lettered", ids["permanent"]), ("failed", ids["transient"]), ("poison", ids["over-limit"])]
    _settle(sqs, url, msgs, result)
    assert sorted(m["Body"] for m in _receive(sqs, url, 5)) == ["over-limit", "transient"]
    [dead] = _receive(sqs, dlq_url, 1)
    assert dead["Body"] == "permanent"
    assert dead["MessageAttributes"]["x-failure-reason"]["StringValue"] == "VALIDATION_ERROR"
    assert dead["MessageAttributes"]["tenant"]["StringValue"] == "t1"


def test_permanent_failure_is_archived_by_the_redrive_function(aws):
    """PermanentFailure -> the DLQ with x-failure-reason -> the redrive function archives it."""
    sqs, s3 = aws.client("sqs"), aws.client("s3")
    name = f"consumer-{uuid.uuid4().hex[:8]}"
    url, arn = _queue(sqs, name)
    dlq_url, _ = _queue(sqs, name + "-dlq")
    sqs.send_message(QueueUrl=url, MessageBody=json.dumps({"bad": True}))
    sqs.send_message(QueueUrl=url, MessageBody=json.dumps({"id": 1}))
    msgs = _receive(sqs, url, 2)

    @redrive_guard(dlq_url=dlq_url, session=aws, log=lambda _: None)
    def record_handler(record):
        if "id" not in record.json_body:
            raise PermanentFailure("VALIDATION_ERROR")

    result = process_partial_response(event=lambda_event(msgs, arn), record_handler=record_handler,
                                      processor=BatchProcessor(event_type=EventType.SQS))
    assert result == {"batchItemFailures": []}
    _settle(sqs, url, msgs, result)
    bucket = f"consumer-archive-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=bucket)
    mod = load_dlq_redrive()
    cfg = mod.Config.from_env({
        "DLQ_URL": dlq_url, "SOURCE_QUEUE_URL": url, "ARCHIVE_BUCKET": bucket,
        "PERMANENT_FAILURE_REASONS": '["VALIDATION_ERROR"]',
    })
    summary = mod.Redriver(cfg, aws, log=lambda _: None).run()
    assert (summary.redriven, summary.archived) == (0, 1)
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]]
    doc = json.loads(s3.get_object(Bucket=bucket, Key=keys[0])["Body"].read())
    assert doc["reason"] == "permanent-failure:VALIDATION_ERROR" and json.loads(doc["body"]) == {"bad": True}


def test_fifo_order_is_kept_when_the_kill_switch_fails_a_record(aws):
    sqs = aws.client("sqs")
    url, arn = _queue(sqs, f"consumer-{uuid.uuid4().hex[:8]}", fifo=True)
    for i in range(5):
        sqs.send_message(QueueUrl=url, MessageBody=f"step-{i}", MessageGroupId="order-1",
                         MessageAttributes=_count(9 if i == 2 else 0))
    msgs = _receive(sqs, url, 5)
    assert [m["Body"] for m in msgs] == [f"step-{i}" for i in range(5)]
    handled: list[str] = []

    @redrive_guard(max_redrive_count=3, log=lambda _: None)
    def record_handler(record):
        handled.append(record.body)

    result = process_partial_response(event=lambda_event(msgs, arn), record_handler=record_handler,
                                      processor=SqsFifoPartialProcessor())
    assert handled == ["step-0", "step-1"]
    assert [f["itemIdentifier"] for f in result["batchItemFailures"]] == [m["MessageId"] for m in msgs[2:]]
    _settle(sqs, url, msgs, result)
    assert [m["Body"] for m in _receive(sqs, url, 5)] == ["step-2", "step-3", "step-4"]  # in order, from the failed one


def test_fifo_skip_group_on_error_keeps_other_groups_going(aws):
    sqs = aws.client("sqs")
    url, arn = _queue(sqs, f"consumer-{uuid.uuid4().hex[:8]}", fifo=True)
    for body, group in [("a0", "A"), ("b0", "B"), ("a1", "A"), ("b1", "B")]:
        sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId=group)
    msgs = _receive(sqs, url, 4)
    handled: list[str] = []

    @redrive_guard(max_redrive_count=3, log=lambda _: None)
    def record_handler(record):
        handled.append(record.body)
        if record.body == "a0":
            raise ConnectionError("boom")

    result = process_partial_response(event=lambda_event(msgs, arn), record_handler=record_handler,
                                      processor=SqsFifoPartialProcessor(skip_group_on_error=True))
    ids = {m["Body"]: m["MessageId"] for m in msgs}
    assert {f["itemIdentifier"] for f in result["batchItemFailures"]} == {ids["a0"], ids["a1"]}
    assert sorted(handled) == ["a0", "b0", "b1"]


def test_dead_letter_send_ends_before_the_function_times_out(aws, localstack):
    """The DLQ's SendMessage hangs (response held 30 s); the function has 4 s left. The send
    gives up in time and the record is reported failed (SQS retries it), not hung to the timeout."""
    sqs = aws.client("sqs")
    name = f"consumer-{uuid.uuid4().hex[:8]}"
    url, arn = _queue(sqs, name)
    dlq_url, _ = _queue(sqs, name + "-dlq")
    sqs.send_message(QueueUrl=url, MessageBody="permanent")
    sqs.send_message(QueueUrl=url, MessageBody="fine")
    msgs = _receive(sqs, url, 2)
    lines: list[str] = []
    with FaultProxy(localstack.endpoint) as proxy:
        proxy.on("SendMessage", ("hold", 30), times=10)

        @redrive_guard(dlq_url=dlq_url, session=EndpointSession(proxy.endpoint), log=lines.append)
        def record_handler(record):
            if record.body == "permanent":
                raise PermanentFailure("VALIDATION_ERROR")

        ctx = FakeContext(4)
        started = time.monotonic()
        result = process_partial_response(event=lambda_event(msgs, arn), record_handler=record_handler,
                                          processor=BatchProcessor(event_type=EventType.SQS), context=ctx)
        elapsed = time.monotonic() - started
    assert elapsed < 4, f"the handler took {elapsed:.1f} s of its 4 s"
    ids = {m["Body"]: m["MessageId"] for m in msgs}
    assert result == {"batchItemFailures": [{"itemIdentifier": ids["permanent"]}]}
    assert [json.loads(x)["outcome"] for x in lines] == ["dead-letter-failed"]
    assert "ReadTimeout" in json.loads(lines[0])["detail"]


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="max_redrive_count: -1"):
        redrive_guard(max_redrive_count=-1)


def test_malformed_redrive_count_fails_unprocessed_and_is_archived_as_malformed(aws):
    """x-redrive-count values a producer can set that are no count ("inf", "-5", "abc",
    Binary): redrive_count() never raises (None), the guard fails the record unprocessed
    with the reason, and the redrive function archives it as malformed. Before:
    redrive_count() raised OverflowError on "inf"; "-5" passed the kill switch."""
    from tooling.redrive_scenario import archived, config, queue_pair

    sqs, s3 = aws.client("sqs"), aws.client("s3")
    name = f"malformed-consumer-{uuid.uuid4().hex[:8]}"
    src_url, dlq_url, _ = queue_pair(sqs, name)
    arn = sqs.get_queue_attributes(QueueUrl=src_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    values = {"inf": {"DataType": "String", "StringValue": "inf"}, "minus5": {"DataType": "Number", "StringValue": "-5"},
              "abc": {"DataType": "String", "StringValue": "abc"}, "binary": {"DataType": "Binary", "BinaryValue": b"\x01"},
              "ok": {"DataType": "Number", "StringValue": "1"}}
    for body, attr in values.items():
        sqs.send_message(QueueUrl=src_url, MessageBody=body, MessageAttributes={"x-redrive-count": attr})
    msgs = _receive(sqs, src_url, len(values))
    event = lambda_event(msgs, arn)
    assert sorted(redrive_count(r) is None for r in event["Records"]) == [False] + [True] * 4
    ran, lines = [], []

    @redrive_guard(max_redrive_count=3, log=lines.append)
    def record_handler(record):
        ran.append(record.body)

    result = process_partial_response(event=event, record_handler=record_handler,
                                      processor=BatchProcessor(event_type=EventType.SQS), context=FakeContext(30))
    ids = {m["Body"]: m["MessageId"] for m in msgs}
    assert ran == ["ok"]
    assert {f["itemIdentifier"] for f in result["batchItemFailures"]} == {ids[b] for b in values if b != "ok"}
    poison = {json.loads(x)["message_id"]: json.loads(x)["detail"] for x in lines}
    assert set(poison) == {ids[b] for b in values if b != "ok"}
    assert "'inf' is not a non-negative whole number" in poison[ids["inf"]] and "Binary" in poison[ids["binary"]]
    # what SQS does after maxReceiveCount failures, then the redrive function's run
    for m in msgs:
        if m["Body"] != "ok":
            sqs.send_message(QueueUrl=dlq_url, MessageBody=m["Body"], MessageAttributes=m["MessageAttributes"])
    bucket = f"{name}-archive"
    s3.create_bucket(Bucket=bucket)
    mod = load_dlq_redrive()
    summary = mod.Redriver(config(mod, src_url, dlq_url, bucket), aws, log=lambda _: None).run()
    assert (summary.archived, summary.redriven, summary.reasons) == (4, 0, {"malformed-attribute": 4})
    assert sorted(d["body"] for d in archived(s3, bucket)) == ["abc", "binary", "inf", "minus5"]


def test_a_batch_where_every_record_fails_logs_each_reason(aws):
    """Powertools raises one BatchProcessingError when every record fails; the guard has
    logged each record's reason before that (before: nothing in the logs)."""
    sqs = aws.client("sqs")
    url, arn = _queue(sqs, f"allfail-{uuid.uuid4().hex[:8]}")
    for i in range(3):
        sqs.send_message(QueueUrl=url, MessageBody=f"b{i}")
    msgs = _receive(sqs, url, 3)
    lines: list[str] = []

    @redrive_guard(max_redrive_count=3, log=lines.append)
    def record_handler(record):
        raise ConnectionError(f"orders-db unreachable for {record.body}")

    with pytest.raises(BatchProcessingError):
        process_partial_response(event=lambda_event(msgs, arn), record_handler=record_handler,
                                 processor=BatchProcessor(event_type=EventType.SQS), context=FakeContext(30))
    logged = sorted((json.loads(x)["message_id"], json.loads(x)["outcome"], json.loads(x)["detail"]) for x in lines)
    assert logged == sorted((m["MessageId"], "failed", f"ConnectionError: orders-db unreachable for {m['Body']}") for m in msgs)
