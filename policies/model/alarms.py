"""Alarms: the CloudWatch metric alarms and the queues whose SQS metrics they watch, in
the alarm's own region and account."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..graph import UNKNOWN, Resource, narrow
from .values import place_difference, number, parse_arn, same_place

if TYPE_CHECKING:
    from .queues import Queue


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

    def threshold(self):
        return number(self.res.attr("threshold"), "threshold", integer=False)


class AlarmLinks:
    """Model stage of alarms: each alarm linked to the queues its QueueName dimensions name."""

    def _link_alarms(self):
        """Stage 3 (after the queues): each alarm linked to the queues it watches."""
        self.alarms: list[Alarm] = [self._alarm(r) for r in self.plan.of_type("aws_cloudwatch_metric_alarm")
                                    if r.mode == "managed"]

    def _alarm(self, r: Resource) -> Alarm:
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
        where = provider = self.plan.resource_location(r)
        got = parse_arn(r.values.get("arn"))
        if got:
            where = (got[0] or where[0], got[1] or where[1])
        unresolved_metrics = []
        for ns, metric, dims, at in metrics:
            if ns != "AWS/SQS" or not isinstance(metric, str):
                continue
            qn = dims.get("QueueName") if isinstance(dims, dict) else UNKNOWN
            if isinstance(qn, str):
                self._add_watch(a, metric, self._queues_named(qn, r), where, provider)
            elif qn is UNKNOWN:
                unresolved_metrics.append((metric, at))
        if unresolved_metrics:
            targets = self.resolve.value(r, "dimensions").targets + self.resolve.value(r, "metric_query").targets
            found = self.queues_in(targets, r)
            if found:
                for m, _at in unresolved_metrics:
                    self._add_watch(a, m, found, where, provider)
            else:
                # through a local value: the configuration source may name the queue
                for m, at in unresolved_metrics:
                    found = self._alarm_queue_from_source(r, at)
                    if found is None:
                        a.unresolved = True
                    else:
                        self._add_watch(a, m, found, where, provider)
        for _m, q in a.metrics:
            if a not in q.alarms:
                q.alarms.append(a)
        return a

    def _queues_named(self, name: str, referrer: Resource) -> list[Queue]:
        """The plan's queues named ``name``, the nearest to ``referrer`` when several."""
        found = self.queues_by_name.get(name, [])
        if len(found) > 1:
            found = [self.queue_by_res[x.address] for x in narrow([q.res for q in found], referrer)]
        return found

    def _alarm_queue_from_source(self, r: Resource, at: tuple) -> list[Queue] | None:
        """The queues an alarm's QueueName dimension (at ``at``) names, from the configuration
        source: a name (the plan's queues of that name), the name of a queue of the plan known
        after apply (that queue), [] when it names no queue of the plan; None when the source
        cannot say."""
        rv = self.resolve.value(r, *at)
        if rv.evaluated is None:
            return None
        dims = rv.partial
        from ..source import Pending

        qn = dims.get("QueueName") if isinstance(dims, dict) else None
        if isinstance(qn, Pending) and qn.path == ("name",):
            q = self._queue_of(qn)
            return [q] if q is not None else []
        if isinstance(qn, str) and qn:
            return self._queues_named(qn, r)
        return None

    @staticmethod
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
