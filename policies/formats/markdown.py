"""``--format markdown``: for a GitHub job summary or a pull-request / merge-request comment.

A summary line, the findings that count in a table (the waived, baselined and not judged ones
folded away below it), and a Mermaid diagram of the messaging topology the checker linked
(topology.py): each queue and its DLQ, the functions that consume it with their timeouts, the
alarms that watch it and the topics they notify, the claim-check buckets that hold its payloads,
and the idempotency tables. Resources with a finding are drawn red and carry the failing rule
IDs; a link is drawn red when a finding is about it (a DLQ rule on the pair, a consumer rule on
the queue and function, a finding on one end that names the other). GitHub and GitLab render
Mermaid in Markdown.

Readable at 50 queues: resources are grouped by module (the module call, all its instances in
one group), and within a group every connected set of resources with no finding collapses
into one node ("12 queues, 12 DLQs, ... pass").
"""
from __future__ import annotations

import re
from collections import defaultdict

from ..findings import UNKNOWN, order
from ..keys import related_addresses
from ..terminal import escape
from ..topology import Edge, edges
from .context import Context

# rules about the link from a queue to its DLQ (reported on the source queue or on the DLQ)
_DLQ_RULES = {"SQS003", "SQS004", "SQS005", "SQS006", "SQS011", "SQS012"}
_CONSUMER_RULES = {"ESM001", "ESM002", "ESM003", "ESM004", "ESM005"}
_SHAPES = {"aws_sqs_queue": ('["', '"]'), "aws_lambda_function": ('("', '")'),
           "aws_cloudwatch_metric_alarm": ('{{"', '"}}'), "aws_sns_topic": ('>"', '"]'),
           "aws_s3_bucket": ('[("', '")]'), "aws_dynamodb_table": ('[("', '")]')}
_EDGE = {"dlq": "-->", "consumer": "-->", "watches": "-.->", "notifies": "-->", "claim-check": "-.->"}
_EDGE_TEXT = {"dlq": "DLQ", "consumer": "consumer", "watches": "alarm", "notifies": "notifies",
              "claim-check": "payloads"}
MAX_ROWS = 200  # findings table rows; the rest are counted
# the whole report: GitHub refuses a pull-request or issue comment over 65,536 characters (a job
# summary may hold 1 MiB, so what fits a comment fits both); GitLab's note limit is larger
MAX_MARKDOWN = 65_536
_MIN_DIAGRAM = 2_000  # a diagram squeezed below this is left out instead
_DIAGRAM_SHARE = 21_000  # what a cut diagram keeps when the findings table needs the rest


_PUNCT = re.compile(r"[!-/:-@\[-`{-~]")  # ASCII punctuation (CommonMark: each may be backslash-escaped)
MAX_LABEL = 200  # characters of one Mermaid label
MAX_DIAGRAM = 50_000  # Mermaid's default maxTextSize: a longer diagram is not drawn at all


def _md(s: str) -> str:
    """Input text as Markdown text that renders as exactly that text, on one line, in a table
    cell or a paragraph: control characters, line breaks and bidi controls as visible escapes
    (terminal.escape), every ASCII punctuation character backslash-escaped (so no link,
    image, HTML, emphasis, heading, autolink, table pipe or runner command ``##[`` can come
    from it), and ``@`` as a code span (GitHub links ``@name`` and ``a@b.c`` in text, not in code)."""
    s = escape(s)
    return _PUNCT.sub(lambda m: "`@`" if m.group() == "@" else "\\" + m.group(), s)


def _code(s: str) -> str:
    """Input text in a monospace span: ``<code>`` around :func:`_md` (a Markdown code span
    cannot escape, so one could not hold ``|`` in a table or a backtick run safely)."""
    return f"<code>{_md(s)}</code>"


def _mm(s: str) -> str:
    """Text safe in a quoted Mermaid label: at most MAX_LABEL characters, on one line, and each
    character Mermaid could read as syntax as its entity code (#35; for #): no quote ends the
    label, no %%{init}%% directive, no markdown string (a leading backtick), no HTML."""
    s = escape(s)
    if len(s) > MAX_LABEL:
        s = s[:MAX_LABEL - 1] + "…"
    return _MM_UNSAFE.sub(lambda m: f"#{ord(m.group())};", s)


_MM_UNSAFE = re.compile(r'["#%&;<>`\\|{}]')


def _module_of(address: str) -> tuple[str, str]:
    """(module call path without instance keys, the rest) of an address."""
    parts = re.split(r"\.(?=(?:data\.)?[a-z0-9_]+\.[A-Za-z0-9_-]+(?:\[[^\]]*\])?$)", address, maxsplit=1)
    if len(parts) == 2 and parts[0].startswith("module."):
        mod = parts[0]
        keys = re.findall(r"\[[^\]]*\]", mod)
        return re.sub(r"\[[^\]]*\]", "", mod), "".join(keys) + (" " if keys else "") + parts[1]
    return "", address


