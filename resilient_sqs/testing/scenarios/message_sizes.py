"""message-sizes: a message at the queue's max_message_size goes through; with a claim-check bucket, a
payload just over the extended client's threshold goes through the bucket, and a queue whose
max_message_size is below that threshold (so the client sends inline what the queue refuses) fails."""
from __future__ import annotations

import hashlib
import json

from resilient_sqs.facts import SQS_MAX_MESSAGE_BYTES

from ..aws import delete_all, receive
from ..discover import Pair
from . import PAIR, USES_SOURCE, Context, Scenario, ScenarioFailed
from ._helpers import group_args


def _body(size: int, tag: str) -> str:
    head = json.dumps({"sqs-behave": tag, "pad": ""})
    return head[:-2] + "x" * (size - len(head)) + head[-2:]  # valid JSON of exactly `size` bytes


def message_sizes(ctx: Context, pair: Pair) -> str:
    sqs = ctx.clients.client("sqs")
    limit = pair.max_message_size
    shown = []
    try:
        body = _body(limit, "size")
        try:
            sqs.send_message(QueueUrl=pair.queue.url, MessageBody=body, **group_args(pair.queue.fifo, "size"))
        except sqs.exceptions.ClientError as exc:
            raise ScenarioFailed(f"queue {pair.name}: a message of exactly its max_message_size ({limit} bytes) was "
                                 f"refused: {exc}") from None
        got = receive(sqs, pair.queue.url, wait=5, max_n=1)
        if not got or hashlib.sha256(got[0]["Body"].encode()).digest() != hashlib.sha256(body.encode()).digest():
            raise ScenarioFailed(f"queue {pair.name}: a {limit} byte message (its max_message_size) did not come back "
                                 "intact")
        sqs.delete_message(QueueUrl=pair.queue.url, ReceiptHandle=got[0]["ReceiptHandle"])
        shown.append(f"{limit} bytes (max_message_size) inline")
        if pair.buckets:
            from resilient_sqs.claim_check import extended_client

            bucket = pair.buckets[0]["name"]
            client = extended_client(bucket, s3=ctx.clients.client("s3"), **ctx.clients.kwargs())
            if limit < SQS_MAX_MESSAGE_BYTES:
                size = limit + 1
                try:
                    client.send_message(QueueUrl=pair.queue.url, MessageBody=_body(size, "size"),
                                        **group_args(pair.queue.fifo, "size"))
                except Exception as exc:  # noqa: BLE001 - the refusal is the finding
                    raise ScenarioFailed(
                        f"queue {pair.name}: its max_message_size is {limit} bytes, below the extended client's "
                        f"threshold ({SQS_MAX_MESSAGE_BYTES}): a {size} byte message is sent inline (not through "
                        f"bucket {bucket}) and refused ({type(exc).__name__}). Set max_message_size to "
                        f"{SQS_MAX_MESSAGE_BYTES} ({pair.setting('max_message_size')})") from None
            size = SQS_MAX_MESSAGE_BYTES + 1
            payload = _body(size, "size")
            client.send_message(QueueUrl=pair.queue.url, MessageBody=payload, **group_args(pair.queue.fifo, "size"))
            raw = receive(sqs, pair.queue.url, wait=5, max_n=1, visibility=0)
            if not raw or bucket not in raw[0]["Body"]:
                raise ScenarioFailed(f"queue {pair.name}: a {size} byte payload (just over the extended client's "
                                     f"threshold) did not go through bucket {bucket}")
            back = client.receive_message(QueueUrl=pair.queue.url, MaxNumberOfMessages=1, WaitTimeSeconds=5,
                                          VisibilityTimeout=0, MessageAttributeNames=["All"]).get("Messages", [])
            if back:  # delete it now: a message left in flight would reach the next scenario on this queue
                try:
                    client.delete_message(QueueUrl=pair.queue.url, ReceiptHandle=back[0]["ReceiptHandle"])
                except Exception:  # noqa: BLE001 - visible again at once (visibility 0): delete_all below takes it
                    pass
            if not back or back[0]["Body"] != payload:
                raise ScenarioFailed(f"queue {pair.name}: the {size} byte payload stored in {bucket} did not come back "
                                     "intact")
            shown.append(f"{size} bytes (just over the extended client's threshold) through bucket {bucket}")
    finally:
        delete_all(sqs, pair.queue.url)
    return "; ".join(shown)


SCENARIO = Scenario(
    name="message-sizes",
    subject=PAIR,
    order=55,
    uses=USES_SOURCE,
    summary="a message of exactly the queue's `max_message_size` goes through intact; with a claim-check bucket, a "
            f"payload just over the extended client's threshold ({SQS_MAX_MESSAGE_BYTES} bytes) goes through the bucket, "
            "and a `max_message_size` below that threshold fails (the client sends inline what the queue refuses)",
    needs="a queue (the bucket part: a claim-check bucket linked to it)",
    probes="the endpoint enforcing MaximumMessageSize",
    run=message_sizes,
)
