"""The pieces of the plan graph: resource instances (:class:`Resource`) with their planned
values and configuration, the configuration of modules, calls and resources, references as
Terraform writes them (parsed, collected, reduced), and :class:`Target`, where a link leads."""
from __future__ import annotations

import re
from typing import Any, Iterable



class _Unknown:
    """A value Terraform will only know after apply."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "(known after apply)"

    def __bool__(self) -> bool:  # never silently truthy/falsy in a rule
        raise TypeError("UNKNOWN has no truth value: test `is UNKNOWN` first")


UNKNOWN = _Unknown()
_MISSING = object()

# module.NAME or module.NAME["key"] / module.NAME[0], one segment at a time
_MODULE_SEG = re.compile(r'module\.([A-Za-z0-9_-]+)(?:\[("(?:[^"\\]|\\.)*"|[0-9]+)\])?(?:\.|$)')
# one traversal step of a reference: .name  or  ["key"] / [0]
_TRAV = re.compile(r'\.?([A-Za-z0-9_-]+)|\[("(?:[^"\\]|\\.)*"|[0-9]+)\]')


def _decode_key(raw: str) -> str | int:
    """The key of ``["key"]`` or ``[0]``; a key that does not decode stays as written."""
    try:
        if raw.startswith('"'):
            import json

            key = json.loads(raw)
            return key if isinstance(key, str) else raw
        return int(raw)
    except ValueError:
        return raw


class Index:
    """A constant index in a reference traversal (``["a"]`` or ``[0]``)."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __eq__(self, other):
        return isinstance(other, Index) and other.key == self.key

    def __hash__(self):
        return hash(("idx", self.key))

    def __repr__(self):
        return f"[{self.key!r}]"


_trav_cache: dict[str, tuple] = {}


def parse_traversal(ref: str) -> tuple:
    """``aws_sqs_queue.dlq["a"].arn`` -> ('aws_sqs_queue', 'dlq', Index('a'), 'arn')."""
    got = _trav_cache.get(ref)
    if got is None:
        parts: list[Any] = []
        pos = 0
        while pos < len(ref):
            m = _TRAV.match(ref, pos)
            if not m:
                break
            parts.append(m.group(1) if m.group(1) is not None else Index(_decode_key(m.group(2))))
            pos = m.end()
        got = _trav_cache[ref] = tuple(parts)
    return got


_mod_cache: dict[str, tuple] = {}


def parse_module_address(addr: str) -> tuple:
    """``module.a["x"].module.b`` -> (('a', 'x'), ('b', None)); '' (root) -> ()."""
    got = _mod_cache.get(addr)
    if got is None:
        segs = []
        pos = 0
        while pos < len(addr):
            m = _MODULE_SEG.match(addr, pos)
            if not m:
                raise ValueError(f"not a module address: {addr!r}")
            segs.append((m.group(1), _decode_key(m.group(2)) if m.group(2) is not None else None))
            pos = m.end()
        got = _mod_cache[addr] = tuple(segs)
    return got


def module_parent(addr: str) -> str:
    """Address of the calling module instance ('' for a root child)."""
    i = addr.rfind(".module.")
    return addr[:i] if i >= 0 else ""


def collect_refs(expr: Any, out: list | None = None) -> list[str]:
    """Every reference string anywhere in an expression (nested blocks included).
    ``references`` is an expression's list of strings, or (the schema allows only
    these shapes) an attribute or nested block that happens to be named so."""
    if out is None:
        out = []
    if isinstance(expr, dict):
        for k, v in expr.items():
            if k == "constant_value":
                continue
            if k == "references" and isinstance(v, list):
                for x in v:
                    if isinstance(x, str):
                        out.append(x)
                    else:
                        collect_refs(x, out)
            elif isinstance(v, (dict, list)):
                collect_refs(v, out)
    elif isinstance(expr, list):
        for v in expr:
            collect_refs(v, out)
    return out


def reduce_refs(refs: Iterable[str]) -> list[str]:
    """Drop references that are a prefix of a longer one in the same list
    (Terraform lists ``a.b.c`` with ``a.b``) and the ones that carry no link."""
    refs = sorted(set(refs))
    out = []
    for i, r in enumerate(refs):
        if r.startswith(("path.", "terraform.", "count.", "self.")) or r == "each.key":
            continue
        nxt = refs[i + 1] if i + 1 < len(refs) else ""
        if nxt.startswith(r) and nxt[len(r): len(r) + 1] in (".", "["):
            continue
        out.append(r)
    return out


class ResourceConfig:
    __slots__ = ("local", "type", "mode", "expressions", "each_refs", "keyed", "provider")

    def __init__(self, raw: dict):
        self.local = raw["address"]
        self.type = raw["type"]
        self.mode = raw["mode"]
        self.expressions = raw.get("expressions") or {}
        # the provider configuration it uses, resolved through module `providers` maps
        self.provider = raw.get("provider_config_key") if isinstance(raw.get("provider_config_key"), str) else None
        fe = raw.get("for_each_expression") or raw.get("count_expression")
        self.each_refs = reduce_refs(collect_refs(fe)) if fe else None
        # Terraform leaves for_each_expression / count_expression out of the plan when the
        # expression references nothing (`for_each = toset(["a", "b"])`, `count = 2`):
        # Plan._build also sets this when the plan's instances have keys
        self.keyed = fe is not None