def render(ctx: Context) -> str:
    """The report within MAX_MARKDOWN characters: when the whole one does not fit, the waived,
    baselined and not judged rows go first, then the diagram shrinks (or is left out), then the
    findings table keeps its first rows (errors first); a note says what was left out and where
    the full list is."""
    full = _render(ctx, None, None, None)
    if len(full) <= MAX_MARKDOWN:
        return full
    findings = [f for f in ctx.report.findings if f.counts_toward_exit()]

    def fits(rows, other_rows, diagram):
        text = _render(ctx, rows, other_rows, diagram)
        return text if len(text) <= MAX_MARKDOWN else None

    if (got := fits(len(findings), 0, MAX_DIAGRAM)):
        others = len(ctx.report.findings) - len(findings)
        lo, hi = 0, min(others, MAX_ROWS) + 1  # as many of the other rows as fit
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if fits(len(findings), mid, MAX_DIAGRAM):
                lo = mid
            else:
                hi = mid
        return fits(len(findings), lo, MAX_DIAGRAM) if lo else got
    rest = len(_render(ctx, len(findings), 0, 0))
    room = MAX_MARKDOWN - rest - 200
    if room >= _MIN_DIAGRAM and (got := fits(len(findings), 0, room)):
        return got
    # the table's first rows beside a diagram of at most a third of the budget (none when not even
    # the first row fits beside it: the findings come first)
    diagram = min(_DIAGRAM_SHARE, MAX_MARKDOWN // 3)
    if not fits(min(len(findings), 1), 0, diagram):
        diagram = 0
    lo, hi = 0, min(len(findings), MAX_ROWS) + 1  # fits(lo) holds, fits(hi) does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid, 0, diagram):
            lo = mid
        else:
            hi = mid
    text = fits(lo, 0, diagram)
    if text is None:  # the header and notes alone are over: cut the text at a line
        text = _render(ctx, 0, 0, 0)
        text = text[:MAX_MARKDOWN - 300].rsplit("\n", 1)[0] + (
            f"\n\n> note: cut at GitHub's {MAX_MARKDOWN:,}-character limit; the full report is in {_md(ctx.full_list())}.\n")
    return text


def _render(ctx: Context, rows_max: int | None, other_max: int | None, diagram_max: int | None) -> str:
    """The report with at most ``rows_max`` rows of findings that count, ``other_max`` rows of
    the others and a diagram of at most ``diagram_max`` characters (0: none); None: no cut."""
    report = ctx.report
    c = report.counts()
    out = [f"### sqs-policy: {_code(ctx.plan_path)}", ""]
    bits = [f"{c['errors']} error(s)", f"{c['warnings']} warning(s)", f"{c['unknown']} unknown",
            f"{c['waived']} waived"]
    for k, name in (("baselined", "baselined"), ("fixed", "fixed"), ("not_judged", "not judged")):
        if k in c:
            bits.append(f"{c[k]} {name}")
    bits.append(f"{c['passed']} passed")
    verdict = "**Violations found.**" if report.failed() else "**No violations.**"
    out += [f"{verdict} {', '.join(bits)} ({len(report.rules_run)} rules, {report.resources} resources"
            f"{', --strict' if report.strict else ''}).", ""]
    findings = sorted(report.findings, key=order)
    counted = [f for f in findings if f.counts_toward_exit()]
    other = [f for f in findings if not f.counts_toward_exit()]

    cut = []  # what this report leaves out, for the note at its end

    def table(rows, limit) -> list[str]:
        limit = MAX_ROWS if limit is None else min(limit, MAX_ROWS)
        t = ["| | Rule | Resource | Problem | Fix |", "|---|---|---|---|---|"]
        for f in rows[:limit]:
            path, line = ctx.location(f)
            judged = f.judged_note()
            t.append(f"| {f.state} | {f.rule_id} {f.slug} | {_code(f.address)}<br>{_md(path)}:{line} | "
                     f"{_md(f.message)}{'<br>' + _md(judged) if judged else ''} | {_md(f.remediation)} |")
        if len(rows) > limit:
            t.append(f"| | | | … and {len(rows) - limit} more: {_md(ctx.full_list())} | |")
        return t

    if counted:
        if rows_max == 0:
            out += [f"{len(counted)} finding(s) count; the table is left out to fit GitHub's "
                    f"{MAX_MARKDOWN:,}-character comment limit: {_md(ctx.full_list())} lists them.", ""]
        else:
            out += table(counted, rows_max) + [""]
            if rows_max is not None and rows_max < min(len(counted), MAX_ROWS):
                cut.append(f"{len(counted) - rows_max} of the {len(counted)} findings that count")
    if other:
        out += ["<details><summary>" + f"{len(other)} waived, baselined or not judged finding(s)</summary>", ""]
        if other_max == 0:
            out += [f"Not listed here, to fit GitHub's {MAX_MARKDOWN:,}-character comment limit: "
                    f"{_md(ctx.full_list())} lists them.", "", "</details>", ""]
            cut.append(f"the {len(other)} waived, baselined or not judged findings")
        else:
            out += table(other, other_max) + ["", "</details>", ""]
            if other_max is not None and other_max < min(len(other), MAX_ROWS):
                cut.append(f"{len(other) - other_max} of the {len(other)} waived, baselined or not judged findings")
    if report.fixed:
        out += [f"{len(report.fixed)} baselined finding(s) are fixed: <code>sqs-policy baseline PLAN --update -o "
                f"{_md(report.baseline_file or 'FILE')}</code> removes them.", ""]
    diagram, diagram_cut = ([], None) if diagram_max == 0 else mermaid(report, diagram_max or MAX_DIAGRAM)
    if diagram:
        out += ["#### Topology checked", "", "```mermaid", *diagram, "```", ""]
    elif diagram_max == 0 and report.model is not None and mermaid(report)[0]:
        cut.append("the topology diagram")
    if diagram_cut:
        out.append(f"> note: {_md(diagram_cut)}")
    for n in report.notes:
        out.append(f"> note: {_md(n)}")
    if any(fmt == "github" for fmt, _ in ctx.reports):
        from .github import MAX_PER_JOB, MAX_PER_LEVEL, left_out

        over = left_out(ctx)
        if over:
            out.append(f"> note: GitHub shows at most {MAX_PER_LEVEL} annotations of each level per step "
                       f"({MAX_PER_JOB} per job): " + ", ".join(f"{n} {lv}(s)" for lv, n in over.items())
                       + " are not annotated on the pull request; the table above and the job log list them.")
    if cut:
        out.append(f"> note: this report is cut to fit GitHub's {MAX_MARKDOWN:,}-character limit for a "
                   f"pull-request comment: {_md('; '.join(cut))} left out; the full list is in {_md(ctx.full_list())}.")
    return "\n".join(out).rstrip("\n") + "\n"


def mermaid(report, limit: int = MAX_DIAGRAM) -> tuple[list[str], str | None]:
    """The topology diagram's lines (none: nothing to draw) and a note when it was cut to fit
    Mermaid's size limit."""
    model = report.model
    if model is None:
        return [], None
    es = [e for e in edges(model) if e.kind in _EDGE]
    nodes: set[str] = set()
    for e in es:
        nodes |= {e.src, e.dst}
    nodes |= {q.address for q in model.queues}
    nodes |= {b.address for b in model.buckets if b.claim_check or b.queues}
    nodes |= {t.address for t in model.tables}
    types = {r.address: r.type for r in model.plan.resources}
    # findings that count, by resource, and the links they are about
    bad: dict[str, set[str]] = defaultdict(set)
    unsure: dict[str, set[str]] = defaultdict(set)
    bad_links: dict[Edge, set[str]] = defaultdict(set)
    for f in report.findings:
        if not f.counts_toward_exit() or f.rule_id.startswith("CFG"):
            continue
        (unsure if f.state == UNKNOWN else bad)[f.address].add(f.rule_id)
        if f.state == UNKNOWN:
            continue
        rel = set(related_addresses(f.message, f.address))
        for e in es:
            ends = {e.src, e.dst}
            if (e.via and f.address == e.via) or (f.address in ends and (
                    rel & ends or (e.kind == "dlq" and f.rule_id in _DLQ_RULES))):
                bad_links[e].add(f.rule_id)
    # connected components, to collapse the passing ones
    parent = {n: n for n in nodes}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    topics = {e.dst for e in es if e.kind == "notifies"}
    for e in es:
        if e.kind != "notifies":  # one topic for every alarm would tie all the pairs together
            parent[find(e.src)] = find(e.dst)
    comps: dict[str, list[str]] = defaultdict(list)
    for n in sorted(nodes - topics):
        comps[find(n)].append(n)
    flagged = set(bad) | set(unsure) | {x for e in bad_links for x in (e.src, e.dst)}
    draw: dict[str, list[str]] = defaultdict(list)  # module -> nodes drawn
    passing: dict[str, list[list[str]]] = defaultdict(list)  # module -> collapsed components
    for members in comps.values():
        if any(n in flagged for n in members):
            for n in members:
                draw[_module_of(n)[0]].append(n)
        else:
            home = sorted(members, key=lambda n: (types.get(n) != "aws_sqs_queue", n))[0]
            passing[_module_of(home)[0]].append(members)
    drawn = {n for ns in draw.values() for n in ns}
    for t in sorted({e.dst for e in es if e.kind == "notifies" and e.src in drawn}):
        draw[_module_of(t)[0]].append(t)
    groups: list[tuple[str, list[tuple[str, str]]]] = []  # per module: its subgraph line, its (node id, line)s
    ids: dict[str, str] = {}
    for gi, mod in enumerate(sorted(set(draw) | set(passing))):
        head, glines = f'  subgraph g{gi}["{_mm(mod or "root module")}"]', []
        for n in draw.get(mod, ()):
            nid = ids.setdefault(n, f"n{len(ids)}")
            o, cl = _SHAPES.get(types.get(n, ""), ('["', '"]'))
            text = _module_of(n)[1]
            if n in bad:
                text += " ❌ " + " ".join(sorted(bad[n]))
            if n in unsure:
                text += " ❔ " + " ".join(sorted(unsure[n]))
            glines.append((nid, f"    {nid}{o}{_mm(text)}{cl}"))
        if passing.get(mod):
            kinds: dict[str, int] = defaultdict(int)
            for members in passing[mod]:
                for n in members:
                    kinds[types.get(n, "resource").replace("aws_", "")] += 1
            what = ", ".join(f"{v} {k}" for k, v in sorted(kinds.items()))
            glines.append((f"p{gi}", f'    p{gi}["✅ {len(passing[mod])} linked group(s) pass: {_mm(what)}"]'))
        groups.append((head, glines))
    link_rules: dict[tuple, set[str]] = defaultdict(set)
    for x in es:
        link_rules[(x.src, x.dst, x.kind)] |= bad_links.get(x, set())
    links: list[tuple[str, str, str, bool]] = []  # (from id, to id, line, red)
    seen: set = set()
    for e in es:
        if e.src not in ids or e.dst not in ids:
            continue
        key = (e.src, e.dst, e.kind, e.label)
        if key in seen:
            continue
        seen.add(key)
        rules = link_rules[(e.src, e.dst, e.kind)]
        text = _EDGE_TEXT[e.kind] + (f", {e.label}" if e.label else "") + (
            " ❌ " + " ".join(sorted(rules)) if rules else "")
        links.append((ids[e.src], ids[e.dst], f'  {ids[e.src]} {_EDGE[e.kind]}|"{_mm(text)}"| {ids[e.dst]}', bool(rules)))
    bad_ids = {ids[n] for n in bad if n in ids}
    if not groups:
        return [], None
    return _assemble(groups, links, bad_ids, limit)


def _assemble(groups, links, bad_ids, limit: int = MAX_DIAGRAM) -> tuple[list[str], str | None]:
    """The diagram's lines, within MAX_DIAGRAM characters: Mermaid draws nothing from a longer
    text ("Maximum text size in diagram exceeded"), so the nodes that do not fit (the last ones,
    in module order) are left out, with their links, and the second value says how many
    (None: all drawn)."""
    total = sum(len(g[1]) for g in groups)

    def build(kept: int) -> list[str]:
        lines = ["flowchart LR"]
        shown: set[str] = set()
        for head, entries in groups:
            take = entries[:max(0, kept - len(shown))]
            if not take:
                continue
            lines.append(head)
            for nid, line in take:
                lines.append(line)
                shown.add(nid)
            lines.append("  end")
        red = []
        n = 0
        for a, b, line, is_red in links:
            if a in shown and b in shown:
                lines.append(line)
                if is_red:
                    red.append(str(n))
                n += 1
        fail = sorted(bad_ids & shown, key=lambda x: int(x[1:]))
        if fail:
            lines.append("  classDef fail stroke:#d1242f,stroke-width:3px,color:#d1242f")
            lines.append(f"  class {','.join(fail)} fail")
        if red:
            lines.append(f"  linkStyle {','.join(red)} stroke:#d1242f,stroke-width:3px")
        return lines

    def size(lines):
        return sum(len(x) + 1 for x in lines)

    lines = build(total)
    if size(lines) <= limit:
        return lines, None
    lo, hi = 0, total  # the most nodes that fit: build(lo) fits, build(hi) does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if size(build(mid)) <= limit:
            lo = mid
        else:
            hi = mid
    return (build(lo) if lo else []), (
        (f"the topology diagram would pass Mermaid's {MAX_DIAGRAM:,}-character limit (maxTextSize), which draws "
         "nothing" if limit >= MAX_DIAGRAM else f"the topology diagram is cut to {limit:,} characters (Mermaid "
         f"draws at most {MAX_DIAGRAM:,}: maxTextSize) so that the report fits GitHub's {MAX_MARKDOWN:,}-character "
         "comment limit") + f"; {total - lo} of its {total} node(s) are left out of it, with their links (the findings table "
        "and the text or JSON report list every finding)")
