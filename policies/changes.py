"""What a plan changes in a stack that exists: ``resource_changes`` read against the prior state.

The end-state rules read ``planned_values`` (what will exist after apply), where a
deleted resource does not appear at all. The change rules read each managed
resource's change: its ``before`` (the prior state's object), ``after``,
``actions``, ``action_reason``, ``replace_paths`` and ``previous_address``.

A plan without a prior object for any managed resource (a first apply) has no
changes to judge: :attr:`Changes.update` is False and the change rules say nothing.
"""
from __future__ import annotations

import json
from typing import Any

from .graph import UNKNOWN, Plan
from .model import Model, parse_sqs_arn, parse_sqs_url


class Change:
    """One managed resource instance's planned change."""

    __slots__ = ("address", "type", "name", "module", "actions", "before", "after", "after_unknown",
                 "replace_paths", "action_reason", "previous_address")

    def __init__(self, rc: dict):
        self.address = _text(rc.get("address"))
        self.type = _text(rc.get("type"))
        self.name = _text(rc.get("name"))
        self.module = _text(rc.get("module_address"))
        ch = rc.get("change") if isinstance(rc.get("change"), dict) else {}
        acts = ch.get("actions")
        self.actions = [a for a in acts if isinstance(a, str)] if isinstance(acts, list) and acts else ["no-op"]
        self.before = ch.get("before") if isinstance(ch.get("before"), dict) else None
        self.after = ch.get("after") if isinstance(ch.get("after"), dict) else None
        self.after_unknown = ch.get("after_unknown") if isinstance(ch.get("after_unknown"), dict) else {}
        rp = ch.get("replace_paths")
        self.replace_paths = rp if isinstance(rp, list) else []
        self.action_reason = rc.get("action_reason") if isinstance(rc.get("action_reason"), str) else None
        pa = rc.get("previous_address")
        self.previous_address = pa if isinstance(pa, str) else None

    def __repr__(self) -> str:
        return f"<Change {'/'.join(self.actions)} {self.address}>"

    # -- what happens to the object ----------------------------------------------
    @property
    def existed(self) -> bool:
        """There is an object in the prior state (not a create, not a data source read)."""
        return self.before is not None

    @property
    def deleted(self) -> bool:
        """Destroyed and not re-created (``forget`` leaves the object alone)."""
        return "delete" in self.actions and "create" not in self.actions

    @property
    def replaced(self) -> bool:
        return "delete" in self.actions and "create" in self.actions

    @property
    def created(self) -> bool:
        return self.actions == ["create"]

    @property
    def kept(self) -> bool:
        """The prior object stays (no-op, update, read, forget): not deleted, not replaced."""
        return self.existed and "delete" not in self.actions

    def was(self, attr: str, default: Any = None) -> Any:
        v = (self.before or {}).get(attr)
        return default if v is None else v

    def will(self, attr: str, default: Any = None) -> Any:
        """The planned value; UNKNOWN when known only after apply."""
        if self.after_unknown.get(attr) is True:
            return UNKNOWN
        v = (self.after or {}).get(attr)
        return default if v is None else v

    def was_path(self, *path: Any) -> Any:
        return _dig(self.before, path)

    def will_path(self, *path: Any) -> Any:
        u: Any = self.after_unknown
        for p in path:
            if u is True:
                return UNKNOWN
            u = _step(u, p)
        if u is True:
            return UNKNOWN
        return _dig(self.after, path)

    def why_replaced(self) -> str:
        """The attributes forcing the replacement, with old and new values, or the action reason."""
        parts = []
        for path in self.replace_paths:
            if not isinstance(path, list) or not path:
                continue
            label = ".".join(str(p) for p in path)
            old, new = _dig(self.before, path), _dig(self.after, path)
            unknown = _dig(self.after_unknown, path) is True
            new_s = "(known after apply)" if unknown else _show(new)
            parts.append(f"{label}: {_show(old)} -> {new_s}")
        reason = {
            "replace_because_tainted": "the object is tainted",
            "replace_by_request": "replacement was requested (-replace)",
            "replace_by_triggers": "a replace_triggered_by reference changed",
        }.get(self.action_reason or "")
        if reason:
            parts.append(reason)
        return "; ".join(parts) or "the provider cannot update it in place"


