"""What a reference evaluates to: lazy objects for resources, module instances, count and
for_each collections and namespaces, read on demand, and the :class:`Scope` an expression is
evaluated in."""
from __future__ import annotations

from typing import Any

from ..graph import Resource
from .tree import _Error
from .values import Pending, Unknown


# -- lazy objects: what a reference evaluates to --------------------------------------------------
class _Lazy:
    """An object whose attributes are read on demand (a resource, a module, a namespace)."""

    def get(self, name: str):
        """Attribute ``name``."""
        raise _Error(f"unsupported attribute {name!r}")

    def index(self, key):
        """Element ``key``."""
        raise _Error(f"cannot index {self!r}")

    def value(self):
        """The whole object as a plain value."""
        raise _Error(f"{self!r} cannot be used as a whole")


def _plan_value(res: Resource, path: tuple):
    """An attribute of a planned resource instance, with Pending where unknown."""
    v: Any = res.values
    u: Any = res.unknown
    for p in path:
        if u is True:
            return Pending(res, path)
        try:
            v = v[p] if v is not None else None
        except (KeyError, IndexError, TypeError):
            v = None
        try:
            u = u[p] if isinstance(u, (dict, list)) else None
        except (KeyError, IndexError, TypeError):
            u = None
    return _merge_unknown(res, path, v, u)


def _merge_unknown(res, path, v, u):
    """A planned value with Pending placeholders where the plan marks it unknown."""
    if u is True:
        return Pending(res, path)
    if isinstance(v, dict):
        return {k: _merge_unknown(res, path + (k,), x, u.get(k) if isinstance(u, dict) else None) for k, x in v.items()}
    if isinstance(v, list):
        return [_merge_unknown(res, path + (i,), x, u[i] if isinstance(u, list) and i < len(u) else None)
                for i, x in enumerate(v)]
    return v


class _ResObj(_Lazy):
    """A resource instance of the plan: its attributes as planned, Pending where known after apply."""

    __slots__ = ("res",)

    def __init__(self, res: Resource):
        self.res = res

    def __repr__(self):
        return self.res.address

    def get(self, name):
        """Attribute ``name`` as planned (Pending when known after apply, None when unset)."""
        if name not in self.res.values and self.res.unknown.get(name) is not True:
            if self.res.mode == "managed" and "create" in self.res.actions:
                return Pending(self.res, (name,))
            return None
        return _plan_value(self.res, (name,))

    def value(self):
        """All its attributes."""
        return {k: self.get(k) for k in set(self.res.values) | set(self.res.unknown)}


class _ModObj(_Lazy):
    """A module instance: its outputs, evaluated from its source."""

    __slots__ = ("ev", "addr")

    def __init__(self, ev, addr: str):  # ev: the evaluator.Evaluator (which imports this module)
        self.ev = ev
        self.addr = addr

    def __repr__(self):
        return self.addr

    def get(self, name):
        """Output ``name``."""
        return self.ev.output(self.addr, name)

    def value(self):
        """All its outputs."""
        ms = self.ev.module_source(self.addr)
        if ms is None:
            return Unknown(f"the source of {self.addr} is not available")
        return {n: self.get(n) for n in ms.outputs}


class _Coll(_Lazy):
    """count / for_each instances of a resource or module call."""

    __slots__ = ("items", "keyed", "label")

    def __init__(self, items: dict, keyed: str, label: str):
        self.items = items  # key -> _ResObj / _ModObj
        self.keyed = keyed  # "count" | "for_each"
        self.label = label

    def __repr__(self):
        return self.label

    def index(self, key):
        """The instance at ``key``."""
        if key in self.items:
            return self.items[key]
        if isinstance(key, float) and key.is_integer() and int(key) in self.items:
            return self.items[int(key)]
        raise _Error(f"{self.label}[{key!r}] is not in the plan")

    def get(self, name):
        """Refused: an instance must be chosen first."""
        raise _Error(f"{self.label} has count or for_each: index it before .{name}")

    def value(self):
        """The instances, as a list (count) or map (for_each)."""
        if self.keyed == "count":
            return [self.items[k] for k in sorted(self.items)]
        return {k: self.items[k] for k in sorted(self.items)}


class _NS(_Lazy):
    """var / local / module / data / each / count / <resource type>: resolved on .name."""

    __slots__ = ("kind", "ev", "scope", "prefix")

    def __init__(self, kind, ev, scope, prefix=""):
        self.kind, self.ev, self.scope, self.prefix = kind, ev, scope, prefix

    def __repr__(self):
        return self.prefix or self.kind

    def get(self, name):
        """``<namespace>.<name>``: a variable, local, module, data source type, resource, each or count value."""
        ev, sc = self.ev, self.scope
        k = self.kind
        if k == "var":
            return ev.variable(sc.module, name)
        if k == "local":
            return ev.local(sc.module, name)
        if k == "module":
            return ev.module_ref(sc.module, name)
        if k == "data":
            return _NS("type", ev, sc, f"data.{name}")
        if k == "type":
            return ev.resource_ref(sc.module, f"{self.prefix}.{name}")
        if k == "each":
            if sc.each is None:
                raise _Error("each is used outside for_each")
            if name == "key":
                return sc.key
            if name == "value":
                return ev.each_value(sc)
            raise _Error(f"each.{name}")
        if k == "count":
            if name == "index" and isinstance(sc.key, int) and sc.each is None:
                return sc.key
            raise _Error(f"count.{name}")
        if k == "path":
            return ev.path_value(sc.module, name)
        return Unknown(f"`{self.kind}.{name}` is not evaluated")


class Scope:
    """Where an expression is evaluated: module instance, instance key, for_each
    expression (for each.value), names bound by for expressions and dynamic blocks."""

    __slots__ = ("module", "key", "each", "bound", "closed")

    def __init__(self, module: str, key=None, each=None, bound=None, closed: bool = False):
        self.module = module
        self.key = key
        self.each = each  # (module instance, for_each expression node) or None
        self.bound = bound or {}
        # a template file's scope (templatefile): only the bound names exist
        self.closed = closed

    def bind(self, names: dict) -> "Scope":
        """This scope with ``names`` bound (for expressions, dynamic block iterators)."""
        return Scope(self.module, self.key, self.each, {**self.bound, **names}, self.closed)


class _Iter(_Lazy):
    """A dynamic block's iterator: .key and .value."""

    __slots__ = ("key", "val")

    def __init__(self, key, val):
        self.key, self.val = key, val

    def get(self, name):
        """``.key`` or ``.value``."""
        if name == "key":
            return self.key
        if name == "value":
            return self.val
        raise _Error(f"iterator has no attribute {name!r}")
