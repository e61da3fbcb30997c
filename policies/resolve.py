"""What an attribute of a planned resource is before apply: the one place the checker
resolves values.

Every link of the model (a queue's DLQ, an event source mapping's queue and function, an
alarm's queue, a bucket's settings, a policy document) asks :meth:`Resolver.value` and
reads the answer, a :class:`Resolved`, along one chain:

1. the value the plan knows (``Resolved.value``: known, None when unset, or UNKNOWN);
2. the plan resources its configuration expression references (``Resolved.targets``,
   ``Resolved.resources()``), as the plan records them;
3. the configuration source (``--source-dir``), evaluated only when asked
   (``Resolved.partial``, ``.pending()``, ``.scalar()``, ``.json()``), with the file and
   line it came from (``Resolved.ref``);
4. else unknown, with the reason (``Resolved.why``).

A link decides which step settles it (one queue among the references, say, before the
source is read); none of them repeats how a step is done.
"""
from __future__ import annotations

from typing import Any

from .graph import OPAQUE, UNKNOWN, Plan, Resource, Target, marked

_UNREAD = object()


class Resolved:
    """One attribute (``path``) of one resource, resolved along the chain (see the module
    docstring). The source is read lazily, once."""

    __slots__ = ("res", "path", "value", "_resolver", "_targets", "_source")

    def __init__(self, resolver: "Resolver", res: Resource, path: tuple):
        self._resolver = resolver
        self.res = res
        self.path = path
        self.value: Any = res.attr(path[0]) if len(path) == 1 else res.path(*path)
        self._targets: list[Target] | None = None
        self._source: Any = _UNREAD

    def __repr__(self):
        return f"<Resolved {self.res.address}.{'.'.join(str(p) for p in self.path)}: {self.value!r}>"

    # -- 1. the plan's value ---------------------------------------------------------------
    @property
    def known(self) -> bool:
        """The plan knows the value (it may be None: unset)."""
        return self.value is not UNKNOWN

    # -- 2. the plan's references -----------------------------------------------------------
    @property
    def targets(self) -> list[Target]:
        """What the attribute's configuration expression refers to, as the plan records it
        (``graph.OPAQUE`` where a link goes through something the plan does not describe)."""
        if self._targets is None:
            self._targets = self._resolver.plan.expr_targets_at(self.res, self.path)
        return self._targets

    def resources(self, *types: str) -> list[Resource]:
        """The plan resources (of ``types``, any when none given) the expression references."""
        return [t.res for t in self.targets if t.res is not None and (not types or t.res.type in types)]

    @property
    def opaque(self) -> bool:
        """The expression goes through something the plan does not describe (a local value)."""
        return any(t is OPAQUE for t in self.targets)

    def linked(self, *types: str) -> list[Resource]:
        """The plan resources (of ``types``, any when none given) the value is built from:
        those its expression references (step 2), and, where the plan does not know the
        value and the expression goes through something the plan does not describe (a local
        value), those the configuration source says it is built from (step 3: the resources
        of its placeholders). A value the plan knows is not read from the source."""
        found = self.resources(*types)
        if not self.known and self.opaque and self.evaluated is not None:
            found = _with_placeholders(found, self.partial, types)
        return found

    @property
    def linked_all(self) -> bool:
        """Whether :meth:`linked` names every plan resource the value is built from, so that a
        resource missing from it is not part of the value: the expression goes through
        nothing the plan does not describe; or it does, the plan does not know the value, and
        the source's value has no unknown part other than resources' identity attributes (an
        ARN, a URL: source.settled), which carry no other resource's."""
        if not self.opaque:
            return True
        if self.known or self.evaluated is None:
            return False
        from .source import settled

        return settled(self.partial)

    # -- 3. the configuration source ----------------------------------------------------------
    @property
    def evaluated(self):
        """source.Evaluated (partial value, SourceRef) of the attribute, or None when there is
        no source or it cannot say (missing, not matching the plan, not set in the block)."""
        if self._source is _UNREAD:
            self._source = self._resolver.from_source(self.res, self.path)
        return self._source

    @property
    def partial(self) -> Any:
        """The source's partial value (see source.values), or None when the source cannot say."""
        ev = self.evaluated
        return ev.value if ev is not None else None

    @property
    def ref(self):
        """Where the source's value came from (source.SourceRef), or None."""
        ev = self.evaluated
        return ev.ref if ev is not None else None

    def pending(self, attrs: tuple = (), types: tuple = ()):
        """The resource attribute the source says the value is, exactly (source.Pending: the
        ARN of ``aws_sqs_queue.q``, known after apply), when its attribute is one of ``attrs``
        and its type one of ``types`` (any when empty); else None."""
        from .source import Pending

        v = self.partial
        if not isinstance(v, Pending) or len(v.path) != 1:
            return None
        if (attrs and v.path[0] not in attrs) or (types and v.res.type not in types):
            return None
        return v

    def scalar(self) -> Any:
        """A scalar the plan leaves unknown, from the source: the value (None when null), a
        string standing for a value known after apply that is never null nor empty (a key's
        ARN), or UNKNOWN when the source cannot say."""
        from .source import Template, Unknown, settled, to_plain

        if self.evaluated is None:
            return UNKNOWN
        v = self.partial
        if isinstance(v, (Unknown, Template)):
            return to_plain(v) if settled(v) else UNKNOWN
        return v if v is None or isinstance(v, (str, int, float, bool)) else UNKNOWN

    def plain(self) -> Any:
        """The source's value as a plain value (UNKNOWN for parts known only after apply;
        a string built only from them keeps its ``pending`` placeholder), or UNKNOWN when the
        source cannot say."""
        from .source import to_plain

        return to_plain(self.partial) if self.evaluated is not None else UNKNOWN

    def json(self):
        """(plain value, SourceRef, why unknown) of a JSON attribute (a policy, a redrive
        policy) from the source; None when the source cannot say. The value is UNKNOWN when
        the source has the expression but not the value (``why`` says why); the dict of an
        object carries ``__why__``: member -> why it is unknown."""
        from .source import Unknown, decode_json, first_unknown, to_plain

        ev = self.evaluated
        if ev is None:
            return None
        doc = decode_json(ev.value)
        if isinstance(doc, Unknown):
            return UNKNOWN, ev.ref, doc.why
        plain = to_plain(doc)
        if isinstance(plain, dict) and isinstance(doc, dict):  # why each unknown member is unknown
            for k, v in doc.items():
                u = first_unknown(v)
                if plain.get(k) is UNKNOWN and u is not None:
                    plain.setdefault("__why__", {})[k] = u.why
        return plain, ev.ref, None


