"""``--format spacelift``: a Spacelift custom policy input (docs/spacelift.md).

Spacelift merges a JSON object written to ``$key.custom.spacelift.json`` at the project root
into its plan policies' input as ``input.third_party_metadata.custom.$key``; with
``--report spacelift=sqs-policy.custom.spacelift.json`` a plan policy reads
``input.third_party_metadata.custom["sqs-policy"]``. The object holds what a Rego policy needs
to decide without parsing text: ``failed`` (the check's verdict under ``--fail-on``), the
``summary`` counts, every finding that does not pass with its ``state`` (error, warning,
unknown, waived, baselined, not judged: findings.Finding.state), and the notes.
docs/spacelift-plan-policy.rego denies a run on ``state == "error"`` and warns on the rest
that counts.
"""
from __future__ import annotations

from .. import __version__
from ..findings import order
from .context import Context
from .json_report import dumps


def render(ctx: Context) -> str:
    report = ctx.report
    findings = []
    for f in sorted(report.findings, key=order):
        d = {"rule_id": f.rule_id, "slug": f.slug, "severity": f.severity, "state": f.state, "address": f.address,
             "message": f.message, "remediation": f.remediation}
        if f.waiver is not None:
            d["waiver"] = {k: f.waiver[k] for k in ("reason", "expires") if f.waiver.get(k)}
        findings.append(d)
    return dumps({"tool": "sqs-policy", "version": __version__, "failed": report.failed(ctx.fail_on),
                  "fail_on": ctx.fail_on, "summary": report.summary(), "findings": findings,
                  "notes": list(report.notes)})
