"""redrive-conserves: dead-lettered messages moved back with StartMessageMoveTask arrive once each."""
from __future__ import annotations

import json
import uuid
from collections import Counter

from ..aws import delete_all, depth, drain
from ..discover import Pair
from . import PAIR, USES_BOTH, Context, Scenario, ScenarioFailed, ScenarioSkipped
from ._helpers import (
    allow_refusal,
    dead_letter,
    dead_letter_groups,
    fifo_move_drops_recent,
    move_back,
    need_dlq,
    need_few_receives,
)


def redrive_conserves(ctx: Context, pair: Pair, n: int = 20) -> str:
    need_dlq(pair, "to redrive")
    refusal = allow_refusal(pair)
    if refusal:
        raise ScenarioFailed(
            f"queue {pair.name}: the {refusal}. On AWS the source's redrive policy naming this DLQ is refused and a "
            f"redrive has no permitted source (this endpoint applied it without complaint). Expected: the policy "
            f"allows {pair.name} (byQueue listing its ARN, or allowAll). Change: {pair.setting('redrive_allow')}.")
    need_few_receives(pair)
    if pair.queue.fifo:
        why = ctx.probe("fifo-move-drops-recent", lambda: fifo_move_drops_recent(ctx))
        if why:
            raise ScenarioSkipped(f"queue {pair.name}: {why}")
    sqs = ctx.clients.client("sqs")
    ids = [uuid.uuid4().hex for _ in range(n)]
    bodies = [json.dumps({"sqs-behave": "redrive", "id": i}) for i in ids]
    try:
        # distinct groups on a FIFO queue: a group's messages move one after another
        if pair.queue.fifo:
            dead_letter_groups(ctx, pair, bodies)
        else:
            dead_letter(ctx, pair, bodies)
        if depth(sqs, pair.queue.url) != (0, 0):
            raise ScenarioFailed(f"queue {pair.name}: messages remained in the source after all {n} were dead-lettered")
        task = move_back(ctx, pair, timeout=60 + n)
        if task["Status"] != "COMPLETED":
            raise ScenarioFailed(f"queue {pair.name}: the move task from DLQ {pair.dlq.name} ended {task['Status']}: "
                                 f"{task.get('FailureReason', '')}. Check {pair.setting('redrive_allow')}.")
        got = Counter(json.loads(m["Body"]).get("id") for m in drain(sqs, pair.queue.url, timeout=60))
        lost = [i for i in ids if i not in got]
        dup = {i: c for i, c in got.items() if c > 1}
        extra = [i for i in got if i not in ids]
        left = depth(sqs, pair.dlq.url)
        if lost or dup or extra or left != (0, 0):
            raise ScenarioFailed(
                f"queue {pair.name}: moved {n} dead-lettered messages from DLQ {pair.dlq.name} back with "
                f"StartMessageMoveTask; expected each exactly once in the source, saw {len(lost)} lost, "
                f"{len(dup)} duplicated, {len(extra)} unexpected, {left[0] + left[1]} still in the DLQ")
    finally:
        delete_all(sqs, pair.queue.url)
        delete_all(sqs, pair.dlq.url)
    return f"{n} messages dead-lettered to {pair.dlq.name} and moved back (StartMessageMoveTask): none lost, none duplicated"


SCENARIO = Scenario(
    name='redrive-conserves',
    subject=PAIR,
    order=30,
    uses=USES_BOTH,
    summary='N dead-lettered messages moved back with `StartMessageMoveTask`: none lost, none duplicated; a redrive-allow policy that forbids the source fails with the reason',
    needs='a DLQ and a readable `maxReceiveCount`',
    probes='`StartMessageMoveTask`; on a FIFO DLQ, that a moved message is not dropped as a duplicate (probed with a throwaway FIFO pair)',
    run=redrive_conserves,
)
