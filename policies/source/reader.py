"""The configuration source of a plan (:class:`Source`): finds and parses the module
directories, checks them against the plan and evaluates a resource's attribute or block."""
from __future__ import annotations

import os
from pathlib import Path

from ..graph import Plan, Resource, marked, module_parent, parse_module_address
from .evaluator import Evaluator
from .filefns import Files
from .functions import _pairs, _whole, _whole_deep, _why
from .refs import _longest, _plan_refs, _traversal, references
from .scope import Scope, _Iter
from .tree import (Evaluated, MAX_STEPS, ModuleSource, SourceRef, _Block, _Error, _OutOfSteps, _TooLarge, _attr_line, _body_attrs,
                   _body_blocks)
from .values import JsonText, PendingText, Template, Unknown, first_unknown, is_unknown


# -- sensitive values from the source ----------------------------------------------------------------
def _secret_parts(v, out: list, whole: bool = True, depth: int = 0):
    """(text, whole) of every known string and scalar in a partial value, for sensitive.Secrets."""
    if depth > 64:
        return
    if isinstance(v, Template):
        for p in v.parts:
            if isinstance(p, str):
                out.append((p, False))
            else:
                _secret_parts(p, out, False, depth + 1)
    elif isinstance(v, JsonText):
        _secret_parts(v.value, out, False, depth + 1)
    elif isinstance(v, dict):
        for x in v.values():
            _secret_parts(x, out, whole, depth + 1)
    elif isinstance(v, (list, tuple)):
        for x in v:
            _secret_parts(x, out, whole, depth + 1)
    elif isinstance(v, (str, int, float, bool)) and not isinstance(v, PendingText):
        out.append((v, whole))


