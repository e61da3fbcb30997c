"""Sensitive values: judged like any other, never printed.

Terraform marks values sensitive in a plan (``after_sensitive`` / ``before_sensitive``
of a change, ``sensitive_values`` of planned values, variables and outputs declared
``sensitive = true``) and shows them as ``(sensitive value)``. The rules read the real
values; every text the report shows from them (finding messages and fixes in every
format, notes) goes through :meth:`Secrets.redact`, which writes ``(sensitive)`` where
such a value appears. Values the configuration source gives (``--source-dir``) for a
sensitive attribute, variable or output are added as they are evaluated.

A whole sensitive value (an attribute, a variable, an output) of 3 characters or more is
redacted wherever it appears (also inside a longer word, JSON- or repr-escaped, or cut
short by a "…"). The parts of a sensitive JSON document (a policy's Sid, Action, ARNs)
are redacted in the findings of the resource it belongs to; numbers, booleans and short
words there only as whole words (so that a sensitive ``maxReceiveCount = 5`` does not
blank every 5 in the report).
"""
from __future__ import annotations

import json
import re
from typing import Any

MASK = "(sensitive)"
_MIN_GLOBAL = 3
_NUMBERISH = re.compile(r"[-+]?[0-9.eE]+\Z")
# parts of a policy document that say nothing about the values it protects
_STRUCTURAL = frozenset({"Allow", "Deny", "*", "2012-10-17", "2008-10-17", "true", "false"})


class Secrets:
    def __init__(self):
        self.strings: set[str] = set()  # redacted everywhere
        self.local: dict[str, set[str]] = {}  # address -> tokens redacted in its own findings only
        self._rx = None
        self._local_rx: dict[str, Any] = {}

    def __bool__(self) -> bool:
        return bool(self.strings or self.local)

    # -- collecting ---------------------------------------------------------------------------
    def add(self, value: Any, address: str | None = None, depth: int = 0, whole: bool = True) -> None:
        """Every leaf of ``value`` (a string holding JSON: its leaves too) is sensitive. A whole
        attribute, variable or output value of 3 characters or more is redacted everywhere;
        the parts of a JSON document ("Allow", "sqs:*", an ARN) in the findings of ``address``."""
        if depth > 64:
            return
        if isinstance(value, str):
            if not value:
                return
            if whole and len(value) >= _MIN_GLOBAL and not _NUMBERISH.match(value):
                if value not in self.strings:
                    self.strings.add(value)
                    self._rx = None
            elif address is not None and (whole or value not in _STRUCTURAL):
                self._add_local(address, value)
            if value.lstrip()[:1] in ("{", "["):
                try:
                    inner = json.loads(value)
                except (ValueError, RecursionError):
                    return
                self.add(inner, address, depth + 1, whole=False)
        elif isinstance(value, bool):
            if address is not None:
                for t in (str(value), str(value).lower()):
                    self._add_local(address, t)
        elif isinstance(value, (int, float)):
            if address is not None:
                self._add_local(address, repr(value))
                if isinstance(value, float) and value.is_integer():
                    self._add_local(address, str(int(value)))
        elif isinstance(value, dict):
            for v in value.values():
                self.add(v, address, depth + 1, whole)
        elif isinstance(value, (list, tuple)):
            for v in value:
                self.add(v, address, depth + 1, whole)
        else:  # partial values from the source: JsonText and friends carry .value
            inner = getattr(value, "value", None)
            if inner is not None and inner is not value:
                self.add(inner, address, depth + 1, False)

    def _add_local(self, address: str, token: str) -> None:
        got = self.local.setdefault(address, set())
        if token not in got:
            got.add(token)
            self._local_rx.pop(address, None)

    def add_marked(self, value: Any, marks: Any, address: str | None) -> None:
        """The parts of ``value`` that ``marks`` (Terraform's ``*_sensitive`` shape: true, or
        objects and lists of marks) says are sensitive."""
        if marks is True:
            self.add(value, address)
        elif isinstance(marks, dict) and isinstance(value, dict):
            for k, m in marks.items():
                if k in value:
                    self.add_marked(value[k], m, address)
        elif isinstance(marks, list) and isinstance(value, list):
            for m, v in zip(marks, value):
                self.add_marked(v, m, address)

    # -- redacting ----------------------------------------------------------------------------
    def _global_rx(self):
        if self._rx is None:
            alts = set()
            for s in self.strings:
                for form in (s, json.dumps(s)[1:-1], repr(s)[1:-1]):
                    alts.add(re.escape(form))
                cut = _cut_prefix(s)
                if cut:
                    alts.add(cut)
            self._rx = re.compile("|".join(sorted(alts, key=len, reverse=True))) if alts else False
        return self._rx

    def redact(self, text: str, address: str | None = None) -> str:
        if not text or not self:
            return text
        rx = self._global_rx()
        if rx:
            text = rx.sub(MASK, text)
        if address is not None and address in self.local:
            lrx = self._local_rx.get(address)
            if lrx is None:
                alts = []
                for t in sorted(self.local[address], key=len, reverse=True):
                    if len(t) >= _MIN_GLOBAL and not _NUMBERISH.match(t) and t.lower() not in ("true", "false"):
                        alts += [re.escape(f) for f in {t, json.dumps(t)[1:-1], repr(t)[1:-1]}]
                    else:  # a number, a boolean, a short word: whole words only
                        alts.append(r"(?<![\w.\-])" + re.escape(t) + r"(?![\w\-]|\.[0-9])")
                lrx = self._local_rx[address] = re.compile("|".join(alts))
            text = lrx.sub(MASK, text)
        return text


