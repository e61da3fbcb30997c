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
def _first_letter_problems(pair: Pair) -> tuple[list, list[str]]:
    """The DLQ depth alarms that go to ALARM on the first dead letter and notify someone, and what is
    wrong with the others (properties of the stack, each a failure when no alarm is left)."""
    fires, problems = [], []
    for a in pair.alarms:
        how = (f"alarm {a.name} ({a.address}: {a.metric} {a.comparison} {a.threshold:g})")
        if a.comparison not in _BREACH:
            problems.append(f"{how} does not fire when messages arrive in {pair.dlq.name} ({a.comparison} is not "
                            "above a threshold): set comparison_operator = \"GreaterThanThreshold\", threshold = 0")
        elif _BREACH[a.comparison](a.threshold) > 1:
            problems.append(f"{how} needs {_BREACH[a.comparison](a.threshold)} messages in {pair.dlq.name} before it "
                            "fires, so the first dead letters go unnoticed: set threshold = 0 with GreaterThanThreshold "
                            "(or 1 with GreaterThanOrEqualToThreshold)")
        elif not a.actions_enabled:
            problems.append(f"{how} has actions_enabled = false: it changes state but notifies nobody. Set "
                            "actions_enabled = true")
        elif not a.actions:
            problems.append(f"{how} has no alarm_actions: it changes state but notifies nobody. Set alarm_actions = "
                            "[an SNS topic someone is subscribed to]")
        else:
            fires.append(a)
    return fires, problems


def _publishes_metrics(cw, queue_name: str) -> bool:
    try:
        return bool(cw.list_metrics(Namespace="AWS/SQS", MetricName="ApproximateNumberOfMessagesVisible",
                                    Dimensions=[{"Name": "QueueName", "Value": queue_name}]).get("Metrics"))
    except Exception:  # noqa: BLE001 - an endpoint without ListMetrics publishes nothing it can show
        return False


def dlq_alarm_fires(ctx: Context, pair: Pair) -> str:
    need_dlq(pair, "to alarm on")
    strays = pair.stray_alarms
    if not pair.alarms and not strays and ctx.discovery.dropped_dimensions:
        raise ScenarioSkipped(
            f"the endpoint read back alarm(s) {', '.join(ctx.discovery.dropped_dimensions)} without the dimensions the "
            f"configuration gives them, so which queue they watch cannot be known here (probe alarm_dimensions)")
    if not pair.alarms and not strays:
        raise ScenarioFailed(f"queue {pair.name}: no CloudWatch alarm watches the depth of its DLQ {pair.dlq.name}, so a "
                             f"message dead-lettered there goes unnoticed until someone looks. Add "
                             f"{pair.setting('dlq_alarm')}")
    alarms, problems = _first_letter_problems(pair)
    strays = [a for a in strays if a.comparison in _BREACH]
    if not alarms and not strays:
        raise ScenarioFailed(f"queue {pair.name}: no alarm on DLQ {pair.dlq.name} notifies anyone of the first dead "
                             f"letter: " + "; ".join(problems))
    need = 1
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
        while time.monotonic() - t0 < deadline_wait and not ctx.stopping.is_set():
            for page in cw.get_paginator("describe_alarms").paginate(AlarmNames=names):
                for m in page.get("MetricAlarms", []):
                    states[m["AlarmName"]] = m["StateValue"]
                    if m["StateValue"] == "ALARM":
                        fired_at.setdefault(m["AlarmName"], time.monotonic() - t0)
            if all(a.name in fired_at for a in alarms) and (not strays or time.monotonic() - t0 >= wait):
                break
            time.sleep(3)
        elapsed = time.monotonic() - t0
        if ctx.stopping.is_set():
            raise ScenarioSkipped("interrupted")
        if not all(a.name in fired_at for a in alarms) and not _publishes_metrics(cw, pair.dlq.name):
            raise ScenarioSkipped(
                f"this endpoint published no AWS/SQS ApproximateNumberOfMessagesVisible metric for {pair.dlq.name} "
                f"in {elapsed:.0f} s with a message in it, so no depth alarm can fire here (probe sqs_metrics)")
        problems = []  # the alarms that should have fired on the first dead letter: a failure each
        unreached: list[str] = []
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
        if not problems:
            # a topic only this check subscribes to reaches nobody
            for t in topics:
                others = [x for page in sns.get_paginator("list_subscriptions_by_topic").paginate(TopicArn=t)
                          for x in page.get("Subscriptions", []) if x.get("SubscriptionArn") not in subs]
                if not others:
                    users = ", ".join(a.name for a in alarms if t in a.actions)
                    unreached.append(f"topic {t} (actions of {users}) has no subscription besides this check's own: "
                                     "the notification reaches nobody. Subscribe the people or system that act on "
                                     "dead letters (aws_sns_topic_subscription: email, a chat integration, a queue)")
        if problems or unreached:
            raise ScenarioFailed(f"queue {pair.name}: " + "; ".join(problems + unreached))
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
