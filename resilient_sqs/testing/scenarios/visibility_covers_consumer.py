"""visibility-covers-consumer: a received message stays hidden for as long as its consumer may run."""
from __future__ import annotations

import contextlib
import json
import time
import uuid

from ..aws import delete_all, receive
from ..discover import Pair
from . import PAIR, USES_SOURCE, Context, Scenario, ScenarioFailed, ScenarioSkipped
from ._helpers import group_args


def visibility_covers_consumer(ctx: Context, pair: Pair) -> str:
    if not pair.consumers:
        raise ScenarioSkipped(f"no event source mapping consumes {pair.name} in the stack (no consumer timeout to cover)")
    known = [c for c in pair.consumers if c.timeout is not None]
    if not known:
        c = pair.consumers[0]
        raise ScenarioSkipped(f"the timeout of {pair.name}'s consumer ({c.address}) is not known: {c.why_unknown}")
    consumer = max(known, key=lambda c: c.timeout)
    hold = consumer.timeout
    sqs = ctx.clients.client("sqs")
    body = json.dumps({"sqs-behave": "visibility", "id": uuid.uuid4().hex})
    sqs.send_message(QueueUrl=pair.queue.url, MessageBody=body, **group_args(pair.queue.fifo, "visibility"))
    handles: list[str] = []
    try:
        first = receive(sqs, pair.queue.url, wait=10, max_n=1)  # the queue's own visibility timeout
        t0 = time.monotonic()
        if not first:
            raise ScenarioFailed(f"queue {pair.name}: a message sent was not received")
        handles.append(first[0]["ReceiptHandle"])
        ctx.progress(f"{pair.name}: holding a received message for the consumer's timeout ({hold} s)")
        while (left := hold - (time.monotonic() - t0)) > 0.5:
            early = receive(sqs, pair.queue.url, wait=int(max(1, min(left, 20))), max_n=1, visibility=1)
            if early:
                handles.append(early[0]["ReceiptHandle"])
                seen = time.monotonic() - t0
                raise ScenarioFailed(
                    f"queue {pair.name}: a message received by a consumer that runs up to {hold} s (function "
                    f"{consumer.function}, timeout {hold} s) reappeared after {seen:.0f} s: the queue's visibility "
                    f"timeout is {pair.queue.visibility} s, so a second consumer gets it while the first still works. "
                    f"Expected: hidden for at least {hold} s (AWS advises 6 x the function timeout). "
                    f"Change: {pair.setting('visibility_timeout_seconds')}.")
    finally:
        for h in handles:  # the held message is still in flight: delete it by its receipt handle
            with contextlib.suppress(Exception):
                sqs.delete_message(QueueUrl=pair.queue.url, ReceiptHandle=h)
        delete_all(sqs, pair.queue.url)
    return (f"a received message stayed hidden for the consumer's timeout ({hold} s, function {consumer.function}); "
            f"visibility timeout {pair.queue.visibility} s")


SCENARIO = Scenario(
    name='visibility-covers-consumer',
    subject=PAIR,
    order=20,
    uses=USES_SOURCE,
    summary="a message held for the consumer's (event source mapping's function's) timeout does not reappear before it",
    needs='an event source mapping on the queue whose function (and so its timeout) is in the stack',
    probes='the stack applying with its Lambda functions (LocalStack without Docker cannot create them; ministack runs '
           'Python ones) and disabling a mapping while the scenarios run (probe lambda_consumer)',
    run=visibility_covers_consumer,
)
