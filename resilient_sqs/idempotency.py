"""Idempotent message processing on the module's idempotency table (DynamoDB), without Powertools.

    from resilient_sqs.consumer import BatchProcessor
    from resilient_sqs.idempotency import IdempotencyStore, idempotent

    store = IdempotencyStore(os.environ["IDEMPOTENCY_TABLE"], in_progress_seconds=60)   # >= function timeout
    processor = BatchProcessor()

    @idempotent(store, name="orders")
    def handle_record(record):
        charge(json.loads(record["body"]))        # the side effect: runs once per key

    def handler(event, context):
        return processor.process(event, handle_record)

The item layout is AWS Lambda Powertools' default for ``DynamoDBPersistenceLayer``
(``key_attr="id"``, ``expiry_attr="expiration"``, ``in_progress_expiry_attr=
"in_progress_expiration"``, ``status_attr="status"``, ``data_attr="data"``), so the
table's TTL on ``expiration`` cleans up both, and either tool can be used on it
(their keys differ, so they do not see each other's records).

Semantics, per key (default: the SHA-256 of the message body, so a redelivered
message *and* a producer's duplicate send are both recognised):

1. **Claim**: one conditional ``PutItem`` writes ``status = INPROGRESS`` with
   ``in_progress_expiration`` = now + ``in_progress_seconds``. It succeeds only when
   there is no record, the record has expired (``expiration`` passed), or it is
   an INPROGRESS record whose ``in_progress_expiration`` passed (its consumer crashed).
2. **Run** the handler (the side effect).
3. **Complete**: ``UpdateItem`` to ``status = COMPLETED``, the handler's JSON result
   in ``data``, ``expiration`` = now + ``expires_after_seconds``.

Outcomes of a second delivery of the same key:

* the record is COMPLETED: the handler is not run; the stored result is returned
  and the message counts as processed (it gets deleted). This covers a consumer that
  crashed **after** completing but **before** SQS deleted the message: the side effect
  happened exactly once;
* the record is INPROGRESS and not expired (another consumer is on it, or one crashed
  less than ``in_progress_seconds`` ago): :class:`AlreadyInProgress` is raised, the
  message fails and SQS redelivers it after its visibility timeout;
* the INPROGRESS record has expired: this delivery claims it and runs the handler.
  If the earlier consumer crashed **after** its side effect but **before** step 3, the
  side effect runs a second time: in that window the guarantee is at-least-once (no
  store outside the side effect's own transaction can do better). Keep the window
  small, or make the side effect itself conditional on the key.

A handler that raises an ``Exception`` releases its claim (the record is deleted), so
the retry runs it again. ``in_progress_seconds`` must be at least the function's timeout
(a claim must not expire while its handler still runs) and at most the queue's
visibility timeout (so a crashed claim has expired by the time SQS redelivers).
"""
from __future__ import annotations

import functools
import hashlib
import json
import time
from typing import Any, Callable

INPROGRESS = "INPROGRESS"
COMPLETED = "COMPLETED"

KEY_ATTR = "id"
EXPIRY_ATTR = "expiration"
IN_PROGRESS_EXPIRY_ATTR = "in_progress_expiration"
STATUS_ATTR = "status"
DATA_ATTR = "data"


class AlreadyInProgress(Exception):
    """Another delivery of the same key is being processed (or crashed less than in_progress_seconds ago)."""


def body_key(record: dict) -> str:
    """Default idempotency key of an SQS event record: SHA-256 of its body."""
    return hashlib.sha256(record["body"].encode("utf-8")).hexdigest()


