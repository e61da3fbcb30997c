"""retention-outlasts-retries: a failing message reaches the DLQ before the source's retention deletes it
(maxReceiveCount x visibility timeout against message retention), shown on a scaled copy when it does not."""
from __future__ import annotations

import json
import math
import time

from ..aws import depth, receive
from ..discover import Pair
from . import PAIR, USES_SOURCE, Context, Scenario, ScenarioFailed, ScenarioSkipped
from ._helpers import MAX_DEAD_LETTER_RECEIVES, need_dlq

SCALED_RETENTION = 60  # SQS's smallest MessageRetentionPeriod


def _scaled_copy(ctx: Context, pair: Pair, mrc: int) -> tuple[bool | None, str]:
    """Replay the pair's settings scaled down to a 60 s retention on throwaway queues: True when the
    message expired before reaching the DLQ, False when it reached it, None when the endpoint does
    not enforce retention (the message outlived it)."""
    import contextlib
    import uuid

    sqs = ctx.clients.client("sqs")
    vis = max(1, math.ceil(SCALED_RETENTION * pair.queue.visibility / max(pair.queue.retention, 1)))
    tag = uuid.uuid4().hex[:8]
    urls = []
    try:
        dlq = sqs.create_queue(QueueName=f"sqs-behave-ret-{tag}-dlq")["QueueUrl"]
        urls.append(dlq)
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        src = sqs.create_queue(QueueName=f"sqs-behave-ret-{tag}", Attributes={
            "MessageRetentionPeriod": str(SCALED_RETENTION), "VisibilityTimeout": str(vis),
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": mrc})})["QueueUrl"]
        urls.append(src)
        sqs.send_message(QueueUrl=src, MessageBody="retention")
        t0 = time.monotonic()
        while time.monotonic() - t0 < SCALED_RETENTION + 30 and not ctx.stopping.is_set():
            receive(sqs, src, wait=1, max_n=1)  # a failed delivery: not deleted, hidden for `vis` s
            if depth(sqs, dlq)[0]:
                return False, f"scaled copy (retention 60 s, visibility {vis} s): it reached the DLQ"
            if depth(sqs, src) == (0, 0) and time.monotonic() - t0 >= SCALED_RETENTION - 1:
                return True, (f"scaled copy (retention 60 s, visibility {vis} s, maxReceiveCount {mrc}): the message "
                              f"was deleted after {time.monotonic() - t0:.0f} s without reaching the DLQ")
        return None, "scaled copy: the message outlived its 60 s retention (the endpoint does not enforce retention)"
    finally:
        for u in urls:
            with contextlib.suppress(Exception):
                sqs.delete_queue(QueueUrl=u)


def retention_outlasts_retries(ctx: Context, pair: Pair) -> str:
    need_dlq(pair, "for a failing message to reach")
    mrc = pair.max_receive_count
    if mrc is None:
        raise ScenarioSkipped(f"queue {pair.name}: no readable maxReceiveCount (poison-to-dlq reports it)")
    needed = mrc * pair.queue.visibility
    if needed < pair.queue.retention:
        return (f"a message failing every delivery reaches DLQ {pair.dlq.name} after about {mrc} x "
                f"{pair.queue.visibility} s = {needed} s, within the source's retention ({pair.queue.retention} s)")
    if mrc > MAX_DEAD_LETTER_RECEIVES:
        shown = "not replayed (maxReceiveCount too high for a short run)"
    else:
        expired, shown = _scaled_copy(ctx, pair, mrc)
        if expired is None:
            shown += "; the arithmetic below stands"
    raise ScenarioFailed(
        f"queue {pair.name}: a message failing every delivery needs about {mrc} receives x {pair.queue.visibility} s "
        f"visibility = {needed} s to reach DLQ {pair.dlq.name}, but the source deletes it after its retention "
        f"({pair.queue.retention} s): it is lost instead of dead-lettered ({shown}). Raise "
        f"{pair.setting('message_retention_seconds')} above {needed} s, or lower "
        f"{pair.setting('max_receive_count')} or {pair.setting('visibility_timeout_seconds')}")


SCENARIO = Scenario(
    name="retention-outlasts-retries",
    subject=PAIR,
    order=65,
    uses=USES_SOURCE,
    summary="a message failing every delivery reaches the DLQ before the source's retention deletes it "
            "(`maxReceiveCount` × visibility timeout < retention); when it does not, the loss is replayed on "
            "throwaway queues scaled to a 60 s retention",
    needs="a DLQ and a readable `maxReceiveCount`",
    probes="message retention enforced (LocalStack: `SQS_ENABLE_MESSAGE_RETENTION_PERIOD=1`, which the embedded "
           "launcher sets); where it is not, the arithmetic alone is reported",
    run=retention_outlasts_retries,
)