class CallConfig:
    __slots__ = ("name", "source", "expressions", "each_refs", "keyed", "module")

    def __init__(self, name: str, raw: dict, path: tuple):
        self.name = name
        self.source = raw.get("source")
        self.expressions = raw.get("expressions") or {}
        fe = raw.get("for_each_expression") or raw.get("count_expression")
        self.each_refs = reduce_refs(collect_refs(fe)) if fe else None
        self.keyed = fe is not None  # also set when the plan's instances have keys (see Plan._build)
        self.module = ModuleConfig(raw.get("module") or {}, path + (name,))


class ModuleConfig:
    __slots__ = ("path", "resources", "calls", "outputs", "variables")

    def __init__(self, raw: dict, path: tuple = ()):
        self.path = path
        self.resources = {r["address"]: ResourceConfig(r) for r in raw.get("resources") or ()}
        self.calls = {n: CallConfig(n, c, path) for n, c in (raw.get("module_calls") or {}).items()}
        self.outputs = {n: (o.get("expression") or {}) for n, o in (raw.get("outputs") or {}).items()}
        self.variables = raw.get("variables") or {}


class Resource:
    """One resource instance as it will be after apply."""

    __slots__ = ("address", "module", "type", "name", "mode", "index", "values", "unknown", "actions",
                 "config", "local", "_keys", "plan")

    def __init__(self, address, module, type_, name, mode, index, values, unknown, actions, config, plan=None):
        self.plan = plan
        self.address = address
        self.module = module
        self.type = type_
        self.name = name
        self.mode = mode
        self.index = index
        self.values = values
        self.unknown = unknown
        self.actions = actions
        self.config = config
        self.local = f"data.{type_}.{name}" if mode == "data" else f"{type_}.{name}"
        self._keys = None

    def __repr__(self):
        return f"<{self.address}>"

    @property
    def creating(self) -> bool:
        return "create" in self.actions

    def configured(self, attr: str) -> bool:
        """Whether the configuration sets ``attr`` (True when the configuration is not known)."""
        return self.config is None or attr in self.config.expressions

    def attr(self, name: str, default: Any = None) -> Any:
        """The planned value; UNKNOWN when set in configuration but known only after apply.

        An attribute the configuration does not set, that the provider computes
        (unknown in the plan of a new resource), is ``default``: AWS applies
        its own default at creation. So is an empty string or an empty list: the
        AWS provider stores an unset policy, redrive policy, JSON document or list
        that way in state, so update plans (and data sources) carry ``""`` or
        ``[]`` where a plan that creates the resource carries nothing.
        """
        v = self.values.get(name, _MISSING)
        if v is _MISSING or v is None or ((v.__class__ is str or v.__class__ is list) and not v):
            if self.unknown.get(name) is True:
                return UNKNOWN if self._really_unknown(name) else default
            return default
        return v

    def _really_unknown(self, name: str) -> bool:
        """An unknown Optional+Computed attribute is either set from a value known
        only after apply, or set to null (the provider then computes it, which the
        plan also shows as unknown). It is null when the configuration does not set
        it, or sets it from references that all resolve to values known now."""
        if not self.configured(name):
            return False
        if self.plan is None:
            return True
        return self.plan.may_be_unknown(self, name)

    def path(self, *path: Any, default: Any = None) -> Any:
        """A nested value, e.g. ``path('scaling_config', 0, 'maximum_concurrency')``."""
        v: Any = self.values
        u: Any = self.unknown
        for p in path:
            if isinstance(u, (dict, list)):
                try:
                    u = u[p]
                except (KeyError, IndexError, TypeError):
                    u = None
            else:
                u = None
            try:
                v = v[p] if v is not None else None
            except (KeyError, IndexError, TypeError):
                v = None
            if u is True:
                return UNKNOWN if self._really_unknown(path[0]) else default
        return default if v is None else v

    def keys(self) -> frozenset:
        """Every instance key on the address (own index and module instance keys)."""
        if self._keys is None:
            ks = {k for _, k in parse_module_address(self.module) if k is not None}
            if self.index is not None:
                ks.add(self.index)
            self._keys = frozenset(ks)
        return self._keys


def marked(marks) -> bool:
    """Whether a plan's marks of a value (``after_unknown``, ``after_sensitive``: True, or
    nested in a map or list) mark any part of it."""
    if marks is True:
        return True
    if isinstance(marks, dict):
        return any(marked(m) for m in marks.values())
    if isinstance(marks, list):
        return any(marked(m) for m in marks)
    return False


class Target:
    """What a reference resolves to: a resource instance (+ the attribute path
    after it), or a literal value (a root variable, a constant)."""

    __slots__ = ("res", "rest", "value")

    def __init__(self, res: Resource | None, rest: tuple = (), value: Any = _MISSING):
        self.res = res
        self.rest = rest
        self.value = value

    @property
    def attr(self) -> str | None:
        return self.rest[0] if self.rest and isinstance(self.rest[0], str) else None

    @property
    def is_literal(self) -> bool:
        return self.res is None and self.value is not _MISSING

    def __repr__(self):
        return f"Target({self.res!r}, {self.rest!r})" if self.res else f"Literal({self.value!r})"


OPAQUE = Target(None)  # a link went through something the plan does not describe (a local value)
