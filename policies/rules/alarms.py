"""Alarm rules: a DLQ depth alarm on every DLQ, an age alarm on every source queue."""
from __future__ import annotations

from ..graph import UNKNOWN
from ..model import Alarm, Invalid, Model, Queue, show
from . import Option, fail, invalid, ok, rule, seconds, unknown

SEVERITY_NOTE = ("warning by default: alarms are often managed outside the stack (a monitoring stack, another "
                 "tool) where the plan cannot see them; set `severity: error` in the configuration when the "
                 "stack owns its alarms")


def _alarms_for(q: Queue, metric: str) -> list[Alarm]:
    return [a for a in q.alarms if any(m == metric and mq is q for m, mq in a.metrics)]


def _elsewhere(q: Queue, metric: str) -> Alarm | None:
    """An alarm on the queue's name in another region or account (so not on this queue)."""
    return next((a for a, m in q.elsewhere_alarms if m == metric), None)


def _maybe_alarms(q: Queue, metric: str) -> list[tuple[Alarm, str]]:
    """Alarms on the queue's name whose region or account may not be the queue's."""
    return [(a, why) for a, why in q.maybe_alarms if any(m == metric and mq is q for m, mq, _ in a.maybe)]


def _silent(a: Alarm) -> bool:
    """The alarm notifies nobody although its actions are on: no alarm_actions. An alarm
    with actions_enabled = false says it is silent on purpose (a dashboard alarm, or the
    module's alarms with create_sns_topic = false)."""
    acts, enabled = a.res.attr("alarm_actions"), a.res.attr("actions_enabled")
    if acts is UNKNOWN or enabled is UNKNOWN or enabled is False:
        return False
    return not acts


REQUIRE_ACTIONS = Option("require_actions", False, bool,
                         "warn when the alarm has no alarm_actions and actions_enabled is not false "
                         "(it notifies nobody)")


def _loud(q: Queue, address: str, good: list[Alarm], what: str, opts):
    """ok when one of the alarms notifies someone (or is silent on purpose); else a warning."""
    loud = [a for a in good if not _silent(a)]
    if loud or not opts.get("require_actions"):
        return ok(q.address, f"{what} {(loud or good)[0].address}")
    a = good[0]
    return fail(q.address, f"{what} {a.address} notifies nobody: it has no alarm_actions, so when it fires nobody is "
                           "paged", "Give the alarm alarm_actions (your on-call SNS topic; with the module: "
                           "alarms.sns_topic_arn or alarms.create_sns_topic = true), or set actions_enabled = false "
                           "to say an alarm without notifications is intended (the module does with "
                           "alarms.create_sns_topic = false).", severity="warning")


def _fires_on_first_message(a: Alarm, max_threshold: float):
    """True / False / UNKNOWN / Invalid: the alarm fires when visible messages exceed max_threshold."""
    r = a.res
    mq = r.attr("metric_query")
    if mq is UNKNOWN:
        return UNKNOWN
    if mq:
        return True  # metric math: we only know it watches the metric
    op, th = r.attr("comparison_operator"), a.threshold()
    if isinstance(th, Invalid):
        return th
    if op is UNKNOWN or th is UNKNOWN:
        return UNKNOWN
    if th is None:
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
them. An alarm whose threshold is higher than the first message hides the first failures, and an
alarm without alarm_actions pages nobody (a warning, unless actions_enabled = false says that is
intended).""",
      fix='Add an aws_cloudwatch_metric_alarm: namespace "AWS/SQS", metric_name "ApproximateNumberOfMessagesVisible", '
          'dimensions { QueueName = <DLQ name> }, comparison_operator "GreaterThanThreshold", threshold 0.',
      sources=('sqs-dlq-alarms', 'sqs-metrics'),
      options=(Option("max_threshold", 0, (int, float), "alarm must fire when visible messages exceed this"), REQUIRE_ACTIONS),
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
        bad = next(((a, v) for a, v in verdicts if isinstance(v, Invalid)), None)
        maybe = _maybe_alarms(q, metric)
        if good:
            yield _loud(q, q.address, good, "depth alarm", opts)
        elif bad:
            yield invalid(bad[0].address, bad[1])
        elif any(v is UNKNOWN for _, v in verdicts):
            yield unknown(q.address, "the depth alarm's threshold is only known after apply")
        elif maybe:
            yield unknown(q.address, f"alarm {maybe[0][0].address} watches a queue of this name, but {maybe[0][1]}")
        elif alarms:
            a = alarms[0]
            yield fail(q.address, f"depth alarm {a.address} ({show(a.res.attr('comparison_operator'))} {show(a.res.attr('threshold'))}) "
                                  f"does not fire on the first message (visible messages > {opts['max_threshold']:g})")
        elif unresolved:
            yield unknown(q.address, f"no alarm names this DLQ, but the queue of {unresolved[0].address} is only known after apply")
        elif _elsewhere(q, metric):
            a = _elsewhere(q, metric)
            yield fail(q.address, f"DLQ has no alarm on {metric} in its own region and account ({a.address} watches a "
                                  "queue of this name elsewhere): failed messages go unseen until they expire")
        else:
            yield fail(q.address, f"DLQ has no alarm on {metric}: failed messages go unseen until they expire")


@rule("CW002", "queue-age-alarm", "warning", "alarms", "Every source queue has an age-of-oldest-message alarm",
      why="""