class Resolver:
    """Resolves attributes of the plan's resources (``value``), module inputs
    (``variable``) and whole blocks (``block``), from the plan and, when given, the
    configuration source (source.Source)."""

    def __init__(self, plan: Plan, source=None):
        self.plan = plan
        self.source = source

    def value(self, res: Resource, *path) -> Resolved:
        """``res`` at ``path`` (``"queue_url"``, or ``"dimensions"``, or ``"metric_query", 0,
        "metric", 0, "dimensions"``)."""
        return Resolved(self, res, tuple(path))

    def from_source(self, res: Resource, path: tuple):
        """source.Evaluated of ``res`` at ``path``: a top-level attribute is evaluated on its
        own (its references checked against the plan's), a nested one from the evaluated
        block. None when there is no source or it cannot say."""
        if self.source is None:
            return None
        if len(path) == 1:
            return self.source.value(res, path[0])
        from .source import Evaluated, Unknown

        got = self.source.block(res)
        if got is None:
            return None
        v, ref = got
        for p in path:
            if isinstance(v, Unknown) or v is None:
                break
            try:
                v = v[p]
            except (KeyError, IndexError, TypeError):
                v = None
        return Evaluated(v, ref)

    def block(self, res: Resource):
        """(evaluated block of ``res``, SourceRef) from the source, or None."""
        return self.source.block(res) if self.source is not None else None

    def references(self, res: Resource, *types: str) -> list[Resource]:
        """The plan resources (of ``types``, any when none given) any expression of ``res``
        references (each attribute's references followed on its own); where an attribute the
        plan does not know goes through something the plan does not describe (a local
        value), also those the source's evaluated block is built from."""
        found: dict[str, Resource] = {}
        ask_source = False
        for attr in res.config.expressions if res.config is not None else ():
            targets = self.plan.expr_targets(res, attr)
            for t in targets:
                if t.res is not None and (not types or t.res.type in types):
                    found.setdefault(t.res.address, t.res)
            ask_source = ask_source or (OPAQUE in targets and marked(res.unknown.get(attr)))
        if ask_source and self.source is not None:
            got = self.block(res)
            if got is not None:
                return _with_placeholders(list(found.values()), got[0], types)
        return list(found.values())

    def variable(self, module: str, name: str):
        """The plain value module instance ``module``'s input ``name`` gets in the source, or
        None when there is no source or it cannot say."""
        return self.source.module_variable(module, name) if self.source is not None else None


def _with_placeholders(found: list[Resource], partial, types: tuple) -> list[Resource]:
    """``found`` and, after them, the resources (of ``types``) of the placeholders in
    ``partial`` (a source value), each once."""
    from .source import placeholders

    out = {r.address: r for r in found}
    for p in placeholders(partial):
        if not types or p.res.type in types:
            out.setdefault(p.res.address, p.res)
    return list(out.values())

