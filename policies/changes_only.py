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

Each judged finding says why (``Finding.judged_because``: the reason, the changed resources it
goes through, a sentence), so that a finding on a resource the plan does not touch names the
change that brought it in: "linked to aws_sqs_queue.jobs_dlq (its DLQ), which the plan updates".
Every format shows it where it shows the finding.
"""
from __future__ import annotations

import json

from .keys import related_addresses
from .topology import edges

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


# what a link is, seen from each end: (the other end seen from the source, seen from the destination)
_LINK = {
    "dlq": ("its DLQ", "the queue it is the DLQ of"),
    "consumes": ("its event source mapping", "the queue it reads"),
    "consumer": ("its consumer function", "the queue it consumes"),
    "invokes": ("the function it invokes", "its event source mapping"),
    "watches": ("the queue it watches", "an alarm watching it"),
    "notifies": ("the topic it notifies", "an alarm notifying it"),
    "claim-check": ("its claim-check bucket", "a queue whose payloads it holds"),
    "configures": ("the resource it configures", "a resource configuring it"),
}
_SHOWN = 3  # changed resources named in one reason; the rest are counted


def _verb(actions: list, moved_from: str | None) -> str:
    """What the plan does to a resource: the verb of "the plan ___ it"."""
    acts = set(actions) - {"no-op", "read"}
    if {"create", "delete"} <= acts:
        verb = "replaces"
    elif "create" in acts:
        verb = "creates"
    elif "delete" in acts:
        verb = "deletes"
    elif "update" in acts:
        verb = "updates"
    elif "forget" in acts:
        verb = "forgets (removed with destroy = false)"
    else:
        verb = ""
    if moved_from:
        return f"{verb} and moves" if verb else "moves"
    return verb or "changes"


def plan_changes(doc: dict) -> tuple[dict[str, tuple[str, str]], dict[str, str], dict[str, set[str]]]:
    """(address -> what the plan does to it (verb, the rest: "the plan VERB it REST"), for each
    resource it changes or moves (a moved one's old address too); each identity (name, ARN, URL,
    ID) of a deleted resource -> its address; every string the deleted resources' prior values
    hold -> the deleted ones holding it)."""
    changes: dict[str, tuple[str, str]] = {}
    ids: dict[str, str] = {}
    strings: dict[str, set[str]] = {}
    for rc in doc.get("resource_changes") or ():
        actions = (rc.get("change") or {}).get("actions") or ["no-op"]
        addr = rc["address"]
        prev = rc.get("previous_address")
        moved = prev if prev not in (None, addr) else None
        if set(actions) - {"no-op", "read"} or moved:
            what = (_verb(actions, moved), f" from {moved}" if moved else "")
            if rc.get("deposed") is None:
                changes[addr] = what
            else:  # a deposed object of a resource: the resource itself says what the plan does to it
                changes.setdefault(addr, ("deletes a deposed object of", ""))
            if moved:
                changes.setdefault(moved, ("moves", f" to {addr}"))
        if "delete" in actions and "create" not in actions and rc.get("deposed") is None:
            before = (rc.get("change") or {}).get("before")
            mine: set = set()
            _strings(before, mine)
            for x in mine:
                strings.setdefault(x, set()).add(addr)
            if isinstance(before, dict):
                for k in _IDENTITY:
                    if isinstance(before.get(k), str) and before[k]:
                        ids.setdefault(before[k], addr)
    return changes, ids, strings


def changed_addresses(doc: dict) -> tuple[set[str], set[str], set[str], set[str]]:
    """(changed, deleted, every string the deleted resources' prior values hold, their names/ARNs/URLs/IDs)."""
    changes, ids, strings = plan_changes(doc)
    return set(changes), _deleted(changes), set(strings), set(ids)


def _deleted(changes: dict[str, tuple[str, str]]) -> set[str]:
    return {a for a, (verb, _) in changes.items() if verb == "deletes"}


def _list(items: list[str], sep: str = "; ") -> str:
    shown = items[:_SHOWN]
    more = len(items) - len(shown)
    return sep.join(shown) + (f"{sep}and {more} more" if more else "")


def _did(change: tuple[str, str], it: str = "") -> str:
    """"the plan updates it", "which the plan moves from X": the plan's change in a sentence."""
    verb, rest = change
    return f"{verb}{' ' + it if it else ''}{rest}"


def reasons(model, doc: dict) -> dict[str, dict]:
    """Why each resource is judged (address -> {"reason", "through", "text"}): the plan changes it
    (``changed``); it is linked to a resource the plan changes, or to one linked to a deleted
    resource (``linked``). A resource not in it is not judged (a finding on it may still be, by
    its rule or the resources its message names: :func:`apply`)."""
    changes, ids, strings = plan_changes(doc)
    seen: dict[tuple[str, str], str] = {}  # (from, to) -> what `to` is, seen from `from`
    for e in edges(model):
        fwd, back = _LINK.get(e.kind, ("linked", "linked"))
        seen.setdefault((e.src, e.dst), fwd)
        seen.setdefault((e.dst, e.src), back)
    near: dict[str, list[str]] = {}
    for a, b in sorted(seen):
        near.setdefault(a, []).append(b)
    why: dict[str, dict] = {}
    for a in sorted(changes):
        why[a] = {"reason": "changed", "through": [a], "text": f"the plan {_did(changes[a], 'it')}"}
    for r in sorted(near):
        if r in why:
            continue
        via = [c for c in near[r] if c in changes]
        if via:
            why[r] = {"reason": "linked", "through": via, "text": "linked to " + _list(
                [f"{c} ({seen[(r, c)]}), which the plan {_did(changes[c])}" for c in via])}
    if (ids or strings) and model is not None:
        bridged: dict[str, list[str]] = {}  # a resource that names a deleted one (or is named by it) -> the deleted
        how: dict[tuple[str, str], str] = {}
        for r in model.plan.resources:
            mine: set = set()
            _strings(r.values, mine)
            for x in mine:
                if x in ids and ids[x] != r.address:
                    how.setdefault((r.address, ids[x]), "this one's values name its name, ARN, URL or ID")
            for k in _IDENTITY:
                v = r.values.get(k)
                if isinstance(v, str) and v in strings:
                    for d in strings[v] - {r.address}:
                        how.setdefault((r.address, d), f"its prior values name this one's {k}")
        for (r, d) in how:
            bridged.setdefault(r, []).append(d)
        for r, gone in sorted(bridged.items()):
            gone.sort()
            if r not in why:
                why[r] = {"reason": "linked", "through": gone, "text": "linked to " + _list(
                    [f"{d}, which the plan deletes ({how[(r, d)]})" for d in gone])}
        for r, gone in sorted(bridged.items()):
            for n in near.get(r, ()):
                if n not in why:
                    why[n] = {"reason": "linked", "through": [r, *gone],
                              "text": f"linked to {r} ({seen[(n, r)]}), which is linked to {_list(gone, ', ')}, "
                                      f"which the plan deletes"}
    return why


def apply(report, doc: dict) -> None:
    changes, _, _ = plan_changes(doc)
    why = reasons(report.model, doc)
    skipped = 0
    for f in report.findings:
        if f.rule_id.startswith("CHG"):
            f.judged_because = {"reason": "change-rule", "through": [],
                                "text": "a change-safety rule (CHG*), judged on every plan"}
            continue
        if f.address in why:
            f.judged_because = why[f.address]
            continue
        named = [a for a in related_addresses(f.message, f.address) if a in changes]
        if named:
            f.judged_because = {"reason": "names", "through": named, "text": "it names " + _list(
                [f"{a}, which the plan {_did(changes[a])}" for a in named])}
            continue
        f.judged = False
        skipped += 1
    changed = set(changes)
    deleted = _deleted(changes)
    report.changed_only = {"changed": sorted(changed), "deleted": sorted(deleted),
                           "judged_resources": len(why), "not_judged_findings": skipped}
    if not changed:
        report.notes.append("--changed-only: the plan changes no resource, so only change-safety rules judged it")
