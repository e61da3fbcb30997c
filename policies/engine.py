"""Evaluate every enabled rule on a plan; apply severities, --strict and waivers."""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any

from .config import Config
from .graph import Plan
from .model import Model
from .module_inputs import ModuleInputs
from .rules import CONFIG_RULES, FAIL, PASS, RULES, UNDECIDED


@dataclass
class Finding:
    rule_id: str
    slug: str
    severity: str
    status: str
    address: str
    message: str
    remediation: str
    waiver: dict | None = None
    source: Any = None  # source.SourceRef of the expression the finding was decided from
    undecided: bool = False  # the rule could not decide it (also when --strict made it a failure)
    baseline: str | None = None  # with --baseline: "new" or "unchanged" (recorded in the baseline)
    judged: bool = True  # False: --changed-only left it out (the resource and its links are unchanged)

    def as_dict(self) -> dict[str, Any]:
        d = {"rule_id": self.rule_id, "slug": self.slug, "severity": self.severity, "status": self.status,
             "address": self.address, "message": self.message, "remediation": self.remediation}
        if self.waiver is not None:
            d["waiver"] = self.waiver
        if self.source is not None:
            d["source"] = {"file": self.source.label.rsplit(":", 1)[0], "line": self.source.line}
        if self.baseline is not None:
            d["baseline"] = self.baseline
        if not self.judged:
            d["judged"] = False
        return d

    def counts_toward_exit(self) -> bool:
        return self.waiver is None and self.baseline != "unchanged" and self.judged


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)  # fail and unknown (waived included)
    passed: list[Finding] = field(default_factory=list)  # only when asked for (show_pass)
    pass_count: int = 0
    rules_run: list[str] = field(default_factory=list)
    resources: int = 0
    strict: bool = False
    notes: list[str] = field(default_factory=list)  # about the run: source not read, not matching the plan
    model: Any = field(default=None, repr=False)  # the linked model the rules judged (topology, --changed-only)
    baseline_file: str | None = None  # set by baseline.apply
    fixed: list[dict] = field(default_factory=list)  # baseline entries no finding matches any more
    changed_only: dict | None = None  # set by changes_only.apply: what was judged

    def counts(self) -> dict[str, int]:
        c = {"errors": 0, "warnings": 0, "unknown": 0, "waived": 0, "passed": self.pass_count}
        if self.baseline_file is not None:
            c["baselined"] = 0
            c["fixed"] = len(self.fixed)
        if self.changed_only is not None:
            c["not_judged"] = 0
        for f in self.findings:
            if f.waiver is not None:
                c["waived"] += 1
            elif not f.judged:
                c["not_judged"] += 1
            elif f.baseline == "unchanged":
                c["baselined"] += 1
            elif f.status == UNDECIDED:
                c["unknown"] += 1
            elif f.severity == "error":
                c["errors"] += 1
            else:
                c["warnings"] += 1
        return c

    def failed(self, fail_on: str = "error") -> bool:
        c = self.counts()
        return c["errors"] > 0 or (fail_on == "warning" and c["warnings"] > 0)


def evaluate(doc: dict, config: Config | None = None, *, strict: bool = False,
             today: _dt.date | None = None, keep_passes: bool = True, source_dir: str | None = None,
             source_roots: tuple = ()) -> Report:
    """``source_dir``: the root configuration the plan was made from; values the plan
    leaves unknown are read from it when it matches the plan (see the source package).
    ``source_roots``: directories beyond it that module sources may be read from."""
    config = config or Config()
    today = today or _dt.date.today()
    plan = Plan(doc)
    from .sensitive import from_plan

    plan.secrets = from_plan(doc)  # the source adds what it evaluates for sensitive attributes
    source = None
    if source_dir is not None:
        from .source import Source

        source = Source(plan, source_dir, extra_roots=source_roots)
    model = Model(plan, source)
    inputs = ModuleInputs(plan)
    report = Report(resources=len(plan.resources), strict=strict, model=model)
    for rid, rule in RULES.items():
        if not config.rule_enabled(rid):
            continue
        report.rules_run.append(rid)
        opts = config.rule_options(rid)
        base_sev = config.severity.get(rid, rule.severity)
        for res in rule.check(model, opts):
            status = res.status
            if status == PASS:
                report.pass_count += 1
                if not keep_passes:
                    continue
            sev = config.severity.get(rid) or res.severity or base_sev
            if status == UNDECIDED and strict:
                status = FAIL
                msg = f"cannot be decided before apply (--strict): {res.message}"
            else:
                msg = res.message
            if res.ref is not None:
                msg = f"{msg} (from {res.ref})"
            fix = res.remediation or rule.remediation
            if status != PASS:
                fix = inputs.rewrite(res.address, fix, res.judged(rule))
            f = Finding(rid, rule.slug, sev, status, res.address, msg, fix, source=res.ref,
                        undecided=res.status == UNDECIDED)
            (report.passed if status == PASS else report.findings).append(f)
    _apply_waivers(report, config, today)
    if source is not None:
        from .inline_waivers import apply as apply_inline_waivers

        apply_inline_waivers(report, model, config, today)
        report.notes.extend(source.notes)
    from .sensitive import redact_report

    redact_report(report, plan.secrets)  # judged on the real values, shown as (sensitive)
    return report


def _apply_waivers(report: Report, config: Config, today: _dt.date):
    live = []
    for w in config.waivers:
        if w.expired(today):
            rule = CONFIG_RULES["CFG001"]
            if config.rule_enabled("CFG001"):
                report.findings.append(Finding(
                    rule.id, rule.slug, config.severity.get("CFG001", rule.severity), FAIL, w.address,
                    f"waiver #{w.index + 1} for {', '.join(w.rules) if w.rules else 'all rules'} expired on "
                    f"{w.expires.isoformat()} (reason was: {w.reason})", rule.remediation))
        else:
            live.append(w)
    for f in report.findings:
        if f.rule_id in CONFIG_RULES:
            continue
        for w in live:
            if w.matches(f.rule_id, f.address):
                w.used = True
                f.waiver = {"reason": w.reason, "expires": w.expires.isoformat() if w.expires else None}
                break
    rule = CONFIG_RULES["CFG002"]
    if config.rule_enabled("CFG002"):
        for w in live:
            if not w.used:
                report.findings.append(Finding(
                    rule.id, rule.slug, config.severity.get("CFG002", rule.severity), FAIL, w.address,
                    f"waiver #{w.index + 1} ({w.reason}) matches no failing or unknown finding", rule.remediation))
