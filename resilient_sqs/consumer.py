"""The redrive kill switch and permanent-failure routing, as a record-handler decorator for
AWS Lambda Powertools' batch processing.

    from aws_lambda_powertools.utilities.batch import (
        BatchProcessor, EventType, SqsFifoPartialProcessor, process_partial_response)
    from resilient_sqs.consumer import PermanentFailure, redrive_guard

    processor = BatchProcessor(event_type=EventType.SQS)   # FIFO queue: SqsFifoPartialProcessor()

    @redrive_guard(max_redrive_count=3, dlq_url=os.environ["DLQ_URL"])
    def record_handler(record):                    # a Powertools SQSRecord
        order = json.loads(record.body)
        if "id" not in order:
            raise PermanentFailure("VALIDATION_ERROR")   # retrying cannot help
        ...                                              # any other exception: retried

    def handler(event, context):
        return process_partial_response(event=event, record_handler=record_handler,
                                        processor=processor, context=context)

Powertools does the partial batch response (``batchItemFailures``; the event source
mapping needs ``ReportBatchItemFailures``, the modules/lambda-consumer default) and, with
``SqsFifoPartialProcessor``, FIFO order. What it has no notion of, and this adds:

* ``x-redrive-count`` (set by the dlq-redrive function): a record redriven more than
  ``max_redrive_count`` times raises :class:`RedriveLimitExceeded` before the handler
  runs, so it fails without being processed, returns to the DLQ, and the redrive
  function archives it (never dropped); a count that is not a non-negative whole
  number fails the same way (:class:`MalformedRedriveCount`) and is archived as malformed;
* a log line for every record the handler fails, with the exception (when all of a
  batch fail, Powertools raises one error for the batch and logs no record's reason);
* :class:`PermanentFailure`: with ``dlq_url``, the record is sent to the DLQ at once
  with the reason in ``x-failure-reason`` (the redrive function archives it instead of
  redriving it) and then counts as handled. When that send fails, or without
  ``dlq_url``, the PermanentFailure propagates and Powertools reports the record failed.

The DLQ send ends before the function does: its connect/read timeouts and attempts
come from the Lambda context's remaining time (Powertools passes the context to a
record handler that takes ``lambda_context``), not botocore's 60 s defaults.
"""
from __future__ import annotations

import functools
import inspect
import json
import re
from typing import Any, Callable

from .facts import FAILURE_REASON_ATTRIBUTE as FAILURE_REASON_ATTR
from .facts import REDRIVE_COUNT_ATTRIBUTE as REDRIVE_COUNT_ATTR
RESERVE_MS = 1000  # left to the function to return its response after a DLQ send
MAX_SEND_SECONDS = 10.0


