"""The parsed configuration: HCL files of one module directory as blocks and attributes
(python-hcl2's tree), where a value came from (:class:`SourceRef`), and the errors and step
budget of an evaluation."""
from __future__ import annotations

import os
import re
from pathlib import Path



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
    """A partial value read from source (``value``) and where it came from (``ref``)."""

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


# The memory budget of one value the evaluator builds: a string of at most MAX_TEXT characters, a
# list or map of at most MAX_ITEMS elements (Terraform-cheap expressions such as
# format("%0999999999d", 1) or join() over a repeated string would otherwise take gigabytes).
# Past it the value stays unknown, with a note; it is not an expression failure.
MAX_TEXT = 1 << 20
MAX_ITEMS = 100_000


class _TooLarge(_OutOfSteps):
    """A value over the memory budget (MAX_TEXT, MAX_ITEMS): what it is, for the note."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


# -- the parsed configuration ------------------------------------------------------------------
# what the parse budget counts: identifiers, numbers, quoted strings, comments, any other character
_TOKEN = re.compile(r'[A-Za-z_][A-Za-z0-9_-]*|[0-9]+(?:\.[0-9]+)?|"(?:[^"\\\n]|\\.)*"|#[^\n]*|//[^\n]*|\S')


def _parse_cost(text: str) -> int:
    """What parsing ``text`` costs, in tokens: one per token, and one per 8 characters inside a
    quoted string (python-hcl2 reads a string's characters one by one: about 11 us each)."""
    n = chars = 0
    for m in _TOKEN.finditer(text):
        n += 1
        if text.startswith('"', m.start()):
            chars += m.end() - m.start()
    return n + chars // 8

def _parser():
    """python-hcl2's parser, imported only when a source is read.

    python-hcl2 builds its LALR tables from the grammar the first time (2.4 s here, most of a
    check with source) and keeps them in ``.lark_cache.bin`` beside its own modules. Where that
    file is missing and cannot be written (a read-only install: a container image, a shared
    virtualenv, a system package), every check built the tables again; then the same parser is
    built with its cache in the user's cache directory (:func:`cache_dir`) instead."""
    from hcl2 import parser as hcl2_parser  # python-hcl2: imported only when source is read
    from hcl2.api import parses_to_tree

    own = Path(hcl2_parser.PARSER_FILE)
    if own.is_file() or os.access(own.parent, os.W_OK):
        return parses_to_tree
    parser = _cached_parser()
    if parser is None:
        return parses_to_tree
    return lambda text: parser.parse(text + "\n")  # what parses_to_tree does


_PARSER = None


def cache_dir() -> Path | None:
    """Where the checker keeps its parser tables: ``$SQS_POLICY_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/sqs-policy``, else ``~/.cache/sqs-policy``; made private (0700) and used
    only when it is a directory of this user that no one else may write (the tables are a
    pickle); None otherwise."""
    base = os.environ.get("SQS_POLICY_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = os.path.join(xdg, "sqs-policy") if xdg else os.path.join(os.path.expanduser("~"), ".cache", "sqs-policy")
    d = Path(base)
    try:
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(d)
    except OSError:
        return None
    import stat

    if not stat.S_ISDIR(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()) or st.st_mode & 0o022:
        return None
    return d


def _cached_parser():
    """python-hcl2's parser (the options of hcl2.parser.parser), its tables cached in
    :func:`cache_dir`; None when there is no such directory."""
    global _PARSER
    if _PARSER is None:
        d = cache_dir()
        if d is None:
            return None
        from importlib.metadata import version

        from hcl2 import parser as hcl2_parser
        from hcl2.postlexer import PostLexer
        from lark import Lark

        try:
            tag = f"{version('python-hcl2')}-{version('lark')}"
        except Exception:  # noqa: BLE001 - no metadata (a vendored copy): lark checks the grammar's hash anyway
            tag = "unknown"
        _PARSER = Lark.open("hcl2.lark", parser="lalr", cache=str(d / f"hcl2-{_safe_tag(tag)}.lark"),
                            rel_to=hcl2_parser.__file__, propagate_positions=True, postlex=PostLexer())
    return _PARSER


def _safe_tag(tag: str) -> str:
    return re.sub(r"[^A-Za-z0-9.+-]", "_", tag)


def _trees(t) -> list:
    """The child nodes of a parse tree node (comments and new lines left out)."""
    from lark import Tree

    return [c for c in t.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]


def _name(node) -> str:
    """identifier / keyword / literal_value / string node -> the name it spells."""
    if node.data == "string":
        return "".join(str(p.children[0]) for p in node.children if not isinstance(p, str) and p.data == "string_part")
    return str(node.children[0])


class _Block:
    """A block of a .tf file: kind, labels, body, file and line."""

    __slots__ = ("kind", "labels", "body", "file", "line")

    def __init__(self, kind, labels, body, file, line):
        self.kind, self.labels, self.body, self.file, self.line = kind, labels, body, file, line

    def attrs(self) -> dict:
        """Its attributes: name -> expression node."""
        return _body_attrs(self.body)

    def blocks(self) -> list:
        """Its nested blocks."""
        return _body_blocks(self.body, self.file)


def _body_attrs(body) -> dict:
    """The attributes of a block body: name -> expression node."""
    out = {}
    for c in _trees(body):
        if c.data == "attribute":
            kids = _trees(c)
            out[_name(kids[0])] = kids[-1]
    return out


def _body_blocks(body, file) -> list:
    """The nested blocks of a block body."""
    out = []
    for c in _trees(body):
        if c.data == "block":
            kids = _trees(c)
            head = [k for k in kids if k.data != "body"]
            inner = next(k for k in kids if k.data == "body")
            out.append(_Block(_name(head[0]), [_name(h) for h in head[1:]], inner, file, c.meta.line))
    return out


def _attr_line(body, name) -> int | None:
    """The line of attribute ``name`` in a block body."""
    for c in _trees(body):
        if c.data == "attribute" and _name(_trees(c)[0]) == name:
            return c.meta.line
    return None


# -- Terraform's JSON syntax (.tf.json, as CDK for Terraform writes it) ---------------------------------
_JSON_BLOCKS = {"resource": 2, "data": 2, "module": 1, "variable": 1, "output": 1, "locals": 0}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def json_to_hcl(text: str) -> str:
    """A ``.tf.json`` file as the native syntax that means the same, for the parser: the blocks
    the source reader uses (resources, data sources, module calls, variables, outputs,
    locals); a string is a template in both (``"${aws_sqs_queue.q.arn}"``), and a variable's
    ``type`` (a string in JSON) is its type expression. Other blocks (terraform, provider,
    moved, import, ...) are left out. Raises ValueError naming what is not valid."""
    import json

    doc = json.loads(text)
    if not isinstance(doc, dict):
        raise ValueError("the file is not a JSON object")
    out: list[str] = []
    for kind, depth in _JSON_BLOCKS.items():
        got = doc.get(kind)
        if got is None:
            continue
        for item in got if isinstance(got, list) else [got]:
            _json_blocks(kind, item, depth, [], out)
    return "\n".join(out) + "\n"


def _json_blocks(kind: str, node, depth: int, labels: list, out: list):
    """Blocks of ``kind`` under ``node`` (``depth`` labels still to read)."""
    if not isinstance(node, dict):
        raise ValueError(f"{kind} {' '.join(labels)}: an object is expected, not {type(node).__name__}".replace("  ", " "))
    if depth:
        for label, inner in node.items():
            for one in inner if isinstance(inner, list) else [inner]:
                _json_blocks(kind, one, depth - 1, [*labels, label], out)
        return
    head = " ".join([kind, *(json_str(x) for x in labels)])
    out.append(head + " {")
    for name, value in node.items():
        if name == "//":
            continue  # a comment, in Terraform's JSON syntax
        if not _IDENT.match(name):
            raise ValueError(f"{kind} {' '.join(labels)}: {name!r} is not an attribute name")
        if kind == "variable" and name == "type" and isinstance(value, str):
            out.append(f"  {name} = {value}")  # a type expression, written as a string in JSON
        elif kind == "variable" and name == "validation":
            continue  # conditions and messages do not give values
        else:
            out.append(f"  {name} = {_json_expr(value)}")
    out.append("}")


def json_str(s: str) -> str:
    """A JSON string as a native-syntax string literal with the same templates."""
    import json

    return json.dumps(s, ensure_ascii=False)


def _whole_interpolation(s: str) -> str | None:
    """The expression of a string that is one interpolation and nothing else (``"${x}"``),
    which Terraform reads as the value of ``x`` itself (not converted to a string); else None."""
    if not s.startswith("${") or not s.endswith("}"):
        return None
    depth, quote, i = 0, False, 2
    while i < len(s):
        c = s[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == '"':
                quote = False
        elif c == '"':
            quote = True
        elif c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return s[2:i].strip("~ \n") if i == len(s) - 1 else None
            depth -= 1
        i += 1
    return None


def _json_expr(v) -> str:
    """A JSON value as a native-syntax expression (strings keep their ``${...}`` templates; a
    string that is one interpolation is its expression)."""
    if isinstance(v, str):
        inner = _whole_interpolation(v)
        return f"({inner})" if inner else json_str(v)
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_json_expr(x) for x in v) + "]"
    return "{" + ", ".join(f"{json_str(k)} = {_json_expr(x)}" for k, x in v.items()) + "}"


class ModuleSource:
    """The parsed ``.tf`` files of one module directory."""

    def __init__(self, directory: Path, read=None, budget=None):
        """``read``: Path -> bytes, raising files.Refused (ModuleDirs.read: bounded, inside the roots);
        ``budget``: the check's files.Budget, whose ``tokens`` bound what is parsed."""
        from ..files import MAX_PARSE_TOKENS, Refused, read_regular

        read = read or read_regular
        self.dir = directory
        self.resources: dict[str, _Block] = {}
        self.calls: dict[str, _Block] = {}
        self.locals: dict[str, tuple] = {}  # name -> (expression, file, line)
        self.outputs: dict[str, tuple] = {}
        self.variables: dict[str, _Block] = {}
        self.sensitive_outputs: set[str] = set()
        self.error: str | None = None
        files = sorted([*directory.glob("*.tf"), *directory.glob("*.tf.json")]) if directory.is_dir() else []
        if not files:
            self.error = f"no .tf files in {directory}"
            return
        special = [f.name for f in files if f.name.removesuffix(".json") == "override.tf"
                   or f.name.removesuffix(".json").endswith("_override.tf")]
        if special:
            self.error = f"{', '.join(special[:3])}: override files are not read"
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
        if budget is not None:  # parse time is per token: count them (linear, in C) before parsing any
            tokens = sum(_parse_cost(t) for _, t in texts)
            if tokens > budget.tokens:
                self.error = (f"its .tf files cost {tokens:,} HCL tokens to parse, past what is left of the {MAX_PARSE_TOKENS:,}"
                              f"-token parse budget of one check ({max(budget.tokens, 0):,}), so they are not parsed "
                              "(parsing costs up to about 0.1 ms a token)")
                return
            budget.tokens -= tokens
        for f, text in texts:
            try:
                if f.name.endswith(".tf.json"):
                    text = json_to_hcl(text)
                tree = parse(text)
            except Exception as e:  # noqa: BLE001 - lark's parse errors: one line, never a traceback
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


def _declared_sensitive(block) -> bool:
    """``sensitive = true`` in a variable or output block (a literal, as Terraform requires)."""
    node = block.attrs().get("sensitive") if block is not None else None
    return node is not None and any(str(t) == "true" for t in node.scan_values(lambda t: True))
