"""dlq-alarm-fires: with messages in the DLQ its depth alarm goes to ALARM and its SNS topic delivers."""
from __future__ import annotations

import contextlib
import json
import math
import time
import uuid

from ..aws import delete_all, receive, send_batch
from ..discover import Pair
from . import PAIR, USES_DLQ, Context, Scenario, ScenarioFailed, ScenarioSkipped
from ._helpers import need_dlq

_BREACH = {
    "GreaterThanThreshold": lambda t: math.floor(t) + 1,
    "GreaterThanOrEqualToThreshold": lambda t: max(1, math.ceil(t)),
}
MAX_ALARM_MESSAGES = 200


def dlq_alarm_fires(ctx: Context, pair: Pair) -> str:
    need_dlq(pair, "to alarm on")
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


SCENARIO = Scenario(
    name='dlq-alarm-fires',
    subject=PAIR,
    order=0,
    uses=USES_DLQ,
    summary='with messages in the DLQ, the depth alarm goes to ALARM within period × evaluation periods (+ the metric interval) and its SNS topic delivers to a subscribed temporary queue; an alarm on the wrong queue name, region or account fails, naming it. Runs first, while the DLQ has never held a message',
    needs='a DLQ and a CloudWatch alarm on its depth (`ApproximateNumberOfMessagesVisible`)',
    probes='SQS metrics published to CloudWatch, metric alarms evaluated, SNS alarm actions delivered',
    run=dlq_alarm_fires,
)
