"""What several scenarios share: FIFO send arguments, dead-lettering messages, moving them back
with StartMessageMoveTask, reading a DLQ's redrive-allow policy, the FIFO move-task probe."""
from __future__ import annotations

import contextlib
import json
import time
import uuid

from ..aws import depth, receive
from ..discover import Pair
from . import Context, ScenarioFailed, ScenarioSkipped


def group_args(pair_fifo: bool, group: str = "sqs-behave") -> dict:
    return {"MessageGroupId": group, "MessageDeduplicationId": uuid.uuid4().hex} if pair_fifo else {}


def need_dlq(pair: Pair, what: str) -> None:
    if pair.dlq is None:
        raise ScenarioSkipped(f"queue {pair.name} has no DLQ, so there is nothing {what} (poison-to-dlq reports it)")


# messages are dead-lettered by receiving them maxReceiveCount times: beyond this many, skip
MAX_DEAD_LETTER_RECEIVES = 50


def need_few_receives(pair: Pair) -> None:
    """Skip (with the reason) when dead-lettering takes more receives than a check makes, or when
    the DLQ is not of its source's kind (AWS refuses that pairing; poison-to-dlq reports it)."""
    if pair.dlq is not None and pair.queue.fifo != pair.dlq.fifo:
        raise ScenarioSkipped(f"queue {pair.name} and its DLQ {pair.dlq.name} are not both FIFO or both standard "
                              "(poison-to-dlq reports it)")
    if pair.max_receive_count is None:
        raise ScenarioSkipped(f"queue {pair.name}: no readable maxReceiveCount (poison-to-dlq reports it)")
    if pair.max_receive_count > MAX_DEAD_LETTER_RECEIVES:
        raise ScenarioSkipped(f"queue {pair.name}: maxReceiveCount {pair.max_receive_count} takes more receives per "
                              f"message than this check makes ({MAX_DEAD_LETTER_RECEIVES}) to dead-letter it "
                              "(poison-to-dlq reports how far it got)")



def dead_letter(ctx: Context, pair: Pair, bodies: list[str], group: str | None = None, timeout: float = 90) -> None:
    """Send ``bodies`` to the source and fail them until all are in the DLQ."""
    sqs = ctx.clients.client("sqs")
    n = len(bodies)
    extra = (lambda: {"MessageGroupId": group, "MessageDeduplicationId": uuid.uuid4().hex}) if pair.queue.fifo else dict
    for i in range(0, n, 10):
        resp = sqs.send_message_batch(QueueUrl=pair.queue.url, Entries=[
            {"Id": str(k), "MessageBody": b, **extra()} for k, b in enumerate(bodies[i:i + 10])])
        if resp.get("Failed"):
            raise ScenarioFailed(f"queue {pair.name}: sending test messages failed: {resp['Failed'][:2]}")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if depth(sqs, pair.dlq.url)[0] >= n:
            return
        receive(sqs, pair.queue.url, wait=0, max_n=10, visibility=0)
    seen = depth(sqs, pair.dlq.url)[0]
    raise ScenarioFailed(f"queue {pair.name}: {n} messages received and never deleted, {seen} of them reached DLQ "
                         f"{pair.dlq.name} within {timeout:.0f} s (maxReceiveCount {pair.max_receive_count}). "
                         f"Check {pair.setting('dlq')}.")


def move_back(ctx: Context, pair: Pair, timeout: float) -> dict:
    """StartMessageMoveTask from the DLQ to its original source; the finished task."""
    sqs = ctx.clients.client("sqs")
    try:
        sqs.start_message_move_task(SourceArn=pair.dlq.arn)
    except sqs.exceptions.ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        if code in ("UnsupportedOperation", "InvalidAction", "AWS.SimpleQueueService.UnsupportedOperation") and \
                "fifo" in str(exc).lower():
            raise ScenarioSkipped(f"this endpoint does not run StartMessageMoveTask on the FIFO DLQ {pair.dlq.name}: {exc}") from None
        if code in ("InvalidAction", "NotImplemented", "UnknownOperation", "InternalFailure") or \
                "not valid for this endpoint" in str(exc) or "not implemented" in str(exc).lower():
            raise ScenarioSkipped(f"this endpoint does not run StartMessageMoveTask ({exc}), so the way back from DLQ "
                                  f"{pair.dlq.name} cannot be shown here (probe: python -m "
                                  "resilient_sqs.testing.probes <endpoint>)") from None
        raise ScenarioFailed(f"queue {pair.name}: StartMessageMoveTask from DLQ {pair.dlq.name} back to its source "
                             f"was refused: {exc}. Check {pair.setting('redrive_allow')}.") from None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tasks = sqs.list_message_move_tasks(SourceArn=pair.dlq.arn, MaxResults=1)["Results"]
        if tasks and tasks[0]["Status"] in ("COMPLETED", "FAILED", "CANCELLED"):
            return tasks[0]
        time.sleep(0.3)
    raise ScenarioFailed(f"queue {pair.name}: the move task from DLQ {pair.dlq.name} did not finish within {timeout:.0f} s")


