"""Partial values: what an expression evaluates to when part of it is known only after apply
(:class:`Unknown`, :class:`Pending`, :class:`Template`, :class:`JsonText`), and how to turn
them into plain values (``to_plain``, ``decode_json``)."""
from __future__ import annotations

import json
import re

from ..graph import UNKNOWN, Resource


# -- partial values ------------------------------------------------------------------------
class Unknown:
    """A value the source does not give before apply; ``why`` says why."""

    __slots__ = ("why",)

    def __init__(self, why: str):
        self.why = why

    def __repr__(self):
        return f"<unknown: {self.why}>"


_ATTR_NAMES = {"arn": "ARN", "id": "ID", "url": "URL", "json": "JSON", "name": "name"}
_IDENTITY = frozenset({"arn", "id", "url", "json", "name", "key_id", "bucket", "function_name", "qualified_arn",
                       "invoke_arn", "target_key_arn"})


def settled(v) -> bool:
    """A value whose unknown parts are all identity attributes of resources (see
    :attr:`Pending.identity`): it cannot turn out null, empty or failing after apply."""
    if isinstance(v, Pending):
        return v.identity
    if isinstance(v, Unknown):
        return False
    if isinstance(v, Template):
        return all(isinstance(p, str) or settled(p) for p in v.parts)
    if isinstance(v, JsonText):
        return settled(v.value)
    if isinstance(v, dict):
        return all(settled(x) for x in v.values())
    if isinstance(v, list):
        return all(settled(x) for x in v)
    return True


class Pending(Unknown):
    """An attribute of a resource of the plan, known only after apply."""

    __slots__ = ("res", "path")

    def __init__(self, res: Resource, path: tuple):
        self.res = res
        self.path = tuple(path)
        what = _ATTR_NAMES.get(path[0], f"`{'.'.join(str(p) for p in path)}`") if path else "value"
        super().__init__(f"the {what} of {res.address}, known after apply")

    @property
    def text(self) -> str:
        """The placeholder as a Terraform reference in a string: ``${aws_sqs_queue.q.arn}``."""
        return "${" + self.res.address + "".join(f".{p}" if isinstance(p, str) else f"[{p}]" for p in self.path) + "}"

    @property
    def identity(self) -> bool:
        """An identity attribute of a resource (its ARN, ID, URL, name, key ID, JSON): never
        null nor empty once known. Terraform keeps such a value unknown in ``coalesce``,
        ``try`` and ``!= null``; its result is decided all the same."""
        return len(self.path) == 1 and self.path[0] in _IDENTITY


class Template:
    """A string with parts known only after apply: ``"${aws_s3_bucket.b.arn}/*"``."""

    __slots__ = ("parts",)

    def __init__(self, parts: list):
        self.parts = parts

    def __repr__(self):
        return f"<template {self.parts!r}>"


class JsonText:
    """``jsonencode(value)`` of a value with unknown parts: the text is unknown, its structure is not."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class PendingText(str):
    """A plain-value stand-in for a string built only from :class:`Pending` parts:
    ``${aws_sqs_queue.q.arn}/*``. It is never a wildcard nor an ARN of its own;
    ``pending`` is the placeholder when the whole string is one."""

    pending: Pending | None = None


def is_unknown(v) -> bool:
    """Whether ``v`` is not known as a whole (unknown, a template with unknown parts, JSON of an unknown)."""
    return isinstance(v, (Unknown, Template, JsonText))


def first_unknown(v) -> Unknown | None:
    """The first unknown part anywhere in ``v``."""
    if isinstance(v, Unknown):
        return v
    if isinstance(v, Template):
        return next((p for p in v.parts if isinstance(p, Unknown)), None)
    if isinstance(v, JsonText):
        return first_unknown(v.value)
    if isinstance(v, dict):
        v = v.values()
    if isinstance(v, (list, tuple, type({}.values()))):
        for x in v:
            got = first_unknown(x)
            if got is not None:
                return got
    return None


def placeholders(v, depth: int = 0):
    """Every :class:`Pending` anywhere in a partial value (in order, repeats included): the
    resources of the plan the value is built from where it is known only after apply."""
    if depth > 64:
        return
    if isinstance(v, Pending):
        yield v
    elif isinstance(v, Template):
        for p in v.parts:
            if not isinstance(p, str):
                yield from placeholders(p, depth + 1)
    elif isinstance(v, JsonText):
        yield from placeholders(v.value, depth + 1)
    elif isinstance(v, dict):
        for x in v.values():
            yield from placeholders(x, depth + 1)
    elif isinstance(v, (list, tuple)):
        for x in v:
            yield from placeholders(x, depth + 1)


def to_plain(v):
    """A JSON-like value for the rules: a string made only of placeholders becomes
    a :class:`PendingText`, anything else not known :data:`graph.UNKNOWN`."""
    if isinstance(v, Pending):
        t = PendingText(v.text)
        t.pending = v
        return t
    if isinstance(v, Template):
        if all(isinstance(p, str) or isinstance(p, Pending) for p in v.parts):
            return PendingText("".join(p if isinstance(p, str) else p.text for p in v.parts))
        return UNKNOWN
    if isinstance(v, Unknown):
        return UNKNOWN
    if isinstance(v, JsonText):
        return UNKNOWN  # a JSON string inside a JSON value: its content is not read
    if isinstance(v, dict):
        return {k: to_plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [to_plain(x) for x in v]
    return v


_SENTINEL = "__sqs_policy_unknown_{}__"
_SENTINEL_RX = re.compile(r"__sqs_policy_unknown_(\d+)__")


def decode_json(v):
    """The structure of a JSON text value: ``jsonencode`` results, known strings,
    and templates (heredoc JSON with ``${...}``) whose unknown parts sit inside
    JSON strings. Returns an :class:`Unknown` when it cannot be read."""
    if isinstance(v, JsonText):
        return v.value
    if isinstance(v, str):
        try:
            return json.loads(v)
        except ValueError as e:
            return Unknown(f"not valid JSON ({e})")
    if isinstance(v, Template):
        unknowns = [p for p in v.parts if not isinstance(p, str)]
        text = "".join(p if isinstance(p, str) else _SENTINEL.format(unknowns.index(p)) for p in v.parts)
        try:
            doc = json.loads(text)
        except ValueError:
            return Unknown(f"a JSON text with a value known only after apply outside a string ({unknowns[0].why})")
        return _unsentinel(doc, unknowns)
    if isinstance(v, Unknown):
        return v
    return Unknown(f"a {type(v).__name__}, not JSON text")


def _unsentinel(v, unknowns):
    """A decoded JSON value with the sentinels decode_json put for unknown parts replaced by them."""
    if isinstance(v, str):
        if "__sqs_policy_unknown_" not in v:
            return v
        parts: list = []
        pos = 0
        for m in _SENTINEL_RX.finditer(v):
            if m.start() > pos:
                parts.append(v[pos:m.start()])
            parts.append(unknowns[int(m.group(1))])
            pos = m.end()
        if pos < len(v):
            parts.append(v[pos:])
        return parts[0] if len(parts) == 1 else Template(parts)
    if isinstance(v, list):
        return [_unsentinel(x, unknowns) for x in v]
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if "__sqs_policy_unknown_" in k:
                return Unknown("an object key known only after apply")
            out[k] = _unsentinel(x, unknowns)
        return out
    return v
