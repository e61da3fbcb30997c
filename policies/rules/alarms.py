"""Alarm rules: a DLQ depth alarm on every DLQ, an age alarm on every source queue."""
from __future__ import annotations

from ..graph import UNKNOWN
from ..model import Alarm, Model, Queue
from . import Option, fail, ok, rule, unknown

SEVERITY_NOTE = ("warning by default: alarms are often managed outside the stack (a monitoring stack, another "
                 "tool) where the plan cannot see them; set `severity: error` in the configuration when the "
                 "stack owns its alarms")


def _alarms_for(q: Queue, metric: str) -> list[Alarm]:
    return [a for a in q.alarms if any(m == metric and mq is q for m, mq in a.metrics)]


def _fires_on_first_message(a: Alarm, max_threshold: float):
    """True / False / UNKNOWN: the alarm fires when visible messages exceed max_threshold."""
    r = a.res
    mq = r.attr("metric_query")
    if mq is UNKNOWN:
        return UNKNOWN
    if mq:
        return True  # metric math: we only know it watches the metric
    op, th = r.attr("comparison_operator"), r.attr("threshold")
    if op is UNKNOWN or th is UNKNOWN:
        return UNKNOWN
    if not isinstance(th, (int, float)):
        return False
    if op == "GreaterThanThreshold":
        return th <= max_threshold
    if op == "GreaterThanOrEqualToThreshold":
        return th <= max_threshold + 1
    return False


@rule("CW001", "dlq-depth-alarm", "warning", "alarms", "Every DLQ has a depth alarm (visible messages > 0)",
      why="""
A message in a DLQ is a failure that needs a person. Without an alarm on
ApproximateNumberOfMessagesVisible > 0 failures pile up unseen until the DLQ's retention deletes
them. An alarm whose threshold is higher than the first message hides the first failures.""",
      fix='Add an aws_cloudwatch_metric_alarm: namespace "AWS/SQS", metric_name "ApproximateNumberOfMessagesVisible", '
          'dimensions { QueueName = <DLQ name> }, comparison_operator "GreaterThanThreshold", threshold 0.',
      sources="seeds 000, 001, 002",
      options=(Option("max_threshold", 0, (int, float), "alarm must fire when visible messages exceed this"),),
      severity_note=SEVERITY_NOTE)
def dlq_depth_alarm(model: Model, opts):
    metric = "ApproximateNumberOfMessagesVisible"
    unresolved = [a for a in model.alarms if a.unresolved]
    for q in model.queues:
        if not q.is_dlq:
            continue
        alarms = _alarms_for(q, metric)
        verdicts = [(a, _fires_on_first_message(a, opts["max_threshold"])) for a in alarms]
        good = [a for a, v in verdicts if v is True]
        if good:
            yield ok(q.address, f"depth alarm {good[0].address}")
        elif any(v is UNKNOWN for _, v in verdicts):
            yield unknown(q.address, "the depth alarm's threshold is only known after apply")
        elif alarms:
            a = alarms[0]
            yield fail(q.address, f"depth alarm {a.address} ({a.res.attr('comparison_operator')} {a.res.attr('threshold')}) "
                                  f"does not fire on the first message (visible messages > {opts['max_threshold']:g})")
        elif unresolved:
            yield unknown(q.address, f"no alarm names this DLQ, but the queue of {unresolved[0].address} is only known after apply")
        else:
            yield fail(q.address, f"DLQ has no alarm on {metric}: failed messages go unseen until they expire")


@rule("CW002", "queue-age-alarm", "warning", "alarms", "Every source queue has an age-of-oldest-message alarm",
      why="""
ApproximateAgeOfOldestMessage is the one metric that shows a stuck or too-slow consumer before
messages expire. Its threshold must be below the queue's retention, or it fires only after the
messages it should have saved are gone.""",
      fix='Add an aws_cloudwatch_metric_alarm: namespace "AWS/SQS", metric_name "ApproximateAgeOfOldestMessage", '
          "dimensions { QueueName = <queue name> }, threshold well below message_retention_seconds.",
      sources="seeds 000, 001, 002",
      severity_note=SEVERITY_NOTE)
def age_alarm(model: Model, opts):
    metric = "ApproximateAgeOfOldestMessage"
    unresolved = [a for a in model.alarms if a.unresolved]
    for q in model.queues:
        if q.is_dlq:
            continue
        alarms = _alarms_for(q, metric)
        ret = q.retention()
        good, late, undecided = [], [], []
        for a in alarms:
            th = a.res.attr("threshold")
            mq = a.res.attr("metric_query")
            if mq is UNKNOWN:
                undecided.append(a)
            elif mq:
                good.append(a)
            elif th is UNKNOWN or ret is UNKNOWN:
                undecided.append(a)
            elif isinstance(th, (int, float)) and th < ret:
                good.append(a)
            else:
                late.append(a)
        if good:
            yield ok(q.address, f"age alarm {good[0].address}")
        elif undecided:
            yield unknown(q.address, "the age alarm's threshold or the retention is only known after apply")
        elif late:
            a = late[0]
            yield fail(q.address, f"age alarm {a.address} threshold {a.res.attr('threshold')} s >= retention {ret} s: "
                                  "it fires only after messages expire")
        elif unresolved:
            yield unknown(q.address, f"no alarm names this queue, but the queue of {unresolved[0].address} is only known after apply")
        else:
            yield fail(q.address, f"no alarm on {metric}: a stuck consumer goes unseen until messages expire")
