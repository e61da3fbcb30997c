"""Every report format, by name: one module per format, each with ``render(ctx) -> str`` over
one :class:`Context` (context.py: the settled report, the plan, where findings are in the source),
and :meth:`Format.render`, which passes its text through ci_commands for the format's syntax so
that no line of any report is a CI runner's command the tool did not mean.

The report a format renders is settled (engine.evaluate: waivers, redaction, --changed-only
and the baseline already applied); a format only reads each finding's ``state``
(findings.py) and never decides again what counts. ``FORMATS`` is the one table of them: the
CLI takes its choices, its help and which formats need the passing checks from it, and
renders several from one evaluation (``--format`` and any number of ``--report FORMAT=PATH``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import import_module

from .context import Context, SourceLocator

__all__ = ["FORMATS", "Context", "Format", "SourceLocator", "render"]


@dataclass(frozen=True)
class Format:
    name: str
    help: str  # one line for --help
    module: str  # the module of this package that writes it, with its render(ctx)
    syntax: str  # how its text is kept free of CI runner commands (ci_commands.neutralize), or "github"
    needs_passes: bool = False  # it lists passing checks, so the evaluation keeps them

    def render(self, ctx: Context) -> str:
        """The report, every line of it safe in a CI log: the tool's own annotations (the
        ``github`` format) are the only runner commands in it, whatever the input holds. The
        format's module is imported here, when it is first used (a check starts fast)."""
        from ..ci_commands import neutralize

        out = import_module(f"{__name__}.{self.module}").render(ctx)
        return _own_commands_only(out) if self.syntax == "github" else neutralize(out, self.syntax)


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("text", "for people (default)", "text", "text"),
    Format("json", "findings and summary, for tools", "json_report", "json"),
    Format("sarif", "SARIF 2.1.0, for GitHub code scanning and other SARIF viewers", "sarif", "json"),
    Format("junit", "JUnit XML, for the test tabs of Jenkins, GitLab and Azure DevOps", "junit", "xml",
           needs_passes=True),
    Format("github", "GitHub Actions workflow commands: annotations on the .tf lines", "github", "github"),
    Format("gitlab", "GitLab Code Quality JSON, for artifacts:reports:codequality", "gitlab", "json"),
    Format("markdown", "a findings table and a Mermaid diagram of the checked topology (job summary, PR comment)",
           "markdown", "markdown", needs_passes=True),
    Format("atlantis", "the text report and a conftest-form summary line, for an Atlantis custom_policy_check "
           "(exit 0 whenever it is written: Atlantis reads the verdict from the output)", "atlantis", "text"),
    Format("spacelift", "a Spacelift plan policy's custom input (--report spacelift=sqs-policy.custom.spacelift.json)",
           "spacelift", "json"),
    Format("hcp-run-task", "the JSON:API body of an HCP Terraform / Terraform Enterprise run task result "
           "(what `sqs-policy run-task serve` sends)", "hcp_run_task", "json"),
)}


def render(name: str, ctx: Context) -> str:
    """The report in format ``name`` (a key of FORMATS), safe in a CI log (Format.render)."""
    return FORMATS[name].render(ctx)


_OWN = re.compile(r"::(error|warning|notice) [^\r]*\Z")


def _own_commands_only(text: str) -> str:
    """The ``github`` format's lines are the tool's annotations (their data escaped as the
    runner unescapes it); a line that is not one is neutralized as text, never passed on."""
    from ..ci_commands import neutralize_line

    out = []
    for line in text.split("\n"):
        if line and not _OWN.match(line):
            line = neutralize_line(line, "text")
        out.append(line)
    return "\n".join(out)