# -- the source of a plan ----------------------------------------------------------------------------
class Source:
    """The configuration source of a plan, read lazily (see the module docstring).

    ``root``: the root module's directory. ``data_dir``: Terraform's data
    directory (``TF_DATA_DIR``, default ``<root>/.terraform``), for module calls
    installed by ``terraform init``.
    """

    def __init__(self, plan: Plan, root: str | os.PathLike, data_dir: str | os.PathLike | None = None,
                 extra_roots=()):
        from ..files import Budget, ModuleDirs

        self.plan = plan
        self.root = Path(root)
        self.notes: list[str] = []
        self._noted: set = set()
        self._modules: dict[tuple, ModuleSource | None] = {}
        self.budget = Budget()
        self.dirs = ModuleDirs(root, plan.doc.get("configuration"), data_dir, extra_roots, self.budget)
        self.data_dir = self.dirs.data_dir
        self._ev: Evaluator | None = None
        self._plain_ev: Evaluator | None = None
        self._checked: dict[str, str | None] = {}
        self._ready: bool | None = None
        self.used = 0  # values decided from source
        self.steps = 0  # evaluation steps spent (both evaluators), up to max_steps
        self.max_steps = MAX_STEPS
        self._marks: dict | None = None
        self.files = Files(self)  # the file functions' reads (file, templatefile, ...)

    def sensitive(self, value, address: str | None = None):
        """Values evaluated for something sensitive: never printed (sensitive.Secrets)."""
        secrets = getattr(self.plan, "secrets", None)
        if secrets is None:
            return
        parts: list = []
        _secret_parts(value, parts)
        for v, whole in parts:
            secrets.add(v, address, whole=whole)

    def _attr_sensitive(self, res: Resource, attr: str | None) -> bool:
        """Whether the plan marks ``res.attr`` (any attribute when None) sensitive."""
        if self._marks is None:
            self._marks = {}
            for rc in self.plan.doc.get("resource_changes") or ():
                m = (rc.get("change") or {}).get("after_sensitive")
                if m:
                    self._marks[rc.get("address")] = m
        marks = self._marks.get(res.address)
        if not marks:
            return False
        if attr is None or marks is True:
            return marked(marks)
        return isinstance(marks, dict) and marked(marks.get(attr))

    def _out_of_steps(self, what: str, e: Exception | None = None) -> None:
        """Say once that the evaluation step budget is spent, or (e: a _TooLarge) that a value
        was over the memory budget of one value."""
        if isinstance(e, _TooLarge):
            self._note(("too-large", what), f"{what} is not evaluated from the source: {e.what}, the budget of one "
                       "value (1 MiB of text, 100,000 elements); it stays unknown")
            return
        self._note("steps", f"evaluating the configuration source stopped after {self.max_steps:,} steps (a `for` "
                   f"expression over a very large collection?): {what} and every value not yet evaluated stay unknown")

    # -- notes -----------------------------------------------------------------------------
    def _note(self, key, text: str):
        """A note for the report, said once per ``key``."""
        if key not in self._noted:
            self._noted.add(key)
            self.notes.append(text)

    # -- module directories --------------------------------------------------------------------
    def module_dir(self, path: tuple) -> Path | None:
        """The directory of module ``path`` (files.ModuleDirs), noting once why there is none."""
        d = self.dirs.get(path)
        if self.dirs.manifest_note:
            self._note("manifest", f"{self.dirs.manifest_note}; module directories come from local sources only")
        if d is None and self.dirs.why(path):
            self._note(("nomod", path), f"module.{'.module.'.join(path)}: {self.dirs.why(path)}; its values known "
                       "only after apply stay unknown")
        return d

    def module_source(self, module_addr: str) -> ModuleSource | None:
        """The parsed source of module instance ``module_addr`` ('' for the root),
        None when it is not available or does not match the plan (noted once)."""
        path = tuple(n for n, _ in parse_module_address(module_addr))
        if path in self._modules:
            return self._modules[path]
        self._modules[path] = None
        if path and self.module_source(module_parent(module_addr)) is None:
            return None  # the caller's source is not read: neither is the callee's
        d = self.module_dir(path)
        if d is None:
            return None
        label = f"module.{'.module.'.join(path)}" if path else "the root module"
        ms = ModuleSource(d, self.dirs.read, self.dirs.budget)
        if ms.error:
            if not path and ms.error.startswith("no .tf files"):
                self._note("root", f"source not read: {ms.error} (pass --source-dir with the root configuration the "
                           "plan was made from); values known only after apply stay unknown")
            else:
                self._note(("err", path), f"source of {label} not read: {ms.error}; its values known only after "
                           "apply stay unknown")
            return None
        cfg = self.plan.module_config_path(path)
        why = ms.mismatch(cfg) if cfg is not None else "the plan has no configuration for it"
        if why:
            self._note(("mismatch", path), f"source of {label} in {d} does not match the plan ({why}); its values "
                       "known only after apply stay unknown")
            return None
        self._modules[path] = ms
        return ms

    # -- values --------------------------------------------------------------------------------
    @property
    def evaluator(self) -> Evaluator:
        """The evaluator, made on first use."""
        if self._ev is None:
            self._ev = Evaluator(self)
        return self._ev

    def _resource_block(self, res: Resource):
        """(module source, the block declaring ``res``); (None, None) when not available."""
        ms = self.module_source(res.module)
        if ms is None:
            return None, None
        return ms, ms.resources.get(res.local)

    def _scope(self, res: Resource, block: _Block) -> Scope:
        """The scope ``res``'s expressions are evaluated in: its module instance and instance key."""
        attrs = block.attrs()
        each = attrs.get("for_each")
        return Scope(res.module, res.index, (res.module, each) if each is not None else None)

    def _resource_mismatch(self, res: Resource, block: _Block) -> str | None:
        """Known scalar attributes of the instance must evaluate to their planned values."""
        key = res.address
        if key in self._checked:
            return self._checked[key]
        self._checked[key] = None
        sc = self._scope(res, block)
        why = None
        for name, node in block.attrs().items():
            if name in ("count", "for_each", "depends_on", "provider", "lifecycle"):
                continue
            planned = res.values.get(name)
            if res.unknown.get(name) is True or planned is None:
                continue
            if isinstance(planned, str) and planned.lstrip()[:1] in ("{", "["):
                continue  # JSON the provider may normalise
            if not isinstance(planned, (str, int, float, bool)):
                continue
            try:
                got = _whole(self.evaluator.eval(node, sc))
            except (_Error, RecursionError):
                continue
            except _OutOfSteps as e:
                self._out_of_steps(f"{res.address}.{name}", e)
                continue
            if first_unknown(got) is not None or not isinstance(got, (str, int, float, bool)):
                continue
            if not _same_scalar(got, planned):
                why = f"{res.address}.{name} is {planned!r} in the plan but {got!r} in the source"
                break
        self._checked[key] = why
        return why

    def _guarded(self, fn, res: Resource, *args):
        """Reading the source never fails the check: anything unexpected is said once."""
        if self.steps > self.max_steps:
            return None  # the budget is spent: the plan's values stand
        try:
            return fn(res, *args)
        except _OutOfSteps as e:
            self._out_of_steps(f"the values of {res.address}", e)
            return None
        except Exception as e:  # noqa: BLE001 - an odd configuration must not stop the check
            self._note(("crash", res.address), f"source of {res.address} could not be read ({type(e).__name__}: "
                       f"{' '.join(str(e).split())[:200]}); its values known only after apply stay unknown")
            return None

    def module_variable(self, module: str, name: str):
        """The value a module instance's input variable gets, plain (int, str, ...), or
        None when the source cannot say or it is only known after apply."""
        try:
            v = _whole_deep(self.evaluator.variable(module, name))
        except Exception:  # noqa: BLE001 - an odd configuration must not stop the check
            return None
        if isinstance(v, (Unknown, Template)) or first_unknown(v) is not None:
            return None
        return v

    def value(self, res: Resource, attr: str) -> Evaluated | None:
        """The partial value of ``res.attr`` from source; None when the source cannot say
        (missing, not matching the plan, attribute not set in the block)."""
        return self._guarded(self._read, res, attr)

    def block(self, res: Resource) -> tuple[dict, SourceRef] | None:
        """The block of ``res`` evaluated: attributes, and nested blocks (dynamic
        ones expanded) as lists; None when the source cannot say."""
        got = self._guarded(self._read, res, None)
        return (got.value, got.ref) if got is not None else None

    def _read(self, res: Resource, attr: str | None) -> Evaluated | None:
        """Source.value (``attr``) and Source.block (``attr`` None), unguarded: the one
        sequence both follow. Find the declaration; check the references of the expression
        (of every attribute of the block) against the plan's, and the resource's known
        scalars; evaluate, an error making the value unknown; then check that Terraform would
        not have known a value the plan leaves unknown, and keep sensitive values."""
        ms, block = self._resource_block(res)
        if block is None:
            return None
        if attr is None:  # the whole block
            node = None
            ref = SourceRef(block.file, block.line, self.root)
            refs_match = self._body_refs_match(res, block)
        else:
            node = block.attrs().get(attr)
            if node is None:
                return None
            ref = SourceRef(block.file, _attr_line(block.body, attr) or block.line, self.root)
            refs_match = self._refs_match(res, attr, node)
        if not refs_match:
            name, stays, _, _ = _read_labels(res, attr)
            self._note(("refs", res.module, res.local, attr),
                       f"{ref}: {name} does not match the plan (its references differ); {stays}")
            return None
        if not self._resource_matches(res, block, ref):
            return None
        sc = self._scope(res, block)
        try:
            v = self._eval_body(block.body, block.file, sc) if node is None else _whole_deep(self.evaluator.eval(node, sc))
        except _Error as e:
            v = Unknown(f"{_read_labels(res, attr)[3]} ({e})")
        except RecursionError:
            v = Unknown(f"the {_read_labels(res, attr)[2]} nests too deeply to evaluate")
        except _OutOfSteps as e:
            self._out_of_steps(f"the block of {res.address}" if node is None else f"{res.address}.{attr}", e)
            return None  # the source cannot say: the plan's own value stands
        if node is None:
            for key, val in v.items() if isinstance(v, dict) else ():
                if self._attr_sensitive(res, key):
                    self.sensitive(val, res.address)
        else:
            if first_unknown(v) is None and res.unknown.get(attr) is True and self._known_to_terraform(node, res, block):
                self._note(("known", res.address, attr), f"{ref}: the source gives {res.address}.{attr} a value the "
                           "plan does not know yet: source and plan do not match; it stays unknown")
                return None
            if self._attr_sensitive(res, attr):
                self.sensitive(v, res.address)
        self.used += 1
        return Evaluated(v, ref)

    def _resource_matches(self, res: Resource, block: _Block, ref: SourceRef) -> bool:
        """Whether the known scalar attributes of ``res`` evaluate to their planned values;
        else the source is not the plan's (said once) and its values stay unknown."""
        why = self._resource_mismatch(res, block)
        if why:
            self._note(("res", res.address), f"{ref}: the source does not match the plan ({why}); values of "
                       f"{res.address} known only after apply stay unknown")
        return why is None

    def _known_to_terraform(self, node, res: Resource, block) -> bool:
        """Whether the expression is known without deciding `!= null` of values known after
        apply, i.e. whether Terraform itself would have known it (then a plan that does not
        is not a plan of this source)."""
        if self._plain_ev is None:
            self._plain_ev = Evaluator(self, refine=False)
        try:
            v = _whole_deep(self._plain_ev.eval(node, self._scope(res, block)))
        except (_Error, RecursionError, _OutOfSteps):
            return True
        return first_unknown(v) is None

    def _body_refs_match(self, res: Resource, block: _Block) -> bool:
        """Whether the references of every attribute of the block in the source are those the plan recorded."""
        cfg = res.config
        plan_refs: list[str] = []
        if cfg is not None:
            for v in cfg.expressions.values():
                plan_refs.extend(_plan_refs(v))
        mine: set = set()
        self._body_refs(block.body, frozenset(), mine)
        return _longest(mine) == _longest(plan_refs)

    def _body_refs(self, body, bound, out):
        """The references of every attribute of a block body (nested blocks too; not dynamic ones, which the plan
        leaves out)."""
        for name, node in _body_attrs(body).items():
            if name in ("count", "for_each", "depends_on", "provider", "lifecycle"):
                continue
            out |= references(node, bound)
        for b in _body_blocks(body, None):
            # the plan's configuration leaves dynamic blocks out
            if b.kind not in ("dynamic", "lifecycle", "provisioner", "connection"):
                self._body_refs(b.body, bound, out)

    def _eval_body(self, body, file, sc: Scope) -> dict:
        """A block body evaluated: attributes, and nested blocks (dynamic ones expanded) as lists."""
        ev = self.evaluator
        out: dict = {}
        for name, node in _body_attrs(body).items():
            if name in ("count", "for_each", "depends_on", "provider"):
                continue
            out[name] = _whole_deep(ev.eval(node, sc))
        for b in _body_blocks(body, file):
            if b.kind == "dynamic" and b.labels:
                attrs = b.attrs()
                it = attrs.get("iterator")
                itname = b.labels[0]
                if it is not None:
                    t = _traversal(it)
                    itname = t[0] if t else itname
                coll = _whole(ev.eval(attrs["for_each"], sc)) if "for_each" in attrs else []
                content = next((c for c in b.blocks() if c.kind == "content"), None)
                lst = out.setdefault(b.labels[0], [])
                if isinstance(lst, Unknown):
                    continue
                if is_unknown(coll):
                    out[b.labels[0]] = Unknown(f"dynamic \"{b.labels[0]}\" iterates over a collection not known "
                                               f"({_why(coll)})")
                    continue
                if content is None:
                    continue
                for k, v in _pairs(coll):
                    lst.append(self._eval_body(content.body, file, sc.bind({itname: _Iter(k, v)})))
            elif b.kind not in ("lifecycle", "provisioner", "connection"):
                lst = out.setdefault(b.kind, [])
                if isinstance(lst, list):
                    lst.append(self._eval_body(b.body, file, sc))
        return out

    def _refs_match(self, res: Resource, attr: str, node) -> bool:
        """Whether the references of ``res.attr``'s expression in the source are those the plan recorded."""
        cfg = res.config
        expr = cfg.expressions.get(attr) if cfg is not None else None
        if expr is None:
            return False
        mine = _longest(references(node))
        theirs = _longest(_plan_refs(expr))
        return mine == theirs



def _read_labels(res: Resource, attr: str | None) -> tuple[str, str, str, str]:
    """(what is read, what stays unknown, what is evaluated, how it fails) in Source._read's
    notes and reasons: for attribute ``attr`` of ``res``, or its whole block (None)."""
    if attr is None:
        return (res.local, "values known only after apply stay unknown", "block", "the block fails to evaluate")
    return (f"{res.local}.{attr}", "the value known only after apply stays unknown", "expression",
            "the expression fails")


def _same_scalar(a, b) -> bool:
    """Whether an evaluated scalar is the planned one (numbers and bools compared as Terraform converts them)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return str(a).lower() == str(b).lower()
    if isinstance(a, (int, float)) or isinstance(b, (int, float)):
        try:
            return float(a) == float(b)
        except (TypeError, ValueError):
            return False
    return a == b
