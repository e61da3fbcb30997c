"""resilient_sqs.consumer without AWS: the kill switch, permanent-failure routing and the
DLQ send's time budget, run through Powertools' real batch processors.

Only the SQS calls are faked (botocore's Stubber on a real client: the request must match
the SQS API model). The same code against LocalStack, with the module's IAM policies, is
tests/examples/test_complete_behaviour.py.
"""
from __future__ import annotations

import json

import boto3
import pytest
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    SqsFifoPartialProcessor,
    process_partial_response,
)
from botocore.stub import Stubber

from resilient_sqs.consumer import (
    FAILURE_REASON_ATTR,
    REDRIVE_COUNT_ATTR,
    DeadLetterSender,
    MalformedRedriveCount,
    PermanentFailure,
    RedriveLimitExceeded,
    client_config,
    lambda_event,
    lambda_record,
    read_redrive_count,
    redrive_count,
    redrive_guard,
)

QUEUE_ARN = "arn:aws:sqs:us-east-1:123456789012:orders"
DLQ_URL = "https://sqs.us-east-1.amazonaws.com/123456789012/orders-dlq"
FIFO_DLQ_URL = "https://sqs.us-east-1.amazonaws.com/123456789012/orders-dlq.fifo"


def _message(mid: str, body: str = "{}", count: str | None = None, attrs: dict | None = None,
             group: str | None = None) -> dict:
    """A ReceiveMessage result entry."""
    message_attrs = dict(attrs or {})
    if count is not None:
        message_attrs[REDRIVE_COUNT_ATTR] = {"DataType": "Number", "StringValue": count}
    system = {"SentTimestamp": "1700000000000", "ApproximateReceiveCount": "1"}
    if group:
        system["MessageGroupId"] = group
    return {"MessageId": mid, "ReceiptHandle": f"rh-{mid}", "Body": body, "MD5OfBody": "x",
            "Attributes": system, "MessageAttributes": message_attrs}


def _event(*messages: dict, arn: str = QUEUE_ARN) -> dict:
    return lambda_event(list(messages), arn)


def _failed_ids(response: dict) -> list[str]:
    return sorted(f["itemIdentifier"] for f in response["batchItemFailures"])


class _Context:
    """The two things Powertools and the guard read from a Lambda context."""

    def __init__(self, remaining_ms: int):
        self.remaining_ms = remaining_ms
        self.aws_request_id = "req-1"

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


