"""Alarm rules: a DLQ depth alarm on every DLQ, an age alarm on every source queue."""
from __future__ import annotations

from ..graph import UNKNOWN
from ..model import Alarm, Invalid, Model, Queue, show
from . import Option, fail, invalid, ok, rule, seconds, unknown

SEVERITY_NOTE = ("warning by default: alarms are often managed outside the stack (a monitoring stack, another "
                 "tool) where the plan cannot see them; set `severity: error` in the configuration when the "
                 "stack owns its alarms. An alarm that notifies nobody (no `alarm_actions` that can reach a person "
                 "(none, or only Auto Scaling or EC2 actions), `actions_enabled` not false) is a warning too, unless the "
                 "option `require_actions` is false")


def _alarms_for(q: Queue, metric: str) -> list[Alarm]:
    return [a for a in q.alarms if any(m == metric and mq is q for m, mq in a.metrics)]


def _elsewhere(q: Queue, metric: str) -> Alarm | None:
    """An alarm on the queue's name in another region or account (so not on this queue)."""
    return next((a for a, m in q.elsewhere_alarms if m == metric), None)


def _maybe_alarms(q: Queue, metric: str, model: Model | None = None) -> list[tuple[Alarm, str]]:
    """Alarms on the queue's name whose region or account may not be the queue's; those in the
    module that holds the alarms of the queue's own region first (see _home_module)."""
    got = [(a, why) for a, why in q.maybe_alarms if any(m == metric and mq is q for m, mq, _ in a.maybe)]
    home = _home_module(model, q) if model is not None and len(got) > 1 else None
    return sorted(got, key=lambda x: x[0].res.module != home) if home else got


def _home_module(model: Model, q: Queue) -> str | None:
    """The module instance holding the alarms of the queue's own region and account, when the
    stack has one alarms module per region (exactly one module instance, not the root, has
    alarms there); else None. Worked out once per place (a linear pass over the alarms: a
    stack has few places and may have thousands of queues)."""
    from ..model import same_place

    memo = model.__dict__.setdefault("_home_modules", {})
    key = (q.location, q.provider_place)
    if key not in memo:
        places: dict[tuple, set] = {}
        for a in model.alarms:
            places.setdefault((a.place, a.provider_place), set()).add(a.res.module)
        mods = set()
        for (place, provider), ms in places.items():
            if same_place(place, q.location, (provider, q.provider_place)) is True:
                mods |= ms
        memo[key] = next(iter(mods)) if len(mods) == 1 and "" not in mods else None
    return memo[key]


def _where_to_add(model: Model, q: Queue) -> str:
    """Where a missing alarm belongs when the stack keeps its alarms in one module per region."""
    home = _home_module(model, q)
    if home is None:
        return ""
    region = f" ({q.region})" if q.region else ""
    return f"; the alarms of the queue's region{region} are in {home}: add it there"


def _action_does(arn) -> str | None:
    """What an alarm action does when it pages nobody; None when it can notify a person.

    PutMetricAlarm's AlarmActions take SNS topics, Systems Manager OpsItems
    (``arn:aws:ssm:REGION:ACCOUNT:opsitem:...``) and Incident Manager response plans
    (``arn:aws:ssm-incidents::ACCOUNT:response-plan/...``), which reach a person, Lambda
    functions (which may: the plan cannot see what they do), and Auto Scaling policies and
    EC2 actions (``arn:aws:automate:REGION:ec2:stop``, ``arn:aws:swf:...:action/actions/
    AWS_EC2.InstanceId.Stop/1.0``), which act on resources and page no one."""
    if not isinstance(arn, str):
        return None  # known only after apply (a topic the plan creates)
    parts = arn.split(":", 5)
    if len(parts) < 6 or not parts[1].startswith("aws"):
        return f"name {arn!r}, which is not an ARN"
    service, rest = parts[2], parts[5]
    if service in ("sns", "ssm", "ssm-incidents", "lambda"):
        return None
    if service == "autoscaling":
        return "run an Auto Scaling policy (they scale a group or target)"
    if service == "automate" and parts[4] == "ec2":
        return f"{rest} an EC2 instance"
    if service == "swf" and "AWS_EC2.InstanceId." in rest:
        return f"{rest.split('AWS_EC2.InstanceId.', 1)[1].split('/', 1)[0].lower()} an EC2 instance"
    return f"run a {service} action, which notifies nobody"


