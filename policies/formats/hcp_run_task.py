"""``--format hcp-run-task``: the body of an HCP Terraform / Terraform Enterprise run task's
result callback (``PATCH task_result_callback_url``, JSON:API), as the run-task service
(run_task.py) sends it.

HashiCorp's run-task integration API: ``data.type`` ``task-results``; ``attributes.status``
``passed`` or ``failed``, ``message`` (one line: the summary), ``url`` (where to read more,
added by the service when it has one); ``relationships.outcomes.data``: one
``task-result-outcomes`` per finding that counts (errors, then warnings, then unknown), with
``outcome-id`` (rule and address), ``description`` (one line), ``body`` (Markdown: the message
and the fix) and ``tags``: ``Status`` (Failed / Passed with warnings / Unknown) and
``Severity`` (Error / Warning / Unknown), each a label with its ``level`` (``error``,
``warning``, ``info``). HCP Terraform shows the outcomes as a table, the tags as columns.

At most ``MAX_OUTCOMES`` outcomes are sent (errors first); the message says how many more there
are. Every text from the plan is Markdown-escaped in ``body`` and escaped in the one-line
fields, like every report's (Format.render passes the JSON through ci_commands too).
"""
from __future__ import annotations

from ..findings import COUNTED, ERROR, UNKNOWN, WARNING, order
from ..terminal import escape
from .context import Context
from .json_report import dumps
from .markdown import _md
from .text import summary_line

MAX_OUTCOMES = 100
MAX_TEXT = 500  # characters of one description or message
_SEVERITY = {ERROR: ("Error", "error"), WARNING: ("Warning", "warning"), UNKNOWN: ("Unknown", "info")}


def _clip(s: str, n: int = MAX_TEXT) -> str:
    s = escape(" ".join(s.split()))
    return s if len(s) <= n else s[: n - 1] + "…"


def outcome(f, fail_on: str) -> dict:
    state = f.state
    label, level = _SEVERITY[state]
    fails = state == ERROR or (state == WARNING and fail_on == "warning")
    status = ("Failed", "error") if fails else (("Unknown", "info") if state == UNKNOWN else ("Passed with warnings",
                                                                                            "warning"))
    return {"type": "task-result-outcomes", "attributes": {
        "outcome-id": _clip(f"{f.rule_id}:{f.address}", 200),
        "description": _clip(f"{f.rule_id} {f.slug}: {f.address}"),
        "body": "\n\n".join([f"**{f.rule_id} {f.slug}** on {_md(f.address)}", _md(f.message),
                             f"**Fix:** {_md(f.remediation)}",
                             *([_md(judged)] if (judged := f.judged_note()) else [])]),
        "tags": {"Status": [{"label": status[0], "level": status[1]}],
                 "Severity": [{"label": label, "level": level}]},
    }}


def body(ctx: Context, url: str | None = None, max_outcomes: int = MAX_OUTCOMES) -> dict:
    report = ctx.report
    counted = sorted((f for f in report.findings if f.state in COUNTED), key=order)
    shown = counted[:max_outcomes]
    message = summary_line(report)
    if len(counted) > len(shown):
        message += f"; {len(counted) - len(shown)} more finding(s) not listed as outcomes"
    attrs = {"status": "failed" if report.failed(ctx.fail_on) else "passed", "message": _clip(message)}
    if url:
        attrs["url"] = url
    return {"data": {"type": "task-results", "attributes": attrs,
                     "relationships": {"outcomes": {"data": [outcome(f, ctx.fail_on) for f in shown]}}}}


def render(ctx: Context) -> str:
    return dumps(body(ctx))
