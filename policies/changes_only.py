"""``check --changed-only``: judge what a plan changes, report the rest as not judged.

A finding is judged when its resource is created, updated, replaced or deleted by the plan
(or moved to a new address), or is linked to such a resource (topology.py: a queue whose DLQ,
consumer function, event source mapping, alarm, claim-check bucket or queue policy changes;
and the other way round), or names a changed resource in its message (an IAM statement that
grants on a changed queue), or when its rule is a change-safety rule (CHG*, always judged).
A deleted resource is no longer in the plan; the resources whose name, ARN, URL or ID its
prior values mention (the queue a deleted alarm watched), and those whose values mention its
name, ARN, URL or ID (the queue whose redrive policy names a deleted DLQ) count as linked to it.
Findings not judged stay in the report, marked, and do not count toward the exit code.
"""
from __future__ import annotations

import json

from .keys import related_addresses
from .topology import edges, neighbours

_IDENTITY = ("name", "arn", "url", "id", "bucket", "function_name", "alarm_name")


def _strings(v, out: set, depth: int = 0):
    if depth > 20:
        return
    if isinstance(v, str):
        out.add(v)
        if v[:1] in "{[":
            try:
                _strings(json.loads(v), out, depth + 1)
            except ValueError:
                pass
    elif isinstance(v, dict):
        for x in v.values():
            _strings(x, out, depth + 1)
    elif isinstance(v, list):
        for x in v:
            _strings(x, out, depth + 1)


def changed_addresses(doc: dict) -> tuple[set[str], set[str], set[str], set[str]]:
    """(changed, deleted, every string the deleted resources' prior values hold, their names/ARNs/URLs/IDs)."""
    changed, deleted, strings, ids = set(), set(), set(), set()
    for rc in doc.get("resource_changes") or ():
        actions = (rc.get("change") or {}).get("actions") or ["no-op"]
        moved = rc.get("previous_address") not in (None, rc.get("address"))
        if set(actions) - {"no-op", "read"} or moved:
            changed.add(rc["address"])
            if moved:
                changed.add(rc["previous_address"])
        if "delete" in actions and "create" not in actions and rc.get("deposed") is None:
            deleted.add(rc["address"])
            before = (rc.get("change") or {}).get("before")
            _strings(before, strings)
            if isinstance(before, dict):
                ids |= {before[k] for k in _IDENTITY if isinstance(before.get(k), str) and before[k]}
    return changed, deleted, strings, ids


def apply(report, doc: dict) -> None:
    changed, deleted, strings, ids = changed_addresses(doc)
    model = report.model
    near = neighbours(edges(model))
    judged = set(changed)
    for a in changed:
        judged |= near.get(a, set())
    if strings and model is not None:
        for r in model.plan.resources:
            mine: set = set()
            _strings(r.values, mine)
            if mine & ids or any(isinstance(r.values.get(k), str) and r.values[k] in strings for k in _IDENTITY):
                judged.add(r.address)
                judged |= near.get(r.address, set())
    skipped = 0
    for f in report.findings:
        if f.rule_id.startswith("CHG") or f.address in judged:
            continue
        if any(a in changed for a in related_addresses(f.message, f.address)):
            continue
        f.judged = False
        skipped += 1
    report.changed_only = {"changed": sorted(changed), "deleted": sorted(deleted),
                           "judged_resources": len(judged), "not_judged_findings": skipped}
    if not changed:
        report.notes.append("--changed-only: the plan changes no resource, so only change-safety rules judged it")
