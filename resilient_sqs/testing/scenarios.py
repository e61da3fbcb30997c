"""The behaviour scenarios, run against an applied stack through the AWS APIs.

Each scenario is a function ``(ctx, subject) -> str`` returning what it showed; it raises
:class:`ScenarioFailed` (what was done, expected, seen, which setting to change) or
:class:`ScenarioSkipped` (why it does not apply, or what the endpoint cannot show: decided by
probing the endpoint, never by its version string). Every scenario leaves the queues it used
empty. Time-dependent steps take their periods from the applied configuration (visibility
timeout, function timeout, alarm period and evaluation periods), plus the endpoint's metric
interval, so the same checks hold on a real AWS account.
"""
from __future__ import annotations

import contextlib
import json
import math
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from .aws import Clients, delete_all, depth, drain, receive, send_batch
from .discover import Discovery, Pair, Table

Progress = Callable[[str], None]


class ScenarioFailed(AssertionError):
    """The stack does not keep a promise. The message names the queue, what was done and seen."""


class ScenarioSkipped(Exception):
    """The scenario does not apply to this subject, or the endpoint cannot show it (the reason)."""


@dataclass
class Context:
    clients: Clients
    discovery: Discovery
    metric_interval: float  # how often the endpoint publishes SQS metrics to CloudWatch (s)
    progress: Progress = lambda _m: None
    _probes: dict = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def probe(self, name: str, fn: Callable[[], Any]) -> Any:
        with self._lock:
            if name not in self._probes:
                self._probes[name] = fn()
            return self._probes[name]


def _group(pair_fifo: bool, group: str = "sqs-behave") -> dict:
    return {"MessageGroupId": group, "MessageDeduplicationId": uuid.uuid4().hex} if pair_fifo else {}


def _need_dlq(pair: Pair, what: str) -> None:
    if pair.dlq is None:
        raise ScenarioSkipped(f"queue {pair.name} has no DLQ, so there is nothing {what} (poison-to-dlq reports it)")


# ----------------------------------------------------------------------------------------------
# poison-to-dlq
# ----------------------------------------------------------------------------------------------
def poison_to_dlq(ctx: Context, pair: Pair) -> str:
    sqs = ctx.clients.client("sqs")
    url = pair.queue.url
    body = json.dumps({"sqs-behave": "poison", "id": uuid.uuid4().hex})
    if pair.dlq is None:
        tries = 6
        sqs.send_message(QueueUrl=url, MessageBody=body, **_group(pair.queue.fifo, "poison"))
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
    mrc = pair.max_receive_count
    if mrc is None:
        raise ScenarioSkipped(f"queue {pair.name}: maxReceiveCount of its redrive policy is not readable from the state")
    dlq_url = pair.dlq.url
    sqs.send_message(QueueUrl=url, MessageBody=body, **_group(pair.queue.fifo, "poison"))
    try:
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


# ----------------------------------------------------------------------------------------------
# dead-letter N messages (shared by redrive-conserves and fifo-order)
# ----------------------------------------------------------------------------------------------
def _dead_letter(ctx: Context, pair: Pair, bodies: list[str], group: str | None = None, timeout: float = 90) -> None:
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


def _move_back(ctx: Context, pair: Pair, timeout: float) -> dict:
    """StartMessageMoveTask from the DLQ to its original source; the finished task."""
    sqs = ctx.clients.client("sqs")
    try:
        sqs.start_message_move_task(SourceArn=pair.dlq.arn)
    except sqs.exceptions.ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        if code in ("UnsupportedOperation", "InvalidAction", "AWS.SimpleQueueService.UnsupportedOperation") and \
                "fifo" in str(exc).lower():
            raise ScenarioSkipped(f"this endpoint does not run StartMessageMoveTask on the FIFO DLQ {pair.dlq.name}: {exc}") from None
        raise ScenarioFailed(f"queue {pair.name}: StartMessageMoveTask from DLQ {pair.dlq.name} back to its source "
                             f"was refused: {exc}. Check {pair.setting('redrive_allow')}.") from None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tasks = sqs.list_message_move_tasks(SourceArn=pair.dlq.arn, MaxResults=1)["Results"]
        if tasks and tasks[0]["Status"] in ("COMPLETED", "FAILED", "CANCELLED"):
            return tasks[0]
        time.sleep(0.3)
    raise ScenarioFailed(f"queue {pair.name}: the move task from DLQ {pair.dlq.name} did not finish within {timeout:.0f} s")