def _paging_actions(a: Alarm):
    """(acts, does): ``alarm_actions`` as the plan shows it (UNKNOWN, None or a list, an
    element known only after apply as UNKNOWN) and, when it holds actions of which none can
    notify a person, what they do instead (else None)."""
    acts = a.res.attr("alarm_actions")
    if not isinstance(acts, list):
        return acts, None
    late = a.res.unknown.get("alarm_actions")
    acts = [UNKNOWN if (isinstance(late, list) and i < len(late) and late[i] is True) or x is None else x
            for i, x in enumerate(acts)]
    if any(x is UNKNOWN or _action_does(x) is None for x in acts):
        return acts, None
    does = list(dict.fromkeys(_action_does(x) for x in acts))
    return acts, f"only {' and '.join(does)} ({', '.join(acts)})"


def _notifies(a: Alarm):
    """True / False / UNKNOWN: whether the alarm notifies anyone when it fires.

    It does when one of its ``alarm_actions`` can notify a person (an SNS topic, a Systems
    Manager OpsItem or incident, a Lambda function: see :func:`_action_does`; Auto Scaling
    policies and EC2 actions page no one) and its actions are not disabled (a stack that
    disables the actions of an alarm that has some says it should be silent: see
    :func:`_silent_on_purpose`). ``ok_actions`` and ``insufficient_data_actions`` do not
    count: they run when the alarm recovers or lacks data, never when it fires.
    ``alarm_actions`` known only after apply count as actions: they are the ARN of a topic
    the plan creates (the module writes ``topic == null ? null : [topic]``, which Terraform
    cannot resolve before the topic exists); the plan cannot tell them from an empty list.
    Without such actions, an ``actions_enabled`` known only after apply leaves open whether
    the silence is intended (UNKNOWN)."""
    enabled = a.res.attr("actions_enabled")
    acts, does = _paging_actions(a)
    if enabled is False:
        return False
    if acts is UNKNOWN or (acts and does is None):
        return True
    return UNKNOWN if enabled is UNKNOWN else False


def _why_silent(a: Alarm, has: bool = False) -> str:
    """Why an alarm that notifies nobody does: no alarm_actions, or what its actions do
    instead ("it has ..." / "its alarm_actions only ...", or "has ..." with ``has``)."""
    does = _paging_actions(a)[1]
    if does is None:
        return "has no alarm_actions" if has else "it has no alarm_actions"
    return f"has alarm_actions that {does}" if has else f"its alarm_actions {does}"


def _silent_on_purpose(a: Alarm) -> bool:
    """actions_enabled = false: the configuration says the alarm notifies nobody (a
    dashboard alarm, or the module's alarms with alarms.create_sns_topic = false)."""
    return a.res.attr("actions_enabled") is False


REQUIRE_ACTIONS = Option("require_actions", True, bool,
                         "warn when the alarm notifies nobody: no alarm_actions that can reach a person (SNS, "
                         "Systems Manager OpsItems or incidents, Lambda) while actions_enabled is not "
                         "false (false: alarms without notifications are intended, e.g. paging is wired "
                         "outside the stack)")

_NOBODY_FIX = ("Give the alarm alarm_actions (your on-call SNS topic; with the module: alarms.sns_topic_arn or "
               "alarms.create_sns_topic = true), or set actions_enabled = false on the alarm to say an alarm "
               "without notifications is intended (the module does with alarms.create_sns_topic = false); "
               "when notifications are wired outside the stack, set require_actions: false on this rule in "
               "the configuration.")


