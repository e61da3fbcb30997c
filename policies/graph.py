"""The plan as a graph of resource instances, and links resolved from the configuration.

Values come from ``planned_values`` (+ ``prior_state`` for data sources read at
plan time), annotated with their ``resource_changes`` entry (actions, which
attributes are unknown until apply). Links between resources come from the
``configuration`` section's expression ``references``, followed through module
calls, module input variables, module outputs and ``count``/``for_each``
instances: at plan time the values that would carry them (a new queue's ARN,
hence the whole redrive policy that embeds it) are unknown.
"""
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

# provider arguments that decide which account a configuration acts in
_CREDENTIAL_ARGS = ("access_key", "profile", "shared_credentials_files", "shared_config_files", "token",
                    "assume_role", "assume_role_with_web_identity", "allowed_account_ids", "forbidden_account_ids")


class Plan:
    """Resource instances of a plan, indexed, with reference resolution."""

    def __init__(self, doc: dict):
        self.doc = doc
        self.variables = {k: (v or {}).get("value") for k, v in (doc.get("variables") or {}).items()}
        conf = doc.get("configuration") or {}
        self.config = ModuleConfig(conf.get("root_module") or {})
        self.provider_config = conf.get("provider_config") or {}
        self.resources: list[Resource] = []
        self.by_address: dict[str, Resource] = {}
        self.by_type: dict[str, list[Resource]] = {}
        # (module instance, local address) -> {key: Resource}
        self.instances: dict[tuple[str, str], dict] = {}
        # (module instance, call name) -> {key: child module instance}
        self.children: dict[tuple[str, str], dict] = {}
        self._cfg_by_path: dict[tuple, ModuleConfig | None] = {(): self.config}
        self._memo_var: dict = {}
        self._memo_out: dict = {}
        self._memo_unknown: dict = {}
        self._memo_targets: dict = {}
        self._reduced: dict = {}
        self._memo_provider: dict = {}
        self._build()

    # -- construction -------------------------------------------------------------
    def module_config(self, module_addr: str) -> ModuleConfig | None:
        path = tuple(n for n, _ in parse_module_address(module_addr))
        got = self._cfg_by_path.get(path, _MISSING)
        if got is _MISSING:
            parent = self.module_config_path(path[:-1])
            call = parent.calls.get(path[-1]) if parent else None
            got = call.module if call else None
            self._cfg_by_path[path] = got
        return got

    def module_config_path(self, path: tuple) -> ModuleConfig | None:
        got = self._cfg_by_path.get(path, _MISSING)
        if got is _MISSING:
            parent = self.module_config_path(path[:-1])
            call = parent.calls.get(path[-1]) if parent else None
            got = call.module if call else None
            self._cfg_by_path[path] = got
        return got

    def _add(self, raw: dict, module: str, values: dict, unknown: dict, actions: list):
        mcfg = self.module_config(module)
        mode = raw["mode"]
        local = f"data.{raw['type']}.{raw['name']}" if mode == "data" else f"{raw['type']}.{raw['name']}"
        rcfg = mcfg.resources.get(local) if mcfg else None
        r = Resource(raw["address"], module, raw["type"], raw["name"], mode, raw.get("index"),
                     values, unknown, actions, rcfg, self)
        self.resources.append(r)
        self.by_address[r.address] = r
        self.by_type.setdefault(r.type, []).append(r)
        self.instances.setdefault((module, local), {})[r.index] = r
        self._register_module(module)

    def _register_module(self, module: str):
        while module and (module_parent(module), module) not in self._seen_mods:
            self._seen_mods.add((module_parent(module), module))
            name, key = parse_module_address(module)[-1]
            parent = module_parent(module)
            self.children.setdefault((parent, name), {})[key] = module
            module = parent

    def _build(self):
        self._seen_mods: set = set()
        changes = {}
        for rc in self.doc.get("resource_changes") or ():
            changes[rc["address"]] = rc
        seen = set()
        pv = (self.doc.get("planned_values") or {}).get("root_module") or {}
        stack = [pv]
        while stack:
            m = stack.pop()
            maddr = m.get("address", "")
            for raw in m.get("resources") or ():
                rc = changes.get(raw["address"])
                if rc is not None:
                    ch = rc["change"]
                    unknown = ch.get("after_unknown")
                    actions = ch.get("actions") or ["no-op"]
                else:
                    unknown, actions = None, ["no-op"]
                seen.add(raw["address"])
                if actions == ["forget"]:
                    continue  # a `removed` block: it leaves the state, nothing of it is configured
                self._add(raw, maddr, raw.get("values") or {}, unknown if isinstance(unknown, dict) else {}, actions)
            stack.extend(m.get("child_modules") or ())
        # data sources read while planning live in prior_state only
        ps = ((self.doc.get("prior_state") or {}).get("values") or {}).get("root_module") or {}
        stack = [ps]
        while stack:
            m = stack.pop()
            maddr = m.get("address", "")
            for raw in m.get("resources") or ():
                if raw.get("mode") == "data" and raw["address"] not in seen:
                    seen.add(raw["address"])
                    self._add(raw, maddr, raw.get("values") or {}, {}, ["read"])
            stack.extend(m.get("child_modules") or ())
        del self._seen_mods
        # count / for_each with a constant expression: not in the configuration, but the
        # instances have keys
        for (module, local), insts in self.instances.items():
            if any(k is not None for k in insts):
                mcfg = self.module_config(module)
                rcfg = mcfg.resources.get(local) if mcfg else None
                if rcfg is not None:
                    rcfg.keyed = True
        for (parent, name), kids in self.children.items():
            if any(k is not None for k in kids):
                mcfg = self.module_config(parent)
                call = mcfg.calls.get(name) if mcfg else None
                if call is not None:
                    call.keyed = True

    def of_type(self, *types: str) -> list[Resource]:
        out: list[Resource] = []
        for t in types:
            out.extend(self.by_type.get(t, ()))
        return out

    def region(self) -> str | None:
        """The default AWS provider's region when the plan shows it."""
        r = self.provider_location("aws")[0]
        return r if isinstance(r, str) else None

    def provider_location(self, key: str | None) -> tuple:
        """(region, account) of a provider configuration, each a known string or an
        opaque token: two configurations with equal tokens share the region (or the
        account) even when its value is not in the plan (both from the environment,
        both from the same expression). (None, None) when the configuration is not shown."""
        if not isinstance(key, str):
            return (None, None)
        got = self._memo_provider.get(key)
        if got is None:
            got = self._memo_provider[key] = self._provider_location(key)
        return got

    def _provider_location(self, key: str) -> tuple:
        import json

        cfg = self.provider_config.get(key)
        if not isinstance(cfg, dict):
            return (None, None)
        mod = cfg.get("module_address") if isinstance(cfg.get("module_address"), str) else ""
        exprs = cfg.get("expressions") if isinstance(cfg.get("expressions"), dict) else {}

        def value(expr):
            """A constant or a variable's value; _MISSING when not known from the plan."""
            if not isinstance(expr, dict):
                return _MISSING
            if "constant_value" in expr:
                return expr["constant_value"]
            refs = reduce_refs(collect_refs(expr))
            if len(refs) == 1 and refs[0].startswith("var."):
                ts = [t for t in self._var(mod, refs[0][4:], 0) if t.is_literal]
                if len(ts) == 1:
                    return ts[0].value
            return _MISSING

        def token(what, names):
            parts = {n: exprs.get(n) for n in names if n in exprs}
            return (what, mod, json.dumps(parts, sort_keys=True, default=str))

        region = value(exprs.get("region"))
        if not isinstance(region, str) or not region:
            region = token("region", ("region",))
        account = _MISSING
        roles = exprs.get("assume_role")
        for role in roles if isinstance(roles, list) else [roles] if isinstance(roles, dict) else ():
            arn = value(role.get("role_arn")) if isinstance(role, dict) else _MISSING
            m = re.match(r"^arn:[a-z-]+:iam::([0-9]{12}):", arn) if isinstance(arn, str) else None
            if m:
                account = m.group(1)
        allowed = value(exprs.get("allowed_account_ids"))
        if account is _MISSING and isinstance(allowed, list) and len(allowed) == 1 and isinstance(allowed[0], str):
            account = allowed[0]
        if account is _MISSING:
            account = token("account", _CREDENTIAL_ARGS)
        return (region, account)

    def resource_location(self, res: "Resource") -> tuple:
        key = res.config.provider if res.config is not None else None
        got = self._memo_provider.get(key)
        return got if got is not None else self.provider_location(key)

    # -- reference resolution -----------------------------------------------------
    def may_be_unknown(self, res: Resource, attr: str) -> bool:
        """Whether ``res.attr``'s expression can depend on a value known only after apply."""
        key = (res.address, attr)
        got = self._memo_unknown.get(key)
        if got is None:
            self._memo_unknown[key] = True  # cycle guard: assume unknown
            got = False
            for t in self.expr_targets(res, attr):
                if t.res is None:
                    if not t.is_literal:
                        got = True  # a local value or something the plan does not describe
                        break
                    continue
                a = t.attr
                if a is None or t.res is res or t.res.unknown.get(a) is True:
                    got = True
                    break
                if a not in t.res.values and t.res.unknown.get(a) is not True and t.res.mode == "managed" \
                        and "create" in t.res.actions:
                    got = True  # an attribute the plan does not show at all
                    break
            self._memo_unknown[key] = got
        return got

    def expr_targets(self, res: Resource, attr: str) -> list[Target]:
        """What the configuration expression of ``res.attr`` refers to (memoized)."""
        key = (res.address, attr)
        got = self._memo_targets.get(key)
        if got is None:
            got = self._memo_targets[key] = self._expr_targets(res, attr)
        return got

    def _expr_targets(self, res: Resource, attr: str) -> list[Target]:
        cfg = res.config
        if cfg is None:
            return [OPAQUE]
        expr = cfg.expressions.get(attr)
        if expr is None:
            return []
        refs = collect_refs(expr)
        if not refs:
            return []
        return self.resolve(res.module, refs, res.index, cfg.each_refs)

    def expr_targets_at(self, res: Resource, path: tuple) -> list[Target]:
        """Like expr_targets, for a nested attribute (``("target", 0, "dead_letter_config", 0, "arn")``):
        only what that attribute's expression refers to, not its siblings'."""
        if len(path) == 1:
            return self.expr_targets(res, path[0])
        key = (res.address, path)
        got = self._memo_targets.get(key)
        if got is None:
            cfg = res.config
            if cfg is None:
                got = [OPAQUE]
            else:
                node: Any = cfg.expressions
                for p in path:
                    if isinstance(p, int):
                        if isinstance(node, list):
                            node = node[p] if p < len(node) else None
                    elif isinstance(node, dict):
                        node = node.get(p)
                    else:
                        node = None
                    if node is None:
                        break
                refs = collect_refs(node) if node is not None else []
                got = self.resolve(res.module, refs, res.index, cfg.each_refs) if refs else []
            self._memo_targets[key] = got
        return got

    def all_targets(self, res: Resource) -> list[Target]:
        """Everything any expression of ``res`` refers to (each attribute resolved on its own)."""
        cfg = res.config
        if cfg is None:
            return []
        out: list[Target] = []
        for attr in cfg.expressions:
            out.extend(self.expr_targets(res, attr))
        return out

    def resolve(self, module: str, refs: list[str], key=None, each_refs=None, depth: int = 0,
                name_hint: str | None = None, force_keyed: bool = False) -> list[Target]:
        """Resolve references made in module instance ``module`` by a resource or
        call with instance ``key`` and for_each/count references ``each_refs``.
        ``name_hint``: the module variable being resolved, used to pick the output
        of a module referenced as a whole (``module.q[each.key].queue_arn`` keeps
        only ``module.q`` in the plan)."""
        if depth > 40:
            return [OPAQUE]
        rk = tuple(refs)
        got = self._reduced.get(rk)
        if got is None:
            got = self._reduced[rk] = (reduce_refs(refs), any(r.startswith(("each.", "count.index")) for r in refs))
        reduced, has_each = got
        keyed = key is not None and (force_keyed or has_each)
        out: list[Target] = []
        for ref in reduced:
            parts = parse_traversal(ref)
            if not parts:
                continue
            head = parts[0]
            if head == "var" and len(parts) > 1:
                ts = self._var(module, parts[1], depth)
                if keyed and len(ts) > 1:  # var.arns[each.key]: the plan drops the index
                    ts = self._var_index(module, parts[1], ts).get(key) or ts
                for t in ts:
                    out.append(_follow(t, parts[2:]))
            elif head == "local":
                out.append(OPAQUE)
            elif head == "each":
                if len(parts) > 1 and parts[1] == "value" and each_refs:
                    out.extend(self._each(module, each_refs, key, parts[2:], depth))
            elif head == "data" and len(parts) >= 3:
                out.extend(self._res(module, f"data.{parts[1]}.{parts[2]}", parts[3:], key, keyed))
            elif head == "module" and len(parts) >= 2:
                out.extend(self._module(module, parts[1], parts[2:], key, keyed, depth, name_hint))
            elif head in ("path", "terraform", "count", "self"):
                continue
            elif len(parts) >= 2:
                out.extend(self._res(module, f"{parts[0]}.{parts[1]}", parts[2:], key, keyed))
        return out

    def _each(self, module, each_refs, key, rest, depth) -> list[Target]:
        """``each.value...``: the element of the for_each collection with this key."""
        got: list[Target] = []
        for t in self.resolve(module, each_refs, None, None, depth + 1):
            got.extend(_each_value(t, key, rest))
        res = [t for t in got if t.res is not None]
        if len(res) > 1 and key is not None:
            same = [t for t in res if t.res.index == key]  # for_each = aws_x.y
            if not same:  # for_each = { a = aws_x.a.id, b = aws_x.b.id }
                same = [t for t in res if t.res.name == key]
            if same:
                got = [t for t in got if t.res is None] + same
        return got

    def _res(self, module, local, rest, key, keyed) -> list[Target]:
        insts = self.instances.get((module, local))
        if not insts:
            return []
        if rest and isinstance(rest[0], Index):
            r = insts.get(rest[0].key)
            return [Target(r, tuple(rest[1:]))] if r else []
        if keyed and key in insts:
            return [Target(insts[key], tuple(rest))]
        return [Target(r, tuple(rest)) for r in insts.values()]

    def _var(self, module: str, name: str, depth: int) -> list[Target]:
        k = (module, name)
        got = self._memo_var.get(k)
        if got is None:
            got = self._memo_var[k] = self._var_uncached(module, name, depth)
        return got

    def _var_index(self, module: str, name: str, targets: list[Target]) -> dict:
        k = ("idx", module, name)
        got = self._memo_var.get(k)
        if got is None:
            got = {}
            for t in targets:
                if t.res is not None:
                    for key in t.res.keys():
                        got.setdefault(key, []).append(t)
            self._memo_var[k] = got
        return got

    def _var_uncached(self, module: str, name: str, depth: int) -> list[Target]:
        if not module:
            if name in self.variables:
                return [Target(None, (), self.variables[name])]
            return []
        parent = module_parent(module)
        call_name, key = parse_module_address(module)[-1]
        pcfg = self.module_config(parent)
        call = pcfg.calls.get(call_name) if pcfg else None
        if call is None:
            return [OPAQUE]
        expr = call.expressions.get(name)
        if expr is None:
            var = call.module.variables.get(name) or {}
            return [Target(None, (), var["default"])] if "default" in var else []
        if "constant_value" in expr:
            return [Target(None, (), expr["constant_value"])]
        refs = collect_refs(expr)
        return self.resolve(parent, refs, key, call.each_refs, depth + 1, name_hint=name) if refs else []

    def _module(self, module, name, rest, key, keyed, depth, name_hint=None) -> list[Target]:
        kids = self.children.get((module, name))
        if not kids:
            return []
        if rest and isinstance(rest[0], Index):
            child = kids.get(rest[0].key)
            chosen = [child] if child else []
            rest = rest[1:]
        elif keyed and key in kids:
            chosen = [kids[key]]
        else:
            chosen = list(kids.values())
        out = []
        for child in chosen:
            if rest and isinstance(rest[0], str):
                # module.m.out["k"] keeps the constant key; module.m.out[each.key]
                # loses it in the plan, but the referrer's own key is the likely one
                hint = rest[1].key if len(rest) > 1 and isinstance(rest[1], Index) else (key if keyed else None)
                for t in self._output(child, rest[0], depth, hint):
                    out.append(_follow(t, rest[1:]) if t.res is None else t)
            else:  # the whole module object (a dynamic index, or iterated in a for expression)
                cfg = self.module_config(child)
                names = _outputs_named_like(list(cfg.outputs) if cfg else [], name_hint)
                for oname in names:
                    out.extend(self._output(child, oname, depth))
        return out

    def _output(self, child: str, oname: str, depth: int, hint=None) -> list[Target]:
        """Targets of output ``oname`` of module instance ``child``. ``hint``: the
        constant key the caller indexes the output with (``module.m.arns["a"]``)."""
        k = (child, oname, hint)
        got = self._memo_out.get(k)
        if got is None:
            self._memo_out[k] = []  # cycle guard
            got = self._memo_out[k] = self._output_uncached(child, oname, depth, hint)
        return got

    def _output_uncached(self, child, oname, depth, hint=None) -> list[Target]:
        cfg = self.module_config(child)
        expr = cfg.outputs.get(oname) if cfg else None
        if expr is None:
            return []
        if "constant_value" in expr:
            return [Target(None, (), expr["constant_value"])]
        refs = collect_refs(expr)
        whole = [r for r in reduce_refs(refs) if r.startswith("module.") and len(parse_traversal(r)) == 2]
        if whole:
            # `{for k, m in module.x : k => m.out}`: the plan keeps only "module.x".
            # Prefer the child output named like this one (queue_arns -> queue_arn).
            refs = [r for r in refs if r not in whole]
            for w in whole:
                sub = parse_traversal(w)[1]
                kids = self.children.get((child, sub)) or {}
                if hint is not None and hint in kids:
                    kids = {hint: kids[hint]}
                for gchild in kids.values():
                    gcfg = self.module_config(gchild)
                    for n in _outputs_named_like(list(gcfg.outputs) if gcfg else [], oname):
                        refs.append(f"module.{sub}[{_fmt_key(gchild)}].{n}")
        if not refs:
            return []
        if hint is not None:
            got = self.resolve(child, refs, hint, None, depth + 1, force_keyed=True)
            if any(t.res is not None and hint in t.res.keys() for t in got):
                return got
        return self.resolve(child, refs, None, None, depth + 1)