def _allow_refusal(pair: Pair) -> str | None:
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


def _fifo_move_drops_recent(ctx: Context) -> str | None:
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


# ----------------------------------------------------------------------------------------------
# redrive-conserves
# ----------------------------------------------------------------------------------------------
def redrive_conserves(ctx: Context, pair: Pair, n: int = 20) -> str:
    _need_dlq(pair, "to redrive")
    refusal = _allow_refusal(pair)
    if refusal:
        raise ScenarioFailed(
            f"queue {pair.name}: the {refusal}. On AWS the source's redrive policy naming this DLQ is refused and a "
            f"redrive has no permitted source (this endpoint applied it without complaint). Expected: the policy "
            f"allows {pair.name} (byQueue listing its ARN, or allowAll). Change: {pair.setting('redrive_allow')}.")
    if pair.max_receive_count is None:
        raise ScenarioSkipped(f"queue {pair.name}: maxReceiveCount is not readable from the state")
    if pair.queue.fifo:
        why = ctx.probe("fifo-move-drops-recent", lambda: _fifo_move_drops_recent(ctx))
        if why:
            raise ScenarioSkipped(f"queue {pair.name}: {why}")
    sqs = ctx.clients.client("sqs")
    ids = [uuid.uuid4().hex for _ in range(n)]
    bodies = [json.dumps({"sqs-behave": "redrive", "id": i}) for i in ids]
    try:
        # distinct groups on a FIFO queue: a group's messages move one after another
        if pair.queue.fifo:
            _dead_letter_groups(ctx, pair, bodies)
        else:
            _dead_letter(ctx, pair, bodies)
        if depth(sqs, pair.queue.url) != (0, 0):
            raise ScenarioFailed(f"queue {pair.name}: messages remained in the source after all {n} were dead-lettered")
        task = _move_back(ctx, pair, timeout=60 + n)
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


def _dead_letter_groups(ctx: Context, pair: Pair, bodies: list[str]) -> None:
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


# ----------------------------------------------------------------------------------------------
# fifo-order
# ----------------------------------------------------------------------------------------------
def fifo_order(ctx: Context, pair: Pair, n: int = 5) -> str:
    if not pair.queue.fifo:
        raise ScenarioSkipped(f"queue {pair.name} is a standard queue (no order to keep)")
    _need_dlq(pair, "to keep in order")
    if _allow_refusal(pair):
        raise ScenarioSkipped(f"queue {pair.name}: its DLQ's redrive-allow policy forbids it (redrive-conserves reports it)")
    sqs = ctx.clients.client("sqs")
    group = f"order-{uuid.uuid4().hex[:8]}"
    why = ctx.probe("fifo-move-drops-recent", lambda: _fifo_move_drops_recent(ctx))
    seq = [f"{group}-{k}" for k in range(n)]
    try:
        _dead_letter(ctx, pair, [json.dumps({"sqs-behave": "fifo", "seq": s}) for s in seq], group=group)
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
        task = _move_back(ctx, pair, timeout=60)
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


# ----------------------------------------------------------------------------------------------
# visibility-covers-consumer
# ----------------------------------------------------------------------------------------------
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
    sqs.send_message(QueueUrl=pair.queue.url, MessageBody=body, **_group(pair.queue.fifo, "visibility"))
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


