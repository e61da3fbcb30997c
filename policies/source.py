"""What the plan leaves unknown, read from the configuration source the plan came from.

A redrive policy written ``jsonencode({deadLetterTargetArn = aws_sqs_queue.dlq.arn,
maxReceiveCount = 5})`` is unknown in the plan of a new queue: the whole string
waits for the DLQ's ARN. The plan's ``configuration`` section only lists what
the expression references. The source has the rest. :class:`Source` parses the
``.tf`` files of the root module and of the module calls (found through
``.terraform/modules/modules.json`` after ``terraform init``, or local paths),
with python-hcl2, only when an unknown attribute asks for it, and evaluates the
expression partially: literals, templates, heredocs, ``jsonencode``, object and
tuple constructors, ``local.*``, ``var.*`` (the plan's variables, module
inputs), ``each``/``count`` per instance, attributes the plan knows, and common
functions. A reference to a value known only after apply becomes a
:class:`Pending` placeholder naming the resource; anything not evaluated an
:class:`Unknown` carrying the reason. Nothing is guessed.

The source is checked against the plan before use: the declarations of each
module directory must be those of the plan's configuration, the references of
each expression those the plan recorded, and the known scalar attributes of
the resource must evaluate to the planned values. When the source is missing or
does not match, :attr:`Source.notes` says so once and the caller keeps the
plan's unknown.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from .graph import UNKNOWN, Plan, Resource, module_parent, parse_module_address, reduce_refs


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


def _settled(v) -> bool:
    """A value whose unknown parts are all identity attributes of resources (see
    :attr:`Pending.identity`): it cannot turn out null, empty or failing after apply."""
    if isinstance(v, Pending):
        return v.identity
    if isinstance(v, Unknown):
        return False
    if isinstance(v, Template):
        return all(isinstance(p, str) or _settled(p) for p in v.parts)
    if isinstance(v, JsonText):
        return _settled(v.value)
    if isinstance(v, dict):
        return all(_settled(x) for x in v.values())
    if isinstance(v, list):
        return all(_settled(x) for x in v)
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


class SourceRef:
    """Where a value came from: file (relative to the root configuration) and line."""

    __slots__ = ("path", "line", "label")

    def __init__(self, path: Path, line: int, root: Path):
        self.path = path
        self.line = line
        try:
            rel = os.path.relpath(path, root)
        except ValueError:
            rel = str(path)
        self.label = f"{Path(rel).as_posix()}:{line}"

    def __str__(self):
        return self.label


class Evaluated:
    __slots__ = ("value", "ref")

    def __init__(self, value, ref: SourceRef):
        self.value = value
        self.ref = ref


class _Error(Exception):
    """The expression fails (as Terraform would fail it): try() moves on, elsewhere it is unknown."""


# Evaluation steps (expressions evaluated, for-expression items included) one check may
# spend on the source: real configurations need a few thousand; a `for` over 300^3 items
# would take minutes. Past it, what is left stays unknown, with a note.
MAX_STEPS = 1_000_000


class _OutOfSteps(Exception):
    """The evaluation step budget of the check is spent (not an expression failure: try() does not catch it)."""


# -- the parsed configuration ------------------------------------------------------------------
def _parser():
    from hcl2.api import parses_to_tree  # python-hcl2: imported only when source is read

    return parses_to_tree


def _trees(t) -> list:
    from lark import Tree

    return [c for c in t.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]


def _name(node) -> str:
    """identifier / keyword / literal_value / string node -> the name it spells."""
    if node.data == "string":
        return "".join(str(p.children[0]) for p in node.children if not isinstance(p, str) and p.data == "string_part")
    return str(node.children[0])


class _Block:
    __slots__ = ("kind", "labels", "body", "file", "line")

    def __init__(self, kind, labels, body, file, line):
        self.kind, self.labels, self.body, self.file, self.line = kind, labels, body, file, line

    def attrs(self) -> dict:
        return _body_attrs(self.body)

    def blocks(self) -> list:
        return _body_blocks(self.body, self.file)


def _body_attrs(body) -> dict:
    out = {}
    for c in _trees(body):
        if c.data == "attribute":
            kids = _trees(c)
            out[_name(kids[0])] = kids[-1]
    return out


def _body_blocks(body, file) -> list:
    out = []
    for c in _trees(body):
        if c.data == "block":
            kids = _trees(c)
            head = [k for k in kids if k.data != "body"]
            inner = next(k for k in kids if k.data == "body")
            out.append(_Block(_name(head[0]), [_name(h) for h in head[1:]], inner, file, c.meta.line))
    return out


def _attr_line(body, name) -> int | None:
    for c in _trees(body):
        if c.data == "attribute" and _name(_trees(c)[0]) == name:
            return c.meta.line
    return None


class ModuleSource:
    """The parsed ``.tf`` files of one module directory."""

    def __init__(self, directory: Path, read=None):
        """``read``: Path -> bytes, raising files.Refused (ModuleDirs.read: bounded, inside the roots)."""
        from .files import Refused, read_regular

        read = read or read_regular
        self.dir = directory
        self.resources: dict[str, _Block] = {}
        self.calls: dict[str, _Block] = {}
        self.locals: dict[str, tuple] = {}  # name -> (expression, file, line)
        self.outputs: dict[str, tuple] = {}
        self.variables: dict[str, _Block] = {}
        self.sensitive_outputs: set[str] = set()
        self.error: str | None = None
        files = sorted(directory.glob("*.tf")) if directory.is_dir() else []
        if not files:
            self.error = f"no .tf files in {directory}"
            return
        special = [f.name for f in sorted(directory.glob("*.tf.json"))] + [
            f.name for f in files if f.name == "override.tf" or f.name.endswith("_override.tf")]
        if special:
            self.error = f"{', '.join(special[:3])}: JSON configuration and override files are not read"
            return
        try:
            parse = _parser()
        except ImportError as e:
            self.error = f"python-hcl2 cannot be imported ({e}; pip install 'python-hcl2>=8.1,<9')"
            return
        texts = []
        for f in files:  # all read (bounded) before any is parsed
            try:
                texts.append((f, read(f).decode("utf-8", errors="replace")))
            except Refused as e:
                self.error = str(e)
                return
        for f, text in texts:
            try:
                tree = parse(text)
            except Exception as e:  # lark's parse errors: one line, never a traceback
                msg = " ".join(str(e).split())
                self.error = f"{f.name} cannot be parsed ({msg[:200]})"
                return
            for b in _body_blocks(_trees(tree)[0], f):
                if b.kind == "resource" and len(b.labels) == 2:
                    self.resources[f"{b.labels[0]}.{b.labels[1]}"] = b
                elif b.kind == "data" and len(b.labels) == 2:
                    self.resources[f"data.{b.labels[0]}.{b.labels[1]}"] = b
                elif b.kind == "module" and b.labels:
                    self.calls[b.labels[0]] = b
                elif b.kind == "locals":
                    for c in _trees(b.body):
                        if c.data == "attribute":
                            kids = _trees(c)
                            self.locals[_name(kids[0])] = (kids[-1], f, c.meta.line)
                elif b.kind == "output" and b.labels:
                    attrs = b.attrs()
                    if _declared_sensitive(b):
                        self.sensitive_outputs.add(b.labels[0])
                    if "value" in attrs:
                        self.outputs[b.labels[0]] = (attrs["value"], f, _attr_line(b.body, "value") or b.line)
                elif b.kind == "variable" and b.labels:
                    self.variables[b.labels[0]] = b

    def mismatch(self, cfg) -> str | None:
        """Why these files are not the configuration the plan describes (None: they are)."""
        for what, mine, theirs in (("resources", self.resources, cfg.resources), ("module calls", self.calls, cfg.calls),
                                   ("outputs", self.outputs, cfg.outputs)):
            extra = sorted(set(mine) - set(theirs))
            missing = sorted(set(theirs) - set(mine))
            if extra or missing:
                bits = []
                if missing:
                    bits.append(f"lack {', '.join(missing[:3])}{', …' if len(missing) > 3 else ''} that the plan has")
                if extra:
                    bits.append(f"declare {', '.join(extra[:3])}{', …' if len(extra) > 3 else ''} that the plan does not have")
                return f"its {what} differ from the plan's: the files {' and '.join(bits)}"
        return None


# -- references, as Terraform lists them in the plan --------------------------------------------
def references(node, bound: frozenset = frozenset()) -> set[str]:
    """The static traversals an expression makes (Terraform's ``references``,
    reduced to the longest), names bound by for expressions excluded."""
    out: set[str] = set()
    _refs(node, bound, out)
    return out


_TRAV_NODES = ("get_attr_expr_term", "index_expr_term", "attr_splat_expr_term", "full_splat_expr_term")


def _static_index(node):
    """The constant key of an index node, or None."""
    if node.data == "short_index":
        return int(str(node.children[-1]))
    expr = _trees(node)[0]
    while expr.data == "expr_term" and len(_trees(expr)) == 1 and not any(
            not hasattr(c, "data") and str(c) == "(" for c in expr.children):
        expr = _trees(expr)[0]
    if expr.data == "int_lit":
        return int(str(expr.children[0]))
    if expr.data == "string":
        parts = [p for p in expr.children if hasattr(p, "data")]
        if all(not hasattr(p.children[0], "data") and p.children[0].type == "STRING_CHARS" for p in parts):
            return _unescape("".join(str(p.children[0]) for p in parts))
    return None


def _traversal(node):
    """(root name, [steps], [dynamic sub-expressions]) of a traversal chain, or None."""
    steps: list = []
    dynamic: list = []
    chain = []
    n = node
    while n.data in _TRAV_NODES or (n.data == "expr_term" and len(_trees(n)) == 1 and _trees(n)[0].data in
                                    _TRAV_NODES + ("identifier",) and not any(
                                        not hasattr(c, "data") and str(c) == "(" for c in n.children)):
        if n.data == "expr_term":
            n = _trees(n)[0]
            continue
        kids = _trees(n)
        chain.append(kids[1])
        n = kids[0]
    if n.data == "expr_term":
        kids = _trees(n)
        if len(kids) == 1 and kids[0].data == "identifier":
            n = kids[0]
    if n.data != "identifier":
        return None
    root = _name(n)
    stopped = False
    for step in reversed(chain):
        if stopped:
            _collect_step_dynamic(step, dynamic)
            continue
        if step.data == "get_attr":
            steps.append(_name(_trees(step)[0]))
        elif step.data in ("braces_index", "short_index"):
            k = _static_index(step)
            if k is None:
                stopped = True
                dynamic.extend(_trees(step))
            else:
                steps.append(_Key(k) if isinstance(k, str) else k)
        else:  # splats end the static traversal
            stopped = True
            _collect_step_dynamic(step, dynamic)
    return root, steps, dynamic


def _collect_step_dynamic(step, dynamic):
    if step.data == "braces_index":
        dynamic.extend(_trees(step))
    elif step.data in ("attr_splat", "full_splat"):
        for s in _trees(step):
            _collect_step_dynamic(s, dynamic)


def _fmt_ref(root: str, steps: list) -> str:
    s = root
    for p in steps:
        if isinstance(p, str) and not isinstance(p, _Key):
            s += f".{p}"
        elif isinstance(p, int):
            s += f"[{p}]"
        else:
            s += f"[{json.dumps(str(p))}]"
    return s


class _Key(str):
    """A string index key (``["a"]``), as opposed to an attribute name."""


def _refs(node, bound, out):
    if not hasattr(node, "data"):
        return
    d = node.data
    if d in _TRAV_NODES or d == "identifier" or (d == "expr_term" and len(_trees(node)) == 1
                                                 and _trees(node)[0].data == "identifier"):
        t = _traversal(node)
        if t is not None:
            root, steps, dynamic = t
            if root not in bound:
                if steps:  # a bare name is no reference (a function's result attribute, a typo)
                    out.add(_fmt_ref(root, steps))
            for x in dynamic:
                _refs(x, bound, out)
            return
    if d in ("for_tuple_expr", "for_object_expr"):
        intro = next(c for c in _trees(node) if c.data == "for_intro")
        names = [_name(c) for c in _trees(intro) if c.data == "identifier"]
        _refs(_trees(intro)[-1], bound, out)
        inner = bound | frozenset(names)
        for c in _trees(node):
            if c is not intro:
                _refs(c, inner, out)
        return
    if d in ("heredoc_template", "heredoc_template_trim"):
        got = _heredoc_expr(node)
        if got is not None:
            _refs(got, bound, out)
        return
    if d == "string":  # names bound by %{for} directives are not references
        names = [_name(x) for p in node.children if hasattr(p, "data") for c in p.children
                 if hasattr(c, "data") and c.data == "template_for_start" for x in _trees(c) if x.data == "identifier"]
        if names:
            bound = bound | frozenset(names)
    if d == "function_call":
        for c in _trees(node)[1:]:
            _refs(c, bound, out)
        return
    if d == "object_elem_key":
        kids = _trees(node)
        if kids and kids[0].data == "expr_term" and len(_trees(kids[0])) == 1 and _trees(kids[0])[0].data == "identifier":
            return  # a bare key is a name, not a reference
    for c in node.children:
        _refs(c, bound, out)


def _longest(refs) -> set[str]:
    """Terraform lists a.b.c with a.b and a: keep the longest, drop the link-less."""
    out = set()
    for r in reduce_refs(list(refs)):
        out.add(r)
    return out


def _plan_refs(expr) -> list[str]:
    from .graph import collect_refs

    return collect_refs(expr)


# -- strings, templates, heredocs ---------------------------------------------------------------
_ESC = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def _unescape(s: str) -> str:
    if "\\" not in s:
        return s
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            if n in _ESC:
                out.append(_ESC[n])
                i += 2
                continue
            if n == "u" and i + 6 <= len(s):
                out.append(chr(int(s[i + 2:i + 6], 16)))
                i += 6
                continue
            if n == "U" and i + 10 <= len(s):
                out.append(chr(int(s[i + 2:i + 10], 16)))
                i += 10
                continue
        out.append(c)
        i += 1
    return "".join(out)


_HEREDOC = re.compile(r"^<<(-?)([A-Za-z][A-Za-z0-9._-]*)\r?\n(.*?)\r?\n?[ \t]*\2\r?\n?$", re.S)
_heredoc_cache: dict = {}


def _heredoc_body(token: str) -> tuple[str, bool] | None:
    m = _HEREDOC.match(token)
    if not m:
        return None
    body = m.group(3)
    body = body + "\n" if body else ""  # the body keeps its last newline
    if m.group(1):
        lines = body.split("\n")
        indents = [len(ln) - len(ln.lstrip(" \t")) for ln in lines if ln.strip()]
        cut = min(indents) if indents else 0
        body = "\n".join(ln[cut:] for ln in lines)
    return body, bool(m.group(1))


def _heredoc_expr(node):
    """A heredoc's body as a template expression (a quoted string parsed by python-hcl2)."""
    token = str(node.children[0])
    if token in _heredoc_cache:
        return _heredoc_cache[token]
    got = None
    hb = _heredoc_body(token)
    if hb is not None and hb[1] and re.search(r"[$%]\{~|~\}", hb[0]):
        hb = None  # <<- trims after strip markers apply: not evaluated
    if hb is not None:
        quoted = _quote_template(hb[0])
        if quoted is not None:
            try:
                tree = _parser()(f"x = \"{quoted}\"\n")
                got = _trees(_trees(_trees(tree)[0])[0])[-1]
            except Exception:
                got = None
    _heredoc_cache[token] = got
    return got


