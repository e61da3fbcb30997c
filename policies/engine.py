"""Judge a plan and settle what each finding counts as.

:func:`evaluate` links the model, runs every enabled rule (severities and --strict applied),
then settles the findings in one order: the config file's waivers, the comments' waivers,
sensitive values redacted, --changed-only, the baseline. What a finding then counts as is its
``state`` (findings.py); the formats only read it.
"""
from __future__ import annotations

import datetime as _dt

from .config import Config
from .findings import Finding, Report
from .graph import Plan
from .model import Model
from .module_inputs import ModuleInputs
from .rules import CONFIG_RULES, FAIL, PASS, RULES, UNDECIDED


def evaluate(doc: dict, config: Config | None = None, *, strict: bool = False,
             today: _dt.date | None = None, keep_passes: bool = True, source_dir: str | None = None,
             source_roots: tuple = (), changed_only: bool = False, baseline=None) -> Report:
    """``source_dir``: the root configuration the plan was made from; values the plan
    leaves unknown are read from it when it matches the plan (see the source package).
    ``source_roots``: directories beyond it that module sources may be read from.
    ``changed_only``: judge only what the plan changes and what is linked to it
    (changes_only.py); ``baseline``: a baseline.Baseline whose findings do not count."""
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
    if changed_only:
        from .changes_only import apply as apply_changed_only

        apply_changed_only(report, doc)
    if baseline is not None:  # keyed on the redacted messages, as the baseline file records them
        from .baseline import apply as apply_baseline

        apply_baseline(report, baseline)
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
