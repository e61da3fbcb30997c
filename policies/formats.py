"""Every report format, by name, and the reports CI reads besides text, JSON and SARIF:

- ``junit``: JUnit XML (the Jenkins/Surefire dialect of junit-10.xsd that Jenkins, GitLab and
  Azure DevOps read): one test suite per rule, one test case per rule x resource; a failing
  finding is a ``failure`` with its message and fix, one the plan cannot decide, a waived,
  baselined or (``--changed-only``) not judged one is ``skipped`` with the reason.
- ``github``: GitHub Actions workflow commands (``::error file=...,line=...,title=...::...``),
  which GitHub shows as annotations on the ``.tf`` line (the plan file when the source is not
  known). Only what counts: waived, baselined and not judged findings get none.
- ``gitlab``: a GitLab Code Quality report (a JSON array of issues with description,
  check_name, fingerprint, severity and location), for ``artifacts:reports:codequality``.
- ``markdown``: see markdown.py.

``render(name, ctx)`` renders one; the CLI renders several from one evaluation
(``--format`` and any number of ``--report FORMAT=PATH``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .engine import Finding, Report
from .keys import finding_key, fingerprint, related_addresses
from .rules import CONFIG_RULES, RULES, UNDECIDED

FORMATS = ("text", "json", "sarif", "junit", "github", "gitlab", "markdown")
FORMAT_HELP = {
    "text": "for people (default)",
    "json": "findings and summary, for tools",
    "sarif": "SARIF 2.1.0, for GitHub code scanning and other SARIF viewers",
    "junit": "JUnit XML, for the test tabs of Jenkins, GitLab and Azure DevOps",
    "github": "GitHub Actions workflow commands: annotations on the .tf lines",
    "gitlab": "GitLab Code Quality JSON, for artifacts:reports:codequality",
    "markdown": "a findings table and a Mermaid diagram of the checked topology (job summary, PR comment)",
}
# formats that list passing checks, so the evaluation keeps them
NEEDS_PASSES = {"junit", "markdown"}


@dataclass
class Context:
    report: Report
    doc: dict
    plan_path: str
    source_dir: str
    show_pass: bool = False
    source_roots: tuple = ()  # --source-root: module sources read beyond source_dir
    _locator: Any = field(default=None, repr=False)
    _where: dict = field(default_factory=dict, repr=False)

    def location(self, f: Finding) -> tuple[str, int]:
        """(path relative to the current directory, line) of the .tf line a finding is about,
        or (the plan file, 1) when the source is not known; as in SARIF."""
        got = self._where.get(id(f))
        if got is None:
            from .report import SourceLocator

            if self._locator is None:
                self._locator = SourceLocator.of(self.report, self.doc, self.source_dir, self.plan_path,
                                                 self.source_roots)
            got = self._locator.finding(f)
            self._where[id(f)] = got
        return got


def counted(f: Finding) -> bool:
    """A finding that is reported as a problem: not waived, not baselined, judged."""
    return f.counts_toward_exit()


# how each format writes text so that no line of it is a CI runner's command (ci_commands.py)
SYNTAX = {"text": "text", "json": "json", "sarif": "json", "junit": "xml", "github": "github", "gitlab": "json",
          "markdown": "markdown"}


def render(name: str, ctx: Context) -> str:
    """Report ``name``, every line of it safe in a CI log: the tool's own annotations (the
    ``github`` format) are the only runner commands in it, whatever the input holds."""
    from .ci_commands import neutralize

    text = _render(name, ctx)
    if SYNTAX[name] == "github":
        return _own_commands_only(text)
    return neutralize(text, SYNTAX[name])


def _own_commands_only(text: str) -> str:
    """The ``github`` format's lines are the tool's annotations (their data escaped as the
    runner unescapes it); a line that is not one is neutralized as text, never passed on."""
    from .ci_commands import neutralize_line

    out = []
    for line in text.split("\n"):
        if line and not _OWN.match(line):
            line = neutralize_line(line, "text")
        out.append(line)
    return "\n".join(out)


_OWN = re.compile(r"::(error|warning|notice) [^\r]*\Z")


def _render(name: str, ctx: Context) -> str:
    from . import report as rep

    if name == "text":
        return rep.render_text(ctx.report, ctx.show_pass)
    if name == "json":
        return rep.render_json(ctx.report, ctx.show_pass)
    if name == "sarif":
        return rep.render_sarif(ctx.report, ctx.doc, ctx.plan_path, ctx.source_dir, ctx.source_roots)
    if name == "junit":
        return render_junit(ctx)
    if name == "github":
        return render_github(ctx)
    if name == "gitlab":
        return render_gitlab(ctx)
    if name == "markdown":
        from .markdown import render_markdown

        return render_markdown(ctx)
    raise ValueError(name)


# -- JUnit XML -----------------------------------------------------------------------------
_XML_BAD = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(s: str) -> str:
    """Characters XML 1.0 cannot carry (control characters, unpaired surrogates) become U+FFFD."""
    return _XML_BAD.sub("\ufffd", s)


def _why_skipped(f: Finding) -> str | None:
    if f.waiver is not None:
        exp = f" until {f.waiver['expires']}" if f.waiver.get("expires") else ""
        return f"waived{exp}: {f.waiver['reason']}"
    if not f.judged:
        return "not judged (--changed-only: neither the resource nor what it links to changes)"
    if f.baseline == "unchanged":
        return "in the baseline (a known finding; only new findings fail)"
    if f.status == UNDECIDED:
        return "cannot be decided before apply"
    return None


def render_junit(ctx: Context) -> str:
    import xml.etree.ElementTree as ET

    report = ctx.report
    by_rule: dict[str, list[Finding]] = {rid: [] for rid in report.rules_run}
    for f in list(report.findings) + list(report.passed):
        by_rule.setdefault(f.rule_id, []).append(f)
    root = ET.Element("testsuites", name="sqs-policy")
    tot = {"tests": 0, "failures": 0}
    for rid, cases in by_rule.items():
        rule = RULES.get(rid) or CONFIG_RULES[rid]
        suite = ET.SubElement(root, "testsuite", name=_xml_text(f"{rid} {rule.slug}"))
        n = {"tests": 0, "failures": 0, "skipped": 0}
        names: dict[str, int] = {}
        for f in cases:
            names[f.address] = names.get(f.address, 0) + 1
        for f in sorted(cases, key=lambda x: (x.address, x.message)):
            name = f.address
            if names[f.address] > 1:
                rel = related_addresses(f.message, f.address)
                name = f"{f.address} ({', '.join(rel) if rel else f.status})"
            case = ET.SubElement(suite, "testcase", name=_xml_text(name), classname=f"sqs-policy.{rid}", time="0")
            n["tests"] += 1
            if f.status == "pass":
                continue
            path, line = ctx.location(f)
            detail = (f"{rid} {rule.slug} ({f.severity})\n{f.address}\n{f.message}\nFix: {f.remediation}\n"
                      f"At: {path}:{line}")
            skipped = _why_skipped(f)
            if skipped is not None:
                n["skipped"] += 1
                el = ET.SubElement(case, "skipped", message=_xml_text(f"{skipped}: {f.message}"))
            else:
                n["failures"] += 1
                el = ET.SubElement(case, "failure", message=_xml_text(f.message), type=f.severity)
            el.text = _xml_text(detail)
        suite.set("tests", str(n["tests"]))
        suite.set("failures", str(n["failures"]))
        suite.set("errors", "0")
        suite.set("skipped", str(n["skipped"]))
        suite.set("time", "0")
        tot["tests"] += n["tests"]
        tot["failures"] += n["failures"]
    root.set("tests", str(tot["tests"]))
    root.set("failures", str(tot["failures"]))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# -- GitHub workflow commands ----------------------------------------------------------------
def _gh_data(s: str) -> str:
    """A workflow command's message: shown in the job log, so control and bidi characters
    from the input are escaped as in the text report (terminal.escape), then the command's own."""
    from .terminal import escape

    s = "\n".join(escape(part) for part in s.split("\n"))  # a newline stays one (%0A, inside the command)
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(s: str) -> str:
    return _gh_data(s).replace(":", "%3A").replace(",", "%2C")


