"""Strings, templates and heredocs: escapes, heredoc bodies, quoted templates."""
from __future__ import annotations

import re

from .tree import _parser, _trees


# -- strings, templates, heredocs ---------------------------------------------------------------
_ESC = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def _unescape(s: str) -> str:
    """A quoted string's backslash escapes (\\n, \\t, \\r, \\", \\\\, \\uXXXX, \\UXXXXXXXX) resolved."""
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
    """(body, strip indentation) of a heredoc token, or None."""
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
            except Exception:  # noqa: BLE001 - a template the parser refuses is left unevaluated (None)
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


def template_expr(text: str):
    """A template file's text (templatefile) as a template expression, or None when the
    parser refuses it (the caller caches it per file)."""
    got = None
    quoted = _quote_template(text)
    if quoted is not None:
        try:
            tree = _parser()(f"x = \"{quoted}\"\n")
            got = _trees(_trees(_trees(tree)[0])[0])[-1]
        except Exception:  # noqa: BLE001 - a template the parser refuses is left unevaluated (None)
            got = None
    return got