def _quote_template(body: str) -> str | None:
    """Heredoc body -> the inside of an equivalent quoted template: literal text
    escaped, ``${...}``/``%{...}`` sequences kept as they are."""
    out = []
    i = 0
    n = len(body)
    lit = []

    def flush():
        if lit:
            s = "".join(lit)
            out.append(s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
                       .replace("\t", "\\t"))
            lit.clear()

    while i < n:
        two = body[i:i + 2]
        three = body[i:i + 3]
        if three in ("$${", "%%{"):
            flush()
            out.append(three)
            i += 3
            continue
        if two in ("${", "%{"):
            flush()
            j = _template_end(body, i + 2)
            if j is None:
                return None
            out.append(body[i:j + 1])
            i = j + 1
            continue
        lit.append(body[i])
        i += 1
    flush()
    return "".join(out)


def _template_end(s: str, i: int) -> int | None:
    """Index of the brace closing a template sequence opened before ``i``."""
    depth = 0
    n = len(s)
    while i < n:
        c = s[i]
        if c == '"':
            i += 1
            while i < n and s[i] != '"':
                if s[i] == "\\":
                    i += 1
                elif s[i:i + 2] == "${":
                    j = _template_end(s, i + 2)
                    if j is None:
                        return None
                    i = j
                i += 1
        elif c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return None


