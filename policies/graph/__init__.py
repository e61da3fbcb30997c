"""The plan as a graph of resource instances, and links resolved from the configuration.

Values come from ``planned_values`` (+ ``prior_state`` for data sources read at
plan time), annotated with their ``resource_changes`` entry (actions, which
attributes are unknown until apply). Links between resources come from the
``configuration`` section's expression ``references``, followed through module
calls, module input variables, module outputs and ``count``/``for_each``
instances: at plan time the values that would carry them (a new queue's ARN,
hence the whole redrive policy that embeds it) are unknown.

The package: ``nodes`` (resources, configurations, references, targets), ``targets`` (following
references, a part of :class:`Plan`), and :class:`Plan` here.
"""
from __future__ import annotations

import re

from .nodes import (_MISSING, OPAQUE, UNKNOWN, CallConfig, Index, ModuleConfig, Resource, ResourceConfig, Target,
                    collect_refs, marked, module_parent, parse_module_address, parse_traversal, reduce_refs)
from .targets import Targets, narrow

__all__ = ["OPAQUE", "UNKNOWN", "CallConfig", "Index", "ModuleConfig", "Plan", "Resource", "ResourceConfig", "Target",
           "Targets", "collect_refs", "marked", "module_parent", "narrow", "parse_module_address", "parse_traversal",
           "reduce_refs"]


# provider arguments that decide which account a configuration acts in
_CREDENTIAL_ARGS = ("access_key", "profile", "shared_credentials_files", "shared_config_files", "token",
                    "assume_role", "assume_role_with_web_identity", "allowed_account_ids", "forbidden_account_ids")


class Plan(Targets):
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
        return self.module_config_path(tuple(n for n, _ in parse_module_address(module_addr)))

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
            if rc.get("deposed") is None:  # a deposed object is an old one being destroyed, never planned
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
        """(region, account) of a resource: its provider configuration's, except that with
        AWS provider 6.x a resource may name its own Region (its ``region`` argument, which
        the provider fills in with its configuration's Region in the plan when not set):
        that Region is the resource's. A ``region`` known only after apply is a token of
        the resource's own, equal to no other place."""
        key = res.config.provider if res.config is not None else None
        got = self._memo_provider.get(key)
        region, account = got if got is not None else self.provider_location(key)
        if res.type.startswith("aws_"):
            own = res.attr("region")
            if isinstance(own, str) and own:
                region = own
            elif own is UNKNOWN:
                region = ("region", res.address, "own")
        return (region, account)