class _Session:
    """A boto3 session whose SQS clients are stubbed; records the config each was made with."""

    def __init__(self):
        self.configs = []
        self.client_obj = boto3.session.Session(
            region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x").client("sqs")
        self.stub = Stubber(self.client_obj)

    def client(self, service, config=None):
        assert service == "sqs"
        self.configs.append(config)
        return self.client_obj


def _run(handler, event: dict, processor=None, context=None) -> dict:
    return process_partial_response(event=event, record_handler=handler,
                                    processor=processor or BatchProcessor(event_type=EventType.SQS), context=context)


# --- the redrive count ------------------------------------------------------------------

@pytest.mark.parametrize("value,count", [("0", 0), ("3", 3), ("3.0", 3), ("+4", 4), (" 7 ", 7), ("5.000", 5)])
def test_whole_numbers_are_read_as_counts(value, count):
    record = lambda_record(_message("m", count=value), QUEUE_ARN)
    assert read_redrive_count(record) == (count, None)
    assert redrive_count(record) == count


def test_a_record_never_redriven_counts_zero():
    assert read_redrive_count(lambda_record(_message("m"), QUEUE_ARN)) == (0, None)


@pytest.mark.parametrize("value", ["-5", "inf", "abc", "1e400", "3.5", "", "1" * 39])
def test_a_malformed_count_is_none_with_the_value_named(value):
    record = lambda_record(_message("m", count=value), QUEUE_ARN)
    count, why = read_redrive_count(record)
    assert count is None and redrive_count(record) is None
    assert REDRIVE_COUNT_ATTR in why and "not a non-negative whole number" in why
    assert repr(value[:40] + ("..." if len(value) > 40 else "")) in why or value == ""


def test_a_binary_count_is_malformed():
    msg = _message("m", attrs={REDRIVE_COUNT_ATTR: {"DataType": "Binary", "BinaryValue": b"\x03"}})
    count, why = read_redrive_count(lambda_record(msg, QUEUE_ARN))
    assert count is None and "a Binary value" in why


# --- the kill switch, through Powertools' BatchProcessor --------------------------------

def test_a_batch_fails_only_its_failing_records_and_the_handler_never_sees_the_over_limit_one():
    seen, logs = [], []

    @redrive_guard(max_redrive_count=3, log=logs.append)
    def handler(record):
        seen.append(record.message_id)
        if json.loads(record.body).get("boom"):
            raise ValueError("boom in the handler")

    event = _event(_message("ok"), _message("at-limit", count="3"), _message("over", count="4"),
                   _message("raises", body='{"boom": true}'), _message("malformed", count="-1"))
    response = _run(handler, event)

    assert _failed_ids(response) == ["malformed", "over", "raises"]
    assert seen == ["ok", "at-limit", "raises"]  # over the limit or unreadable: never processed
    lines = {json.loads(line)["message_id"]: json.loads(line) for line in logs}
    assert lines["over"]["outcome"] == "poison" and "redriven 4 times > 3" in lines["over"]["detail"]
    assert lines["malformed"]["outcome"] == "poison" and "'-1'" in lines["malformed"]["detail"]
    assert lines["raises"] == {"message_id": "raises", "outcome": "failed", "detail": "ValueError: boom in the handler"}
    assert set(lines) == {"over", "malformed", "raises"}  # a handled record logs nothing


def test_the_limit_and_the_malformed_count_raise_their_own_errors():
    guarded = redrive_guard(max_redrive_count=2, log=lambda _: None)(lambda record: "done")
    with pytest.raises(RedriveLimitExceeded, match=r"redriven 3 times \(limit 2\)"):
        guarded(lambda_record(_message("m", count="3"), QUEUE_ARN))
    with pytest.raises(MalformedRedriveCount, match="'inf' is not a non-negative whole number"):
        guarded(lambda_record(_message("m", count="inf"), QUEUE_ARN))
    assert guarded(lambda_record(_message("m", count="2"), QUEUE_ARN)) == "done"


def test_without_a_limit_no_count_is_checked():
    guarded = redrive_guard(log=lambda _: None)(lambda record: "done")
    for count in ("999", "inf", None):
        assert guarded(lambda_record(_message("m", count=count), QUEUE_ARN)) == "done"


def test_a_negative_limit_is_refused_naming_the_value():
    with pytest.raises(ValueError, match=r"max_redrive_count: -1 must be >= 0"):
        redrive_guard(max_redrive_count=-1)


def test_a_handler_naming_record_gets_it_by_keyword_and_the_context_when_it_asks():
    calls = []

    @redrive_guard(max_redrive_count=3, log=lambda _: None)
    def handler(*, record, lambda_context):
        calls.append((record.message_id, lambda_context.aws_request_id))

    _run(handler, _event(_message("a"), _message("b")), context=_Context(30_000))
    assert calls == [("a", "req-1"), ("b", "req-1")]


def test_fifo_batch_stops_at_the_first_failure_and_fails_the_rest():
    seen = []

    @redrive_guard(max_redrive_count=1, log=lambda _: None)
    def handler(record):
        seen.append(record.message_id)

    event = _event(_message("1", group="g"), _message("2", count="2", group="g"), _message("3", group="g"),
                   arn=QUEUE_ARN + ".fifo")
    response = _run(handler, event, processor=SqsFifoPartialProcessor())
    assert seen == ["1"]  # order kept: nothing after the poison record runs
    assert _failed_ids(response) == ["2", "3"]


# --- permanent failures ----------------------------------------------------------------

def _permanent(reason: str):
    """A handler that fails records whose id starts with "p" permanently and handles the rest
    (a batch whose every record fails makes Powertools raise one error for the batch)."""
    def handler(record):
        if record.message_id.startswith("p"):
            raise PermanentFailure(reason)
    return handler


def test_a_permanent_failure_goes_to_the_dlq_with_its_reason_and_its_attributes_and_counts_as_handled():
    session, logs = _Session(), []
    handler = redrive_guard(max_redrive_count=3, dlq_url=DLQ_URL, session=session, log=logs.append)(
        _permanent("VALIDATION_ERROR"))
    attrs = {"trace": {"DataType": "String", "StringValue": "t-1"}}
    session.stub.add_response("send_message", {"MessageId": "new"}, {
        "QueueUrl": DLQ_URL, "MessageBody": '{"id": 1}',
        "MessageAttributes": {
            "trace": {"DataType": "String", "StringValue": "t-1"},
            REDRIVE_COUNT_ATTR: {"DataType": "Number", "StringValue": "2"},
            FAILURE_REASON_ATTR: {"DataType": "String", "StringValue": "VALIDATION_ERROR"},
        },
    })
    with session.stub:
        response = _run(handler, _event(_message("p", body='{"id": 1}', count="2", attrs=attrs)))
        session.stub.assert_no_pending_responses()
    assert response["batchItemFailures"] == []
    assert [json.loads(line)["outcome"] for line in logs] == ["dead-lettered"]


def test_a_fifo_dlq_gets_the_record_group_and_its_message_id_as_deduplication_id():
    session = _Session()
    handler = redrive_guard(dlq_url=FIFO_DLQ_URL, session=session, log=lambda _: None)(_permanent("BAD_SCHEMA"))
    session.stub.add_response("send_message", {"MessageId": "new"}, {
        "QueueUrl": FIFO_DLQ_URL, "MessageBody": "{}", "MessageGroupId": "customer-7",
        "MessageDeduplicationId": "p", "MessageAttributes": {
            FAILURE_REASON_ATTR: {"DataType": "String", "StringValue": "BAD_SCHEMA"}},
    })
    with session.stub:
        response = _run(handler, _event(_message("p", group="customer-7"), arn=QUEUE_ARN + ".fifo"),
                        processor=SqsFifoPartialProcessor())
        session.stub.assert_no_pending_responses()
    assert response["batchItemFailures"] == []


def test_when_the_dlq_send_fails_the_record_fails_and_sqs_retries_it():
    session, logs = _Session(), []
    handler = redrive_guard(dlq_url=DLQ_URL, session=session, log=logs.append)(_permanent("VALIDATION_ERROR"))
    session.stub.add_client_error("send_message", "AccessDenied", "not allowed to sqs:SendMessage")
    with session.stub:
        response = _run(handler, _event(_message("p"), _message("ok")))
    assert _failed_ids(response) == ["p"]
    line = json.loads(logs[0])
    assert line["outcome"] == "dead-letter-failed" and "AccessDenied" in line["detail"]


def test_without_a_dlq_url_a_permanent_failure_is_retried_and_says_so():
    logs = []
    handler = redrive_guard(max_redrive_count=3, log=logs.append)(_permanent("VALIDATION_ERROR"))
    response = _run(handler, _event(_message("p"), _message("ok")))
    assert _failed_ids(response) == ["p"]
    assert "no dlq_url" in json.loads(logs[0])["detail"]


def test_no_send_is_tried_when_the_function_has_no_time_left():
    session, logs = _Session(), []

    @redrive_guard(dlq_url=DLQ_URL, session=session, log=logs.append)
    def handler(record, lambda_context):
        if record.message_id.startswith("p"):
            raise PermanentFailure("VALIDATION_ERROR")

    with session.stub:  # any SQS call would fail the stubber
        response = _run(handler, _event(_message("p"), _message("ok")), context=_Context(1_400))
    assert _failed_ids(response) == ["p"]
    assert session.configs == []
    assert "TimeoutError: no time left to send p" in json.loads(logs[0])["detail"]


def test_when_every_record_fails_powertools_fails_the_batch_and_each_reason_is_logged():
    from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

    logs = []
    handler = redrive_guard(max_redrive_count=0, log=logs.append)(_permanent("VALIDATION_ERROR"))
    with pytest.raises(BatchProcessingError):
        _run(handler, _event(_message("p1"), _message("over", count="1")))
    assert {json.loads(line)["message_id"]: json.loads(line)["outcome"] for line in logs} == {
        "p1": "failed", "over": "poison"}


def test_the_send_ends_before_the_function_does():
    session = _Session()

    @redrive_guard(dlq_url=DLQ_URL, session=session, log=lambda _: None)
    def handler(record, lambda_context):
        raise PermanentFailure("VALIDATION_ERROR")

    session.stub.add_response("send_message", {"MessageId": "new"})
    with session.stub:
        _run(handler, _event(_message("p")), context=_Context(5_000))
    (config,) = session.configs
    # 5 s left, 1 s reserved: two attempts of 2 s each, connect and read inside them
    assert config.connect_timeout + config.read_timeout == pytest.approx(2.0)
    assert config.retries == {"mode": "standard", "total_max_attempts": 2}


@pytest.mark.parametrize("remaining_ms,seconds", [(None, 10.0), (60_000, 10.0), (5_000, 4.0), (1_500, 0.5)])
def test_client_config_budget(remaining_ms, seconds):
    config = client_config(remaining_ms)
    assert (config.connect_timeout + config.read_timeout) * 2 == pytest.approx(seconds)
    assert config.connect_timeout <= 2.0


@pytest.mark.parametrize("remaining_ms", [1_499, 1_000, 0, -5])
def test_client_config_gives_up_under_half_a_second(remaining_ms):
    assert client_config(remaining_ms) is None


def test_the_sender_reuses_a_client_per_budget():
    session = _Session()
    sender = DeadLetterSender(DLQ_URL, session)
    assert sender.client(60_000) is sender.client(90_000)  # both capped at 10 s: one client
    sender.client(5_000)
    assert len(session.configs) == 2


# --- events built from ReceiveMessage results -------------------------------------------

def test_lambda_record_has_the_shape_lambda_delivers():
    msg = _message("m", body="hello", attrs={"n": {"DataType": "Number", "StringValue": "1"}})
    record = lambda_record(msg, QUEUE_ARN, region="eu-west-1")
    assert record["messageId"] == "m" and record["receiptHandle"] == "rh-m" and record["body"] == "hello"
    assert record["eventSource"] == "aws:sqs" and record["eventSourceARN"] == QUEUE_ARN
    assert record["awsRegion"] == "eu-west-1"
    assert record["messageAttributes"]["n"] == {
        "dataType": "Number", "stringValue": "1", "binaryValue": None, "stringListValues": [], "binaryListValues": []}
    assert record["attributes"]["SentTimestamp"] == "1700000000000"
