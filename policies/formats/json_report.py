"""``--format json``: the findings (passing checks too with --show-pass), the summary and the
notes, for tools."""
from __future__ import annotations

import json
import re

from ..findings import order
from .context import Context


def render(ctx: Context) -> str:
    report = ctx.report
    findings = [f.as_dict() for f in sorted(report.findings, key=order)]
    if ctx.show_pass:
        findings += [f.as_dict() for f in report.passed]
    out = {"findings": findings, "summary": report.summary(), "notes": report.notes}
    if report.baseline_file is not None:
        out["baseline"] = {"file": report.baseline_file, "fixed": report.fixed}
    if report.changed_only is not None:
        out["changed_only"] = report.changed_only
    return dumps(out)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _valid_unicode(v):
    """``v`` with every unpaired surrogate (a plan's ``"\\udc80"``, an undecodable file name)
    written as U+FFFD: JSON readers other than Python's refuse or mangle a lone one."""
    if isinstance(v, str):
        return _SURROGATE.sub("\ufffd", v) if _SURROGATE.search(v) else v
    if isinstance(v, dict):
        return {_valid_unicode(k): _valid_unicode(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_valid_unicode(x) for x in v]
    return v


def dumps(doc) -> str:
    """A JSON report (json, sarif, gitlab): valid Unicode, indented, ASCII."""
    return json.dumps(_valid_unicode(doc), indent=2) + "\n"
