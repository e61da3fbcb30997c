"""Consumer side of the redrive kill switch, for an SQS-triggered Lambda function.

    from resilient_sqs.consumer import BatchProcessor, PermanentFailure

    processor = BatchProcessor(max_redrive_count=3, dlq_url=os.environ["DLQ_URL"])

    def handler(event, context):
        return processor.process(event, handle_record)   # {"batchItemFailures": [...]}

    def handle_record(record):
        order = json.loads(record["body"])
        if "id" not in order:
            raise PermanentFailure("VALIDATION_ERROR")  # retrying cannot help
        ...

What it does, per record of the event:

* returns partial batch failures (the event source mapping must have
  ``function_response_types = ["ReportBatchItemFailures"]``, the
  modules/lambda-consumer default): only failed records are retried, the
  others are deleted by Lambda;
* honours ``x-redrive-count`` (set by the dlq-redrive function): a record
  redriven more than ``max_redrive_count`` times is not processed again; it is
  failed straight away so it returns to the DLQ, where the redrive function
  archives it (never dropped);
* a handler raising :class:`PermanentFailure` marks a record that retrying
  cannot fix. With ``dlq_url`` set, the record is sent to the DLQ at once with
  the reason in the ``x-failure-reason`` attribute (so the redrive function
  archives it instead of redriving it) and is then reported as handled;
  without ``dlq_url`` it is reported as failed like any other error;
* FIFO sources: after the first failure, every later record of the batch is
  reported failed unprocessed, so order within a message group is kept.
"""
from __future__ import annotations

import json
from typing import Any, Callable

REDRIVE_COUNT_ATTR = "x-redrive-count"
FAILURE_REASON_ATTR = "x-failure-reason"


class PermanentFailure(Exception):
    """Raised by a record handler when retrying the record cannot succeed."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def redrive_count(record: dict) -> int:
    """The record's ``x-redrive-count`` (0 when it was never redriven)."""
    attr = record.get("messageAttributes", {}).get(REDRIVE_COUNT_ATTR) or {}
    try:
        return int(float(attr.get("stringValue", "0")))
    except ValueError:
        return 0


def _to_send_attributes(record: dict) -> dict:
    """Lambda's record attributes (camelCase) as SendMessage wants them."""
    out = {}
    for name, a in record.get("messageAttributes", {}).items():
        entry = {"DataType": a["dataType"]}
        if a.get("stringValue") is not None:
            entry["StringValue"] = a["stringValue"]
        if a.get("binaryValue") is not None:
            entry["BinaryValue"] = a["binaryValue"]
        out[name] = entry
    return out


class BatchProcessor:
    def __init__(
        self,
        max_redrive_count: int | None = None,
        dlq_url: str | None = None,
        sqs: Any = None,
        log: Callable[[str], None] = print,
    ):
        if max_redrive_count is not None and max_redrive_count < 0:
            raise ValueError("max_redrive_count must be >= 0 (or None to not check)")
        self.max_redrive_count = max_redrive_count
        self.dlq_url = dlq_url
        self._sqs = sqs
        self.log = log

    @property
    def sqs(self):
        if self._sqs is None:
            import boto3

            self._sqs = boto3.client("sqs")
        return self._sqs

    def process(self, event: dict, record_handler: Callable[[dict], Any]) -> dict:
        records = event.get("Records", [])
        failures: list[dict] = []
        fifo_blocked = False
        for record in records:
            mid = record["messageId"]
            fifo = record.get("eventSourceARN", "").endswith(".fifo")
            if fifo and fifo_blocked:
                failures.append({"itemIdentifier": mid})
                continue
            count = redrive_count(record)
            if self.max_redrive_count is not None and count > self.max_redrive_count:
                self._log(mid, "poison", f"redriven {count} times > {self.max_redrive_count}: back to the DLQ for archiving")
                failures.append({"itemIdentifier": mid})
                fifo_blocked = fifo
                continue
            try:
                record_handler(record)
            except PermanentFailure as exc:
                if self.dlq_url and self._dead_letter(record, exc.reason):
                    self._log(mid, "dead-lettered", exc.reason)
                    continue
                self._log(mid, "failed", f"permanent: {exc.reason}")
                failures.append({"itemIdentifier": mid})
                fifo_blocked = fifo
            except Exception as exc:  # noqa: BLE001 - any error means "retry this record"
                self._log(mid, "failed", f"{type(exc).__name__}: {exc}")
                failures.append({"itemIdentifier": mid})
                fifo_blocked = fifo
        return {"batchItemFailures": failures}

    def _dead_letter(self, record: dict, reason: str) -> bool:
        attrs = _to_send_attributes(record)
        attrs[FAILURE_REASON_ATTR] = {"DataType": "String", "StringValue": reason}
        params: dict[str, Any] = {"QueueUrl": self.dlq_url, "MessageBody": record["body"], "MessageAttributes": attrs}
        if self.dlq_url.endswith(".fifo"):
            params["MessageGroupId"] = record.get("attributes", {}).get("MessageGroupId", "dead-letter")
            params["MessageDeduplicationId"] = record["messageId"]
        try:
            self.sqs.send_message(**params)
            return True
        except Exception as exc:  # noqa: BLE001 - fall back to a normal failure: SQS retries it
            self._log(record["messageId"], "dead-letter-failed", f"{type(exc).__name__}: {exc}")
            return False

    def _log(self, message_id: str, outcome: str, detail: str) -> None:
        self.log(json.dumps({"message_id": message_id, "outcome": outcome, "detail": detail}, sort_keys=True))


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


__all__ = ["BatchProcessor", "PermanentFailure", "redrive_count", "lambda_event", "lambda_record"]
