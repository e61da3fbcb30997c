"""Output formats: text for people, JSON for tools, SARIF 2.1.0 for code scanning."""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from urllib.parse import quote

from . import __version__
from .engine import Finding, Report
from .files import Budget, ModuleDirs, Refused
from .graph import parse_module_address
from .references import REFERENCES
from .rules import CONFIG_RULES, RULES, UNDECIDED
from .terminal import escape


_SURROGATE = re.compile("[\ud800-\udfff]")


def _valid_unicode(v):
    """``v`` with every unpaired surrogate (a plan's ``"\\udc80"``, an undecodable file name)
    written as U+FFFD: JSON readers other than Python's refuse or mangle a lone one."""
    if isinstance(v, str):
        return _SURROGATE.sub("\ufffd", v) if _SURROGATE.search(v) else v
    if isinstance(v, dict):
        return {_valid_unicode(k): _valid_unicode(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_valid_unicode(x) for x in v]
    return v


def json_report(doc) -> str:
    """A JSON report (json, sarif, gitlab): valid Unicode, indented, ASCII."""
    return json.dumps(_valid_unicode(doc), indent=2) + "\n"


def _order(f: Finding):
    rank = 3 if not f.counts_toward_exit() else (2 if f.status == UNDECIDED else (0 if f.severity == "error" else 1))
    return (rank, f.rule_id, f.address)


def summary(report: Report) -> dict:
    c = report.counts()
    return {**c, "rules": len(report.rules_run), "resources": report.resources, "strict": report.strict}


def render_text(report: Report, show_pass: bool = False) -> str:
    lines = []
    for f in sorted(report.findings, key=_order):
        if f.waiver:
            label = "WAIVED"
        elif not f.judged:
            label = "SKIPPED"
        elif f.baseline == "unchanged":
            label = "BASELINE"
        elif f.status == UNDECIDED:
            label = "UNKNOWN"
        else:
            label = f.severity.upper()
        lines.append(f"{label:<8}{f.rule_id} {f.slug}  {f.address}")
        lines.append(f"        {f.message}")
        if f.waiver:
            exp = f" until {f.waiver['expires']}" if f.waiver.get("expires") else ""
            lines.append(f"        waived{exp}: {f.waiver['reason']}")
        elif not f.judged:
            lines.append("        not judged (--changed-only): neither it nor what it links to changes")
        elif f.baseline == "unchanged":
            lines.append("        in the baseline: a known finding, not counted")
        else:
            lines.append(f"        fix: {f.remediation}")
    if show_pass:
        for f in sorted(report.passed, key=lambda x: (x.rule_id, x.address)):
            lines.append(f"PASS    {f.rule_id} {f.slug}  {f.address}: {f.message}")
    for e in report.fixed:
        lines.append(f"FIXED   {e['rule']} {e['slug']}  {e['address']}")
        lines.append(f"        in the baseline, no longer found: `sqs-policy baseline PLAN --update -o "
                     f"{report.baseline_file}` removes it")
    for n in report.notes:
        lines.append(f"note: {n}")
    c = report.counts()
    extra = "".join(f"{c[k]} {label}, " for k, label in (("baselined", "baselined"), ("fixed", "fixed"),
                                                         ("not_judged", "not judged")) if k in c)
    lines.append(
        f"{c['errors']} error(s), {c['warnings']} warning(s), {c['unknown']} unknown, {c['waived']} waived, {extra}"
        f"{c['passed']} passed ({len(report.rules_run)} rules, {report.resources} resources"
        f"{', --strict' if report.strict else ''})")
    # addresses, messages, reasons and notes quote the input: one input line stays one output line
    return "\n".join(escape(line) for line in lines) + "\n"


def render_json(report: Report, show_pass: bool = False) -> str:
    findings = [f.as_dict() for f in sorted(report.findings, key=_order)]
    if show_pass:
        findings += [f.as_dict() for f in report.passed]
    out = {"findings": findings, "summary": summary(report), "notes": report.notes}
    if report.baseline_file is not None:
        out["baseline"] = {"file": report.baseline_file, "fixed": report.fixed}
    if report.changed_only is not None:
        out["changed_only"] = report.changed_only
    return json_report(out)


# -- SARIF -------------------------------------------------------------------------------
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

    def __init__(self, doc: dict, root: str, plan_path: str, extra_roots: tuple = (), dirs: ModuleDirs | None = None):
        self.root = Path(root)
        self.plan_path = plan_path
        self.cwd = Path.cwd()
        self.budget = Budget()
        self.dirs = dirs if dirs is not None else ModuleDirs(root, doc.get("configuration"), None, extra_roots)
        self._index: dict[Path, dict[tuple, tuple[str, int]]] = {}
        self._rels: dict[Path, str] = {}

    @classmethod
    def of(cls, report: Report, doc: dict, root: str, plan_path: str, extra_roots: tuple = ()) -> "SourceLocator":
        """The locator of a check's report: it shares the module directories of the check's
        configuration source when the check read one."""
        source = getattr(report.model, "source", None) if report is not None else None
        return cls(doc, root, plan_path, extra_roots, getattr(source, "dirs", None))

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
        """``p`` relative to the current directory, as a POSIX path."""
        got = self._rels.get(p)
        if got is None:
            try:
                got = Path(os.path.relpath(p.resolve(), self.cwd)).as_posix()
            except (ValueError, OSError):
                got = p.as_posix()
            self._rels[p] = got
        return got


def render_sarif(report: Report, doc: dict, plan_path: str, root: str, source_roots: tuple = ()) -> str:
    all_rules = list(RULES.values()) + list(CONFIG_RULES.values())
    index = {r.id: i for i, r in enumerate(all_rules)}
    rules = []
    for r in all_rules:
        rules.append({
            "id": r.id,
            "name": r.slug,
            "shortDescription": {"text": r.title},
            "fullDescription": {"text": " ".join(r.why.split())},
            "help": {"text": f"{' '.join(r.why.split())}\n\nFix: {r.remediation}",
                     "markdown": f"{' '.join(r.why.split())}\n\n**Fix:** {r.remediation}"},
            "helpUri": REFERENCES[r.sources[0]][1],
            "defaultConfiguration": {"level": r.severity},
            "properties": {"tags": [r.area, "terraform", "sqs"], "precision": "high"},
        })
    loc = SourceLocator.of(report, doc, root, plan_path, source_roots)
    results = []
    for f in sorted(report.findings, key=_order):
        path, line = loc.finding(f)
        uri = quote(path, safe="/")  # a URI reference: a space is %20, "#" is %23
        level = "note" if f.status == UNDECIDED else f.severity
        text = f"{f.address}: {f.message}" + ("" if f.status != UNDECIDED else " (cannot be decided before apply)")
        res = {
            "ruleId": f.rule_id,
            "ruleIndex": index[f.rule_id],
            "level": level,
            "message": {"text": f"{text}. Fix: {f.remediation}"},
            "locations": [{
                "physicalLocation": {"artifactLocation": {"uri": uri}, "region": {"startLine": line}},
                "logicalLocations": [{"fullyQualifiedName": f.address, "kind": "resource"}],
            }],
            "partialFingerprints": {
                "policyFinding/v1": hashlib.sha256(f"{f.rule_id}|{f.address}|{f.status}".encode("utf-8", "surrogatepass")).hexdigest()[:32],
            },
            "properties": {"status": f.status, "slug": f.slug},
        }
        if f.waiver:
            res["suppressions"] = [{"kind": f.waiver.get("kind", "external"), "justification": f.waiver["reason"]}]
        if f.baseline is not None:
            res["baselineState"] = f.baseline
        if not f.judged:  # --changed-only: the rule was not applied to it
            res["kind"], res["level"] = "notApplicable", "none"
        results.append(res)
    for e in report.fixed:  # in the baseline, gone from this plan
        path, line = loc.locate(e["address"])
        results.append({
            "ruleId": e["rule"], "ruleIndex": index[e["rule"]], "level": "none", "baselineState": "absent",
            "message": {"text": f"{e['address']}: fixed (in the baseline {report.baseline_file}, no longer found)"},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": quote(path, safe="/")},
                                                "region": {"startLine": line}},
                           "logicalLocations": [{"fullyQualifiedName": e["address"], "kind": "resource"}]}],
        })
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "sqs-policy", "version": __version__, "semanticVersion": __version__,
                                "informationUri": "https://github.com/resilient-sqs/resilient-sqs#plan-policy-checks",
                                "rules": rules}},
            "automationDetails": {"id": "sqs-policy/"},
            "results": results,
            "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": [
                {"level": "note", "message": {"text": n}} for n in report.notes]}],
            "properties": {"summary": summary(report)},
        }],
    }
    return json_report(sarif)