def render_github(ctx: Context) -> str:
    from .report import _order

    lines = []
    for f in sorted(ctx.report.findings, key=_order):
        if not counted(f):
            continue
        path, line = ctx.location(f)
        level = "notice" if f.status == UNDECIDED else ("error" if f.severity == "error" else "warning")
        what = f"{f.address}: {f.message}" + (" (cannot be decided before apply)" if f.status == UNDECIDED else "")
        lines.append(f"::{level} file={_gh_prop(path)},line={line},title={_gh_prop(f'{f.rule_id} {f.slug}')}"
                     f"::{_gh_data(f'{what}. Fix: {f.remediation}')}")
    for e in ctx.report.fixed:
        lines.append(f"::notice title={_gh_prop(e['rule'] + ' fixed')}::"
                     + _gh_data(f"{e['address']}: a baselined finding is gone; `sqs-policy baseline --update` "
                                "removes it from the baseline"))
    for n in ctx.report.notes:
        lines.append(f"::notice title=sqs-policy::{_gh_data(n)}")
    return "".join(line + "\n" for line in lines)


# -- GitLab Code Quality -------------------------------------------------------------------
GITLAB_SEVERITY = {"error": "critical", "warning": "minor", UNDECIDED: "info"}


def render_gitlab(ctx: Context) -> str:
    from .report import _order

    issues = []
    seen: dict[tuple, int] = {}
    for f in sorted(ctx.report.findings, key=_order):
        if not counted(f):
            continue
        key = finding_key(f)
        occ = seen[key] = seen.get(key, -1) + 1
        path, line = ctx.location(f)
        sev = GITLAB_SEVERITY[UNDECIDED] if f.status == UNDECIDED else GITLAB_SEVERITY[f.severity]
        what = f"{f.address}: {f.message}" + (" (cannot be decided before apply)" if f.status == UNDECIDED else "")
        issues.append({
            "type": "issue",
            "description": f"{f.rule_id} {f.slug}: {what}. Fix: {f.remediation}",
            "check_name": f.rule_id,
            "fingerprint": fingerprint(key, occ),
            "severity": sev,
            "categories": ["Bug Risk"],
            "location": {"path": path, "lines": {"begin": line}},
        })
    from .report import json_report

    return json_report(issues)
