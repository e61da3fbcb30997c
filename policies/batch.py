"""Many plans in one run: ``sqs-policy check plans/*.json`` or ``check @plans.txt``.

A platform team checks hundreds of stacks in one job: one interpreter, one rule catalog, one
config file, each plan checked as ``check PLAN`` would check it, one report per plan (any
format, ``--report FORMAT=reports/{plan}.sarif``), one combined summary (text, Markdown or
JSON: formats/batch_summary.py) and one exit code.

The exit code of the run is the worst of the plans': 2 when any plan was refused (unreadable,
not a plan, an internal error), else 1 when any plan fails (``--fail-on``), else 0. A refused
plan is said on standard error with its name and path, and the other plans are still checked.

Names: each plan is named after its file (``plans/prod.json`` -> ``prod``), or after its stack
directory when the file name says nothing (``infra/prod/plan.json`` -> ``prod``, also
``tfplan.json``, ``plan.tfplan.json``); two plans of the same name get as many of their parent
directories as tell them apart (``eu/prod``, ``us/prod`` -> ``eu-prod``, ``us-prod``), else a
number. A name is safe as a file name: letters, digits, ``.``, ``_`` and ``-``.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import PurePath

from .errors import InputError

PLACEHOLDER = "{plan}"
# file names that say nothing about the stack: the plan is named after its directory
_GENERIC = {"plan", "tfplan", "terraform", "show", "plan.tfplan", "tfplan.plan", "default"}
_SUFFIXES = (".json", ".tfplan", ".plan")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_LIST_BYTES = 4 << 20  # a list file of plan paths: 100,000 paths of 40 characters fit


@dataclass
class PlanResult:
    """One plan of a batch: its name, path, exit code, its report's counts and summary (None
    when refused) and the one-line reason it was refused."""

    name: str
    path: str
    rc: int
    counts: dict | None = None
    summary: dict | None = None
    error: str | None = None
    reports: list = field(default_factory=list)  # (format, path) written for this plan


def expand(args: list[str]) -> tuple[list[str], bool]:
    """The plan paths of ``check``'s arguments: each ``@FILE`` is replaced by the paths it lists
    (one a line; blank lines and lines starting with ``#`` skipped; relative paths are relative to
    the current directory, as the shell's). Also whether it is a batch: more than one argument,
    or any list file (a list of one plan still gets the combined summary)."""
    from .files import Refused, read_regular

    out: list[str] = []
    listed = False
    for a in args:
        if a.startswith("@") and len(a) > 1:
            listed = True
            try:
                data = read_regular(a[1:], MAX_LIST_BYTES, label=f"list file {a[1:]}")
            except Refused as e:
                raise InputError(f"{e}; a list file (@FILE) holds one plan path a line") from None
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as e:
                raise InputError(f"list file {a[1:]}: is not UTF-8 text (byte {e.start}); write one plan path a "
                                 "line") from None
            paths = [x.strip() for x in text.splitlines()]
            paths = [x for x in paths if x and not x.startswith("#")]
            if not paths:
                raise InputError(f"list file {a[1:]}: lists no plan; write one plan path a line (# starts a comment)")
            out += paths
        else:
            out.append(a)
    if out.count("-") > 1:
        raise InputError("- (standard input) is given more than once; it can be read only once")
    return out, listed or len(out) > 1


def _parts(path: str) -> tuple[list[str], str, bool]:
    """(parent directories, name stem, whether the stem is generic) of a plan path."""
    if path == "-":
        return [], "stdin", False
    p = PurePath(os.path.normpath(path))
    stem = p.name
    for s in _SUFFIXES:  # plan.tfplan.json -> plan
        while stem.lower().endswith(s) and len(stem) > len(s):
            stem = stem[: -len(s)]
    dirs = [d for d in p.parent.parts if d not in (".", "..", "/", p.anchor)]
    return dirs, stem, stem.lower() in _GENERIC


def _safe(name: str) -> str:
    name = _UNSAFE.sub("_", name).strip("._") or "plan"
    return name[:120]


def names(paths: list[str]) -> list[str]:
    """One distinct, file-name-safe name per plan path (see the module's docstring)."""
    parts = [_parts(p) for p in paths]
    depth = [1 if generic and dirs else 0 for dirs, _, generic in parts]

    def name(i: int) -> str:
        dirs, stem, generic = parts[i]
        used = dirs[len(dirs) - depth[i]:] if depth[i] else []
        bits = used if (generic and used) else [*used, stem]
        return _safe("-".join(bits))

    for _ in range(64):
        got = [name(i) for i in range(len(paths))]
        seen: dict[str, list[int]] = {}
        for i, n in enumerate(got):
            seen.setdefault(n, []).append(i)
        grow = [i for idx in seen.values() if len(idx) > 1 for i in idx if depth[i] < len(parts[i][0])]
        if not grow:
            break
        for i in grow:
            depth[i] += 1
    out, count = [], {}
    for n in (name(i) for i in range(len(paths))):
        count[n] = count.get(n, 0) + 1
        out.append(n if count[n] == 1 else f"{n}-{count[n]}")
    # a numbered name may meet a real one ("a-2"): number again until every name is distinct
    while len(set(out)) < len(out):
        seen_names: set[str] = set()
        for i, n in enumerate(out):
            if n in seen_names:
                out[i] = f"{n}-{i + 1}"
            seen_names.add(out[i])
    return out


def per_plan(template: str, name: str) -> str:
    return template.replace(PLACEHOLDER, name)


def worst(codes) -> int:
    """The run's exit code: the worst of the plans' (2 refused > 1 failed > 0 clean)."""
    return max(codes, default=0)
