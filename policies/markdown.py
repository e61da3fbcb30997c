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

from collections import defaultdict

from .keys import related_addresses
from .rules import UNDECIDED
from .topology import Edge, edges

# rules about the link from a queue to its DLQ (reported on the source queue or on the DLQ)
_DLQ_RULES = {"SQS003", "SQS004", "SQS005", "SQS006", "SQS011"}
_CONSUMER_RULES = {"ESM001", "ESM002", "ESM003", "ESM004", "ESM005"}
_SHAPES = {"aws_sqs_queue": ('["', '"]'), "aws_lambda_function": ('("', '")'),
           "aws_cloudwatch_metric_alarm": ('{{"', '"}}'), "aws_sns_topic": ('>"', '"]'),
           "aws_s3_bucket": ('[("', '")]'), "aws_dynamodb_table": ('[("', '")]')}
_EDGE = {"dlq": "-->", "consumer": "-->", "watches": "-.->", "notifies": "-->", "claim-check": "-.->"}
_EDGE_TEXT = {"dlq": "DLQ", "consumer": "consumer", "watches": "alarm", "notifies": "notifies",
              "claim-check": "payloads"}
MAX_ROWS = 200  # findings table rows; the rest are counted


def _md(s: str) -> str:
    """Text safe in a Markdown table cell."""
    return (s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")
            .replace(">", "&gt;").replace("`", "'"))


def _mm(s: str) -> str:
    """Text safe in a quoted Mermaid label."""
    return s.replace('"', "#quot;").replace("\n", " ").replace("<", "#lt;").replace(">", "#gt;")


def _module_of(address: str) -> tuple[str, str]:
    """(module call path without instance keys, the rest) of an address."""
    import re

    parts = re.split(r"\.(?=(?:data\.)?[a-z0-9_]+\.[A-Za-z0-9_-]+(?:\[[^\]]*\])?$)", address, maxsplit=1)
    if len(parts) == 2 and parts[0].startswith("module."):
        mod = parts[0]
        keys = re.findall(r"\[[^\]]*\]", mod)
        return re.sub(r"\[[^\]]*\]", "", mod), "".join(keys) + (" " if keys else "") + parts[1]
    return "", address


def _label(f) -> str:
    if f.waiver is not None:
        return "waived"
    if not f.judged:
        return "not judged"
    if f.baseline == "unchanged":
        return "baselined"
    if f.status == UNDECIDED:
        return "unknown"
    return f.severity


def render_markdown(ctx) -> str:
    from .report import _order

    report = ctx.report
    c = report.counts()
    out = [f"### sqs-policy: `{_md(ctx.plan_path)}`", ""]
    bits = [f"{c['errors']} error(s)", f"{c['warnings']} warning(s)", f"{c['unknown']} unknown",
            f"{c['waived']} waived"]
    for k, name in (("baselined", "baselined"), ("fixed", "fixed"), ("not_judged", "not judged")):
        if k in c:
            bits.append(f"{c[k]} {name}")
    bits.append(f"{c['passed']} passed")
    verdict = "**Violations found.**" if report.failed() else "**No violations.**"
    out += [f"{verdict} {', '.join(bits)} ({len(report.rules_run)} rules, {report.resources} resources"
            f"{', --strict' if report.strict else ''}).", ""]
    findings = sorted(report.findings, key=_order)
    counted = [f for f in findings if f.counts_toward_exit()]
    other = [f for f in findings if not f.counts_toward_exit()]

    def table(rows) -> list[str]:
        t = ["| | Rule | Resource | Problem | Fix |", "|---|---|---|---|---|"]
        for f in rows[:MAX_ROWS]:
            path, line = ctx.location(f)
            t.append(f"| {_label(f)} | {f.rule_id} {f.slug} | `{_md(f.address)}`<br>{_md(path)}:{line} | "
                     f"{_md(f.message)} | {_md(f.remediation)} |")
        if len(rows) > MAX_ROWS:
            t.append(f"| | | | … and {len(rows) - MAX_ROWS} more (see the text or JSON report) | |")
        return t

    if counted:
        out += table(counted) + [""]
    if other:
        out += ["<details><summary>" + f"{len(other)} waived, baselined or not judged finding(s)</summary>", ""]
        out += table(other) + ["", "</details>", ""]
    if report.fixed:
        out += [f"{len(report.fixed)} baselined finding(s) are fixed: `sqs-policy baseline PLAN --update -o "
                f"{_md(report.baseline_file or 'FILE')}` removes them.", ""]
    diagram = mermaid(report)
    if diagram:
        out += ["#### Topology checked", "", "```mermaid", *diagram, "```", ""]
    for n in report.notes:
        out.append(f"> note: {_md(n)}")
    return "\n".join(out).rstrip("\n") + "\n"


def mermaid(report) -> list[str]:
    model = report.model
    if model is None:
        return []
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
        (unsure if f.status == UNDECIDED else bad)[f.address].add(f.rule_id)
        if f.status == UNDECIDED:
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
    lines = ["flowchart LR"]
    ids: dict[str, str] = {}
    for gi, mod in enumerate(sorted(set(draw) | set(passing))):
        lines.append(f'  subgraph g{gi}["{_mm(mod or "root module")}"]')
        for n in draw.get(mod, ()):
            nid = ids.setdefault(n, f"n{len(ids)}")
            o, cl = _SHAPES.get(types.get(n, ""), ('["', '"]'))
            text = _module_of(n)[1]
            if n in bad:
                text += " ❌ " + " ".join(sorted(bad[n]))
            if n in unsure:
                text += " ❔ " + " ".join(sorted(unsure[n]))
            lines.append(f"    {nid}{o}{_mm(text)}{cl}")
        if passing.get(mod):
            kinds: dict[str, int] = defaultdict(int)
            for members in passing[mod]:
                for n in members:
                    kinds[types.get(n, "resource").replace("aws_", "")] += 1
            what = ", ".join(f"{v} {k}" for k, v in sorted(kinds.items()))
            lines.append(f'    p{gi}["✅ {len(passing[mod])} linked group(s) pass: {_mm(what)}"]')
        lines.append("  end")
    link_no = 0
    red = []
    seen: set = set()
    for e in es:
        if e.src not in ids or e.dst not in ids:
            continue
        rules = set()
        for x in es:
            if (x.src, x.dst, x.kind) == (e.src, e.dst, e.kind):
                rules |= bad_links.get(x, set())
        key = (e.src, e.dst, e.kind, e.label)
        if key in seen:
            continue
        seen.add(key)
        text = _EDGE_TEXT[e.kind] + (f", {e.label}" if e.label else "") + (
            " ❌ " + " ".join(sorted(rules)) if rules else "")
        lines.append(f'  {ids[e.src]} {_EDGE[e.kind]}|"{_mm(text)}"| {ids[e.dst]}')
        if rules:
            red.append(str(link_no))
        link_no += 1
    bad_ids = [ids[n] for n in sorted(bad) if n in ids]
    if bad_ids:
        lines.append("  classDef fail stroke:#d1242f,stroke-width:3px,color:#d1242f")
        lines.append(f"  class {','.join(bad_ids)} fail")
    if red:
        lines.append(f"  linkStyle {','.join(red)} stroke:#d1242f,stroke-width:3px")
    if len(lines) == 1:
        return []
    return lines
