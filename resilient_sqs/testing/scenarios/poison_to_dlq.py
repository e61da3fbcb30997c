"""poison-to-dlq: a message received and never deleted reaches the DLQ after exactly maxReceiveCount receives."""
from __future__ import annotations

import json
import uuid

from ..aws import delete_all, depth, drain, receive
from ..discover import Pair
from . import PAIR, USES_BOTH, Context, Scenario, ScenarioFailed, ScenarioSkipped
from ._helpers import group_args

# receives this check makes at most (a maxReceiveCount above it is shown up to here, then skipped)
MAX_RECEIVES = 50


def poison_to_dlq(ctx: Context, pair: Pair) -> str:
    sqs = ctx.clients.client("sqs")
    url = pair.queue.url
    body = json.dumps({"sqs-behave": "poison", "id": uuid.uuid4().hex})
    if pair.dlq is None:
        tries = 6
        sqs.send_message(QueueUrl=url, MessageBody=body, **group_args(pair.queue.fifo, "poison"))
        try:
            for i in range(1, tries + 1):
                got = receive(sqs, url, wait=10, max_n=1, visibility=1)
                if [m["Body"] for m in got] != [body]:
                    raise ScenarioFailed(f"queue {pair.name}: sent one message and received it without deleting it; "
                                         f"receive {i} did not return it (nor does the queue have a DLQ)")
        finally:
            drain(sqs, url, timeout=60)
        raise ScenarioFailed(
            f"queue {pair.name} has no DLQ: a message received {tries} times and never deleted (a poison message) "
            f"was still delivered on every receive. Without a redrive policy it is received forever, until its "
            f"retention ({pair.queue.retention} s) ends. Expected: after maxReceiveCount receives it moves to a DLQ. "
            f"Change: {pair.setting('dlq')}.")
    if pair.queue.fifo != pair.dlq.fifo:
        kind = ("FIFO", "standard") if pair.queue.fifo else ("standard", "FIFO")
        raise ScenarioFailed(
            f"queue {pair.name} is a {kind[0]} queue whose DLQ {pair.dlq.name} is a {kind[1]} queue: AWS refuses that "
            f"redrive policy (a DLQ must be of its source's kind); this endpoint accepted it. Change: "
            f"{pair.setting('dlq')}.")
    mrc = pair.max_receive_count
    if mrc is None:
        raise ScenarioFailed(f"queue {pair.name}: its redrive policy names DLQ {pair.dlq.name} but has no readable "
                             f"maxReceiveCount (SQS requires one). Change: {pair.setting('max_receive_count')}.")
    dlq_url = pair.dlq.url
    sqs.send_message(QueueUrl=url, MessageBody=body, **group_args(pair.queue.fifo, "poison"))
    try:
        if mrc > MAX_RECEIVES:
            # a poison message retried that often takes about a second per receive here: show the first
            # MAX_RECEIVES receives keep it in the queue and say the move itself is not shown
            for attempt in range(1, MAX_RECEIVES + 1):
                got = receive(sqs, url, wait=10, max_n=1, visibility=1)
                if [m["Body"] for m in got] != [body]:
                    raise ScenarioFailed(
                        f"queue {pair.name}: sent a message and received it without deleting it; receive {attempt} "
                        f"of maxReceiveCount {mrc} did not return it. Check {pair.setting('max_receive_count')}.")
            raise ScenarioSkipped(
                f"queue {pair.name}: maxReceiveCount {mrc} is more receives than this check makes ({MAX_RECEIVES}, "
                f"about a second each); the message was still redelivered after {MAX_RECEIVES}, so its move to DLQ "
                f"{pair.dlq.name} is not shown. A poison message is retried {mrc} times before it is set aside "
                f"(3-5 is usual: {pair.setting('max_receive_count')})")
        for attempt in range(1, mrc + 1):
            got = receive(sqs, url, wait=10, max_n=1, visibility=1)
            if [m["Body"] for m in got] != [body]:
                in_dlq = depth(sqs, dlq_url)
                raise ScenarioFailed(
                    f"queue {pair.name}: sent a message and received it without deleting it; receive {attempt} of "
                    f"maxReceiveCount {mrc} did not return it (DLQ {pair.dlq.name} holds {in_dlq[0]} visible). "
                    f"Expected it back until receive {mrc}. Check {pair.setting('max_receive_count')}.")
            if depth(sqs, dlq_url) != (0, 0):
                raise ScenarioFailed(
                    f"queue {pair.name}: the message reached DLQ {pair.dlq.name} after only {attempt} receives; "
                    f"maxReceiveCount is {mrc}. Change: {pair.setting('max_receive_count')}.")
        again = receive(sqs, url, wait=3, max_n=1, visibility=1)
        if again:
            raise ScenarioFailed(
                f"queue {pair.name}: after {mrc} receives (maxReceiveCount {mrc}) the message was delivered again "
                f"(receive count {again[0]['Attributes'].get('ApproximateReceiveCount')}) instead of moving to DLQ "
                f"{pair.dlq.name}. Check {pair.setting('dlq')}.")
        dead = drain(sqs, dlq_url, timeout=60)
        if [m["Body"] for m in dead] != [body]:
            raise ScenarioFailed(
                f"queue {pair.name}: after {mrc} receives the message left the queue, but DLQ {pair.dlq.name} "
                f"held {len(dead)} messages, not the one sent. Check {pair.setting('dlq')}.")
    finally:
        delete_all(sqs, url)
        delete_all(sqs, dlq_url)
    return f"a message received {mrc} times and never deleted moved to {pair.dlq.name} on the next receive, not before"


SCENARIO = Scenario(
    name='poison-to-dlq',
    subject=PAIR,
    order=10,
    uses=USES_BOTH,
    summary='a message received and never deleted reaches the DLQ after exactly `maxReceiveCount` receives, not before; a queue without DLQ fails ("received forever")',
    needs='a queue that is not itself a DLQ (one without a redrive policy fails)',
    probes='',
    run=poison_to_dlq,
)