def _text(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _step(v: Any, p: Any) -> Any:
    if isinstance(v, dict):
        return v.get(p) if isinstance(p, str) else None
    if isinstance(v, list) and isinstance(p, int) and 0 <= p < len(v):
        return v[p]
    return None


def _dig(v: Any, path) -> Any:
    for p in path:
        v = _step(v, p)
        if v is None:
            return None
    return v


def _show(v: Any) -> str:
    if isinstance(v, str):
        return json.dumps(v)
    if v is None:
        return "null"
    return json.dumps(v) if isinstance(v, (bool, list, dict)) else str(v)


class Changes:
    """Every managed resource change of a plan, with the prior relationships the rules need."""

    def __init__(self, doc: dict):
        self.doc = doc
        rcs = doc.get("resource_changes") if isinstance(doc.get("resource_changes"), list) else []
        # a deposed object (``deposed``: left by a create_before_destroy replacement an earlier apply
        # did not finish) is the old object of a replacement already planned and judged; deleting it
        # finishes that replacement, and the address's own change is the current object's
        self.items = [Change(rc) for rc in rcs
                      if isinstance(rc, dict) and rc.get("mode") == "managed" and rc.get("deposed") is None]
        self.by_address = {c.address: c for c in self.items}
        self.update = any(c.existed for c in self.items)
        self._prior_model: Model | None = None

    def of_type(self, *types: str) -> list[Change]:
        return [c for c in self.items if c.type in types]

    # -- queues as they were ----------------------------------------------------------
    def queue_for_arn(self, arn: Any) -> Change | None:
        """The queue whose prior ARN (or name, region, account) is ``arn``."""
        got = parse_sqs_arn(arn)
        if not got:
            return None
        for c in self.of_type("aws_sqs_queue"):
            if c.was("arn") == arn:
                return c
        for c in self.of_type("aws_sqs_queue"):
            mine = parse_sqs_arn(c.was("arn")) or parse_sqs_url(c.was("url"))
            if mine and mine[2] == got[2] and all(a is None or b is None or a == b for a, b in zip(mine[:2], got[:2])):
                return c
        return None

    def queue_for_url(self, url: Any) -> Change | None:
        got = parse_sqs_url(url)
        if not got:
            return None
        for c in self.of_type("aws_sqs_queue"):
            if c.was("url") == url or c.was("id") == url:
                return c
        for c in self.of_type("aws_sqs_queue"):
            if c.was("name") == got[2]:
                return c
        return None

    def prior_redrive(self) -> dict[str, str]:
        """{source queue address: DLQ address} as the prior state links them (inline redrive
        policies and aws_sqs_queue_redrive_policy resources)."""
        out = {}
        pairs = [(c, c.was("redrive_policy")) for c in self.of_type("aws_sqs_queue")]
        for r in self.of_type("aws_sqs_queue_redrive_policy"):
            q = self.queue_for_url(r.was("queue_url"))
            if q is not None:
                pairs.append((q, r.was("redrive_policy")))
        for q, raw in pairs:
            if not isinstance(raw, str) or not raw.strip():
                continue
            try:
                pol = json.loads(raw)
            except ValueError:
                continue
            dlq = self.queue_for_arn(pol.get("deadLetterTargetArn")) if isinstance(pol, dict) else None
            if dlq is not None and dlq is not q:
                out[q.address] = dlq.address
        return out

    def prior_consumers(self) -> dict[str, list[Change]]:
        """{queue ARN: event source mappings that read it in the prior state}."""
        out: dict[str, list[Change]] = {}
        for e in self.of_type("aws_lambda_event_source_mapping"):
            arn = e.was("event_source_arn")
            if e.existed and isinstance(arn, str) and ":sqs:" in arn:
                out.setdefault(arn, []).append(e)
        return out

    # -- the prior state as a model ---------------------------------------------------
    def prior_model(self) -> Model:
        """The messaging model of the prior state (queues, DLQs, buckets and what they serve),
        built like the end-state one; links that need configuration follow the new
        configuration where it still describes the resource."""
        if self._prior_model is None:
            ps = self.doc.get("prior_state") if isinstance(self.doc.get("prior_state"), dict) else {}
            values = ps.get("values") if isinstance(ps.get("values"), dict) else {}
            root = values.get("root_module") if isinstance(values.get("root_module"), dict) else {}
            prior = {
                "format_version": self.doc.get("format_version", "1.0"),
                "planned_values": {"root_module": root},
                "configuration": self.doc.get("configuration") or {},
                "variables": self.doc.get("variables") or {},
            }
            self._prior_model = Model(Plan(prior))
        return self._prior_model


def of(model: Model) -> Changes:
    """The changes of the plan ``model`` was built from (computed once per model)."""
    got = getattr(model, "_changes", None)
    if got is None:
        got = Changes(model.plan.doc)
        model._changes = got
    return got