def _loud(q: Queue, good: list[Alarm], what: str, opts):
    """ok when one of the alarms notifies someone, is silent on purpose (actions_enabled =
    false), or the configuration does not require actions; unknown when whether its silence
    is intended is only known after apply; else a warning: it notifies nobody."""
    verdicts = [(a, _notifies(a)) for a in good]
    loud = [a for a, v in verdicts if v is True]
    if loud:
        late = " (its alarm_actions are known after apply)" if loud[0].res.attr("alarm_actions") is UNKNOWN else ""
        return ok(q.address, f"{what} {loud[0].address}{late}")
    if not opts.get("require_actions"):
        return ok(q.address, f"{what} {good[0].address} (whether it notifies anyone is not checked: require_actions is false)")
    quiet = [a for a in good if _silent_on_purpose(a)]
    if quiet:
        return ok(q.address, f"{what} {quiet[0].address} (actions_enabled = false: it notifies nobody, on purpose)")
    a = good[0]
    undecided = next((x for x, v in verdicts if v is UNKNOWN), None)
    if undecided is not None:
        return unknown(q.address, f"{what} {undecided.address} {_why_silent(undecided, has=True)}, so it notifies "
                                  "nobody, and its "
                                  "actions_enabled is only known after apply: whether that is intended (false) is not "
                                  "known", _NOBODY_FIX, attrs=((undecided.address, "alarm_actions"),))
    others = [k for k in ("ok_actions", "insufficient_data_actions") if a.res.attr(k) not in (None, UNKNOWN)]
    but = f" (its {' and '.join(others)} run only when it recovers or lacks data)" if others else ""
    return fail(q.address, f"{what} {a.address} notifies nobody: {_why_silent(a)}{but}, so when it fires nobody "
                           "is paged", _NOBODY_FIX, severity="warning", attrs=((a.address, "alarm_actions"),))


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
alarm without alarm_actions that can reach a person pages nobody (an SNS topic, a Systems Manager
OpsItem or Incident Manager response plan, or a Lambda function can; Auto Scaling policies and EC2
stop/terminate/reboot/recover actions cannot): a warning, unless the alarm sets actions_enabled = false
(silent on purpose, as the module's alarms with alarms.create_sns_topic = false) or the option
require_actions is false (paging wired outside the stack). ok_actions and insufficient_data_actions
do not count: they never run when the alarm fires.""",
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
        maybe = _maybe_alarms(q, metric, model)
        if good:
            yield _loud(q, good, "depth alarm", opts)
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
                                  f"queue of this name elsewhere): failed messages go unseen until they expire"
                                  f"{_where_to_add(model, q)}")
        else:
            yield fail(q.address, f"DLQ has no alarm on {metric}: failed messages go unseen until they expire"
                                  f"{_where_to_add(model, q)}")


@rule("CW002", "queue-age-alarm", "warning", "alarms", "Every source queue has an age-of-oldest-message alarm",
      why="""
ApproximateAgeOfOldestMessage is the one metric that shows a stuck or too-slow consumer before
messages expire. Its threshold must be below the queue's retention, or it fires only after the
messages it should have saved are gone. An alarm without alarm_actions that can reach a person
(only Auto Scaling policies or EC2 actions, say) pages nobody: a warning,
unless the alarm sets actions_enabled = false or the option require_actions is false (as CW001).""",
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
        maybe = _maybe_alarms(q, metric, model)
        if good:
            yield _loud(q, good, "age alarm", opts)
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
        elif q.redrive is None and model.index.unresolved_service_dlqs:
            address, what = model.index.unresolved_service_dlqs[0]
            yield unknown(q.address, f"no alarm on {metric}, which a source queue needs and a DLQ does not, and it "
                                     f"may be the {what} {address} (named through a value the plan does not show)")
        elif _elsewhere(q, metric):
            a = _elsewhere(q, metric)
            yield fail(q.address, f"no alarm on {metric} in the queue's own region and account ({a.address} watches a "
                                  f"queue of this name elsewhere): a stuck consumer goes unseen until messages expire"
                                  f"{_where_to_add(model, q)}")
        else:
            yield fail(q.address, f"no alarm on {metric}: a stuck consumer goes unseen until messages expire"
                                  f"{_where_to_add(model, q)}")
