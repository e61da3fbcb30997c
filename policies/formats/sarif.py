"""``--format sarif``: SARIF 2.1.0, for GitHub code scanning and other SARIF viewers: every
rule of the catalog, every finding at its .tf line, waived ones as suppressions, baselined ones
with their baselineState, fixed ones as absent."""
from __future__ import annotations

import hashlib
from urllib.parse import quote

from .. import __version__
from ..findings import order
from ..references import REFERENCES
from ..rules import CONFIG_RULES, RULES, UNDECIDED
from .context import Context
from .json_report import dumps


def automation_id(ctx: Context) -> str:
    """The SARIF run's ``automationDetails.id``: ``CATEGORY/`` (``--category``), else
    ``sqs-policy/<the stack's directory relative to the repository root>/``, so GitHub code
    scanning keeps two stacks of one repository apart (it replaces the alerts of a category
    with each upload). ``--category ""`` leaves the id out, and upload-sarif's ``category``
    input then applies (github/codeql-action fills automationDetails only where it is missing)."""
    if ctx.category:
        return ctx.category if ctx.category.endswith("/") else ctx.category + "/"
    stack = ctx.locator.stack()
    return "sqs-policy/" if stack in (".", "") else f"sqs-policy/{stack.strip('/')}/"


def render(ctx: Context) -> str:
    report = ctx.report
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
    results = []
    for f in sorted(report.findings, key=order):
        path, line = ctx.location(f)
        uri = quote(path, safe="/")  # a URI reference: a space is %20, "#" is %23
        level = "note" if f.status == UNDECIDED else f.severity
        text = f"{f.address}: {f.message}" + ("" if f.status != UNDECIDED else " (cannot be decided before apply)")
        judged = f.judged_note()
        res = {
            "ruleId": f.rule_id,
            "ruleIndex": index[f.rule_id],
            "level": level,
            "message": {"text": f"{text}. Fix: {f.remediation}" + (f" ({judged})" if judged else "")},
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
        if judged:  # --changed-only: why a finding on a resource the plan may not touch was judged
            res["properties"]["judgedBecause"] = f.judged_because
        if f.baseline_address is not None:  # recorded before the plan's moved blocks
            res["properties"]["baselineAddress"] = f.baseline_address
        if not f.judged:  # --changed-only: the rule was not applied to it
            res["kind"], res["level"] = "notApplicable", "none"
        results.append(res)
    for e in report.fixed:  # in the baseline, gone from this plan
        path, line = ctx.locator.locate(e["address"])
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
            **({"automationDetails": {"id": automation_id(ctx)}} if ctx.category != "" else {}),
            "results": results,
            "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": [
                {"level": "note", "message": {"text": n}} for n in report.notes]}],
            "properties": {"summary": report.summary()},
        }],
    }
    return dumps(sarif)
