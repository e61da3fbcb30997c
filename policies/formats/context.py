"""What every format renders from (:class:`Context`: the report, the plan, where the plan
and its source are) and where a finding is in the source (:class:`SourceLocator`)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..files import Budget, ModuleDirs, Refused
from ..findings import Finding, Report
from ..graph import parse_module_address


@dataclass
class Context:
    """One check's report and what its formats need besides: the plan (``doc``), the plan
    file's path as given, the root configuration (``source_dir``) and the module sources read
    beyond it (``source_roots``), and whether passing checks are listed (``show_pass``)."""

    report: Report
    doc: dict
    plan_path: str
    source_dir: str
    show_pass: bool = False
    source_roots: tuple = ()  # --source-root: module sources read beyond source_dir
    repo_root: str | None = None  # --repo-root: what report paths are relative to (None: the current directory)
    category: str | None = None  # --category: the SARIF run's automationDetails.id category
    fail_on: str = "error"  # --fail-on: the lowest severity that fails the check
    reports: tuple = ()  # (format, path) of every report the check writes: where the full list is
    _locator: SourceLocator | None = field(default=None, repr=False)
    _where: dict = field(default_factory=dict, repr=False)

    @property
    def locator(self) -> SourceLocator:
        """The check's one SourceLocator, made when a format first asks where something is."""
        if self._locator is None:
            self._locator = SourceLocator.of(self.report, self.doc, self.source_dir, self.plan_path,
                                             self.source_roots, self.repo_root)
        return self._locator

    def full_list(self) -> str:
        """Where every finding is listed when a report shows only some (a cut Markdown comment,
        GitHub's annotation limits): the other reports of the same check, else how to get one."""
        files = [f"{fmt} report {path}" for fmt, path in self.reports
                 if fmt in ("text", "json", "sarif", "junit", "gitlab") and path not in ("-", "", None)]
        return ("the " + ", the ".join(files)) if files else (
            "the text report (`sqs-policy check PLAN`, the job log) or `sqs-policy check PLAN --format json`")

    def location(self, f: Finding) -> tuple[str, int]:
        """(path relative to the repository root, line) of the .tf line a finding is about,
        or (the plan file, 1) when the source is not known."""
        got = self._where.get(id(f))
        if got is None:
            got = self._where[id(f)] = self.locator.finding(f)
        return got


class SourceLocator:
    """Best-effort map from a resource address to the file and line declaring it.

    Module directories come from ``dirs``, the check's one files.ModuleDirs (the one the
    evaluator read the source with, when it did; else one made from the plan's
    configuration: ``modules.json``, local sources, inside ``root``, the installed modules
    and ``extra_roots`` only); files are read bounded (a budget of the locator's own, so
    what the evaluator read is not counted twice), regular files only. Remote sources and
    anything not found fall back to the plan file, line 1. Each directory's ``.tf`` files
    are read and indexed once (block kind, type, name -> file, line), so a plan with many
    findings costs one pass over the sources.
    """

    _BLOCK = re.compile(r'^[ \t]*(resource|data)[ \t]+"?([^"\s{]+)"?\s+"?([^"\s{]+)"?', re.M)

    def __init__(self, doc: dict, root: str, plan_path: str, extra_roots: tuple = (), dirs: ModuleDirs | None = None,
                 repo_root: str | os.PathLike | None = None):
        self.root = Path(root)
        self.plan_path = plan_path
        self.cwd = Path.cwd()
        # paths are relative to the repository root (what GitHub, GitLab and SARIF viewers resolve
        # them against), else to the current directory
        try:
            self.repo_root = Path(repo_root).resolve() if repo_root is not None else None
        except (OSError, RuntimeError):
            self.repo_root = None
        self.budget = Budget()
        self.dirs = dirs if dirs is not None else ModuleDirs(root, doc.get("configuration"), None, extra_roots)
        self._index: dict[Path, dict[tuple, tuple[str, int]]] = {}
        self._rels: dict[Path, str] = {}

    @classmethod
    def of(cls, report: Report | None, doc: dict, root: str, plan_path: str, extra_roots: tuple = (),
           repo_root: str | os.PathLike | None = None) -> "SourceLocator":
        """The locator of a check's report: it shares the module directories of the check's
        configuration source when the check read one."""
        source = getattr(report.model, "source", None) if report is not None else None
        return cls(doc, root, plan_path, extra_roots, getattr(source, "dirs", None), repo_root)

    def _blocks(self, d: Path) -> dict[tuple, tuple[str, int]]:
        got = self._index.get(d)
        if got is None:
            got = self._index[d] = {}
            try:
                files = sorted(d.glob("*.tf")) if d.is_dir() else []
            except OSError:
                files = []
            for f in files:
                try:
                    text = self.dirs.read(f, self.budget).decode("utf-8", "replace")
                except Refused:
                    continue
                rel = self.rel(f)
                for m in self._BLOCK.finditer(text):
                    got.setdefault(m.groups(), (rel, text.count("\n", 0, m.start()) + 1))
        return got

    def locate(self, address: str) -> tuple[str, int]:
        parts = re.split(r"\.(?=(?:data\.)?[a-z0-9_]+\.[A-Za-z0-9_-]+(?:\[[^\]]*\])?$)", address, maxsplit=1)
        module, local = (parts[0], parts[1]) if len(parts) == 2 and parts[0].startswith("module.") else ("", address)
        try:
            path = tuple(n for n, _ in parse_module_address(module))
        except ValueError:
            path = None
        d = self.dirs.get(path) if path is not None else None
        local = re.sub(r"\[[^\]]*\]$", "", local)
        bits = local.split(".")
        if d is not None and len(bits) >= 2:
            key = ("data", bits[1], bits[2]) if bits[0] == "data" and len(bits) >= 3 else ("resource", bits[0], bits[1])
            hit = self._blocks(d).get(key)
            if hit:
                return hit
        return self.rel(Path(self.plan_path)) if self.plan_path != "-" else "plan.json", 1

    def finding(self, f: Finding) -> tuple[str, int]:
        """(file, line) of a finding: the expression it was decided from, else its resource's block."""
        if f.source is not None:
            return self.rel(Path(f.source.path)), f.source.line
        return self.locate(f.address)

    def rel(self, p: Path) -> str:
        """``p`` relative to the repository root when it lies inside it, else to the current
        directory, as a POSIX path."""
        got = self._rels.get(p)
        if got is None:
            try:
                real = (self.cwd / p).resolve()
                base = self.repo_root if self.repo_root is not None and (
                    real == self.repo_root or self.repo_root in real.parents) else self.cwd
                got = Path(os.path.relpath(real, base)).as_posix()
            except (ValueError, OSError, RuntimeError):
                got = p.as_posix()
            self._rels[p] = got
        return got

    def stack(self) -> str:
        """The root configuration's directory as the reports name it ('.' at the repository root)."""
        return self.rel(self.root)
