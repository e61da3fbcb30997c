"""fifo-order: a FIFO group's messages keep their order into the DLQ and back."""
from __future__ import annotations

import json
import time
import uuid

from ..aws import delete_all, receive
from ..discover import Pair
from . import PAIR, USES_BOTH, Context, Scenario, ScenarioFailed, ScenarioSkipped
from ._helpers import allow_refusal, dead_letter, fifo_move_drops_recent, move_back, need_dlq, need_few_receives


def fifo_order(ctx: Context, pair: Pair, n: int = 5) -> str:
    if not pair.queue.fifo:
        raise ScenarioSkipped(f"queue {pair.name} is a standard queue (no order to keep)")
    need_dlq(pair, "to keep in order")
    need_few_receives(pair)
    if allow_refusal(pair):
        raise ScenarioSkipped(f"queue {pair.name}: its DLQ's redrive-allow policy forbids it (redrive-conserves reports it)")
    sqs = ctx.clients.client("sqs")
    group = f"order-{uuid.uuid4().hex[:8]}"
    why = ctx.probe("fifo-move-drops-recent", lambda: fifo_move_drops_recent(ctx))
    seq = [f"{group}-{k}" for k in range(n)]
    try:
        dead_letter(ctx, pair, [json.dumps({"sqs-behave": "fifo", "seq": s}) for s in seq], group=group)
        in_dlq = []
        deadline = time.monotonic() + 30
        while len(in_dlq) < n and time.monotonic() < deadline:
            in_dlq += [json.loads(m["Body"])["seq"] for m in receive(sqs, pair.dlq.url, wait=1, max_n=10, visibility=0)]
        if in_dlq[:n] != seq:
            raise ScenarioFailed(f"queue {pair.name}: {n} messages of group {group} sent in order; DLQ {pair.dlq.name} "
                                 f"delivers them as {in_dlq[:n]}, expected {seq}")
        if why:
            raise ScenarioSkipped(f"queue {pair.name}: the {n} messages of one group reached DLQ {pair.dlq.name} in "
                                  f"order; the way back is not shown: {why}")
        task = move_back(ctx, pair, timeout=60)
        if task["Status"] != "COMPLETED":
            raise ScenarioFailed(f"queue {pair.name}: the move task from DLQ {pair.dlq.name} ended {task['Status']}")
        back: list[str] = []
        deadline = time.monotonic() + 30
        while len(back) < n and time.monotonic() < deadline:
            msgs = receive(sqs, pair.queue.url, wait=1, max_n=10, visibility=30)
            back += [json.loads(m["Body"])["seq"] for m in msgs]
            for m in msgs:
                sqs.delete_message(QueueUrl=pair.queue.url, ReceiptHandle=m["ReceiptHandle"])
        if back != seq:
            raise ScenarioFailed(f"queue {pair.name}: after the redrive from {pair.dlq.name} the group's messages came "
                                 f"back as {back}, expected {seq} (sent order)")
    finally:
        delete_all(sqs, pair.queue.url)
        delete_all(sqs, pair.dlq.url)
    return f"{n} messages of one group kept their order into {pair.dlq.name} and back"


SCENARIO = Scenario(
    name='fifo-order',
    subject=PAIR,
    order=40,
    uses=USES_BOTH,
    summary="a group's messages keep their order into the DLQ and back",
    needs='a FIFO queue with a DLQ',
    probes='`StartMessageMoveTask` on a FIFO DLQ (same probe as redrive-conserves)',
    run=fifo_order,
)
