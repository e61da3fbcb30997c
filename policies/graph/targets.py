"""Following a configuration expression's references to what they designate (:class:`Targets`,
a part of :class:`graph.Plan`): through module calls, input variables, outputs and
``count``/``for_each`` instances, to resources of the plan or :data:`OPAQUE` where the plan does
not describe the way (a local value)."""
from __future__ import annotations

from typing import Any

from .nodes import (OPAQUE, Index, Resource, Target, collect_refs, module_parent, parse_module_address, parse_traversal,
                    reduce_refs)


class Targets:
    """Plan's reference following (see the module docstring); memoized per plan."""

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
