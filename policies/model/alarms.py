"""Alarms (stage 3): the CloudWatch metric alarms and the queues whose SQS metrics they
watch (found in stage 1's queues.QueueIndex), in the alarm's own region and account."""
from __future__ import annotations

from typing import Any

from ..graph import UNKNOWN, Plan, Resource
from ..resolve import Resolver
from .queues import Queue, QueueIndex
from .values import place_difference, number, parse_arn, same_place


class Alarm:
    """An ``aws_cloudwatch_metric_alarm``: the SQS metrics it watches and on which queue
    (``metrics``), those whose queue may be in another region or account (``maybe``), and
    ``unresolved`` when the queue it watches cannot be told before apply."""

    def __init__(self, res: Resource):
        self.res = res
        self.address = res.address
        self.metrics: list[tuple[str, Any]] = []  # (metric name, queue it watches)
        self.maybe: list[tuple[str, Any, str]] = []  # (metric name, queue, why it may be another queue)
        self.queues: list[Queue] = []
        self.unresolved = False
        self.place: tuple = (None, None)  # (region, account) it lives in, as the queue's location
        self.provider_place: tuple = (None, None)  # of its provider configuration

    def threshold(self):
        return number(self.res.attr("threshold"), "threshold", integer=False)


def link_alarms(plan: Plan, resolve: Resolver, queues: QueueIndex) -> list[Alarm]:
    """Stage 3 (after the queues): each alarm linked to the queues it watches."""
    return [_alarm(r, plan, resolve, queues) for r in plan.of_type("aws_cloudwatch_metric_alarm")
            if r.mode == "managed"]


def _alarm(r: Resource, plan: Plan, resolve: Resolver, queues: QueueIndex) -> Alarm:
    """The queues of an alarm's AWS/SQS metrics, by their QueueName dimension: the name the
    plan knows; the queues the dimensions' references lead to; what the source says it is (the
    name of a queue of the plan, known after apply, or a name); else unresolved."""
    a = Alarm(r)
    # (namespace, metric, dimensions, where the dimensions are)
    metrics: list[tuple[Any, Any, Any, tuple]] = [
        (r.attr("namespace"), r.attr("metric_name"), r.attr("dimensions"), ("dimensions",))]
    mq = r.attr("metric_query")
    if isinstance(mq, list):
        for i, q in enumerate(mq):
            ms = q.get("metric") if isinstance(q, dict) else None
            for j, m in enumerate(ms if isinstance(ms, list) else ()):
                if isinstance(m, dict):
                    at = ("metric_query", i, "metric", j, "dimensions")
                    metrics.append((m.get("namespace"), m.get("metric_name"), r.path(*at), at))
    # the alarm watches QueueName in its own region and account
    where = provider = plan.resource_location(r)
    got = parse_arn(r.values.get("arn"))
    if got:
        where = (got[0] or where[0], got[1] or where[1])
    a.place, a.provider_place = where, provider
    unresolved_metrics = []
    for ns, metric, dims, at in metrics:
        if ns != "AWS/SQS" or not isinstance(metric, str):
            continue
        qn = dims.get("QueueName") if isinstance(dims, dict) else UNKNOWN
        if isinstance(qn, str):
            _add_watch(a, metric, _by_name(queues, qn, r, where, provider), where, provider)
        elif qn is UNKNOWN:
            unresolved_metrics.append((metric, at))
    if unresolved_metrics:
        targets = resolve.value(r, "dimensions").targets + resolve.value(r, "metric_query").targets
        found = queues.in_targets(targets, r)
        if found:
            for m, _at in unresolved_metrics:
                _add_watch(a, m, found, where, provider)
        else:
            # through a local value: the configuration source may name the queue
            for m, at in unresolved_metrics:
                said = resolve.value(r, *at).named("QueueName")
                if said is not None and said.pending is not None and said.pending.path == ("name",):
                    q = queues.of_pending(said.pending)
                    _add_watch(a, m, [q] if q is not None else [], where, provider)
                elif said is not None and said.pending is None and said.text:
                    _add_watch(a, m, _by_name(queues, said.text, r, where, provider), where, provider)
                else:
                    a.unresolved = True
    for _m, q in a.metrics:
        if a not in q.alarms:
            q.alarms.append(a)
    return a


def _by_name(queues: QueueIndex, name: str, r: Resource, where: tuple, provider: tuple) -> list[Queue]:
    """The queues an alarm on QueueName ``name`` may watch: a queue of that name in the alarm's
    own region and account is the one (CloudWatch's dimension is the name there; a stack with a
    queue of the same name in each region has one alarm per region); else the nearest ones
    (queues.named), which _add_watch places."""
    here = [q for q in queues.by_name.get(name, ()) if same_place(where, q.location, (provider, q.provider_place)) is True]
    return here or queues.named(name, r)


def _add_watch(a: Alarm, metric: str, queues: list[Queue], where: tuple, provider: tuple):
    for q in queues:
        same = same_place(where, q.location, (provider, q.provider_place))
        if same is True:
            a.metrics.append((metric, q))
        elif same is UNKNOWN:
            why = place_difference(where, q.location)
            a.maybe.append((metric, q, why))
            q.maybe_alarms.append((a, why))
        else:
            q.elsewhere_alarms.append((a, metric))
