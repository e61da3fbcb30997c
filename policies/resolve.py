"""What an attribute of a planned resource is before apply: the one place the checker
resolves values.

Every link of the model (a queue's DLQ, an event source mapping's queue and function, an
alarm's queue, a bucket's settings, a policy document) asks :meth:`Resolver.value` (or
:meth:`Resolver.in_block` for a nested block) and reads the answer, a :class:`Resolved`,
along one chain, in this order:

1. **known**: the value the plan knows (``Resolved.value``: known, None when unset, or UNKNOWN);
2. **references**: the plan resources its configuration expression references
   (``Resolved.targets``, ``.resources()``, ``.linked()``), as the plan records them;
3. **pending**: the attribute of a plan resource, known after apply, that the configuration
   source (``--source-dir``) says the value is exactly (``.pending()``, ``.named().pending``:
   ``aws_sqs_queue.dlq.arn``);
4. **source**: the value the source evaluates it to (``.named().text``, ``.scalar()``,
   ``.plain()``, ``.json()``), with the file and line it came from (``.ref``);
5. **unknown**, with the reason (``.json()``'s why, ``.unknown_why``, the link's own words).

The source is read lazily, once per value (each block once: ``Resolver.block``). A link takes
the first step that settles it: a link to one resource stops at the references when they
lead to exactly one, and asks the source only when they lead to none (or, for a queue named
by URL or ARN, several: the exact placeholder then picks one). Two links read a JSON value
whose content matters, not only what it points at, and ask the source before the references,
which can tell only what the value is built from: a redrive policy (model/redrive.py: its
maxReceiveCount, and whether it names its DLQ by ARN) and a policy document
(model/documents.py: what it says). Each says so where it reads. The model reads the source
only through this module; it never imports the source package.
"""
from __future__ import annotations

from typing import Any

from .graph import OPAQUE, UNKNOWN, Plan, Resource, Target, marked

_UNREAD = object()


class Resolved:
    """One attribute (``path``) of one resource, resolved along the chain (see the module
    docstring). The source is read lazily, once."""

    __slots__ = ("res", "path", "value", "_resolver", "_targets", "_source", "_in_block")

    def __init__(self, resolver: "Resolver", res: Resource, path: tuple, in_block: bool = False):
        self._resolver = resolver
        self.res = res
        self.path = path
        self.value: Any = res.attr(path[0]) if len(path) == 1 else res.path(*path)
        self._targets: list[Target] | None = None
        self._source: Any = _UNREAD
        self._in_block = in_block

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
            self._source = self._resolver.from_source(self.res, self.path, self._in_block)
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

    @property
    def unknown_why(self) -> str | None:
        """Why the source's value is known only after apply as a whole (a dynamic block over a
        collection known after apply, an attribute of a resource), or None: the source cannot
        say, or the value is known at least in part."""
        from .source import Unknown

        v = self.partial
        return v.why if isinstance(v, Unknown) else None

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

    def named(self, member: str | None = None, json: bool = False) -> "Named | None":
        """Steps 3 and 4 of a link: what the configuration source says the value (or its object
        member ``member``; a member of its JSON text when ``json``) names. A :class:`Named`:
        ``pending``, the attribute of a resource of the plan it is exactly (known after apply:
        ``aws_sqs_queue.q.arn``); else ``text``, the non-empty string it is (a name, an ARN, a
        URL); else ``built``, a string built from such attributes (``${aws_sqs_queue.q.name}-x``);
        else none of them (null, empty, not a string). None when the source cannot say (no
        source, not matching the plan, not set, or only known after apply)."""
        from .source import Pending, Template, Unknown

        if json:
            got = self.json()
            if got is None or not isinstance(got[0], dict):
                return None
            v = got[0].get(member)
            if v is UNKNOWN:
                return None
            if hasattr(v, "pending"):  # source.PendingText: one attribute, or built from several
                return Named(v.pending) if v.pending is not None else Named(built=True)
            return Named(text=v if isinstance(v, str) and v else None)
        if self.evaluated is None:
            return None
        v = self.partial
        if member is not None:
            v = v.get(member) if isinstance(v, dict) else None
        if isinstance(v, Pending):
            return Named(v)
        if isinstance(v, Template):
            return Named(built=True) if all(isinstance(p, (str, Pending)) for p in v.parts) else None
        if isinstance(v, Unknown) or (v is not None and not isinstance(v, (str, int, float, bool, dict, list))):
            return None
        return Named(text=v if isinstance(v, str) and v else None)

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


class Named:
    """What the configuration source says a value names (Resolved.named): exactly an attribute
    of a resource of the plan (``pending``: source.Pending, with ``res`` and ``path``), a
    string (``text``), a string built from such attributes (``built``), or nothing."""

    __slots__ = ("pending", "text", "built")

    def __init__(self, pending=None, text: str | None = None, built: bool = False):
        self.pending, self.text, self.built = pending, text, built


class Resolver:
    """Resolves attributes of the plan's resources (``value``), module inputs
    (``variable``) and whole blocks (``block``), from the plan and, when given, the
    configuration source (source.Source)."""

    def __init__(self, plan: Plan, source=None):
        self.plan = plan
        self.source = source
        self._blocks: dict[str, Any] = {}  # block(): each resource's block is evaluated once

    def value(self, res: Resource, *path) -> Resolved:
        """``res`` at ``path`` (``"queue_url"``, or ``"dimensions"``, or ``"metric_query", 0,
        "metric", 0, "dimensions"``)."""
        return Resolved(self, res, tuple(path))

    def in_block(self, res: Resource, *path) -> Resolved:
        """``res`` at ``path`` as :meth:`value`, its source read from the evaluated block (nested
        blocks, dynamic ones expanded, as lists): for a nested block (``"inline_policy"``) or a
        part of one, which is no attribute of its own."""
        return Resolved(self, res, tuple(path), in_block=True)

    def from_source(self, res: Resource, path: tuple, in_block: bool = False):
        """source.Evaluated of ``res`` at ``path``: a top-level attribute is evaluated on its
        own (its references checked against the plan's), a nested one (or any, ``in_block``)
        from the evaluated block. None when there is no source or it cannot say."""
        if self.source is None:
            return None
        if len(path) == 1 and not in_block:
            return self.source.value(res, path[0])
        from .source import Evaluated, Unknown

        got = self.block(res)
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
        """(evaluated block of ``res``, SourceRef) from the source, or None; evaluated once."""
        if self.source is None:
            return None
        got = self._blocks.get(res.address, _UNREAD)
        if got is _UNREAD:
            got = self._blocks[res.address] = self.source.block(res)
        return got

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