# ----------------------------------------------------------------------------------------------
# dlq-alarm-fires
# ----------------------------------------------------------------------------------------------
_BREACH = {
    "GreaterThanThreshold": lambda t: math.floor(t) + 1,
    "GreaterThanOrEqualToThreshold": lambda t: max(1, math.ceil(t)),
}
MAX_ALARM_MESSAGES = 200


def dlq_alarm_fires(ctx: Context, pair: Pair) -> str:
    _need_dlq(pair, "to alarm on")
    alarms, strays = pair.alarms, pair.stray_alarms
    if not alarms and not strays:
        raise ScenarioSkipped(f"no CloudWatch alarm watches the depth of {pair.dlq.name} (DLQ of {pair.name}); "
                              "the plan checker's alarm rule reports a missing one")
    for a in alarms + strays:
        if a.comparison not in _BREACH:
            raise ScenarioSkipped(f"alarm {a.name}: comparison {a.comparison} is not a depth-above-threshold alarm")
    need = max(_BREACH[a.comparison](a.threshold) for a in alarms + strays)
    if need > MAX_ALARM_MESSAGES:
        raise ScenarioSkipped(f"alarms on {pair.dlq.name} need {need} messages to breach; more than this check sends "
                              f"({MAX_ALARM_MESSAGES})")
    sqs, sns, cw = ctx.clients.client("sqs"), ctx.clients.client("sns"), ctx.clients.client("cloudwatch")
    names = [a.name for a in alarms + strays]
    inbox_url = None
    subs: list[str] = []
    topics = sorted({t for a in alarms for t in a.actions if ":sns:" in t and not t.endswith(".fifo")})
    try:
        if topics:
            inbox_url = sqs.create_queue(QueueName=f"sqs-behave-inbox-{uuid.uuid4().hex[:10]}")["QueueUrl"]
            inbox_arn = sqs.get_queue_attributes(QueueUrl=inbox_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
            sqs.set_queue_attributes(QueueUrl=inbox_url, Attributes={"Policy": json.dumps({
                "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"},
                                                        "Action": "sqs:SendMessage", "Resource": inbox_arn,
                                                        "Condition": {"ArnEquals": {"aws:SourceArn": topics}}}]})})
            for t in topics:
                subs.append(sns.subscribe(TopicArn=t, Protocol="sqs", Endpoint=inbox_arn,
                                          Attributes={"RawMessageDelivery": "false"},
                                          ReturnSubscriptionArn=True)["SubscriptionArn"])
        # an alarm already in ALARM (messages put in the DLQ by another check) would send no new
        # notification: back to OK first, so its next evaluation is a transition to ALARM
        for page in cw.get_paginator("describe_alarms").paginate(AlarmNames=names):
            for m in page.get("MetricAlarms", []):
                if m["StateValue"] == "ALARM":
                    cw.set_alarm_state(AlarmName=m["AlarmName"], StateValue="OK",
                                       StateReason="sqs-behave: reset before the dlq-alarm-fires check")
        send_batch(sqs, pair.dlq.url, [json.dumps({"sqs-behave": "alarm", "n": k}) for k in range(need)],
                   fifo=pair.dlq.fifo)
        wait = max(a.period * max(a.evaluation_periods, 1) for a in alarms + strays) + ctx.metric_interval
        deadline_wait = wait + max(a.period for a in alarms + strays) + 30  # one evaluation cycle and request slack
        ctx.progress(f"{pair.name}: {need} message(s) in {pair.dlq.name}; waiting up to {deadline_wait:.0f} s for "
                     f"{', '.join(names)} (period x evaluation periods + metric interval {ctx.metric_interval:.0f} s)")
        t0 = time.monotonic()
        states: dict[str, str] = {}
        fired_at: dict[str, float] = {}
        while time.monotonic() - t0 < deadline_wait:
            for page in cw.get_paginator("describe_alarms").paginate(AlarmNames=names):
                for m in page.get("MetricAlarms", []):
                    states[m["AlarmName"]] = m["StateValue"]
                    if m["StateValue"] == "ALARM":
                        fired_at.setdefault(m["AlarmName"], time.monotonic() - t0)
            if all(a.name in fired_at for a in alarms) and (not strays or time.monotonic() - t0 >= wait):
                break
            time.sleep(3)
        elapsed = time.monotonic() - t0
        problems = []
        for a in alarms:
            if a.name not in fired_at:
                problems.append(
                    f"alarm {a.name} ({a.metric} of {a.queue_name} {a.comparison} {a.threshold:g}, {a.period} s x "
                    f"{a.evaluation_periods}) stayed {states.get(a.name, 'missing')} for {elapsed:.0f} s with {need} "
                    f"message(s) in {pair.dlq.name}; expected ALARM within {wait:.0f} s. Check {a.address}")
        for a in strays:
            if a.name in fired_at:
                continue
            problems.append(
                f"alarm {a.name} ({a.address}) never fires for {pair.dlq.name}: {a.why_not}. With {need} message(s) "
                f"in the DLQ for {elapsed:.0f} s it stayed {states.get(a.name, 'missing')}. Change its "
                f"dimensions.QueueName to {pair.dlq.name} (and its provider to the DLQ's region and account)")
        delivered: set[str] = set()
        if inbox_url and not problems:
            deadline = time.monotonic() + 60
            expect = {a.name for a in alarms if a.actions}
            while time.monotonic() < deadline and not expect <= delivered:
                for m in receive(sqs, inbox_url, wait=2, max_n=10):
                    with contextlib.suppress(ValueError, KeyError, TypeError):
                        doc = json.loads(json.loads(m["Body"])["Message"])
                        if doc.get("NewStateValue") == "ALARM":
                            delivered.add(doc.get("AlarmName"))
            for a in alarms:
                if a.name in expect and a.name not in delivered:
                    problems.append(f"alarm {a.name} went to ALARM but its topic(s) {', '.join(a.actions)} "
                                    f"delivered no ALARM notification to a subscribed queue within 60 s. Check its "
                                    f"alarm_actions and the topic's policy")
        if problems:
            raise ScenarioFailed(f"queue {pair.name}: " + "; ".join(problems))
    finally:
        for s in subs:
            with contextlib.suppress(Exception):
                sns.unsubscribe(SubscriptionArn=s)
        if inbox_url:
            with contextlib.suppress(Exception):
                sqs.delete_queue(QueueUrl=inbox_url)
        delete_all(sqs, pair.dlq.url)
    shown = ", ".join(f"{a.name} in {fired_at[a.name]:.0f} s" for a in alarms)
    note = f"; SNS delivered to a subscribed queue ({', '.join(topics)})" if topics else "; the alarms have no SNS action"
    if pair.age_alarms:
        note += (f"; age alarm(s) {', '.join(a.name for a in pair.age_alarms)} not checked here "
                 "(docs/localstack.md: LocalStack does not publish ApproximateAgeOfOldestMessage)")
    return f"{need} message(s) in {pair.dlq.name}: ALARM ({shown}){note}"


