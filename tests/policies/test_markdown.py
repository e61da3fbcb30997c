"""--format markdown: the findings table and the Mermaid diagram of the checked topology."""
from __future__ import annotations

import re

import pytest

from resilient_sqs.policy.engine import evaluate
from resilient_sqs.policy.formats import Context, render
from tests.support.helpers import REPO_ROOT
from tooling.report_consumers import markdown_rows
from tests.policies import plans
from tests.support.policy_reports import FIXTURES, _ctx

NODE = re.compile(r'^    (n\d+|p\d+)(\[\(|\[|\(|\{\{|>)"([^"]*)"(\)\]|\]|\)|\}\})$')
EDGE = re.compile(r'^  (n\d+) (-->|-\.->)\|"([^"]*)"\| (n\d+)$')


def _diagram(md: str) -> list[str]:
    assert md.count("```mermaid") <= 1
    if "```mermaid" not in md:
        return []
    return md.split("```mermaid\n", 1)[1].split("```", 1)[0].splitlines()


def _structure(lines: list[str]) -> dict:
    """Nodes, edges and red link indices of a diagram; fails on a line it does not expect."""
    assert lines[0] == "flowchart LR"
    nodes, edges, red, fail_class = {}, [], [], []
    depth = 0
    for line in lines[1:]:
        if m := NODE.match(line):
            assert m.group(1) not in nodes, line
            nodes[m.group(1)] = m.group(3)
        elif m := EDGE.match(line):
            edges.append((m.group(1), m.group(3), m.group(4)))
        elif re.match(r'^  subgraph g\d+\["[^"]+"\]$', line):
            depth += 1
        elif line == "  end":
            depth -= 1
        elif line.startswith("  linkStyle "):
            red = [int(x) for x in line.split()[1].split(",")]
        elif line.startswith("  class "):
            fail_class = line.split()[1].split(",")
        else:
            assert line.startswith("  classDef fail "), line
    assert depth == 0
    for a, _, b in edges:
        assert a in nodes and b in nodes
    assert all(0 <= i < len(edges) for i in red) and all(n in nodes for n in fail_class)
    return {"nodes": nodes, "edges": edges, "red": red, "fail": fail_class}


@pytest.mark.parametrize("subject,path,source", FIXTURES, ids=[f[0] for f in FIXTURES])
def test_markdown_on_every_fixture_plan(subject, path, source):
    ctx = _ctx(path, source)
    md = render("markdown", ctx)
    counted = [f for f in ctx.report.findings if f.counts_toward_exit()]
    rows = [x for x in md.split("<details>")[0].splitlines() if x.startswith("| ") and not x.startswith("| |")]
    assert len(rows) == len(counted)
    lines = _diagram(md)
    if ctx.report.model.queues:
        s = _structure(lines)
        # every resource with a failing finding that the diagram draws is marked
        for nid, text in s["nodes"].items():
            assert ("❌" in text) == (nid in s["fail"]), text


def test_failing_links_are_marked():
    path = REPO_ROOT / "tests/policies/plans/claim-check-bad.json"
    md = render("markdown", _ctx(path, None))
    s = _structure(_diagram(md))
    by_text = {t: n for n, t in s["nodes"].items()}
    age = by_text["aws_cloudwatch_metric_alarm.age"]
    queue = by_text["aws_sqs_queue.this ❌ CW002"]
    i = next(i for i, (a, label, b) in enumerate(s["edges"]) if (a, b) == (age, queue))
    assert i in s["red"] and "❌ CW002" in s["edges"][i][1]
    assert by_text["aws_s3_bucket.payloads ❌ S3004"] in s["fail"]
    # the table lists the counted findings with their fix, as cmark-gfm renders it
    rows = markdown_rows(md)
    row = next(r for r in rows if r[1] == "S3004 claim-check-expiry")
    assert row[0] == "error" and row[2].startswith("aws_s3_bucket.payloads")
    assert "expiration.days" in row[4]