def _outputs_named_like(names: list[str], wanted: str | None) -> list[str]:
    """The outputs of a module that a value named ``wanted`` most likely comes from: the
    output of that name (or its singular or plural: ``queue_arns`` -> ``queue_arn``), else
    an object output the name starts with (``queue_arn`` -> ``queue``, read as ``queue.arn``),
    else all of them."""
    if not wanted:
        return names
    same = [n for n in names if n == wanted or n == wanted.rstrip("s") or n + "s" == wanted]
    if same:
        return same
    prefix = [n for n in names if wanted.startswith(n + "_")]
    return [max(prefix, key=len)] if prefix else names


def _fmt_key(module_addr: str) -> str:
    import json

    key = parse_module_address(module_addr)[-1][1]
    return json.dumps(key) if isinstance(key, str) else str(key)


def _follow(t: Target, rest: tuple) -> Target:
    if not rest:
        return t
    if t.res is not None:
        return Target(t.res, t.rest + tuple(rest))
    if t.is_literal:
        v = t.value
        for p in rest:
            k = p.key if isinstance(p, Index) else p
            try:
                v = v[k]
            except (KeyError, IndexError, TypeError):
                return Target(None)
        return Target(None, (), v)
    return t


def _each_value(t: Target, key, rest) -> list[Target]:
    if t.res is not None:
        # for_each over a resource: same key; over a map of references: all of
        # them (the caller narrows by key or by name, see Plan._each)
        return [Target(t.res, t.rest + tuple(rest))]
    if t.is_literal:
        v = t.value
        if isinstance(v, dict):
            if key in v:
                return [_follow(Target(None, (), v[key]), tuple(rest))]
            return []
        if isinstance(v, list) and isinstance(key, str) and key in v:  # for_each over a set
            return [Target(None, (), key)]
        return []
    return [t]


def narrow(cands: list[Resource], referrer: Resource) -> list[Resource]:
    """Among several candidates, keep those sharing an instance key with the referrer."""
    if len(cands) <= 1:
        return cands
    keys = referrer.keys()
    if not keys:
        return cands
    picked = [c for c in cands if c.keys() & keys]
    return picked or cands