# ----------------------------------------------------------------------------------------------
# claim-check-roundtrip
# ----------------------------------------------------------------------------------------------
PAYLOAD_BYTES = 300 * 1024


def claim_check_roundtrip(ctx: Context, pair: Pair) -> str:
    if not pair.buckets:
        raise ScenarioSkipped(f"no claim-check bucket is linked to {pair.name} in the stack")
    try:
        from resilient_sqs.claim_check import extended_client
    except ImportError as exc:  # pragma: no cover - the [testing] extra installs it
        raise ScenarioSkipped(f"the SQS extended client is not installed ({exc}): pip install 'resilient-sqs[testing]'") from None
    bucket = pair.buckets[0]["name"]
    s3, sqs = ctx.clients.client("s3"), ctx.clients.client("sqs")
    try:
        rules = s3.get_bucket_lifecycle_configuration(Bucket=bucket).get("Rules", [])
    except s3.exceptions.ClientError:
        rules = []
    expiring = [r for r in rules if r.get("Status") == "Enabled" and (r.get("Expiration") or {}).get("Days")]
    prefix = ""
    for r in expiring:
        p = ((r.get("Filter") or {}).get("Prefix")) or r.get("Prefix") or ""
        if p.endswith("/"):
            prefix = p
            break
    payload = json.dumps({"sqs-behave": "claim-check", "pad": "x" * PAYLOAD_BYTES})
    client = extended_client(bucket, prefix=prefix, s3=s3, **ctx.clients.kwargs())
    try:
        client.send_message(QueueUrl=pair.queue.url, MessageBody=payload, **_group(pair.queue.fifo, "claim-check"))
        raw = receive(sqs, pair.queue.url, wait=5, max_n=1, visibility=1)
        if not raw:
            raise ScenarioFailed(f"queue {pair.name}: a {len(payload)} byte message sent with the extended client was not received")
        pointer = raw[0]["Body"]
        if len(pointer) > 2048 or bucket not in pointer:
            raise ScenarioFailed(f"queue {pair.name}: a {len(payload)} byte message did not go through bucket {bucket} "
                                 f"(the queue holds a {len(pointer)} byte body)")
        time.sleep(1.2)
        got = client.receive_message(QueueUrl=pair.queue.url, MaxNumberOfMessages=1, WaitTimeSeconds=5,
                                     VisibilityTimeout=60, MessageAttributeNames=["All"]).get("Messages", [])
        if got:  # through the extended client: its receipt handle carries the payload's location
            client.delete_message(QueueUrl=pair.queue.url, ReceiptHandle=got[0]["ReceiptHandle"])
        if not got or got[0]["Body"] != payload:
            raise ScenarioFailed(f"queue {pair.name}: the payload stored in bucket {bucket} did not come back intact "
                                 "through the extended client")
    finally:
        delete_all(sqs, pair.queue.url)
    expiry = ""
    if pair.dlq is not None:
        days = [r["Expiration"]["Days"] for r in expiring
                if not prefix or (((r.get("Filter") or {}).get("Prefix")) or r.get("Prefix") or "") == prefix]
        if days and min(days) * 86400 < pair.dlq.retention:
            need = -(-pair.dlq.retention // 86400)
            raise ScenarioFailed(
                f"queue {pair.name}: bucket {bucket} expires payloads after {min(days)} days (lifecycle, read from the "
                f"bucket), less than DLQ {pair.dlq.name}'s retention ({pair.dlq.retention} s): a message redriven "
                f"after day {min(days)} finds its payload gone. Set the lifecycle expiration to at least {need} days "
                f"({pair.buckets[0]['address']}).")
        expiry = (f"; payloads expire after {min(days)} days >= DLQ retention {pair.dlq.retention} s" if days
                  else "; the bucket has no expiring lifecycle rule (payloads are kept)")
    return f"a {len(payload)} byte payload went through bucket {bucket} and came back intact{expiry}"


# ----------------------------------------------------------------------------------------------
# idempotency-table
# ----------------------------------------------------------------------------------------------
def idempotency_table(ctx: Context, table: Table) -> str:
    try:
        from aws_lambda_powertools.utilities.idempotency import (DynamoDBPersistenceLayer, IdempotencyConfig,
                                                                 idempotent_function)
    except ImportError as exc:  # pragma: no cover - the [testing] extra installs it
        raise ScenarioSkipped(f"Powertools is not installed ({exc}): pip install 'resilient-sqs[testing]'") from None
    ddb = ctx.clients.client("dynamodb")
    desc = ddb.describe_table(TableName=table.name)["Table"]
    hash_key = next((k["AttributeName"] for k in desc["KeySchema"] if k["KeyType"] == "HASH"), None)
    if hash_key != "id" or any(k["KeyType"] == "RANGE" for k in desc["KeySchema"]):
        raise ScenarioFailed(f"table {table.name}: keyed by {[k['AttributeName'] for k in desc['KeySchema']]}; Powertools' "
                             f"idempotency layer writes records under the partition key 'id' (string) only. "
                             f"Set hash_key = \"id\" with no range key ({table.address}).")
    ttl = ddb.describe_time_to_live(TableName=table.name).get("TimeToLiveDescription", {})
    layer = DynamoDBPersistenceLayer(table_name=table.name, boto3_client=ddb)
    calls: list[dict] = []

    @idempotent_function(data_keyword_argument="order", persistence_store=layer,
                         config=IdempotencyConfig(expires_after_seconds=600))
    def handle(order: dict) -> dict:
        calls.append(order)
        return {"handled": order["id"]}

    order = {"id": uuid.uuid4().hex, "sqs-behave": "idempotency"}
    first, second = handle(order=order), handle(order=order)
    if len(calls) != 1 or first != second:
        raise ScenarioFailed(f"table {table.name}: the same order handled twice through Powertools ran the handler "
                             f"{len(calls)} times; expected once (the table must refuse the duplicate record)")
    items = ddb.scan(TableName=table.name, FilterExpression="contains(#k, :v)",
                     ExpressionAttributeNames={"#k": "id"}, ExpressionAttributeValues={":v": {"S": "handle"}})["Items"]
    record = next((i for i in items if "expiration" in i), None)
    try:
        if record is None:
            raise ScenarioFailed(f"table {table.name}: no Powertools record with an 'expiration' attribute was written")
        if ttl.get("TimeToLiveStatus") not in ("ENABLED", "ENABLING") or ttl.get("AttributeName") != "expiration":
            raise ScenarioFailed(
                f"table {table.name}: Powertools writes the record's expiry in 'expiration', but the table's TTL is "
                f"{ttl.get('TimeToLiveStatus', 'DISABLED')} on {ttl.get('AttributeName')!r}: records are never "
                f"deleted. Set ttl {{ attribute_name = \"expiration\", enabled = true }} ({table.address}).")
        # the conditional put Powertools relies on: a second record under the same key is refused
        try:
            ddb.put_item(TableName=table.name, Item=record, ConditionExpression="attribute_not_exists(#k)",
                         ExpressionAttributeNames={"#k": "id"})
            raise ScenarioFailed(f"table {table.name}: a conditional put of a duplicate idempotency record succeeded")
        except ddb.exceptions.ConditionalCheckFailedException:
            pass
    finally:
        for i in items:
            with contextlib.suppress(Exception):
                ddb.delete_item(TableName=table.name, Key={"id": i["id"]})
    return (f"a Powertools idempotency record (TTL attribute 'expiration', status {record.get('status', {}).get('S')}) "
            "was written once and the duplicate refused")


# ----------------------------------------------------------------------------------------------
PAIR_SCENARIOS: dict[str, Callable[[Context, Pair], str]] = {
    "poison-to-dlq": poison_to_dlq,
    "visibility-covers-consumer": visibility_covers_consumer,
    "redrive-conserves": redrive_conserves,
    "fifo-order": fifo_order,
    "claim-check-roundtrip": claim_check_roundtrip,
    "dlq-alarm-fires": dlq_alarm_fires,
}
TABLE_SCENARIOS: dict[str, Callable[[Context, Table], str]] = {
    "idempotency-table": idempotency_table,
}
SCENARIOS = [*PAIR_SCENARIOS, *TABLE_SCENARIOS]
# the order a pair's scenarios run in: the alarm check first, while its DLQ has never held a
# message (the others put messages through the DLQ, which can leave the alarm in ALARM)
RUN_ORDER = ["dlq-alarm-fires", *[s for s in SCENARIOS if s != "dlq-alarm-fires"]]