# -- lazy objects: what a reference evaluates to --------------------------------------------------
class _Lazy:
    """An object whose attributes are read on demand (a resource, a module, a namespace)."""

    def get(self, name: str):
        raise _Error(f"unsupported attribute {name!r}")

    def index(self, key):
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
    if u is True:
        return Pending(res, path)
    if isinstance(v, dict):
        return {k: _merge_unknown(res, path + (k,), x, u.get(k) if isinstance(u, dict) else None) for k, x in v.items()}
    if isinstance(v, list):
        return [_merge_unknown(res, path + (i,), x, u[i] if isinstance(u, list) and i < len(u) else None)
                for i, x in enumerate(v)]
    return v


class _ResObj(_Lazy):
    __slots__ = ("res",)

    def __init__(self, res: Resource):
        self.res = res

    def __repr__(self):
        return self.res.address

    def get(self, name):
        if name not in self.res.values and self.res.unknown.get(name) is not True:
            if self.res.mode == "managed" and "create" in self.res.actions:
                return Pending(self.res, (name,))
            return None
        return _plan_value(self.res, (name,))

    def value(self):
        return {k: self.get(k) for k in set(self.res.values) | set(self.res.unknown)}


class _ModObj(_Lazy):
    """A module instance: its outputs, evaluated from its source."""

    __slots__ = ("ev", "addr")

    def __init__(self, ev: "Evaluator", addr: str):
        self.ev = ev
        self.addr = addr

    def __repr__(self):
        return self.addr

    def get(self, name):
        return self.ev.output(self.addr, name)

    def value(self):
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
        if key in self.items:
            return self.items[key]
        if isinstance(key, float) and key.is_integer() and int(key) in self.items:
            return self.items[int(key)]
        raise _Error(f"{self.label}[{key!r}] is not in the plan")

    def get(self, name):
        raise _Error(f"{self.label} has count or for_each: index it before .{name}")

    def value(self):
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
        return Unknown(f"`{self.kind}.{name}` is not evaluated")


class Scope:
    """Where an expression is evaluated: module instance, instance key, for_each
    expression (for each.value), names bound by for expressions and dynamic blocks."""

    __slots__ = ("module", "key", "each", "bound")

    def __init__(self, module: str, key=None, each=None, bound=None):
        self.module = module
        self.key = key
        self.each = each  # (module instance, for_each expression node) or None
        self.bound = bound or {}

    def bind(self, names: dict) -> "Scope":
        return Scope(self.module, self.key, self.each, {**self.bound, **names})


_ROOTS = {"var", "local", "module", "data", "each", "count"}


