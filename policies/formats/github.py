"""``--format github``: GitHub Actions workflow commands (``::error file=...,line=...,title=...::...``),
which GitHub shows as annotations on the ``.tf`` line (the plan file when the source is not
known). Only what counts: waived, baselined and not judged findings get none.

GitHub shows at most 10 annotations of each level (error, warning, notice) per step and 50 per
job, and drops the rest silently. So at most 10 of a level are written: when there are more,
the 9 first (by rule, as in every report) and a 10th saying how many more there are and where
every finding is listed (the text report in the log, the job summary, the other reports), and
the Markdown report of the same check says it too (markdown.py)."""
from __future__ import annotations

from ..findings import UNKNOWN, order
from ..terminal import escape
from .context import Context


def _gh_data(s: str) -> str:
    """A workflow command's message: shown in the job log, so control and bidi characters
    from the input are escaped as in the text report (terminal.escape), then the command's own."""
    s = "\n".join(escape(part) for part in s.split("\n"))  # a newline stays one (%0A, inside the command)
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(s: str) -> str:
    return _gh_data(s).replace(":", "%3A").replace(",", "%2C")


MAX_PER_LEVEL = 10  # annotations GitHub shows per level and step
MAX_PER_JOB = 50


def annotations(ctx: Context) -> dict[str, list]:
    """What would be annotated, by level: (command line, finding or None), in report order."""
    out: dict[str, list] = {"error": [], "warning": [], "notice": []}
    for f in sorted(ctx.report.findings, key=order):
        if not f.counts_toward_exit():
            continue
        path, line = ctx.location(f)
        unknown = f.state == UNKNOWN
        level = "notice" if unknown else ("error" if f.severity == "error" else "warning")
        what = f"{f.address}: {f.message}" + (" (cannot be decided before apply)" if unknown else "")
        judged = f.judged_note()
        what = f"{what}. Fix: {f.remediation}" + (f" ({judged})" if judged else "")
        out[level].append((f"::{level} file={_gh_prop(path)},line={line},title={_gh_prop(f'{f.rule_id} {f.slug}')}"
                           f"::{_gh_data(what)}", f))
    for e in ctx.report.fixed:
        out["notice"].append((f"::notice title={_gh_prop(e['rule'] + ' fixed')}::"
                              + _gh_data(f"{e['address']}: a baselined finding is gone; `sqs-policy baseline --update` "
                                         "removes it from the baseline"), None))
    for n in ctx.report.notes:
        out["notice"].append((f"::notice title=sqs-policy::{_gh_data(n)}", None))
    return out


def left_out(ctx: Context) -> dict[str, int]:
    """How many annotations of each level GitHub would not show (over MAX_PER_LEVEL)."""
    return {lv: len(items) - (MAX_PER_LEVEL - 1) for lv, items in annotations(ctx).items()
            if len(items) > MAX_PER_LEVEL}


def _where_listed(ctx: Context) -> str:
    summary = any(fmt == "markdown" for fmt, _ in ctx.reports)
    return ("the job summary and " if summary else "") + ctx.full_list()


def render(ctx: Context) -> str:
    lines = []
    for level, items in annotations(ctx).items():
        if len(items) <= MAX_PER_LEVEL:
            lines += [line for line, _ in items]
            continue
        lines += [line for line, _ in items[:MAX_PER_LEVEL - 1]]
        rest = items[MAX_PER_LEVEL - 1:]
        lines.append(f"::{level} title={_gh_prop(f'sqs-policy: {len(rest)} more {level}(s) not annotated')}::"
                     + _gh_data(f"GitHub shows at most {MAX_PER_LEVEL} {level} annotations per step ({MAX_PER_JOB} per "
                                f"job): {len(rest)} more {level}(s) are not annotated; every finding is listed in "
                                f"{_where_listed(ctx)}."))
    return "".join(line + "\n" for line in lines)