def _cut_prefix(s: str) -> str | None:
    """A pattern for a prefix of ``s`` (3 characters or more) cut short by "…" (see model.show)."""
    if len(s) < 4:
        return None
    head, rest = re.escape(s[:3]), s[3:80]
    pattern = ""
    for ch in reversed(rest):
        pattern = f"(?:{re.escape(ch)}{pattern})?"
    return f"{head}{pattern}…"


def from_plan(doc: dict) -> Secrets:
    """The sensitive values a plan marks: changes' after/before, planned values, prior state,
    variables and outputs declared sensitive."""
    sec = Secrets()
    for rc in doc.get("resource_changes") or ():
        ch = rc.get("change") or {}
        addr = rc.get("address")
        for side in ("after", "before"):
            marks = ch.get(f"{side}_sensitive")
            if marks:
                sec.add_marked(ch.get(side), marks, addr)
    for root in ((doc.get("planned_values") or {}).get("root_module"),
                 ((doc.get("prior_state") or {}).get("values") or {}).get("root_module")):
        stack = [root or {}]
        while stack:
            m = stack.pop()
            for r in m.get("resources") or ():
                if r.get("sensitive_values"):
                    sec.add_marked(r.get("values"), r.get("sensitive_values"), r.get("address"))
            stack.extend(m.get("child_modules") or ())
    conf = (doc.get("configuration") or {}).get("root_module") or {}
    values = doc.get("variables") or {}
    for name, var in (conf.get("variables") or {}).items():
        if isinstance(var, dict) and var.get("sensitive") is True and isinstance(values.get(name), dict):
            sec.add(values[name].get("value"))
    for out in ((doc.get("planned_values") or {}).get("outputs") or {}).values():
        if isinstance(out, dict) and out.get("sensitive") is True:
            sec.add(out.get("value"))
    return sec


def redact_report(report, secrets: Secrets) -> None:
    """Every text of the report that may quote a plan value, redacted in place."""
    if not secrets:
        return
    for f in list(report.findings) + list(report.passed):
        f.message = secrets.redact(f.message, f.address)
        f.remediation = secrets.redact(f.remediation)  # rule text and input names: whole values only
    report.notes[:] = [_redact_note(secrets, n) for n in report.notes]


def _redact_note(secrets: Secrets, note: str) -> str:
    """A note: whole values everywhere, and a resource's own tokens when the note names it."""
    note = secrets.redact(note)
    for address in secrets.local:
        if address in note:
            note = secrets.redact(note, address)
    return note