def _bench(pairs: int) -> dict:
    from tooling.bench_policy import synthetic_plan

    return synthetic_plan(plans.load("config:bench"), pairs)


def _set(doc: dict, address: str, **values):
    for rc in doc["resource_changes"]:
        if rc["address"] == address:
            rc["change"]["after"].update(values)
    stack = [doc["planned_values"]["root_module"]]
    while stack:
        m = stack.pop()
        for r in m.get("resources") or ():
            if r["address"] == address:
                r["values"].update(values)
        stack.extend(m.get("child_modules") or ())


def _drop(doc: dict, address: str):
    doc["resource_changes"] = [rc for rc in doc["resource_changes"] if rc["address"] != address]
    stack = [doc["planned_values"]["root_module"]]
    while stack:
        m = stack.pop()
        m["resources"] = [r for r in m.get("resources") or () if r["address"] != address]
        stack.extend(m.get("child_modules") or ())


def test_fifty_queues_stay_readable():
    doc = _bench(50)
    q = 'module.messaging.module.queue["bench-0007"].aws_sqs_queue.this'
    _set(doc, q, visibility_timeout_seconds=5)  # below 6 x the consumer's timeout
    _drop(doc, 'module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.dlq_depth["bench-0031"]')
    report = evaluate(doc, keep_passes=True, source_dir=None)
    md = render("markdown", Context(report, doc, "bench-50.json", "."))
    lines = _diagram(md)
    s = _structure(lines)
    assert len(lines) < 45, "\n".join(lines)
    # the 48 untouched pairs collapse into one node of their module
    assert any(t.startswith("✅ 48 linked group(s) pass") for t in s["nodes"].values())
    texts = [re.sub(r"#([0-9]+);", lambda m: chr(int(m.group(1))), t) for t in s["nodes"].values()]
    assert '["bench-0007"] aws_sqs_queue.this ❌ ESM001' in texts
    assert '["bench-0031"] aws_sqs_queue.dlq[0] ❌ CW001' in texts
    # the consumer link of the broken pair is red, with the rule
    red = [s["edges"][i] for i in s["red"]]
    assert any("consumer" in label and "ESM001" in label for _, label, _ in red)
    assert len(re.findall(r"^  subgraph ", "\n".join(lines), re.M)) <= 3


@pytest.mark.install
def test_mermaid_parses_the_diagrams(mermaid_parser):
    bad = render("markdown", _ctx(REPO_ROOT / "tests/policies/plans/claim-check-bad.json", None))
    assert mermaid_parser(bad.replace('|"payloads"|', '|"pay"loads"|')).startswith("ERR ")  # it does parse
    docs = [render("markdown", _ctx(path, source)) for _, path, source in FIXTURES]
    doc = _bench(50)
    _set(doc, 'module.messaging.module.queue["bench-0007"].aws_sqs_queue.this', visibility_timeout_seconds=5)
    docs.append(render("markdown", Context(evaluate(doc, keep_passes=True), doc, "b.json", ".")))
    out = mermaid_parser("\n".join(docs))
    assert "ERR" not in out and out.count("ok") == sum("```mermaid" in d for d in docs), out[:2000]


# -- size limits: a PR comment (65,536 characters), GitHub's annotations per step ------------------------
def _queue_bad_ctx(**kw) -> Context:
    doc = plans.load("config:queue-bad")
    return Context(evaluate(doc, keep_passes=True), doc, "plan.json", ".", **kw)


def _html(md: str) -> str:
    import cmarkgfm
    from cmarkgfm.cmark import Options

    return cmarkgfm.github_flavored_markdown_to_html(md, options=Options.CMARK_OPT_UNSAFE)


