"""Every report format, by name: one module per format, each with ``render(ctx) -> str`` over
one :class:`Context` (context.py: the settled report, the plan, where findings are in the source).

The report a format renders is settled (engine.evaluate: waivers, redaction, --changed-only
and the baseline already applied); a format only reads each finding's ``state``
(findings.py) and never decides again what counts. ``FORMATS`` is the one table of them: the
CLI takes its choices, its help and which formats need the passing checks from it, and
renders several from one evaluation (``--format`` and any number of ``--report FORMAT=PATH``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import github, gitlab, json_report, junit, markdown, sarif, text
from .context import Context, SourceLocator

__all__ = ["FORMATS", "Context", "Format", "SourceLocator", "render"]


@dataclass(frozen=True)
class Format:
    name: str
    help: str  # one line for --help
    render: Callable[[Context], str]
    needs_passes: bool = False  # it lists passing checks, so the evaluation keeps them


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("text", "for people (default)", text.render),
    Format("json", "findings and summary, for tools", json_report.render),
    Format("sarif", "SARIF 2.1.0, for GitHub code scanning and other SARIF viewers", sarif.render),
    Format("junit", "JUnit XML, for the test tabs of Jenkins, GitLab and Azure DevOps", junit.render,
           needs_passes=True),
    Format("github", "GitHub Actions workflow commands: annotations on the .tf lines", github.render),
    Format("gitlab", "GitLab Code Quality JSON, for artifacts:reports:codequality", gitlab.render),
    Format("markdown", "a findings table and a Mermaid diagram of the checked topology (job summary, PR comment)",
           markdown.render, needs_passes=True),
)}


def render(name: str, ctx: Context) -> str:
    """The report in format ``name`` (a key of FORMATS)."""
    return FORMATS[name].render(ctx)
