"""What a check found: :class:`Finding` (one rule on one resource) and :class:`Report` (every
finding of one plan, and what the run says about itself).

The one place that says what a finding counts as (:attr:`Finding.state`): the engine
(engine.py) judges the plan and then settles each finding (waived by the config file or a
comment, not judged under ``--changed-only``, in the baseline), and every format reads the
state from here instead of asking the same questions again in its own order.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .rules import PASS, UNDECIDED

# what a finding counts as, in the order they are decided (Finding.state)
WAIVED, NOT_JUDGED, BASELINED, UNKNOWN, ERROR, WARNING, PASSED = (
    "waived", "not judged", "baselined", "unknown", "error", "warning", "pass")
# the states reported as a problem (annotations, the findings table): not waived, judged, new
COUNTED = frozenset({UNKNOWN, ERROR, WARNING})


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
    baseline_address: str | None = None  # unchanged, recorded at another address (before the plan's moved blocks)
    judged: bool = True  # False: --changed-only left it out (the resource and its links are unchanged)
    # --changed-only, judged: why ({"reason": changed|linked|names|change-rule, "through": [the changed
    # resources it goes through], "text": for people}; changes_only.py)
    judged_because: dict | None = None

    @property
    def state(self) -> str:
        """What the finding counts as: ``pass``; else ``waived`` (a waiver matches it), ``not
        judged`` (--changed-only), ``baselined`` (the baseline records it), ``unknown`` (cannot
        be decided before apply), or its severity, ``error`` or ``warning``; the first that holds."""
        if self.status == PASS:
            return PASSED
        if self.waiver is not None:
            return WAIVED
        if not self.judged:
            return NOT_JUDGED
        if self.baseline == "unchanged":
            return BASELINED
        if self.status == UNDECIDED:
            return UNKNOWN
        return ERROR if self.severity == "error" else WARNING

    def judged_note(self) -> str | None:
        """Why --changed-only judged it, as every format says it; None without --changed-only."""
        if self.judged_because is None or not self.judged:
            return None
        return f"judged (--changed-only): {self.judged_because['text']}"

    def counts_toward_exit(self) -> bool:
        """Reported as a problem: not waived, judged, not in the baseline (an unknown one
        included; only errors, and warnings with --fail-on warning, set the exit code)."""
        return self.state in COUNTED

    def as_dict(self) -> dict[str, Any]:
        d = {"rule_id": self.rule_id, "slug": self.slug, "severity": self.severity, "status": self.status,
             "address": self.address, "message": self.message, "remediation": self.remediation}
        if self.waiver is not None:
            d["waiver"] = self.waiver
        if self.source is not None:
            d["source"] = {"file": self.source.label.rsplit(":", 1)[0], "line": self.source.line}
        if self.baseline is not None:
            d["baseline"] = self.baseline
        if self.baseline_address is not None:
            d["baseline_address"] = self.baseline_address
        if not self.judged:
            d["judged"] = False
        elif self.judged_because is not None:
            d["judged_because"] = self.judged_because
        return d


def order(f: Finding):
    """The order findings are reported in: errors, warnings, unknown, then what does not count;
    by rule and address within each."""
    state = f.state
    rank = 3 if state not in COUNTED else (2 if state == UNKNOWN else (0 if state == ERROR else 1))
    return (rank, f.rule_id, f.address)


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
        key = {WAIVED: "waived", NOT_JUDGED: "not_judged", BASELINED: "baselined", UNKNOWN: "unknown",
               ERROR: "errors", WARNING: "warnings"}
        for f in self.findings:
            c[key[f.state]] += 1
        return c

    def failed(self, fail_on: str = "error") -> bool:
        c = self.counts()
        return c["errors"] > 0 or (fail_on == "warning" and c["warnings"] > 0)

    def summary(self) -> dict:
        """The counts and what was checked, as the JSON and SARIF reports carry them."""
        return {**self.counts(), "rules": len(self.rules_run), "resources": self.resources, "strict": self.strict}
