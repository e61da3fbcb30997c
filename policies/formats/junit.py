"""``--format junit``: JUnit XML (the Jenkins/Surefire dialect of junit-10.xsd that Jenkins,
GitLab and Azure DevOps read): one test suite per rule, one test case per rule x resource; a
failing finding that fails the check (an error; a warning too with ``--fail-on warning``) is a
``failure`` with its message and fix; one the plan cannot decide, a waived, baselined or
(``--changed-only``) not judged one, and a warning that does not fail the check, is ``skipped``
with the reason: a ``failure`` marks a Jenkins build unstable and shows failed tests in GitLab."""
from __future__ import annotations

import re

from ..findings import BASELINED, NOT_JUDGED, UNKNOWN, WAIVED, Finding
from ..keys import related_addresses
from ..rules import CONFIG_RULES, RULES
from .context import Context

_XML_BAD = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(s: str) -> str:
    """Characters XML 1.0 cannot carry (control characters, unpaired surrogates) become U+FFFD."""
    return _XML_BAD.sub("\ufffd", s)


def _why_skipped(f: Finding, fail_on: str = "error") -> str | None:
    state = f.state
    if state == WAIVED:
        exp = f" until {f.waiver['expires']}" if f.waiver.get("expires") else ""
        return f"waived{exp}: {f.waiver['reason']}"
    if state == NOT_JUDGED:
        return "not judged (--changed-only: neither the resource nor what it links to changes)"
    if state == BASELINED:
        return "in the baseline (a known finding; only new findings fail)"
    if state == UNKNOWN:
        return "cannot be decided before apply"
    if f.severity == "warning" and fail_on != "warning":
        # a failure would mark a Jenkins build unstable and show failed tests on a passing check
        return "a warning: it does not fail the check (--fail-on error)"
    return None


def render(ctx: Context) -> str:
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
            if (judged := f.judged_note()) is not None:
                detail += f"\n{judged[:1].upper()}{judged[1:]}"
            skipped = _why_skipped(f, ctx.fail_on)
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
