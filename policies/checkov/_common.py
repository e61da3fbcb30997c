"""Helpers shared by the checks: checkov passes attributes as (nested) lists."""
from __future__ import annotations

import json
import re
from typing import Any

UNRESOLVED = re.compile(r"\$\{|^(var|local|module|data|each|aws_[a-z0-9_]+)\.")


def first(v: Any) -> Any:
    while isinstance(v, list) and len(v) == 1:
        v = v[0]
    return v


def get(conf: dict, *path: str) -> Any:
    v: Any = conf
    for p in path:
        v = first(v)
        if not isinstance(v, dict) or p not in v:
            return None
        v = v[p]
    return first(v)


def unresolved(v: Any) -> bool:
    """A value checkov could not resolve (an expression or a plan-time unknown)."""
    return isinstance(v, str) and bool(UNRESOLVED.search(v))


def opaque_scalar(v: Any) -> bool:
    """For a number or boolean attribute: a string checkov left unevaluated
    (e.g. ``coalesce(each.value.x, 20)`` in a module called with for_each)."""
    return isinstance(v, str) and number(v) is None and truthy(v) is None


def truthy(v: Any) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.lower() in ("true", "false"):
        return v.lower() == "true"
    return None


def number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def json_object(v: Any) -> dict | None:
    if isinstance(v, dict):
        return v
    if isinstance(v, str) and not unresolved(v):
        try:
            d = json.loads(v)
        except ValueError:
            return None
        return d if isinstance(d, dict) else None
    return None