def test_a_report_over_the_comment_limit_is_cut_with_counts_and_a_pointer(monkeypatch):
    from resilient_sqs.policy.formats import markdown

    full = render("markdown", _queue_bad_ctx(reports=(("text", None), ("sarif", "out/sqs.sarif"))))
    assert "cut to fit" not in full
    monkeypatch.setattr(markdown, "MAX_MARKDOWN", len(full) // 2)
    ctx = _queue_bad_ctx(reports=(("text", None), ("sarif", "out/sqs.sarif")))
    cut = render("markdown", ctx)
    assert len(cut) <= len(full) // 2
    from resilient_sqs.policy.findings import order

    counted = [f for f in sorted(ctx.report.findings, key=order) if f.counts_toward_exit()]
    rows = markdown_rows(cut)
    shown = [r for r in rows if r[1]]
    assert "more: the sarif report out/sqs.sarif" in rows[-1][3], "the last row counts the rest and says where they are"
    assert 0 < len(shown) < len(counted), "the first rows stay, the rest are counted"
    # the rows kept are the first ones, in the report's order (errors first)
    assert [r[1] for r in shown] == [f"{f.rule_id} {f.slug}" for f in counted[:len(shown)]]
    note = next(line for line in cut.splitlines() if "cut to fit" in line)
    assert f"{len(counted) - len(shown)} of the {len(counted)} findings that count" in note.replace("\\", "")
    assert "sarif report out/sqs.sarif" in note.replace("\\", "")
    html = _html(cut)
    assert "<table>" in html and "<blockquote>" in html


def test_a_baselined_clean_run_keeps_the_verdict_and_lists_what_fits(monkeypatch, tmp_path):
    from resilient_sqs.policy.baseline import read_baseline, write_baseline
    from resilient_sqs.policy.formats import markdown

    doc = plans.load("config:queue-bad")
    write_baseline(evaluate(doc), str(tmp_path / "b.json"), None)
    report = evaluate(doc, keep_passes=True, baseline=read_baseline(str(tmp_path / "b.json")))
    full = render("markdown", Context(report, doc, "plan.json", "."))
    monkeypatch.setattr(markdown, "MAX_MARKDOWN", len(full) * 2 // 3)
    cut = render("markdown", Context(report, doc, "plan.json", "."))
    assert len(cut) <= len(full) * 2 // 3 and "**No violations.**" in cut
    assert "waived, baselined or not judged findings left out" in cut.replace("\\", "")


def test_annotations_over_githubs_limit_per_level_say_so():
    from resilient_sqs.policy.formats.github import MAX_PER_LEVEL

    ctx = _queue_bad_ctx(reports=(("text", None), ("github", "-"), ("markdown", "summary.md")))
    errors = [f for f in ctx.report.findings if f.counts_toward_exit() and f.severity == "error" and f.status == "fail"]
    assert len(errors) > MAX_PER_LEVEL
    gh = [line for line in render("github", ctx).splitlines() if line.startswith("::error ")]
    assert len(gh) == MAX_PER_LEVEL
    assert f"{len(errors) - MAX_PER_LEVEL + 1} more error(s) not annotated" in gh[-1].replace("%3A", ":")
    assert "the job summary" in gh[-1]
    md = render("markdown", ctx)
    assert f"{len(errors) - MAX_PER_LEVEL + 1} error(s) are not annotated" in md.replace("\\", "")


@pytest.mark.plan
def test_three_hundred_failing_pairs_fit_a_pull_request_comment(tmp_path):
    """A real plan of 300 failing queue pairs (tooling/bench_markdown.py's stack): the report
    and the one of a fully baselined run are over 65,536 characters uncut and fit it cut."""
    from resilient_sqs.policy.baseline import read_baseline, write_baseline
    from tooling.bench_markdown import measure, plan

    doc = plan(300)
    write_baseline(evaluate(doc), str(tmp_path / "b.json"), None)
    baseline = read_baseline(str(tmp_path / "b.json"))
    for bl in (None, baseline):
        assert len(measure(doc, bl, cut=False)) > 65_536
        md = measure(doc, bl, cut=True)
        assert len(md) <= 65_536 and "cut to fit" in md
        assert "<table>" in _html(md)