class IdempotencyStore:
    """Claims, completes and releases idempotency records in a DynamoDB table (Powertools layout)."""

    def __init__(
        self,
        table_name: str,
        *,
        expires_after_seconds: int = 3600,
        in_progress_seconds: int = 60,
        dynamodb: Any = None,
        clock: Callable[[], float] = time.time,
    ):
        if not table_name:
            raise ValueError("table_name: give the idempotency table's name (module output idempotency_table.name)")
        if expires_after_seconds < 1:
            raise ValueError(f"expires_after_seconds: {expires_after_seconds} must be >= 1")
        if in_progress_seconds < 1:
            raise ValueError(f"in_progress_seconds: {in_progress_seconds} must be >= 1 (and >= the function's timeout)")
        self.table_name = table_name
        self.expires_after_seconds = expires_after_seconds
        self.in_progress_seconds = in_progress_seconds
        self._ddb = dynamodb
        self._clock = clock

    @property
    def ddb(self):
        if self._ddb is None:
            import boto3

            self._ddb = boto3.client("dynamodb")
        return self._ddb

    def claim(self, key: str, _retry: bool = True) -> tuple[bool, Any]:
        """(True, None) when this caller now owns ``key``; (False, result) when it was completed before.

        Raises :class:`AlreadyInProgress` when an unexpired INPROGRESS record holds it.
        """
        now = self._clock()
        try:
            self.ddb.put_item(
                TableName=self.table_name,
                Item={
                    KEY_ATTR: {"S": key},
                    STATUS_ATTR: {"S": INPROGRESS},
                    EXPIRY_ATTR: {"N": str(int(now) + self.expires_after_seconds)},
                    IN_PROGRESS_EXPIRY_ATTR: {"N": str(int(now * 1000) + self.in_progress_seconds * 1000)},
                },
                ConditionExpression=(
                    "attribute_not_exists(#id) OR #expiry < :now OR "
                    "(#status = :inprogress AND attribute_exists(#ipexpiry) AND #ipexpiry < :now_ms)"
                ),
                ExpressionAttributeNames={
                    "#id": KEY_ATTR, "#expiry": EXPIRY_ATTR, "#status": STATUS_ATTR, "#ipexpiry": IN_PROGRESS_EXPIRY_ATTR,
                },
                ExpressionAttributeValues={
                    ":now": {"N": str(int(now))},
                    ":now_ms": {"N": str(int(now * 1000))},
                    ":inprogress": {"S": INPROGRESS},
                },
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
            return True, None
        except self.ddb.exceptions.ConditionalCheckFailedException as exc:
            item = exc.response.get("Item") or self._get(key)
        if item is None:
            if _retry:  # deleted (released or expired) between the two calls: try once more
                return self.claim(key, _retry=False)
            raise AlreadyInProgress(f"{key}: claimed and released concurrently; retry the message")
        status = item.get(STATUS_ATTR, {}).get("S")
        if status == COMPLETED:
            raw = item.get(DATA_ATTR, {}).get("S")
            return False, json.loads(raw) if raw is not None else None
        until = int(item.get(IN_PROGRESS_EXPIRY_ATTR, {}).get("N", "0")) / 1000
        raise AlreadyInProgress(f"{key}: in progress until {time.strftime('%H:%M:%S', time.gmtime(until))} UTC")

    def complete(self, key: str, result: Any = None) -> None:
        now = self._clock()
        self.ddb.update_item(
            TableName=self.table_name,
            Key={KEY_ATTR: {"S": key}},
            UpdateExpression="SET #status = :completed, #data = :data, #expiry = :expiry REMOVE #ipexpiry",
            ExpressionAttributeNames={
                "#status": STATUS_ATTR, "#data": DATA_ATTR, "#expiry": EXPIRY_ATTR, "#ipexpiry": IN_PROGRESS_EXPIRY_ATTR,
            },
            ExpressionAttributeValues={
                ":completed": {"S": COMPLETED},
                ":data": {"S": json.dumps(result, sort_keys=True, default=str)},
                ":expiry": {"N": str(int(now) + self.expires_after_seconds)},
            },
        )

    def release(self, key: str) -> None:
        """Drop a claim whose handler failed, so the retry runs it again."""
        self.ddb.delete_item(TableName=self.table_name, Key={KEY_ATTR: {"S": key}})

    def _get(self, key: str) -> dict | None:
        return self.ddb.get_item(TableName=self.table_name, Key={KEY_ATTR: {"S": key}}, ConsistentRead=True).get("Item")


def idempotent(store: IdempotencyStore, name: str = "", key: Callable[[dict], str] = body_key):
    """Decorate an SQS record handler: it runs at most once per key while the record lives.

    ``name`` prefixes the key (``<name>#<key>``), so several handlers can share one table.
    """

    def wrap(handler: Callable[[dict], Any]) -> Callable[[dict], Any]:
        @functools.wraps(handler)
        def run(record: dict) -> Any:
            k = f"{name or handler.__qualname__}#{key(record)}"
            owned, result = store.claim(k)
            if not owned:
                return result
            try:
                result = handler(record)
            except Exception:
                store.release(k)
                raise
            store.complete(k, result)
            return result

        return run

    return wrap


__all__ = ["AlreadyInProgress", "COMPLETED", "INPROGRESS", "IdempotencyStore", "body_key", "idempotent"]