class Evaluator:
    """Partial evaluation of configuration expressions against the plan."""

    def __init__(self, source: "Source", refine: bool = True):
        self.src = source
        self.plan = source.plan
        self._memo: dict = {}
        self._busy: set = set()
        # decide `x != null` when x is an identity attribute known only after apply
        # (Terraform leaves it unknown); off: Terraform's own view, to tell a value the source
        # decides by that from a source that does not match the plan
        self.refine = refine

    def module_source(self, module_addr: str) -> ModuleSource | None:
        return self.src.module_source(module_addr)

    # -- references ------------------------------------------------------------------------
    def _memoized(self, key, fn):
        if key in self._memo:
            return self._memo[key]
        if key in self._busy:
            return Unknown(f"{key[1]} refers to itself")
        self._busy.add(key)
        try:
            got = fn()
        except _Error as e:
            got = Unknown(str(e))
        finally:
            self._busy.discard(key)
        self._memo[key] = got
        return got

    def variable(self, module: str, name: str):
        def compute():
            if not module:
                if name in self.plan.variables:
                    return self.plan.variables[name]
                return Unknown(f"var.{name} is not in the plan's variables")
            parent = module_parent(module)
            call_name, key = parse_module_address(module)[-1]
            pms = self.module_source(parent)
            call = pms.calls.get(call_name) if pms else None
            if call is None:
                return Unknown(f"the module call {call_name} is not in the source")
            attrs = call.attrs()
            cfg = self.plan.module_config(module)
            if name in attrs:
                each = attrs.get("for_each")
                sc = Scope(parent, key, (parent, each) if each is not None else None)
                got = self.eval(attrs[name], sc)
                # null given to a `nullable = false` variable: Terraform uses its default. The
                # evaluator may also reach null where Terraform has a value (an expression it
                # does not follow, caught by try()), so the value is not decided: unknown, never
                # "null" (which SQS would refuse)
                if got is None and self._not_nullable(module, name):
                    return Unknown(f"var.{name} of {module} is null in the source, which Terraform replaces "
                                   "with the variable's default; the value is not read from source")
                return got
            var = (cfg.variables.get(name) if cfg else None) or {}
            return var.get("default")

        def checked():
            v = compute()
            if self._var_sensitive(module, name):
                self.src.sensitive(v)
            return v
        return self._memoized(("var", f"var.{name}", module), checked)

    def _var_sensitive(self, module: str, name: str) -> bool:
        cfg = self.plan.module_config(module)
        var = (cfg.variables.get(name) if cfg else None) or {}
        if isinstance(var, dict) and var.get("sensitive") is True:
            return True
        ms = self.src._modules.get(tuple(n for n, _ in parse_module_address(module)))
        return ms is not None and _declared_sensitive(ms.variables.get(name))

    def _not_nullable(self, module: str, name: str) -> bool:
        ms = self.module_source(module)
        block = ms.variables.get(name) if ms is not None else None
        if block is None:
            return False
        expr = block.attrs().get("nullable")
        return expr is not None and self.eval(expr, Scope(module)) is False

    def local(self, module: str, name: str):
        def compute():
            ms = self.module_source(module)
            if ms is None:
                return Unknown(f"the source of {module or 'the root module'} is not available")
            if name not in ms.locals:
                raise _Error(f"local.{name} is not declared")
            return self.eval(ms.locals[name][0], Scope(module))
        return self._memoized(("local", f"local.{name}", module), compute)

    def output(self, module: str, name: str):
        def compute():
            ms = self.module_source(module)
            if ms is None:
                return Unknown(f"the source of {module} is not available")
            if name not in ms.outputs:
                raise _Error(f"{module} has no output {name}")
            v = self.eval(ms.outputs[name][0], Scope(module))
            if name in ms.sensitive_outputs:
                self.src.sensitive(v)
            return v
        return self._memoized(("output", f"{module}.{name}", module), compute)

    def resource_ref(self, module: str, local: str):
        cfg = self.plan.module_config(module)
        rcfg = cfg.resources.get(local) if cfg else None
        insts = self.plan.instances.get((module, local)) or {}
        if rcfg is None:
            raise _Error(f"{local} is not in the plan's configuration")
        if not rcfg.keyed:
            r = insts.get(None)
            return _ResObj(r) if r is not None else Unknown(f"{local} is not in the plan")
        kind = "count" if isinstance(next(iter(insts), 0), int) else "for_each"
        return _Coll({k: _ResObj(r) for k, r in insts.items()}, kind, local)

    def module_ref(self, module: str, name: str):
        cfg = self.plan.module_config(module)
        call = cfg.calls.get(name) if cfg else None
        if call is None:
            raise _Error(f"module.{name} is not in the plan's configuration")
        if not call.keyed:
            addr = f"{module + '.' if module else ''}module.{name}"
            return _ModObj(self, addr)
        kids = self.plan.children.get((module, name)) or {}
        kind = "count" if isinstance(next(iter(kids), 0), int) else "for_each"
        return _Coll({k: _ModObj(self, a) for k, a in kids.items()}, kind, f"module.{name}")

    def each_value(self, sc: Scope):
        mod, expr = sc.each
        coll = self._memoized(("each", id(expr), mod), lambda: self.eval(expr, Scope(mod)))
        if isinstance(coll, Unknown):
            return Unknown(f"each.value: the for_each collection is not known ({coll.why})")
        coll = _whole(coll)
        if isinstance(coll, dict):
            if sc.key in coll:
                return coll[sc.key]
            raise _Error(f"each.value: no key {sc.key!r} in the for_each collection")
        if isinstance(coll, list):  # a set of strings: each.value is each.key
            return sc.key
        raise _Error("for_each is neither a map nor a set")

    # -- expressions -----------------------------------------------------------------------
    def eval(self, node, sc: Scope):
        src = self.src
        src.steps += 1
        if src.steps > src.max_steps:
            raise _OutOfSteps()
        d = node.data
        fn = getattr(self, "_e_" + d, None)
        if fn is None:
            return Unknown(f"`{d}` expressions are not evaluated")
        return fn(node, sc)

    def _e_expr_term(self, node, sc):
        kids = _trees(node)
        return self.eval(kids[0], sc)

    def _e_int_lit(self, node, sc):
        return int(str(node.children[0]))

    def _e_float_lit(self, node, sc):
        v = float(str(node.children[0]))
        return int(v) if v.is_integer() else v

    def _e_literal_value(self, node, sc):
        return {"true": True, "false": False, "null": None}[str(node.children[0])]

    def _e_identifier(self, node, sc):
        name = _name(node)
        if name in sc.bound:
            return sc.bound[name]
        if name in _ROOTS:
            return _NS(name, self, sc)
        if name in ("path", "terraform", "self"):
            return _NS(name, self, sc, name)
        return _NS("type", self, sc, name)

    _e_keyword = _e_identifier

    def _e_tuple(self, node, sc):
        return [self.eval(c, sc) for c in _trees(node)]

    def _e_object(self, node, sc):
        out = {}
        for el in _trees(node):
            kids = _trees(el)
            keynode, val = kids[0], kids[-1]
            k = self._object_key(keynode, sc)
            if isinstance(k, Unknown):
                return Unknown(f"an object key is not known ({k.why})")
            out[k] = self.eval(val, sc)
        return out

    def _object_key(self, keynode, sc):
        kids = _trees(keynode)
        inner = kids[0]
        if inner.data == "keyword":
            return _name(inner)
        if inner.data == "expr_term":
            sub = _trees(inner)
            paren = any(not hasattr(c, "data") and str(c) == "(" for c in inner.children)
            if len(sub) == 1 and sub[0].data == "identifier" and not paren:
                return _name(sub[0])
        k = self.eval(inner, sc)
        if isinstance(k, (int, float, bool)) and not isinstance(k, bool):
            k = _num_str(k)
        if isinstance(k, Template):
            return Unknown("part of it is known only after apply")
        if not isinstance(k, str) and not isinstance(k, Unknown):
            raise _Error("an object key is not a string")
        return k

    def _e_string(self, node, sc):
        parts = [p for p in node.children if hasattr(p, "data")]
        return self._template(parts, sc)

    def _e_template_string(self, node, sc):
        raw = str(node.children[0])
        return _unescape(raw[2:-2])

    def _e_heredoc_template(self, node, sc):
        expr = _heredoc_expr(node)
        if expr is None:
            return Unknown("a heredoc that could not be read as a template")
        return self.eval(expr, sc)

    _e_heredoc_template_trim = _e_heredoc_template

    def _template(self, parts, sc):
        items = []  # ("lit", str) | ("expr", node) | ("if", node, strip) ...
        for p in parts:
            c = p.children[0]
            if not hasattr(c, "data"):
                t = c.type
                if t == "STRING_CHARS":
                    items.append(("lit", _unescape(str(c))))
                elif t == "ESCAPED_INTERPOLATION":
                    items.append(("lit", str(c)[1:]))
                elif t == "ESCAPED_DIRECTIVE":
                    items.append(("lit", str(c)[1:]))
                continue
            kind = c.data
            strip_l = any(not hasattr(x, "data") and x.type == "STRIP_MARKER" and i == 1
                          for i, x in enumerate(c.children))
            strip_r = any(not hasattr(x, "data") and x.type == "STRIP_MARKER" and i == len(c.children) - 2
                          for i, x in enumerate(c.children))
            if kind == "interpolation":
                items.append(("expr", _trees(c)[0], strip_l, strip_r))
            elif kind == "template_if_start":
                items.append(("if", _trees(c)[-1], strip_l, strip_r))
            elif kind == "template_else":
                items.append(("else", None, strip_l, strip_r))
            elif kind == "template_endif":
                items.append(("endif", None, strip_l, strip_r))
            elif kind == "template_for_start":
                names = [_name(x) for x in _trees(c) if x.data == "identifier"]
                items.append(("for", (names, _trees(c)[-1]), strip_l, strip_r))
            elif kind == "template_endfor":
                items.append(("endfor", None, strip_l, strip_r))
        out = _TemplateOut()
        self._render(items, 0, len(items), sc, out)
        return out.result()

    def _render(self, items, i, end, sc, out):
        while i < end:
            it = items[i]
            kind = it[0]
            if kind == "lit":
                out.add(it[1])
                i += 1
                continue
            if len(it) > 2 and it[2]:
                out.strip_right()
            if kind == "expr":
                v = self.eval(it[1], sc)
                out.add_value(v)
                if it[3]:
                    out.strip_next = True
                i += 1
                continue
            if kind in ("if", "for"):
                close = "endif" if kind == "if" else "endfor"
                depth, j, mid = 0, i + 1, None
                while j < end:
                    k2 = items[j][0]
                    if k2 in ("if", "for"):
                        depth += 1
                    elif k2 in ("endif", "endfor"):
                        if depth == 0:
                            break
                        depth -= 1
                    elif k2 == "else" and depth == 0 and kind == "if":
                        mid = j
                    j += 1
                if j >= end or items[j][0] != close:
                    out.failed = Unknown("an unterminated template directive")
                    return
                if kind == "if":
                    cond = self.eval(it[1], sc)
                    if isinstance(cond, Unknown) or is_unknown(cond):
                        out.failed = Unknown(f"a template %{{if}} condition is not known ({_why(cond)})")
                        return
                    if cond is True or cond == "true":
                        branch, end_strip = (i + 1, mid if mid is not None else j), it[3]
                        close_strip = items[mid][2] if mid is not None else items[j][2]
                    elif mid is not None:
                        branch, end_strip, close_strip = (mid + 1, j), items[mid][3], items[j][2]
                    else:
                        branch, end_strip, close_strip = None, it[3] or items[j][3], False
                    if branch is not None:
                        if end_strip:
                            out.strip_next = True
                        self._render(items, branch[0], branch[1], sc, out)
                        if close_strip:
                            out.strip_right()
                else:
                    names, coll_node = it[1]
                    coll = _whole(self.eval(coll_node, sc))
                    if is_unknown(coll):
                        out.failed = Unknown(f"a template %{{for}} collection is not known ({_why(coll)})")
                        return
                    for k, v in _pairs(coll):
                        bind = {names[0]: v} if len(names) == 1 else {names[0]: k, names[1]: v}
                        if it[3]:
                            out.strip_next = True
                        self._render(items, i + 1, j, sc.bind(bind), out)
                        if items[j][2]:
                            out.strip_right()
                if items[j][3]:
                    out.strip_next = True
                i = j + 1
                continue
            i += 1  # a stray else/endif/endfor

    def _e_conditional(self, node, sc):
        cond, a, b = _trees(node)
        c = self.eval(cond, sc)
        if is_unknown(c):
            return Unknown(f"a condition is not known ({_why(c)})")
        if c is True:
            return self.eval(a, sc)
        if c is False:
            return self.eval(b, sc)
        raise _Error("a condition is not a boolean")

    def _e_unary_op(self, node, sc):
        op = node.children[0].type
        v = self.eval(_trees(node)[0], sc)
        if is_unknown(v):
            return Unknown(_why(v))
        if op == "MINUS":
            return -_num(v)
        return not _bool(v)

    def _e_binary_op(self, node, sc):
        left, term = _trees(node)
        opnode, right = _trees(term)
        op = opnode.children[0].type
        a = self.eval(left, sc)
        if op in ("DOUBLE_AMP", "DOUBLE_PIPE") and not is_unknown(a):
            a = _bool(a)
            if op == "DOUBLE_AMP" and a is False:
                return False
            if op == "DOUBLE_PIPE" and a is True:
                return True
        b = self.eval(right, sc)
        if op in ("DOUBLE_EQ", "NEQ") and self.refine and (a is None or b is None) and _settled(_whole(b if a is None else a)):
            return (op == "NEQ") is (_whole(b if a is None else a) is not None)
        if is_unknown(a) or is_unknown(b):
            return Unknown(_why(a if is_unknown(a) else b))
        if op in ("DOUBLE_AMP", "DOUBLE_PIPE"):
            return _bool(b)
        if op == "DOUBLE_EQ":
            return _plain(a) == _plain(b)
        if op == "NEQ":
            return _plain(a) != _plain(b)
        a, b = _num(a), _num(b)
        if op == "PLUS":
            return _norm_num(a + b)
        if op == "MINUS":
            return _norm_num(a - b)
        if op == "ASTERISK":
            return _norm_num(a * b)
        if op == "SLASH":
            if b == 0:
                raise _Error("division by zero")
            return _norm_num(a / b)
        if op == "PERCENT":
            return _norm_num(a % b)
        return {"LT": a < b, "GT": a > b, "LEQ": a <= b, "GEQ": a >= b}[op]

    def _step(self, v, step, sc):
        d = step.data
        if d == "get_attr":
            name = _name(_trees(step)[0])
            return _get(v, name)
        if d in ("braces_index", "short_index"):
            if d == "short_index":
                key = int(str(step.children[-1]))
            else:
                key = self.eval(_trees(step)[0], sc)
            if is_unknown(key):
                return Unknown(f"an index is not known ({_why(key)})")
            return _index(v, key)
        if d in ("attr_splat", "full_splat"):
            subs = _trees(step)
            v = _whole(v)
            if v is None:
                return []
            if isinstance(v, Unknown):
                return Unknown(v.why)
            items = v if isinstance(v, list) else ([v] if not isinstance(v, dict) else None)
            if items is None:
                raise _Error("a splat over a map")
            out = []
            for x in items:
                for s in subs:
                    x = self._step(x, s, sc)
                out.append(x)
            return out
        return Unknown(f"`{d}` is not evaluated")

    def _e_get_attr_expr_term(self, node, sc):
        base, step = _trees(node)
        return self._step(self.eval(base, sc), step, sc)

    _e_index_expr_term = _e_get_attr_expr_term
    _e_attr_splat_expr_term = _e_get_attr_expr_term
    _e_full_splat_expr_term = _e_get_attr_expr_term

    def _for(self, node, sc, is_object):
        kids = _trees(node)
        intro = kids[0]
        names = [_name(c) for c in _trees(intro) if c.data == "identifier"]
        coll = _whole(self.eval(_trees(intro)[-1], sc))
        if is_unknown(coll):
            return Unknown(f"a for expression's collection is not known ({_why(coll)})")
        rest = kids[1:]
        cond = rest[-1] if rest and rest[-1].data == "for_cond" else None
        if cond is not None:
            rest = rest[:-1]
        group = any(not hasattr(c, "data") and c.type == "ELLIPSIS" for c in node.children)
        out_l: list = []
        out_d: dict = {}
        for k, v in _pairs(coll):
            bind = {names[0]: v} if len(names) == 1 else {names[0]: k, names[1]: v}
            s2 = sc.bind(bind)
            if cond is not None:
                c = self.eval(_trees(cond)[-1], s2)
                if is_unknown(c):
                    return Unknown(f"a for expression's condition is not known ({_why(c)})")
                if not _bool(c):
                    continue
            if is_object:
                key = self.eval(rest[0], s2)
                if is_unknown(key):
                    return Unknown(f"a for expression's key is not known ({_why(key)})")
                key = _num_str(key) if isinstance(key, (int, float)) and not isinstance(key, bool) else key
                val = self.eval(rest[1], s2)
                if group:
                    out_d.setdefault(key, []).append(val)
                elif key in out_d:
                    raise _Error(f"duplicate key {key!r} in a for expression")
                else:
                    out_d[key] = val
            else:
                out_l.append(self.eval(rest[0], s2))
        return out_d if is_object else out_l

    def _e_for_tuple_expr(self, node, sc):
        return self._for(node, sc, False)

    def _e_for_object_expr(self, node, sc):
        return self._for(node, sc, True)

    def _e_function_call(self, node, sc):
        kids = _trees(node)
        idents = [k for k in kids if k.data == "identifier"]
        if len(idents) > 1:
            return Unknown(f"provider function `{'::'.join(_name(i) for i in idents)}` not evaluated")
        name = _name(idents[0])
        args_node = next((k for k in kids if k.data == "arguments"), None)
        arg_nodes = _trees(args_node) if args_node is not None else []
        expand = args_node is not None and any(not hasattr(c, "data") and c.type == "ELLIPSIS" for c in args_node.children)
        if name in ("try", "can"):
            return self._try(name, arg_nodes, sc)
        fn = FUNCTIONS.get(name)
        if fn is None:
            return Unknown(f"function `{name}` not evaluated")
        args = [self.eval(a, sc) for a in arg_nodes]
        if expand and args:
            last = _whole(args[-1])
            if is_unknown(last):
                return Unknown(_why(last))
            args = args[:-1] + list(last if isinstance(last, list) else [])
        return fn(*args)

    def _try(self, name, arg_nodes, sc):
        for a in arg_nodes:
            try:
                v = self.eval(a, sc)
                v = _whole_deep(v)
            except _Error:
                if name == "can":
                    return False
                continue
            if first_unknown(v) is not None and not isinstance(v, (str, int, float, bool)) and not _settled(v):
                return Unknown(f"{name}() of a value known only after apply ({first_unknown(v).why})")
            return True if name == "can" else v
        if name == "can":
            return False
        raise _Error("no argument of try() succeeded")