def allow_refusal(pair: Pair) -> str | None:
    """Why the DLQ's redrive-allow policy forbids this source (None: it allows it)."""
    allow = pair.redrive_allow
    if not isinstance(allow, dict):
        return None
    perm = allow.get("redrivePermission")
    if perm == "denyAll":
        return f"redrive-allow policy of DLQ {pair.dlq.name} is denyAll: no queue may use it as its DLQ"
    if perm == "byQueue":
        arns = allow.get("sourceQueueArns") or []
        if pair.queue.arn not in arns:
            return (f"redrive-allow policy of DLQ {pair.dlq.name} is byQueue {json.dumps(arns)}, which does not list "
                    f"its source {pair.queue.arn}")
    return None


def fifo_move_drops_recent(ctx: Context) -> str | None:
    """Probe: does a move task back to a FIFO source drop a message sent there within the
    deduplication window (5 min)? LocalStack 4.9.2 re-sends it with its original deduplication
    ID, so the source discards it as a duplicate. Returns the reason to skip, or None."""
    sqs = ctx.clients.client("sqs")
    tag = uuid.uuid4().hex[:8]
    urls = []
    try:
        dlq = sqs.create_queue(QueueName=f"sqs-behave-probe-{tag}-dlq.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
        urls.append(dlq)
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        src = sqs.create_queue(QueueName=f"sqs-behave-probe-{tag}.fifo", Attributes={
            "FifoQueue": "true", "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 1})})["QueueUrl"]
        urls.append(src)
        sqs.send_message(QueueUrl=src, MessageBody="probe", MessageGroupId="p", MessageDeduplicationId=tag)
        deadline = time.monotonic() + 20
        while depth(sqs, dlq)[0] < 1 and time.monotonic() < deadline:
            receive(sqs, src, wait=0, max_n=1, visibility=0)
        if depth(sqs, dlq)[0] < 1:
            return None  # the probe could not dead-letter: let the scenario show what happens
        sqs.start_message_move_task(SourceArn=dlq_arn)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            tasks = sqs.list_message_move_tasks(SourceArn=dlq_arn, MaxResults=1)["Results"]
            if tasks and tasks[0]["Status"] != "RUNNING":
                break
            time.sleep(0.3)
        if receive(sqs, src, wait=2, max_n=1):
            return None
        return ("this endpoint's StartMessageMoveTask re-sends a FIFO message with its original deduplication ID, so "
                "a message redriven within 5 minutes of its first send is dropped as a duplicate (probed with a "
                "throwaway FIFO pair; LocalStack 4.9.2 does this): a FIFO redrive cannot be shown here in a short run")
    except Exception:  # noqa: BLE001 - a failed probe decides nothing
        return None
    finally:
        for u in urls:
            with contextlib.suppress(Exception):
                sqs.delete_queue(QueueUrl=u)



def dead_letter_groups(ctx: Context, pair: Pair, bodies: list[str]) -> None:
    sqs = ctx.clients.client("sqs")
    for i in range(0, len(bodies), 10):
        sqs.send_message_batch(QueueUrl=pair.queue.url, Entries=[
            {"Id": str(k), "MessageBody": b, "MessageGroupId": f"g{i + k}", "MessageDeduplicationId": uuid.uuid4().hex}
            for k, b in enumerate(bodies[i:i + 10])])
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if depth(sqs, pair.dlq.url)[0] >= len(bodies):
            return
        receive(sqs, pair.queue.url, wait=0, max_n=10, visibility=0)
    raise ScenarioFailed(f"queue {pair.name}: {len(bodies)} messages received and never deleted did not all reach DLQ "
                         f"{pair.dlq.name} within 90 s. Check {pair.setting('dlq')}.")
