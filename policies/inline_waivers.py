"""Waivers next to the code: ``# sqs-policy:ignore`` comments in the ``.tf`` source.

    resource "aws_sqs_queue" "audit" {
      # sqs-policy:ignore SQS004 reason="audit queue, DLQ retention set by the platform team" expires=2027-03-31
      ...
    }

    module "legacy" {
      source = "./legacy"
      # sqs-policy:ignore SQS002,CW002 reason="retired in Q3 (TICKET-12)"
    }

A comment (``#`` or ``//``, at the start of the comment) inside a ``resource``, ``data`` or
``module`` block waives the rules it names (IDs or slugs, comma-separated) for that resource
(every instance of it), or, in a module call, for every resource the module creates. The same
rules as the configuration file's waivers: ``reason`` is required; after ``expires`` the waiver
stops waiving and fails as CFG001; a waiver that matches no failing or unknown finding is
reported as CFG002. A comment that cannot be read (no rule, unknown rule, no reason, a bad
date, an unknown key, outside any block) is CFG003, with its file and line, and so is one meant as
a waiver but not written as one (another spelling of the marker, a ``/* */`` comment holding it).
Comments are found as Terraform reads the file (:func:`scan`). A comment in a module's own source
applies wherever that module is called.

The comments are read from the configuration the plan was made from (``--source-dir``) and the
modules it calls (local paths, and what ``terraform init`` installed), in the directories the
checker reads (inside ``--source-dir`` and ``.terraform/modules``, or a ``--source-root``);
``--no-source`` reads none.
"""
from __future__ import annotations

import datetime as _dt
import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .files import Refused

MARK = "sqs-policy:ignore"
_HEADER = re.compile(r'^\s*(resource|data|module)\s+"([^"]+)"(?:\s+"([^"]+)")?\s*$')
_PAIR = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_-]*)=(?:"((?:[^"\\]|\\.)*)"|([^"\s]\S*|(?=\s|$)))')
_HEREDOC = re.compile(r"<<-?([A-Za-z_][A-Za-z0-9_-]*)[ \t]*\r?\n")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
# a comment that means to be a directive but is not one as written: another spelling of the
# marker (case, a space after the colon, a typo), read so that it is reported instead of ignored
_LOOKALIKE = re.compile(r"(?i)^sqs[-_ ]?pol[a-z]*\s*:\s*[a-z]")
_MENTIONED = re.compile(r"(?i)sqs[-_ ]?po")


def _misspelled(body: str) -> str | None:
    """Why a comment that looks like a directive is not one (None: it is one, or looks like none)."""
    first = body.split(None, 1)[0] if body.split() else ""
    if body.startswith(MARK) and (len(body) == len(MARK) or body[len(MARK)].isspace()):
        return None
    if not (_LOOKALIKE.match(body) or difflib.SequenceMatcher(None, first.lower(), MARK).ratio() >= 0.85):
        return None
    shown = " ".join(body.split()[:2])[:60]
    return (f"{shown!r} is not read as a waiver: the marker is exactly `{MARK}` (lower case, no space after the "
            f"colon), then the rule(s): `# {MARK} SQS002 reason=\"...\"`")


@dataclass
class Comment:
    path: Path
    line: int
    text: str  # after the comment marker
    block: tuple | None  # (kind, label1, label2) of the enclosing top-level block


