"""The messaging topology the checker linked, as edges between resource addresses.

Read from the model the rules judged (the model package): each queue and its DLQ, the event source
mappings and functions that consume it, the alarms that watch it and the topics they notify,
the claim-check buckets that hold its payloads, and the separate resources that configure a
queue or a bucket (policies, redrive policies, encryption, lifecycle). Used by
``--changed-only`` (what a change reaches) and by the Markdown report (the diagram).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Edge:
    src: str
    dst: str
    kind: str  # dlq, consumes, consumer, invokes, watches, notifies, claim-check, configures
    label: str = ""
    via: str = ""  # the resource that makes the link (the event source mapping of a consumer link)


def _items(link) -> list:
    return list(getattr(link, "items", None) or [])


def edges(model) -> list[Edge]:
    out: list[Edge] = []
    if model is None:
        return out
    for q in model.queues:
        if q.dlq is not None:
            mrc = q.redrive.max_receive_count if q.redrive is not None else None
            out.append(Edge(q.address, q.dlq.address, "dlq", f"maxReceiveCount {mrc}" if isinstance(mrc, int) else ""))
        for res in {q.redrive_res.address, q.allow_res.address, *(r.address for r, _ in q.policy_sources)}:
            if res != q.address:
                out.append(Edge(res, q.address, "configures"))
    for e in model.esms:
        fns = _items(e.function_link)
        for q in _items(e.queue_link):
            out.append(Edge(q.address, e.address, "consumes"))
            for f in fns:
                timeout = None
                try:
                    timeout = f.timeout()
                except Exception:  # noqa: BLE001 - an invalid value is a finding of its own, not a diagram problem
                    pass
                out.append(Edge(q.address, f.address, "consumer",
                                f"timeout {timeout} s" if isinstance(timeout, (int, float)) else "", e.address))
        for f in fns:
            out.append(Edge(e.address, f.address, "invokes"))
    plan = model.plan
    topics_by_arn = {}
    for t in plan.of_type("aws_sns_topic"):
        arn = t.values.get("arn")
        if isinstance(arn, str):
            topics_by_arn[arn] = t.address
    for a in model.alarms:
        watched = {}
        for metric, q in a.metrics:
            watched.setdefault(q.address, []).append(metric)
        for metric, q, _why in a.maybe:
            watched.setdefault(q.address, []).append(f"{metric}?")
        for q in a.queues:
            watched.setdefault(q.address, [])
        for qa, metrics in watched.items():
            out.append(Edge(a.address, qa, "watches", ", ".join(sorted(set(metrics)))))
        # the topics the actions are built from (the plan's references and, through a local
        # value, the configuration source's), and those whose ARN the plan knows
        topics = {t.address for t in model.resolve.value(a.res, "alarm_actions").linked("aws_sns_topic")}
        for arn in a.res.values.get("alarm_actions") or ():
            if isinstance(arn, str) and arn in topics_by_arn:
                topics.add(topics_by_arn[arn])
        for t in sorted(topics):
            out.append(Edge(a.address, t, "notifies"))
    for b in model.buckets:
        for q in b.queues:
            out.append(Edge(q.address, b.address, "claim-check"))
        for r in [*b.sse, *b.pab, *(r for r, _ in b.policies), *b.lifecycles]:
            if r.address != b.address:
                out.append(Edge(r.address, b.address, "configures"))
    return out