ApproximateAgeOfOldestMessage is the one metric that shows a stuck or too-slow consumer before
messages expire. Its threshold must be below the queue's retention, or it fires only after the
messages it should have saved are gone.""",
      fix='Add an aws_cloudwatch_metric_alarm: namespace "AWS/SQS", metric_name "ApproximateAgeOfOldestMessage", '
          "dimensions { QueueName = <queue name> }, threshold well below message_retention_seconds.",
      sources=('sqs-metrics',),
      options=(REQUIRE_ACTIONS,),
      severity_note=SEVERITY_NOTE)
def age_alarm(model: Model, opts):
    metric = "ApproximateAgeOfOldestMessage"
    unresolved = [a for a in model.alarms if a.unresolved]
    for q in model.queues:
        if q.is_dlq:
            continue
        alarms = _alarms_for(q, metric)
        ret = q.retention()
        good, late, undecided, bad = [], [], [], []
        for a in alarms:
            th = a.threshold()
            mq = a.res.attr("metric_query")
            if mq is UNKNOWN:
                undecided.append(a)
            elif mq:
                good.append(a)
            elif isinstance(th, Invalid):
                bad.append((a, th))
            elif isinstance(ret, Invalid):
                continue  # SQS008 reports the retention
            elif th is UNKNOWN or ret is UNKNOWN:
                undecided.append(a)
            elif th is not None and th < ret:
                good.append(a)
            else:
                late.append(a)
        maybe = _maybe_alarms(q, metric)
        if good:
            yield _loud(q, q.address, good, "age alarm", opts)
        elif bad:
            yield invalid(bad[0][0].address, bad[0][1])
        elif undecided:
            yield unknown(q.address, "the age alarm's threshold or the retention is only known after apply")
        elif maybe:
            yield unknown(q.address, f"alarm {maybe[0][0].address} watches a queue of this name, but {maybe[0][1]}")
        elif late:
            a = late[0]
            yield fail(q.address, f"age alarm {a.address} threshold {seconds(a.threshold())} >= retention {seconds(ret)}: "
                                  "it fires only after messages expire")
        elif unresolved:
            yield unknown(q.address, f"no alarm names this queue, but the queue of {unresolved[0].address} is only known after apply")
        elif q.dlq_link is None and model.unresolved_service_dlqs:
            address, what = model.unresolved_service_dlqs[0]
            yield unknown(q.address, f"no alarm on {metric}, which a source queue needs and a DLQ does not, and it "
                                     f"may be the {what} {address} (named through a value the plan does not show)")
        elif _elsewhere(q, metric):
            a = _elsewhere(q, metric)
            yield fail(q.address, f"no alarm on {metric} in the queue's own region and account ({a.address} watches a "
                                  "queue of this name elsewhere): a stuck consumer goes unseen until messages expire")
        else:
            yield fail(q.address, f"no alarm on {metric}: a stuck consumer goes unseen until messages expire")