def scan(text: str, block_comments: list | None = None) -> list[tuple[int, str, tuple | None]]:
    """(line, comment text, enclosing top-level block) of every line comment in HCL source;
    ``block_comments``, when given, gets the same of every ``/* */`` comment.

    A small scanner, not a parser, that reads the file as HCL's scanner does: strings (with
    ``${ }`` and ``%{ }`` interpolations, ``$${`` and ``%%{`` as literal text), heredocs
    (``<<EOT`` / ``<<-EOT``, a line ending LF or CRLF, the closing marker alone on its line)
    and ``/* */`` comments, so that a ``#`` or a brace inside them does not count; and it tracks
    the top-level block."""
    out = []
    i, n, line = 0, len(text), 1
    depth = 0
    block = None
    start = 0  # where the current line of a top-level statement starts
    modes = []  # stack: "str" inside a quoted string, "interp" inside ${ } (with its own brace depth)
    idepth = []
    while i < n:
        c = text[i]
        if modes and modes[-1] == "str":
            if c == "\\":
                i += 2
                continue
            if c == '"':
                modes.pop()
            elif c in "$%" and text.startswith(c + "{", i + 1):  # $${ and %%{: literal, not a template
                i += 3
                continue
            elif c in "$%" and text.startswith("{", i + 1):
                modes.append("interp")
                idepth.append(0)
                i += 2
                continue
            elif c == "\n":
                line += 1
            i += 1
            continue
        if c == "\n":
            line += 1
            i += 1
            if depth == 0:
                start = i
            continue
        if c == "#" or text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            body = text[i + (1 if c == "#" else 2):j]
            out.append((line, body, block))
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            if block_comments is not None:
                block_comments.append((line, text[i + 2:max(i + 2, j - 2)], block))
            line += text.count("\n", i, j)
            i = j
            continue
        if text.startswith("<<", i):
            m = _HEREDOC.match(text, i)
            if m:
                tag = m.group(1)
                j = m.end()
                line += 1
                while j < n:
                    k = text.find("\n", j)
                    k = n if k < 0 else k
                    if text[j:k].strip() == tag:
                        j = k
                        break
                    line += 1
                    j = k + 1
                i = j
                continue
        if c == '"':
            modes.append("str")
            i += 1
            continue
        if modes and modes[-1] == "interp":
            if c == "{":
                idepth[-1] += 1
            elif c == "}":
                if idepth[-1] == 0:
                    modes.pop()
                    idepth.pop()
                else:
                    idepth[-1] -= 1
            i += 1
            continue
        if c == "{":
            if depth == 0:
                m = _HEADER.match(text[start:i])
                block = (m.group(1), m.group(2), m.group(3)) if m else ("other", "", None)
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
            if depth == 0:
                block = None
        i += 1
    return out


@dataclass
class InlineWaiver:
    path: Path
    line: int
    label: str  # file:line relative to the root configuration
    kind: str  # resource, data or module
    local: str  # type.name, data.type.name, or the module call's name
    scopes: list[tuple] = field(default_factory=list)  # module paths of the directory it is in
    rules: list[str] = field(default_factory=list)
    reason: str = ""
    expires: _dt.date | None = None
    used: bool = False

    def block_address(self) -> str:
        p = self.scopes[0] if self.scopes else ()
        prefix = "".join(f"module.{m}." for m in p)
        return f"{prefix}module.{self.local}" if self.kind == "module" else f"{prefix}{self.local}"

    def matches(self, rule_id: str, mpath: tuple, local: str) -> bool:
        if rule_id not in self.rules:
            return False
        if self.kind == "module":
            return any(mpath[:len(s) + 1] == s + (self.local,) for s in self.scopes)
        return local == self.local and mpath in self.scopes


def _rule_index():
    from .rules import CONFIG_RULES, RULES

    by = {}
    for r in RULES.values():
        by[r.id.lower()] = r.id
        by[r.slug] = r.id
    return by, set(CONFIG_RULES)


