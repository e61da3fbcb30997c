"""``--format atlantis``: for an Atlantis ``custom_policy_check`` workflow (docs/atlantis.md).

Atlantis (server/events/project_command_runner.go) reads a custom policy tool's output, not its
exit code: a policy set fails when the output matches ``[1-9][0-9]* failure`` (or ``failures":
[``) or starts with ``FAIL``; the PR comment's summary is the line matching ``\\d+ tests?, \\d+
passed, \\d+ warnings?, \\d+ failures?, \\d+ exceptions?`` (conftest's form). A step that exits
non-zero loses its output altogether (its run step returns none), so with this format the check
exits 0 whenever it wrote the report, and a refused plan is written as a ``FAIL`` line
(cli.py).

The report is the text format's, then that line: ``tests`` every check made (passed, warnings,
failures, exceptions), ``failures`` the findings that fail the check (errors; warnings too with
``--fail-on warning``), ``warnings`` the ones reported that do not (warnings, unknown),
``exceptions`` the waived and baselined ones.
"""
from __future__ import annotations

from . import text
from .context import Context


def counts(report, fail_on: str = "error") -> dict:
    c = report.counts()
    failures = c["errors"] + (c["warnings"] if fail_on == "warning" else 0)
    warnings = c["unknown"] + (c["warnings"] if fail_on != "warning" else 0)
    exceptions = c["waived"] + c.get("baselined", 0)
    return {"tests": c["passed"] + failures + warnings + exceptions, "passed": c["passed"], "warnings": warnings,
            "failures": failures, "exceptions": exceptions}


def summary(n: dict) -> str:
    return (f"{n['tests']} tests, {n['passed']} passed, {n['warnings']} warnings, {n['failures']} failures, "
            f"{n['exceptions']} exceptions")


def refused(message: str) -> str:
    """What a refused plan prints: a FAIL line and a summary of one failure (cli.py)."""
    return f"FAIL - {message}\n" + summary({"tests": 1, "passed": 0, "warnings": 0, "failures": 1,
                                            "exceptions": 0}) + "\n"


def render(ctx: Context) -> str:
    return text.render(ctx) + summary(counts(ctx.report, ctx.fail_on)) + "\n"
