"""Terraform's file functions, evaluated for the files a configuration keeps beside its
``.tf`` files: ``file``, ``fileexists``, ``fileset``, ``templatefile`` (and, through
``file``, ``yamldecode``/``jsondecode`` of them).

A file is read only when it is a regular file inside the directories the source is read
from (``--source-dir``, the modules ``terraform init`` installed, the repository, and
``--source-root``: files.ModuleDirs.roots), with files.py's reader: non-blocking, within
the per-file cap and the check's budget, a named pipe or device refused, a symlink out of
those directories refused. Anything else is unknown, with a note naming the path: nothing
is guessed, and nothing outside those directories is read.

Paths are resolved as Terraform resolves them: relative to the directory Terraform runs in,
which is the root module's (``--source-dir``); ``path.module`` is the module's directory
relative to it, ``path.root`` is ``.``.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from .tree import _Error
from .values import Unknown, is_unknown

# fileset(): at most this many directory entries are looked at for one call
MAX_FILESET_ENTRIES = 10_000

ARITY = {"file": (1, 1), "fileexists": (1, 1), "fileset": (2, 2), "templatefile": (2, 2)}


class Files:
    """The file functions of one check's source: what they read is cached (each file is
    read and counted against the budget once)."""

    def __init__(self, source):
        """``source``: the reader.Source that owns it (its root, module directories, budget,
        notes); the reader imports this module, not the other way round."""
        self.src = source
        self._texts: dict[Path, str | Unknown] = {}
        self._templates: dict[Path, object] = {}

    # -- paths -----------------------------------------------------------------------------
    def _path(self, fn: str, p) -> Path | Unknown:
        """The file a path argument names, inside the roots; else why it is not read."""
        if is_unknown(p):
            return Unknown(f"{fn}(): the path is not known ({getattr(p, 'why', 'known after apply')})")
        if not isinstance(p, str):
            raise _Error(f"{fn}: the path must be a string")
        if p.startswith("~"):
            return self._outside(fn, p, "a path in a home directory")
        path = Path(p)
        full = path if path.is_absolute() else self.src.root / path
        full = Path(os.path.normpath(full))
        if not _inside(full, self.src.dirs.roots):
            return self._outside(fn, p, f"{full} is outside --source-dir, the installed modules and the repository")
        return full

    def _outside(self, fn: str, p: str, why: str) -> Unknown:
        self.src._note(("file-outside", p), f"{fn}(\"{p}\"): {why}, so it is not read (--source-root widens that); "
                       "the values built from it stay unknown")
        return Unknown(f"{fn}(\"{p}\") reads a file outside the source directories")

    # -- file --------------------------------------------------------------------------------
    def text(self, fn: str, p) -> str | Unknown:
        """The UTF-8 text of the file ``p`` names (``file()``)."""
        full = self._path(fn, p)
        if isinstance(full, Unknown):
            return full
        if full in self._texts:
            return self._texts[full]
        from ..files import Refused

        try:
            data = self.src.dirs.read(full, self.src.budget)
        except Refused as e:
            why = str(e)
            if not os.path.lexists(full):
                # Terraform fails the plan for a missing file: the source is not the plan's
                got: str | Unknown = Unknown(f"{fn}(): {p} does not exist in the source (was it generated "
                                             "before the plan?)")
                self.src._note(("file-missing", str(full)), f"{fn}(\"{p}\"): no such file in {self.src.root}; "
                               "the values built from it stay unknown")
            else:
                got = Unknown(f"{fn}(\"{p}\") is not read: {why}")
                self.src._note(("file-refused", str(full)), f"{fn}(\"{p}\") is not read: {why}; the values built from it "
                               "stay unknown")
            self._texts[full] = got
            return got
        try:
            got = data.decode("utf-8")
        except UnicodeDecodeError:
            raise _Error(f"{fn}: {p} is not valid UTF-8 (Terraform refuses it too; use filebase64)") from None
        self._texts[full] = got
        return got

    def file(self, p):
        """``file(path)``."""
        return self.text("file", p)

    def fileexists(self, p):
        """``fileexists(path)``: a regular file (a directory fails, as in Terraform)."""
        full = self._path("fileexists", p)
        if isinstance(full, Unknown):
            return full
        try:
            st = os.stat(full)
        except FileNotFoundError:
            return False
        except OSError as e:
            return Unknown(f"fileexists(\"{p}\"): {e.strerror or e}")
        import stat

        if stat.S_ISDIR(st.st_mode):
            raise _Error(f"fileexists: {p} is a directory, not a file")
        if not _inside(full, self.src.dirs.roots):  # a symlink out of the roots
            return self._outside("fileexists", p, f"{full} links outside the source directories")
        return stat.S_ISREG(st.st_mode)

    def fileset(self, p, pattern):
        """``fileset(path, pattern)``: the regular files under ``path`` matching the glob
        ``pattern`` (``*``, ``**``, ``?``, ``[...]``, ``{a,b}``), relative to it, sorted."""
        base = self._path("fileset", p)
        if isinstance(base, Unknown):
            return base
        if is_unknown(pattern):
            return Unknown(f"fileset(): the pattern is not known ({getattr(pattern, 'why', '')})")
        if not isinstance(pattern, str):
            raise _Error("fileset: the pattern must be a string")
        try:
            rx = _glob_regex(pattern)
        except ValueError as e:
            raise _Error(f"fileset: {e}") from None
        if not base.is_dir():
            return []
        out, seen = [], 0
        for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
            dirnames.sort()
            for name in sorted(filenames) + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
                seen += 1
                if seen > MAX_FILESET_ENTRIES:
                    self.src._note(("fileset-big", str(base)), f"fileset(\"{p}\", \"{pattern}\"): more than "
                                   f"{MAX_FILESET_ENTRIES:,} entries under {base}, so it is not evaluated")
                    return Unknown(f"fileset(\"{p}\") looks at more than {MAX_FILESET_ENTRIES:,} files")
                full = Path(dirpath) / name
                rel = full.relative_to(base).as_posix()
                if not rx.fullmatch(rel):
                    continue
                try:
                    import stat

                    mode = os.stat(full).st_mode
                except OSError:
                    continue
                if stat.S_ISDIR(mode):
                    continue
                if not _inside(full, self.src.dirs.roots):
                    return self._outside("fileset", p, f"{full} links outside the source directories")
                if stat.S_ISREG(mode):
                    out.append(rel)
        return sorted(set(out))

    def templatefile(self, p, variables, evaluator):
        """``templatefile(path, vars)``: the file rendered as a template whose only names are
        ``vars``' keys."""
        text = self.text("templatefile", p)
        if isinstance(text, Unknown):
            return text
        if isinstance(variables, Unknown):
            return Unknown(f"templatefile(): its variables are not known ({variables.why})")
        if not isinstance(variables, dict):
            raise _Error("templatefile: vars must be a map or an object")
        full = self._path("templatefile", p)
        node = self._templates.get(full)
        if node is None:
            from ..files import MAX_PARSE_TOKENS
            from .templates import template_expr
            from .tree import _TOKEN

            budget = self.src.budget
            tokens = len(_TOKEN.findall(text))
            if tokens > budget.tokens:
                self.src._note(("template-tokens", str(full)), f"templatefile(\"{p}\"): the template holds {tokens:,} "
                               f"HCL tokens, past what is left of the {MAX_PARSE_TOKENS:,}-token parse budget of one "
                               "check, so it is not parsed; the values built from it stay unknown")
                self._templates[full] = False
                return Unknown(f"templatefile(\"{p}\"): the template is past the parse budget")
            budget.tokens -= tokens
            node = template_expr(text)
            self._templates[full] = node if node is not None else False
        if node is False or node is None:
            return Unknown(f"templatefile(\"{p}\"): the template could not be read")
        from .scope import Scope

        for k in variables:
            if not isinstance(k, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", k):
                raise _Error(f"templatefile: invalid template variable name {k!r}")
        sc = Scope("", bound=dict(variables), closed=True)
        return evaluator.eval(node, sc)


def _inside(path: Path, roots) -> bool:
    from ..files import within

    return within(path, roots)


def _glob_regex(pattern: str) -> "re.Pattern":
    """A fileset() pattern as a regular expression over ``/``-separated relative paths."""
    out, i, n, depth = [], 0, len(pattern), 0
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern[i:i + 2] == "**":
                at_start = i == 0 or pattern[i - 1] == "/"
                j = i + 2
                if at_start and (j == n or pattern[j] == "/"):
                    out.append("(?:.*/)?" if j < n else ".*")
                    i = j + 1 if j < n else j
                    continue
                out.append("[^/]*")
                i = j
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 2)
            if j < 0:
                raise ValueError(f"pattern {pattern!r} has an unclosed [")
            body = pattern[i + 1:j]
            neg = body[:1] in ("^", "!")
            body = body[1:] if neg else body
            out.append("[" + ("^/" if neg else "") + body.replace("\\", "\\\\") + "]")
            i = j
        elif c == "{":
            depth += 1
            out.append("(?:")
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
        elif c == "," and depth:
            out.append("|")
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    if depth:
        raise ValueError(f"pattern {pattern!r} has an unclosed {{")
    return re.compile("".join(out))