def parse(text: str, today_check: bool = False):
    """(rules, reason, expires) of a directive's text after the marker, or raise ValueError(why)."""
    by, cfg = _rule_index()
    rest = text.strip()
    m = re.match(r"([^\s=]+)(?=\s|$)", rest)
    if not m or "=" in m.group(1):
        raise ValueError("name the rule(s) it waives first, e.g. `# sqs-policy:ignore SQS004 reason=\"...\"`")
    rules = []
    for name in m.group(1).split(","):
        name = name.strip()
        rid = by.get(name.lower())
        if rid is None:
            if name.upper() in cfg:
                raise ValueError(f"{name} is about waivers themselves and cannot be waived")
            # every rule as close as the closest ("SQS02": SQS002 and SQS012 alike)
            close = difflib.get_close_matches(name.lower(), list(by), n=5)
            best = [c for c in close if difflib.SequenceMatcher(None, name.lower(), c).ratio()
                    == difflib.SequenceMatcher(None, name.lower(), close[0]).ratio()] if close else []
            hint = f" (did you mean {' or '.join(sorted({by[c] for c in best}))}?)" if best else ""
            raise ValueError(f"unknown rule {name!r}{hint}; `sqs-policy list-rules` shows the IDs and slugs")
        rules.append(rid)
    rest = rest[m.end():]
    values = {}
    while rest.strip():
        pm = _PAIR.match(rest)
        if not pm and re.match(r'\s*[A-Za-z_][A-Za-z0-9_-]*="', rest):
            raise ValueError(f"the quote after {rest.split('=')[0].strip()}= is not closed: write "
                             f"{rest.split('=')[0].strip()}=\"...\"")
        if not pm:
            raise ValueError(f"cannot read {rest.strip()!r}: write key=\"value\" (reason=\"...\", expires=YYYY-MM-DD)")
        key = pm.group(1)
        if key not in ("reason", "expires"):
            raise ValueError(f"unknown key {key!r} (known: expires, reason)")
        if key in values:
            raise ValueError(f"{key} is given twice")
        values[key] = pm.group(2).replace('\\"', '"') if pm.group(2) is not None else pm.group(3)
        rest = rest[pm.end():]
    reason = (values.get("reason") or "").strip()
    if not reason:
        raise ValueError('reason is required: say why the exception is acceptable, reason="..."')
    expires = None
    if "expires" in values:
        try:
            if not _DATE.fullmatch(values["expires"]):  # fromisoformat also takes 20270331, 2027-W13-3
                raise ValueError
            expires = _dt.date.fromisoformat(values["expires"])
        except ValueError:
            raise ValueError(f"expires {values['expires']!r} is not a date; write it as YYYY-MM-DD") from None
    return rules, reason, expires


def _local(block) -> tuple[str, str] | None:
    """(kind, local name) of a resource, data or module block (None: another block, or none)."""
    if block is None or block[0] not in ("resource", "data", "module"):
        return None
    kind, a, b = block
    return kind, (a if kind == "module" else (f"data.{a}.{b}" if kind == "data" else f"{a}.{b}"))


def _module_paths(cfg, prefix=()) -> list[tuple]:
    out = [prefix]
    for name, call in cfg.calls.items():
        out += _module_paths(call.module, prefix + (name,))
    return out


