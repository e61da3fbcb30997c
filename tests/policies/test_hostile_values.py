"""PR-controlled text never becomes a CI command or a forged report (issue #30, sections 1-3):
every payload class in every place a pull request controls, every format, read by the real
consumers (tooling.hostile_values, tooling.report_consumers, tooling.runner_commands)."""
from __future__ import annotations

import pytest

from tooling import hostile_values, runner_commands
from tooling.report_consumers import check_markdown, check_markdown_cells, check_mermaid_text, mermaid_blocks

# the runner's own unit tests (actions/runner src/Test/L0/Worker/ActionCommandL0.cs): the port parses as it does
V1_CASES = [
    ("##[do-something k1=v1;]msg", "do-something", {"k1": "v1"}, "msg"),
    ("##[do-something]", "do-something", {}, ""),
    ("##[do-something k1=%3B=%0D=%0A=%5D;]%3B-%0D-%0A-%5D", "do-something", {"k1": ";=\r=\n=]"}, ";-\r-\n-]"),
    ("##[do-something k1=%253B=%250D=%250A=%255D;]%253B-%250D-%250A-%255D", "do-something",
     {"k1": "%3B=%0D=%0A=%5D"}, "%3B-%0D-%0A-%5D"),
    ("##[do-something k1=;k2=;]", "do-something", {}, ""),
    (">>>   ##[do-something k1=v1;]msg", "do-something", {"k1": "v1"}, "msg"),
]
V2_CASES = [
    ("::do-something k1=v1,::msg", "do-something", {"k1": "v1"}, "msg"),
    ("::do-something::", "do-something", {}, ""),
    ("::do-something k1=;=%2C=%0D=%0A=]=%3A,::;-%0D-%0A-]-:-,", "do-something", {"k1": ";=,=\r=\n=]=:"},
     ";-\r-\n-]-:-,"),
    ("   ::do-something k1=v1,::msg", "do-something", {"k1": "v1"}, "msg"),
]


@pytest.mark.parametrize("line,name,props,data", V1_CASES)
def test_runner_grammar_v1_as_the_runner_parses(line, name, props, data):
    cmd = runner_commands.parse_v1(line, {"do-something"})
    assert (cmd.name, cmd.properties, cmd.data) == (name, props, data)


@pytest.mark.parametrize("line,name,props,data", V2_CASES)
def test_runner_grammar_v2_as_the_runner_parses(line, name, props, data):
    cmd = runner_commands.parse_v2(line, {"do-something"})
    assert (cmd.name, cmd.properties, cmd.data) == (name, props, data)


def test_runner_reads_lines_as_dotnet_does():
    out = "a\r::error::x\r\nb\n\u3000::warning::y\nno ::error::z\nc ##[add-mask]s\n"
    assert runner_commands.lines(out) == ["a", "::error::x", "b", "\u3000::warning::y", "no ::error::z",
                                          "c ##[add-mask]s"]
    assert [(c.version, c.name) for c in runner_commands.commands(out, runner_commands.KNOWN)] == [
        ("v2", "error"), ("v2", "warning"), ("v1", "add-mask")]
    assert not runner_commands.commands("::unknown-name::x", runner_commands.KNOWN)
    assert runner_commands.commands("::unknown-name::x")  # any name: stop-commands registers any token


@pytest.mark.parametrize("place", sorted(hostile_values.PLACES))
def test_hostile_values_reach_no_consumer_as_syntax(place):
    broken = [(oc.cls, p) for oc in hostile_values.run_all([place]) for p in oc.problems]
    assert not broken, "\n".join(f"{c}: {p}" for c, p in broken[:20])


def test_the_consumers_see_what_the_old_escaping_let_through():
    """The checks are not vacuous: the markdown the checker wrote before #30 breaks them."""
    old_row = "| error | SQS002 queue-has-dlq | `aws_sqs_queue.q[\"a|b\"]`<br>plan.json:1 | [x](https://e.example) @me | f |"
    md = "| | Rule | Resource | Problem | Fix |\n|---|---|---|---|---|\n" + old_row + "\n"
    problems = check_markdown(md)
    assert any("<a>" in p for p in problems) and any("@mention" in p for p in problems)
    assert check_markdown_cells(md, [('aws_sqs_queue.q["a|b"]', "[x](https://e.example) @me")])
    assert check_mermaid_text('```mermaid\nflowchart LR\n  n0["%%{init: {}}%%"]\n  click n0 href "x"\n```\n')
    assert runner_commands.hazards("ERROR   SQS002  aws_sqs_queue.q[\"##[stop-commands]x\"]")
    assert runner_commands.hazards("        \u00a0::error::forged")


def test_a_diagram_over_mermaids_limit_is_cut_with_a_note():
    """Hundreds of failing queues with long keys: the diagram stays under maxTextSize and says
    what it left out; what it draws still has every one of its links' ends."""
    outcome_md = _markdown_of_many_queues(600)
    blocks = mermaid_blocks(outcome_md)
    assert blocks and len(blocks[0]) <= 50_000
    assert "maxTextSize" in outcome_md and "left out" in outcome_md
    assert not check_mermaid_text(outcome_md)


def _markdown_of_many_queues(n: int) -> str:
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        case = hostile_values.Case([hostile_values._dump(tmp, hostile_values._queue_plan(
            [f"queue-{i:04d}-" + "k" * 80 for i in range(n)])), "--no-source"])
        rep = tmp / "r"
        rep.mkdir()
        _, _, _, reports = hostile_values.run_check(case.args, rep)
        return reports["markdown"]


@pytest.mark.install
def test_mermaid_parses_every_hostile_diagram(mermaid_parser, tmp_path):
    """The real Mermaid parser reads each hostile report's diagram as one diagram (nothing
    broke out of a label), and the cut diagram of a large plan too."""
    docs = []
    for place in ("for-each-key", "module-key", "iam-statement"):
        for cls in ("mermaid", "runner-v1", "cell-breakers", "long"):
            with_dir = tmp_path / f"{place}-{cls}"
            with_dir.mkdir()
            case = hostile_values.PLACES[place](with_dir, hostile_values.PAYLOADS[cls])
            rep = with_dir / "r"
            rep.mkdir()
            _, _, _, reports = hostile_values.run_check(case.args, rep)
            docs.append(reports["markdown"])
    docs.append(_markdown_of_many_queues(600))
    out = mermaid_parser("\n".join(docs))
    assert "ERR" not in out and out.count("ok") == sum(d.count("```mermaid") for d in docs), out[:2000]
