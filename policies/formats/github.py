"""``--format github``: GitHub Actions workflow commands (``::error file=...,line=...,title=...::...``),
which GitHub shows as annotations on the ``.tf`` line (the plan file when the source is not
known). Only what counts: waived, baselined and not judged findings get none."""
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


def render(ctx: Context) -> str:
    lines = []
    for f in sorted(ctx.report.findings, key=order):
        if not f.counts_toward_exit():
            continue
        path, line = ctx.location(f)
        unknown = f.state == UNKNOWN
        level = "notice" if unknown else ("error" if f.severity == "error" else "warning")
        what = f"{f.address}: {f.message}" + (" (cannot be decided before apply)" if unknown else "")
        lines.append(f"::{level} file={_gh_prop(path)},line={line},title={_gh_prop(f'{f.rule_id} {f.slug}')}"
                     f"::{_gh_data(f'{what}. Fix: {f.remediation}')}")
    for e in ctx.report.fixed:
        lines.append(f"::notice title={_gh_prop(e['rule'] + ' fixed')}::"
                     + _gh_data(f"{e['address']}: a baselined finding is gone; `sqs-policy baseline --update` "
                                "removes it from the baseline"))
    for n in ctx.report.notes:
        lines.append(f"::notice title=sqs-policy::{_gh_data(n)}")
    return "".join(line + "\n" for line in lines)