def collect(model) -> tuple[list[InlineWaiver], list[tuple[Path, int, str, str, str | None]]]:
    """(waivers, problems): problems are (file, line, label, why, block address or None)."""
    source = getattr(model, "source", None)
    if source is None:
        return [], []
    by_dir: dict[Path, list[tuple]] = {}
    for p in _module_paths(model.plan.config):
        # the directories the evaluator may read (files.ModuleDirs): a module outside --source-dir and the
        # installed modules is read only with --source-root; that is noted where a value needs it, not here
        d = source.dirs.get(p)
        if d is not None:
            by_dir.setdefault(Path(d).resolve(), []).append(p)
    root = Path(source.root)
    waivers, problems = [], []
    for d, scopes in sorted(by_dir.items()):
        try:
            files = sorted(d.glob("*.tf")) if d.is_dir() else []
        except OSError:
            files = []
        for f in files:
            try:  # bounded, regular files inside the roots only (files.ModuleDirs.read), as the evaluator reads them
                text = source.dirs.read(f).decode("utf-8", errors="replace")
            except Refused as e:
                if not any(str(e) in n for n in source.notes):  # one note per refused file (the evaluator's, if any)
                    source._note(("waiver-read", str(f)), f"{e} (so its # sqs-policy:ignore comments are not read)")
                continue
            if not _MENTIONED.search(text):
                continue
            try:
                rel = Path(os.path.relpath(f, root)).as_posix()
            except ValueError:
                rel = f.as_posix()
            blocks: list = []
            comments = scan(text, blocks)
            for line, body, block in blocks:  # /* */: not read as waivers; one that looks like one is said
                if re.search(r"(?i)sqs[-_ ]?pol[a-z]*\s*:\s*ignore", body):
                    w = InlineWaiver(f, line, f"{rel}:{line}", *(_local(block) or ("resource", "")), list(scopes))
                    problems.append((f, line, f"{rel}:{line}", f"a /* */ comment is not read as a waiver; write it "
                                     f"as a line comment: # {MARK} RULE reason=\"...\"",
                                     w.block_address() if _local(block) else None))
            for line, body, block in comments:
                body = body.strip()
                why = _misspelled(body)
                if why is not None:
                    w = InlineWaiver(f, line, f"{rel}:{line}", *(_local(block) or ("resource", "")), list(scopes))
                    problems.append((f, line, f"{rel}:{line}", why, w.block_address() if _local(block) else None))
                    continue
                if not body.startswith(MARK):
                    continue
                label = f"{rel}:{line}"
                after = body[len(MARK):]
                if block is None or block[0] not in ("resource", "data", "module"):
                    problems.append((f, line, label, "put it inside the resource, data or module block it waives",
                                     None))
                    continue
                kind, a, b = block
                local = a if kind == "module" else (f"data.{a}.{b}" if kind == "data" else f"{a}.{b}")
                w = InlineWaiver(f, line, label, kind, local, list(scopes))
                try:
                    w.rules, w.reason, w.expires = parse(after)
                except ValueError as e:
                    problems.append((f, line, label, str(e), w.block_address()))
                    continue
                waivers.append(w)
    return waivers, problems


def _split(address: str) -> tuple[tuple, str]:
    from .graph import parse_module_address

    parts = re.split(r"\.(?=(?:data\.)?[a-z0-9_]+\.[A-Za-z0-9_-]+(?:\[[^\]]*\])?$)", address, maxsplit=1)
    module, local = (parts[0], parts[1]) if len(parts) == 2 and parts[0].startswith("module.") else ("", address)
    try:
        path = tuple(n for n, _ in parse_module_address(module))
    except ValueError:
        path = ()
    return path, re.sub(r"\[[^\]]*\]$", "", local)


def apply(report, model, config, today: _dt.date) -> None:
    from .findings import Finding
    from .rules import CONFIG_RULES, FAIL
    from .source import SourceRef

    waivers, problems = collect(model)
    if not waivers and not problems:
        return
    root = Path(model.source.root)

    def add(rid: str, address: str, message: str, path: Path, line: int, fix: str | None = None):
        if not config.rule_enabled(rid):
            return
        rule = CONFIG_RULES[rid]
        report.findings.append(Finding(rid, rule.slug, config.severity.get(rid, rule.severity), FAIL, address,
                                       message, fix or rule.remediation, source=SourceRef(path, line, root)))

    for path, line, label, why, address in problems:
        add("CFG003", address or label, f"{label}: this {MARK} comment waives nothing: {why}", path, line)
    live = []
    for w in waivers:
        if w.expires is not None and today > w.expires:
            add("CFG001", w.block_address(), f"waiver at {w.label} for {', '.join(w.rules)} expired on "
                f"{w.expires.isoformat()} (reason was: {w.reason})", w.path, w.line,
                f"Fix the resource, or renew the comment at {w.label} with a new expires= and a current reason.")
        else:
            live.append(w)
    if live:
        for f in report.findings:
            if f.waiver is not None or f.rule_id in CONFIG_RULES:
                continue
            mpath, local = _split(f.address)
            for w in live:
                if w.matches(f.rule_id, mpath, local):
                    w.used = True
                    f.waiver = {"reason": w.reason, "expires": w.expires.isoformat() if w.expires else None,
                                "kind": "inSource", "at": w.label}
                    break
    for w in live:
        if not w.used:
            add("CFG002", w.block_address(), f"waiver at {w.label} for {', '.join(w.rules)} ({w.reason}) matches "
                "no failing or unknown finding", w.path, w.line, f"Remove the comment at {w.label}.")