class PermanentFailure(Exception):
    """Raised by a record handler when retrying the record cannot succeed."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class RedriveLimitExceeded(Exception):
    """The record was redriven more than the limit: failed unprocessed, back to the DLQ for archiving."""


class MalformedRedriveCount(RedriveLimitExceeded):
    """The record's x-redrive-count is not a non-negative whole number, so the kill switch cannot
    count it: failed unprocessed, back to the DLQ, where the redrive function archives it as malformed."""


def _raw(record: Any) -> dict:
    """The event record as Lambda sent it (Powertools' SQSRecord keeps it in ``raw_event``)."""
    return record if isinstance(record, dict) else record.raw_event


# a non-negative whole number as SQS carries a Number (at most 38 digits); "3.0" is 3.
# The dlq-redrive function reads the attribute by the same rule.
_WHOLE = re.compile(r"\+?([0-9]{1,38})(?:\.0*)?")


def read_redrive_count(record: Any) -> tuple[int | None, str | None]:
    """(count, None): the record's ``x-redrive-count`` (0 when it was never redriven);
    (None, why) when the value is not a non-negative whole number ("inf", "-5", "abc",
    "1e400", a Binary value...). Never raises."""
    attr = (_raw(record).get("messageAttributes") or {}).get(REDRIVE_COUNT_ATTR)
    if not attr:
        return 0, None
    raw = attr.get("stringValue")
    if not isinstance(raw, str):
        what = "a Binary value" if attr.get("binaryValue") is not None else "empty"
        return None, f"{REDRIVE_COUNT_ATTR} is {what}, not a non-negative whole number"
    m = _WHOLE.fullmatch(raw.strip())
    if m is None:
        shown = raw if len(raw) <= 40 else raw[:40] + "..."
        return None, f"{REDRIVE_COUNT_ATTR}={shown!r} is not a non-negative whole number"
    return int(m.group(1)), None


def redrive_count(record: Any) -> int | None:
    """The record's ``x-redrive-count``: 0 when it was never redriven, None when the value
    is malformed (not a non-negative whole number; :func:`read_redrive_count` says why).
    Never raises, never reads a malformed value as 0 or as a negative count."""
    return read_redrive_count(record)[0]


def client_config(remaining_ms: int | None, reserve_ms: int = RESERVE_MS, attempts: int = 2):
    """botocore Config whose call (every attempt) ends ``reserve_ms`` before the deadline.

    None when less than half a second would be left for it.
    """
    from botocore.config import Config

    seconds = MAX_SEND_SECONDS if remaining_ms is None else min(MAX_SEND_SECONDS, (remaining_ms - reserve_ms) / 1000)
    if seconds < 0.5:
        return None
    per_attempt = seconds / attempts
    connect = min(2.0, per_attempt / 3)
    return Config(connect_timeout=connect, read_timeout=per_attempt - connect,
                  retries={"mode": "standard", "total_max_attempts": attempts})


class DeadLetterSender:
    """Sends a failed record to the DLQ with its reason; one client per time budget (in whole seconds)."""

    def __init__(self, dlq_url: str, session: Any = None):
        self.dlq_url = dlq_url
        self._session = session
        self._clients: dict[tuple, Any] = {}

    def client(self, remaining_ms: int | None):
        config = client_config(remaining_ms)
        if config is None:
            return None
        key = (round(config.connect_timeout + config.read_timeout),)
        if key not in self._clients:
            if self._session is None:
                import boto3

                self._session = boto3.session.Session()
            self._clients[key] = self._session.client("sqs", config=config)
        return self._clients[key]

    def send(self, record: Any, reason: str, remaining_ms: int | None = None) -> None:
        """Raises when the DLQ did not confirm the message (or no time is left to send it)."""
        raw = _raw(record)
        attrs = {}
        for name, a in raw.get("messageAttributes", {}).items():
            entry = {"DataType": a["dataType"]}
            if a.get("stringValue") is not None:
                entry["StringValue"] = a["stringValue"]
            if a.get("binaryValue") is not None:
                entry["BinaryValue"] = a["binaryValue"]
            attrs[name] = entry
        attrs[FAILURE_REASON_ATTR] = {"DataType": "String", "StringValue": reason}
        params: dict[str, Any] = {"QueueUrl": self.dlq_url, "MessageBody": raw["body"], "MessageAttributes": attrs}
        if self.dlq_url.endswith(".fifo"):
            params["MessageGroupId"] = raw.get("attributes", {}).get("MessageGroupId", "dead-letter")
            params["MessageDeduplicationId"] = raw["messageId"]
        sqs = self.client(remaining_ms)
        if sqs is None:
            raise TimeoutError(f"no time left to send {raw['messageId']} to {self.dlq_url}")
        sqs.send_message(**params)


def redrive_guard(
    max_redrive_count: int | None = None,
    dlq_url: str | None = None,
    *,
    session: Any = None,
    log: Callable[[str], None] = print,
):
    """Decorate a Powertools record handler with the kill switch and permanent-failure routing."""
    if max_redrive_count is not None and max_redrive_count < 0:
        raise ValueError(f"max_redrive_count: {max_redrive_count} must be >= 0 (or None to not check)")
    sender = DeadLetterSender(dlq_url, session) if dlq_url else None

    def emit(record: Any, outcome: str, detail: str) -> None:
        log(json.dumps({"message_id": _raw(record)["messageId"], "outcome": outcome, "detail": detail}, sort_keys=True))

    def wrap(handler: Callable[..., Any]) -> Callable[..., Any]:
        params = inspect.signature(handler).parameters
        wants_context = "lambda_context" in params
        # by keyword when the handler names it `record` (Powertools' idempotent_function
        # finds its data by keyword: data_keyword_argument="record")
        by_keyword = "record" in params

        @functools.wraps(handler)
        def guarded(record: Any, lambda_context: Any = None) -> Any:
            count, malformed = read_redrive_count(record)
            if max_redrive_count is not None and malformed:
                emit(record, "poison", f"{malformed}: the redrive count cannot be checked; back to the DLQ for archiving")
                raise MalformedRedriveCount(malformed)
            if max_redrive_count is not None and count > max_redrive_count:
                emit(record, "poison", f"redriven {count} times > {max_redrive_count}: back to the DLQ for archiving")
                raise RedriveLimitExceeded(f"redriven {count} times (limit {max_redrive_count})")
            try:
                args, kwargs = ((), {"record": record}) if by_keyword else ((record,), {})
                if wants_context:
                    kwargs["lambda_context"] = lambda_context
                return handler(*args, **kwargs)
            except PermanentFailure as exc:
                if sender is None:
                    emit(record, "failed", f"PermanentFailure: {exc.reason} (no dlq_url: retried until the DLQ takes it)")
                    raise
                remaining = lambda_context.get_remaining_time_in_millis() if lambda_context is not None else None
                try:
                    sender.send(record, exc.reason, remaining)
                except Exception as send_exc:  # the record fails instead: SQS retries it
                    emit(record, "dead-letter-failed", f"{type(send_exc).__name__}: {send_exc}")
                    raise exc from send_exc
                emit(record, "dead-lettered", exc.reason)
                return None
            except Exception as exc:
                # logged here: when every record of a batch fails, Powertools raises one error for
                # the whole batch and no record's reason would reach the logs
                emit(record, "failed", f"{type(exc).__name__}: {exc}"[:1000])
                raise
        # Powertools passes the context only to a handler whose signature names it
        guarded.__signature__ = inspect.Signature([
            inspect.Parameter("record", inspect.Parameter.POSITIONAL_OR_KEYWORD),
            inspect.Parameter("lambda_context", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None),
        ])
        return guarded

    return wrap


def lambda_record(message: dict, queue_arn: str, region: str = "us-east-1") -> dict:
    """An SQS event record as Lambda delivers it, built from a ReceiveMessage result.

    For tests and local runs, where no Lambda service invokes the handler.
    """
    attrs = {}
    for name, a in message.get("MessageAttributes", {}).items():
        attrs[name] = {
            "dataType": a["DataType"],
            "stringValue": a.get("StringValue"),
            "binaryValue": a.get("BinaryValue"),
            "stringListValues": [],
            "binaryListValues": [],
        }
    return {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": dict(message.get("Attributes", {})),
        "messageAttributes": attrs,
        "md5OfBody": message.get("MD5OfBody"),
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": region,
    }


def lambda_event(messages: list[dict], queue_arn: str, region: str = "us-east-1") -> dict:
    return {"Records": [lambda_record(m, queue_arn, region) for m in messages]}


__all__ = [
    "DeadLetterSender", "MalformedRedriveCount", "PermanentFailure", "RedriveLimitExceeded", "client_config",
    "lambda_event", "lambda_record", "read_redrive_count", "redrive_count", "redrive_guard",
]
