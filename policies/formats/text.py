"""``--format text``: for people; one line of input stays one line of output (terminal.escape)."""
from __future__ import annotations

from ..findings import BASELINED, NOT_JUDGED, UNKNOWN, WAIVED, Report, order
from ..terminal import escape
from .context import Context

_LABEL = {WAIVED: "WAIVED", NOT_JUDGED: "SKIPPED", BASELINED: "BASELINE", UNKNOWN: "UNKNOWN"}


def render(ctx: Context) -> str:
    report = ctx.report
    lines = []
    for f in sorted(report.findings, key=order):
        state = f.state
        label = _LABEL.get(state) or f.severity.upper()
        lines.append(f"{label:<8}{f.rule_id} {f.slug}  {f.address}")
        lines.append(f"        {f.message}")
        if (judged := f.judged_note()) is not None:
            lines.append(f"        {judged}")
        if state == WAIVED:
            exp = f" until {f.waiver['expires']}" if f.waiver.get("expires") else ""
            lines.append(f"        waived{exp}: {f.waiver['reason']}")
        elif state == NOT_JUDGED:
            lines.append("        not judged (--changed-only): neither it nor what it links to changes")
        elif state == BASELINED:
            moved = f" as {f.baseline_address} (moved since)" if f.baseline_address else ""
            lines.append(f"        in the baseline{moved}: a known finding, not counted")
        else:
            lines.append(f"        fix: {f.remediation}")
    if ctx.show_pass:
        for f in sorted(report.passed, key=lambda x: (x.rule_id, x.address)):
            lines.append(f"PASS    {f.rule_id} {f.slug}  {f.address}: {f.message}")
    for e in report.fixed:
        lines.append(f"FIXED   {e['rule']} {e['slug']}  {e['address']}")
        lines.append(f"        in the baseline, no longer found: `sqs-policy baseline PLAN --update -o "
                     f"{report.baseline_file}` removes it")
    for n in report.notes:
        lines.append(f"note: {n}")
    lines.append(summary_line(report))
    # addresses, messages, reasons and notes quote the input: one input line stays one output line
    return "\n".join(escape(line) for line in lines) + "\n"


def summary_line(report: Report) -> str:
    """The report's last line: the counts and what was checked."""
    c = report.counts()
    extra = "".join(f"{c[k]} {label}, " for k, label in (("baselined", "baselined"), ("fixed", "fixed"),
                                                         ("not_judged", "not judged")) if k in c)
    return (f"{c['errors']} error(s), {c['warnings']} warning(s), {c['unknown']} unknown, {c['waived']} waived, "
            f"{extra}{c['passed']} passed ({len(report.rules_run)} rules, {report.resources} resources"
            f"{', --strict' if report.strict else ''})")