class _TemplateOut:
    def __init__(self):
        self.parts: list = []
        self.strip_next = False
        self.failed: Unknown | None = None  # a directive not evaluated: the whole string is unknown

    def add(self, s: str):
        # HCL strips whitespace within the adjacent literal token, and a literal
        # token ends after a newline: ~} takes the rest of its line
        if self.strip_next:
            s = re.sub(r"^[ \t]*\n?", "", s, count=1)
            self.strip_next = False
        if s:
            if self.parts and isinstance(self.parts[-1], str):
                self.parts[-1] += s
            else:
                self.parts.append(s)

    def add_value(self, v):
        v = _whole(v)
        if isinstance(v, Template):
            for p in v.parts:
                self.add(p) if isinstance(p, str) else self.parts.append(p)
            return
        if isinstance(v, Unknown):
            self.parts.append(v)
            return
        if isinstance(v, JsonText):
            self.parts.append(Unknown(f"jsonencode of a value known only after apply ({_why(v)})"))
            return
        if v is None:
            raise _Error("a null value in a string template")
        if isinstance(v, (dict, list)):
            raise _Error("a collection in a string template")
        self.add(_str(v))

    def strip_right(self):
        # %{~ takes the start of its line, or the whole previous line's end
        if self.parts and isinstance(self.parts[-1], str):
            self.parts[-1] = re.sub(r"[ \t]*\n?$" if self.parts[-1].endswith("\n") else r"[ \t]*$", "",
                                    self.parts[-1], count=1)

    def result(self):
        if self.failed is not None:
            return self.failed
        if not self.parts:
            return ""
        if len(self.parts) == 1 and isinstance(self.parts[0], str):
            return self.parts[0]
        if len(self.parts) == 1 and isinstance(self.parts[0], Unknown):
            return self.parts[0]
        return Template(list(self.parts))


