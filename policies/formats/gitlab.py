"""``--format gitlab``: a GitLab Code Quality report (a JSON array of issues with description,
check_name, fingerprint, severity and location), for ``artifacts:reports:codequality``. Only
what counts: waived, baselined and not judged findings are left out."""
from __future__ import annotations


from ..findings import UNKNOWN, order
from ..keys import finding_key, fingerprint
from .context import Context
from .json_report import dumps

SEVERITY = {"error": "critical", "warning": "minor", UNKNOWN: "info"}


def render(ctx: Context) -> str:
    issues = []
    seen: dict[tuple, int] = {}
    for f in sorted(ctx.report.findings, key=order):
        if not f.counts_toward_exit():
            continue
        key = finding_key(f)
        occ = seen[key] = seen.get(key, -1) + 1
        path, line = ctx.location(f)
        unknown = f.state == UNKNOWN
        what = f"{f.address}: {f.message}" + (" (cannot be decided before apply)" if unknown else "")
        judged = f.judged_note()
        issues.append({
            "type": "issue",
            "description": f"{f.rule_id} {f.slug}: {what}. Fix: {f.remediation}" + (f" ({judged})" if judged else ""),
            "check_name": f.rule_id,
            "fingerprint": fingerprint(key, occ),
            "severity": SEVERITY[UNKNOWN] if unknown else SEVERITY[f.severity],
            "categories": ["Bug Risk"],
            "location": {"path": path, "lines": {"begin": line}},
        })
    return dumps(issues)
