"""``--format json``: the findings (passing checks too with --show-pass), the summary and the
notes, for tools."""
from __future__ import annotations

import json

from ..findings import order
from .context import Context


def render(ctx: Context) -> str:
    report = ctx.report
    findings = [f.as_dict() for f in sorted(report.findings, key=order)]
    if ctx.show_pass:
        findings += [f.as_dict() for f in report.passed]
    out = {"findings": findings, "summary": report.summary(), "notes": report.notes}
    if report.baseline_file is not None:
        out["baseline"] = {"file": report.baseline_file, "fixed": report.fixed}
    if report.changed_only is not None:
        out["changed_only"] = report.changed_only
    return json.dumps(out, indent=2) + "\n"
