"""The combined summary of a batch (``sqs-policy check plans/*.json``, policies/batch.py): text
(each plan's text report under a header, then one line per plan and the totals), Markdown
(a table of the plans, the refused and failing ones first; a job summary or PR comment) or
JSON (per plan: name, path, exit code, counts, the reason it was refused; and the totals).

It is not a row of ``FORMATS``: those render one plan's :class:`Context`; this renders the
results of many. Plan names and paths, and the reasons quoted from the input, pass through
the same guards as every report: terminal.escape for text, markdown's ``_md`` for Markdown,
and ci_commands.neutralize for the format's syntax on the whole text.
"""
from __future__ import annotations

from ..ci_commands import neutralize
from ..terminal import escape
from .json_report import dumps
from .markdown import MAX_MARKDOWN, _md

SUMMARY_FORMATS = ("text", "markdown", "json")
_RESULT = {0: "passed", 1: "failed", 2: "refused"}
_KEYS = ("errors", "warnings", "unknown", "waived", "passed")


def _counts(r) -> dict:
    return r.counts or {}


def totals(results, rc: int) -> dict:
    t = {"plans": len(results), "passed_plans": 0, "failed_plans": 0, "refused_plans": 0, "exit_code": rc}
    for k in _KEYS:
        t[k] = 0
    for r in results:
        t[f"{_RESULT[r.rc]}_plans"] += 1
        c = _counts(r)
        for k in _KEYS:
            t[k] += c.get(k, 0)
    return t


def headline(results, rc: int) -> str:
    t = totals(results, rc)
    return (f"{t['plans']} plan(s): {t['failed_plans']} failed, {t['refused_plans']} refused, {t['passed_plans']} "
            f"passed; {t['errors']} error(s), {t['warnings']} warning(s), {t['unknown']} unknown, {t['waived']} "
            f"waived, {t['passed']} passed checks; exit {rc} (the worst plan's)")


def _line(r) -> str:
    if r.counts is None:
        return f"{r.name} ({r.path}): refused: {r.error}"
    c = _counts(r)
    return (f"{r.name} ({r.path}): {_RESULT[r.rc]}: {c['errors']} error(s), {c['warnings']} warning(s), "
            f"{c['unknown']} unknown, {c['waived']} waived, {c['passed']} passed")


def _ordered(results):
    """Refused plans first, then failed, then passed; by name within each."""
    return sorted(results, key=lambda r: (-r.rc, r.name))


def render(fmt: str, results, rc: int, texts: dict | None = None) -> str:
    """The summary in ``fmt`` (one of SUMMARY_FORMATS); ``texts``: each plan's text report by
    name (already rendered by FORMATS["text"]), put before the summary in the text form."""
    if fmt == "json":
        doc = {"plans": [{"name": r.name, "path": r.path, "exit_code": r.rc, "result": _RESULT[r.rc],
                          **({"summary": r.summary} if r.summary is not None else {"error": r.error}),
                          "reports": [{"format": f, "path": p} for f, p in r.reports if p]}
                         for r in results],
               "summary": totals(results, rc)}
        return neutralize(dumps(doc), "json")
    if fmt == "markdown":
        return _markdown(results, rc)
    out = []
    for r in results:
        out.append(neutralize(escape(f"=== {r.name} ({r.path}) ==="), "text"))
        if r.counts is None:
            out.append(neutralize(escape(f"refused: {r.error}"), "text") + "\n")
        elif texts is not None and r.name in texts:
            out.append(texts[r.name])  # the text format's own rendering, safe already
    body = "\n".join(out)
    if body:
        body = body.rstrip("\n") + "\n\n"
    summary = ["=== summary ==="] + [_line(r) for r in _ordered(results)] + [headline(results, rc)]
    return body + neutralize("\n".join(escape(x) for x in summary) + "\n", "text")


def _markdown(results, rc: int) -> str:
    head = ["## sqs-policy: " + ("refused plans" if rc == 2 else "violations" if rc == 1 else "all plans pass"),
            "", headline(results, rc), "",  # the tool's own words and numbers
            "| plan | path | result | errors | warnings | unknown | waived | passed |",
            "|---|---|---|---:|---:|---:|---:|---:|"]
    rows = []
    for r in _ordered(results):
        if r.counts is None:
            rows.append(f"| {_md(r.name)} | {_md(r.path)} | **refused**: {_md(r.error or '')} | | | | | |")
            continue
        c = _counts(r)
        res = f"**{_RESULT[r.rc]}**" if r.rc else _RESULT[r.rc]
        rows.append(f"| {_md(r.name)} | {_md(r.path)} | {res} | {c['errors']} | {c['warnings']} | {c['unknown']} | "
                    f"{c['waived']} | {c['passed']} |")
    size = sum(len(x) + 1 for x in head) + 200
    kept = []
    for row in rows:
        if size + len(row) + 1 > MAX_MARKDOWN:
            break
        kept.append(row)
        size += len(row) + 1
    tail = []
    if len(kept) < len(rows):
        tail = ["", f"{len(rows) - len(kept)} more plan(s) not shown (a comment holds at most {MAX_MARKDOWN:,} "
                    "characters): the text or JSON summary lists every plan."]
    return neutralize("\n".join(head + kept + tail) + "\n", "markdown")