# -- value helpers ---------------------------------------------------------------------------------
def _why(v) -> str:
    u = first_unknown(v) if not isinstance(v, Unknown) else v
    return u.why if u is not None else "unknown"


def _whole(v):
    """A lazy object as a plain value (one level)."""
    if isinstance(v, _Lazy):
        return v.value()
    return v


def _whole_deep(v):
    v = _whole(v)
    if isinstance(v, dict):
        return {k: _whole_deep(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_whole_deep(x) for x in v]
    return v


def _get(v, name):
    if isinstance(v, _Lazy):
        return v.get(name)
    if isinstance(v, Pending):
        return Pending(v.res, v.path + (name,))
    if isinstance(v, Unknown):
        return v
    if isinstance(v, dict):
        if name in v:
            return v[name]
        raise _Error(f"no attribute {name!r}")
    if v is None:
        raise _Error(f"attribute {name!r} of null")
    raise _Error(f"attribute {name!r} of a {type(v).__name__}")


def _index(v, key):
    if isinstance(v, _Lazy):
        return v.index(key)
    if isinstance(v, Pending):
        return Pending(v.res, v.path + (key,))
    if isinstance(v, Unknown):
        return v
    if isinstance(v, list):
        try:
            i = int(_num(key))
        except _Error:
            raise _Error(f"list index {key!r}") from None
        if 0 <= i < len(v):
            return v[i]
        raise _Error(f"index {i} out of range")
    if isinstance(v, dict):
        k = _num_str(key) if isinstance(key, (int, float)) and not isinstance(key, bool) else key
        if k in v:
            return v[k]
        raise _Error(f"no key {k!r}")
    raise _Error(f"cannot index a {type(v).__name__}")


def _pairs(coll):
    if isinstance(coll, dict):
        return list(coll.items())
    if isinstance(coll, list):
        return list(enumerate(coll))
    if coll is None:
        raise _Error("a for expression over null")
    raise _Error("a for expression over a non-collection")


def _num(v):
    if isinstance(v, bool):
        raise _Error("a bool where a number is expected")
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            raise _Error(f"{v!r} is not a number") from None
        return int(f) if f.is_integer() else f
    raise _Error(f"a {type(v).__name__} where a number is expected")


def _norm_num(v):
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _num_str(v) -> str:
    v = _norm_num(v)
    return str(v)


def _bool(v):
    if isinstance(v, bool):
        return v
    if v in ("true", "false"):
        return v == "true"
    raise _Error(f"{v!r} is not a boolean")


def _str(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return _num_str(v)
    if isinstance(v, str):
        return v
    raise _Error(f"a {type(v).__name__} where a string is expected")


def _plain(v):
    v = _whole_deep(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


# -- functions -------------------------------------------------------------------------------------
def _unknown_arg(args):
    for a in args:
        a = _whole(a)
        if isinstance(a, Unknown):
            return a
    return None


def _strict(fn):
    """A function whose result is unknown when an argument (even partly) is."""
    def wrapped(*args):
        args = [_whole_deep(a) for a in args]
        for a in args:
            u = first_unknown(a)
            if u is not None:
                return Unknown(u.why)
        return fn(*args)
    return wrapped


def _shallow(fn):
    """A function that only needs its arguments' shape: unknown elements pass through."""
    def wrapped(*args):
        args = [_whole(a) for a in args]
        u = _unknown_arg(args)
        if u is not None:
            return Unknown(u.why)
        args = [[_whole(x) for x in a] if isinstance(a, list) else
                ({k: _whole(x) for k, x in a.items()} if isinstance(a, dict) else a) for a in args]
        return fn(*args)
    return wrapped


def _jsonencode(v):
    v = _whole_deep(v)
    if first_unknown(v) is None:
        return json.dumps(_plain(v), separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    if isinstance(v, Unknown):
        return v
    return JsonText(v)


def _format(fmt, *args):
    args = [_whole_deep(a) for a in args]
    if is_unknown(fmt):
        return Unknown(_why(fmt))
    out = _TemplateOut()
    i = 0
    n = 0
    spec = re.compile(r"%(?:\[(\d+)\])?([-+ #0]*)(\d*)(?:\.(\d+))?([a-zA-Z%])")
    while i < len(fmt):
        m = spec.match(fmt, i) if fmt[i] == "%" else None
        if not m:
            j = fmt.find("%", i + 1)
            j = len(fmt) if j < 0 else j
            out.add(fmt[i:j])
            i = j
            continue
        i = m.end()
        verb = m.group(5)
        if verb == "%":
            out.add("%")
            continue
        if m.group(1):
            n = int(m.group(1)) - 1
        if n >= len(args):
            raise _Error("format: too few arguments")
        a = args[n]
        n += 1
        if isinstance(a, (Unknown, Template)):
            if verb in ("s", "v") and not m.group(2) and not m.group(3):
                out.add_value(a)
            else:
                out.add_value(Unknown(_why(a)))
            continue
        if verb in ("s", "v"):
            s = json.dumps(_plain(a)) if isinstance(a, (dict, list)) else _str(a)
        elif verb == "d":
            s = str(int(_num(a)))
        elif verb == "q":
            s = json.dumps(_str(a))
        elif verb == "t":
            s = _str(_bool(a))
        elif verb in ("f", "g", "e"):
            prec = m.group(4)
            s = format(float(_num(a)), (f".{prec}" if prec else "") + verb)
        else:
            return Unknown(f"format verb %{verb} not evaluated")
        width = int(m.group(3)) if m.group(3) else 0
        if len(s) < width:
            s = s.ljust(width) if "-" in m.group(2) else s.rjust(width, "0" if "0" in m.group(2) else " ")
        out.add(s)
    return out.result()


def _concat(*lists):
    out = []
    for x in lists:
        if not isinstance(x, list):
            raise _Error("concat of a non-list")
        out.extend(x)
    return out


def _merge(*maps):
    out = {}
    for m in maps:
        if m is None:
            continue
        if not isinstance(m, dict):
            raise _Error("merge of a non-map")
        out.update(m)
    return out


def _toset(v):
    if not isinstance(v, list):
        raise _Error("toset of a non-list")
    out = []
    for x in v:
        if is_unknown(x):
            return Unknown(f"toset of a value known only after apply ({_why(x)})")
        if x not in out:
            out.append(x)
    if all(isinstance(x, str) for x in out):
        out.sort()
    return out


def _coalesce(*args):
    for a in args:
        a = _whole(a)
        if is_unknown(a) and _settled(a):
            return a  # an ARN, ID, URL... is never null nor ""
        if is_unknown(a):
            return Unknown(f"coalesce over a value known only after apply ({_why(a)})")
        if a is not None and a != "":
            return a
    raise _Error("coalesce: no non-null argument")


def _lookup(m, key, *default):
    m = _whole(m)
    key = _whole(key)
    if is_unknown(m) or is_unknown(key):
        return Unknown(_why(m if is_unknown(m) else key))
    if not isinstance(m, dict):
        raise _Error("lookup of a non-map")
    if key in m:
        return m[key]
    if default:
        return default[0]
    raise _Error(f"lookup: no key {key!r}")


def _element(lst, i):
    lst = _whole(lst)
    i = _whole(i)
    if is_unknown(lst) or is_unknown(i):
        return Unknown(_why(lst if is_unknown(lst) else i))
    if not isinstance(lst, list) or not lst:
        raise _Error("element of an empty or non-list")
    return lst[int(_num(i)) % len(lst)]


def _flatten(v):
    out = []
    for x in v:
        x = _whole(x)
        if isinstance(x, Unknown):
            return Unknown(x.why)
        if isinstance(x, list):
            got = _flatten(x)
            if isinstance(got, Unknown):
                return got
            out.extend(got)
        else:
            out.append(x)
    return out


def _length(v):
    v = _whole(v)
    if is_unknown(v):
        return Unknown(_why(v))
    if isinstance(v, (list, dict, str)):
        return len(v)
    raise _Error("length of a non-collection")


def _keys(m):
    if not isinstance(m, dict):
        raise _Error("keys of a non-map")
    return sorted(m)


def _values(m):
    if not isinstance(m, dict):
        raise _Error("values of a non-map")
    return [m[k] for k in sorted(m)]


def _one(v):
    v = _whole(v)
    if is_unknown(v):
        return Unknown(_why(v))
    if not isinstance(v, list) or len(v) > 1:
        raise _Error("one() of more than one element")
    return v[0] if v else None


def _tostring(v):
    v = _whole(v)
    if isinstance(v, (Unknown, Template)) or v is None:
        return v
    if isinstance(v, (dict, list)):
        raise _Error("tostring of a collection")
    return _str(v)


def _tonumber(v):
    v = _whole(v)
    if is_unknown(v) or v is None:
        return v if not isinstance(v, Template) else Unknown(_why(v))
    return _num(v)


def _tobool(v):
    v = _whole(v)
    if is_unknown(v) or v is None:
        return v if not isinstance(v, Template) else Unknown(_why(v))
    return _bool(v)


def _identity(v):
    return _whole(v)


FUNCTIONS = {
    "jsonencode": _jsonencode,
    "jsondecode": _strict(lambda s: json.loads(s) if isinstance(s, str) else (_ for _ in ()).throw(_Error("jsondecode of a non-string"))),
    "format": _format,
    "concat": _shallow(_concat),
    "merge": _shallow(_merge),
    "tolist": _identity,
    "toset": _shallow(_toset),
    "tomap": _identity,
    "tostring": _tostring,
    "tonumber": _tonumber,
    "tobool": _tobool,
    "coalesce": _coalesce,
    "coalescelist": lambda *a: next((x for x in map(_whole, a) if is_unknown(x) or (isinstance(x, list) and x)), []),
    "lookup": _lookup,
    "element": _element,
    "length": _length,
    "keys": _shallow(_keys),
    "values": _shallow(_values),
    "flatten": _shallow(_flatten),
    "one": _one,
    "compact": _strict(lambda v: [x for x in v if x not in (None, "")]),
    "distinct": _strict(lambda v: [x for i, x in enumerate(v) if x not in v[:i]]),
    "contains": _strict(lambda v, x: x in v),
    "zipmap": _shallow(lambda k, v: dict(zip(k, v))),
    "lower": _strict(lambda s: s.lower()),
    "upper": _strict(lambda s: s.upper()),
    "trimspace": _strict(lambda s: s.strip()),
    "join": _strict(lambda sep, *ls: sep.join(_str(x) for lst in ls for x in lst)),
    "split": _strict(lambda sep, s: s.split(sep)),
    "replace": _strict(lambda s, a, b: (_ for _ in ()).throw(_Error("regex replace")) if a.startswith("/") and a.endswith("/") and len(a) > 1 else s.replace(a, b)),
    "startswith": _strict(lambda s, p: s.startswith(p)),
    "endswith": _strict(lambda s, p: s.endswith(p)),
    "sort": _strict(lambda v: sorted(_str(x) for x in v)),
    "min": _strict(lambda *a: min(_num(x) for x in a)),
    "max": _strict(lambda *a: max(_num(x) for x in a)),
    "abs": _strict(lambda x: abs(_num(x))),
}


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


def _marks_sensitive(marks) -> bool:
    if marks is True:
        return True
    if isinstance(marks, dict):
        return any(_marks_sensitive(m) for m in marks.values())
    if isinstance(marks, list):
        return any(_marks_sensitive(m) for m in marks)
    return False


def _declared_sensitive(block) -> bool:
    """``sensitive = true`` in a variable or output block (a literal, as Terraform requires)."""
    node = block.attrs().get("sensitive") if block is not None else None
    return node is not None and any(str(t) == "true" for t in node.scan_values(lambda t: True))


# -- the source of a plan ----------------------------------------------------------------------------
def call_source(plan: Plan):
    """module path -> the ``source`` of that module call in the plan's configuration."""
    def get(path: tuple):
        cfg = plan.module_config_path(path[:-1])
        call = cfg.calls.get(path[-1]) if cfg else None
        return call.source if call else None
    return get


class Source:
    """The configuration source of a plan, read lazily (see the module docstring).

    ``root``: the root module's directory. ``data_dir``: Terraform's data
    directory (``TF_DATA_DIR``, default ``<root>/.terraform``), for module calls
    installed by ``terraform init``.
    """

    def __init__(self, plan: Plan, root: str | os.PathLike, data_dir: str | os.PathLike | None = None,
                 extra_roots=()):
        from .files import Budget, ModuleDirs

        self.plan = plan
        self.root = Path(root)
        self.notes: list[str] = []
        self._noted: set = set()
        self._modules: dict[tuple, ModuleSource | None] = {}
        self.budget = Budget()
        self.dirs = ModuleDirs(root, call_source(plan), data_dir, extra_roots, self.budget)
        self.data_dir = self.dirs.data_dir
        self._ev: Evaluator | None = None
        self._plain_ev: Evaluator | None = None
        self._checked: dict[str, str | None] = {}
        self._ready: bool | None = None
        self.used = 0  # values decided from source
        self.steps = 0  # evaluation steps spent (both evaluators), up to max_steps
        self.max_steps = MAX_STEPS
        self._marks: dict | None = None

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
            return _marks_sensitive(marks)
        return isinstance(marks, dict) and _marks_sensitive(marks.get(attr))

    def _out_of_steps(self, what: str) -> None:
        self._note("steps", f"evaluating the configuration source stopped after {self.max_steps:,} steps (a `for` "
                   f"expression over a very large collection?): {what} and every value not yet evaluated stay unknown")

    # -- notes -----------------------------------------------------------------------------
    def _note(self, key, text: str):
        if key not in self._noted:
            self._noted.add(key)
            self.notes.append(text)

    # -- module directories --------------------------------------------------------------------
    def module_dir(self, path: tuple) -> Path | None:
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
        ms = ModuleSource(d, self.dirs.read)
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
        if self._ev is None:
            self._ev = Evaluator(self)
        return self._ev

    def _resource_block(self, res: Resource):
        ms = self.module_source(res.module)
        if ms is None:
            return None, None
        return ms, ms.resources.get(res.local)

    def _scope(self, res: Resource, block: _Block) -> Scope:
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
            except _OutOfSteps:
                self._out_of_steps(f"{res.address}.{name}")
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
        except _OutOfSteps:
            self._out_of_steps(f"the values of {res.address}")
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
        return self._guarded(self._value, res, attr)

    def block(self, res: Resource) -> tuple[dict, SourceRef] | None:
        """The block of ``res`` evaluated: attributes, and nested blocks (dynamic
        ones expanded) as lists; None when the source cannot say."""
        return self._guarded(self._block, res)

    def _value(self, res: Resource, attr: str) -> Evaluated | None:
        ms, block = self._resource_block(res)
        if block is None:
            return None
        node = block.attrs().get(attr)
        if node is None:
            return None
        ref = SourceRef(block.file, _attr_line(block.body, attr) or block.line, self.root)
        if not self._refs_match(res, attr, node):
            self._note(("refs", res.module, res.local, attr),
                       f"{ref}: {res.local}.{attr} does not match the plan (its references differ); the value "
                       "known only after apply stays unknown")
            return None
        why = self._resource_mismatch(res, block)
        if why:
            self._note(("res", res.address), f"{ref}: the source does not match the plan ({why}); values of "
                       f"{res.address} known only after apply stay unknown")
            return None
        try:
            v = _whole_deep(self.evaluator.eval(node, self._scope(res, block)))
        except _Error as e:
            v = Unknown(f"the expression fails ({e})")
        except RecursionError:
            v = Unknown("the expression nests too deeply to evaluate")
        except _OutOfSteps:
            self._out_of_steps(f"{res.address}.{attr}")
            return None  # the source cannot say: the plan's own value stands
        if first_unknown(v) is None and res.unknown.get(attr) is True and self._known_to_terraform(node, res, block):
            self._note(("known", res.address, attr), f"{ref}: the source gives {res.address}.{attr} a value the plan "
                       "does not know yet: source and plan do not match; it stays unknown")
            return None
        if self._attr_sensitive(res, attr):
            self.sensitive(v, res.address)
        self.used += 1
        return Evaluated(v, ref)

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

    def _block(self, res: Resource) -> tuple[dict, SourceRef] | None:
        ms, block = self._resource_block(res)
        if block is None:
            return None
        ref = SourceRef(block.file, block.line, self.root)
        cfg = res.config
        plan_refs: list[str] = []
        if cfg is not None:
            for v in cfg.expressions.values():
                plan_refs.extend(_plan_refs(v))
        mine = set()
        self._body_refs(block.body, frozenset(), mine)
        if _longest(mine) != _longest(plan_refs):
            self._note(("refs", res.module, res.local, None),
                       f"{ref}: {res.local} does not match the plan (its references differ); values known only "
                       "after apply stay unknown")
            return None
        why = self._resource_mismatch(res, block)
        if why:
            self._note(("res", res.address), f"{ref}: the source does not match the plan ({why}); values of "
                       f"{res.address} known only after apply stay unknown")
            return None
        try:
            v = self._eval_body(block.body, block.file, self._scope(res, block))
        except _Error as e:
            v = Unknown(f"the block fails to evaluate ({e})")
        except RecursionError:
            v = Unknown("the block nests too deeply to evaluate")
        except _OutOfSteps:
            self._out_of_steps(f"the block of {res.address}")
            return None
        if isinstance(v, dict):
            for name, val in v.items():
                if self._attr_sensitive(res, name):
                    self.sensitive(val, res.address)
        self.used += 1
        return v, ref

    def _body_refs(self, body, bound, out):
        for name, node in _body_attrs(body).items():
            if name in ("count", "for_each", "depends_on", "provider", "lifecycle"):
                continue
            out |= references(node, bound)
        for b in _body_blocks(body, None):
            # the plan's configuration leaves dynamic blocks out
            if b.kind not in ("dynamic", "lifecycle", "provisioner", "connection"):
                self._body_refs(b.body, bound, out)

    def _eval_body(self, body, file, sc: Scope) -> dict:
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
        cfg = res.config
        expr = cfg.expressions.get(attr) if cfg is not None else None
        if expr is None:
            return False
        mine = _longest(references(node))
        theirs = _longest(_plan_refs(expr))
        return mine == theirs


class _Iter(_Lazy):
    """A dynamic block's iterator: .key and .value."""

    __slots__ = ("key", "val")

    def __init__(self, key, val):
        self.key, self.val = key, val

    def get(self, name):
        if name == "key":
            return self.key
        if name == "value":
            return self.val
        raise _Error(f"iterator has no attribute {name!r}")


def _same_scalar(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return str(a).lower() == str(b).lower()
    if isinstance(a, (int, float)) or isinstance(b, (int, float)):
        try:
            return float(a) == float(b)
        except (TypeError, ValueError):
            return False
    return a == b
