"""Consumer of the example's queue: handles each message, reports the ones that failed.

The event source mapping is created with ReportBatchItemFailures, so only the
messages listed in ``batchItemFailures`` become visible again (and, after
maxReceiveCount receives, move to the DLQ); the rest of the batch is deleted.
A message whose body is not a JSON object, or has no ``order_id``, fails.
"""
from __future__ import annotations

import json
import logging
import os

logger = logging.getLogger()
logger.setLevel(os.environ.get("LOG_LEVEL", "INFO"))


def process(order: dict) -> None:
    """The business logic: here, validate and log the order."""
    if not isinstance(order, dict) or "order_id" not in order:
        raise ValueError("not an order: a JSON object with an order_id is expected")
    logger.info(json.dumps({"processed": order["order_id"], "queue": os.environ.get("QUEUE_URL", "")}))


def handler(event: dict, context: object) -> dict:
    failures = []
    for record in event.get("Records", []):
        try:
            process(json.loads(record["body"]))
        except Exception as exc:  # one bad message must not fail the whole batch
            logger.error(json.dumps({"failed": record.get("messageId"), "error": str(exc)}))
            failures.append({"itemIdentifier": record["messageId"]})
    return {"batchItemFailures": failures}
