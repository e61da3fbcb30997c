"""Waivers in the .tf source (# sqs-policy:ignore), on tests/policies/configs/inline-waivers
(planned by the suite: tests/policies/plans/inline-waivers.json, checked against a fresh plan
in the plan tier)."""
from __future__ import annotations

import json
import re

from resilient_sqs.policy.inline_waivers import parse, scan
from tests.support.helpers import REPO_ROOT
from tests.support.helpers import sqs_policy_in_process as cli  # main() in this process: the reports are judged

PLAN = "tests/policies/plans/inline-waivers.json"
SRC = REPO_ROOT / "tests/policies/configs/inline-waivers"
MAIN = SRC / "main.tf"


def _line(text: str) -> int:
    """The line of main.tf holding ``text``."""
    lines = MAIN.read_text().splitlines()
    hits = [i + 1 for i, line in enumerate(lines) if text in line]
    assert len(hits) == 1, (text, hits)
    return hits[0]


def _check(*args: str) -> tuple[int, dict]:
    proc = cli("check", PLAN, "--source-dir", str(SRC), "--format", "json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_inline_waivers():
    rc, out = _check()
    got = {(f["rule_id"], f["address"], "waived" if f.get("waiver") else f["status"]) for f in out["findings"]
           if f["rule_id"] != "SQS009"}
    legacy = ['module.legacy.aws_sqs_queue.old["a"]', 'module.legacy.aws_sqs_queue.old["b"]']
    assert got == {
        # waived by the comment inside its block, until 2099
        ("SQS002", "aws_sqs_queue.waived", "waived"),
        ("CW002", "aws_sqs_queue.waived", "fail"),
        # expired: reported, and the finding is back
        ("CFG001", "aws_sqs_queue.expired", "fail"),
        ("SQS002", "aws_sqs_queue.expired", "fail"),
        ("CW002", "aws_sqs_queue.expired", "fail"),
        # unused (SQS001 passes): reported; the marker inside a string waives nothing
        ("CFG002", "aws_sqs_queue.unused", "fail"),
        ("SQS002", "aws_sqs_queue.unused", "fail"),
        ("CW002", "aws_sqs_queue.unused", "fail"),
        # malformed: no reason, a typo in the rule; the marker inside a heredoc is not a comment
        ("CFG003", "aws_sqs_queue.malformed", "fail"),
        ("SQS002", "aws_sqs_queue.malformed", "fail"),
        ("CW002", "aws_sqs_queue.malformed", "fail"),
        # outside any block
        ("CFG003", f"main.tf:{_line('outside any block')}", "fail"),
        # the module call's comment covers every resource the module creates
        *{(rule, a, "waived") for rule in ("SQS002", "CW002") for a in legacy},
    }
    assert rc == 1
    by = {(f["rule_id"], f["address"], f["message"][:60]): f for f in out["findings"]}
    waived = next(f for f in out["findings"] if f["rule_id"] == "SQS002" and f["address"] == "aws_sqs_queue.waived")
    assert waived["waiver"] == {"reason": "audit queue: its consumer parks poison messages itself (TICKET-1)",
                                "expires": "2099-12-31", "kind": "inSource", "at": f"main.tf:{_line('(TICKET-1)')}"}
    cfg = sorted((f["message"], f["source"]) for f in out["findings"] if f["rule_id"].startswith("CFG"))
    assert len(cfg) == 5 and len(by) >= 5
    msgs = "\n".join(m for m, _ in cfg)
    assert f"waiver at main.tf:{_line('TICKET-2')} for SQS002 expired on 2020-01-31" in msgs
    assert f"waiver at main.tf:{_line('so this waives nothing')} for SQS001" in msgs
    assert "reason is required" in msgs and "unknown rule 'SQS02' (did you mean SQS002 or SQS012?)" in msgs
    # each CFG finding points at the comment's line
    lines = {src["line"] for _, src in cfg}
    assert _line('reason="a typo in the rule"') in lines and _line("outside any block") in lines
    assert all(src["file"] == "main.tf" for _, src in cfg)


def test_inline_waivers_in_sarif_and_github():
    sarif = json.loads(cli("check", PLAN, "--source-dir", str(SRC), "--format", "sarif").stdout)
    from tests.support.policy_reports import SARIF

    SARIF.validate(sarif)
    sup = [r for r in sarif["runs"][0]["results"] if r.get("suppressions")]
    assert len(sup) == 5 and all(r["suppressions"][0]["kind"] == "inSource" for r in sup)
    gh = cli("check", PLAN, "--source-dir", str(SRC), "--format", "github").stdout.decode().splitlines()
    typo = next(x for x in gh if "SQS02" in x)
    m = re.match(r"::error file=([^,]+),line=(\d+),title=CFG003 waiver-malformed::", typo)
    assert m and int(m.group(2)) == _line('reason="a typo in the rule"')
    assert (REPO_ROOT / m.group(1)).resolve() == MAIN


def test_no_source_reads_no_comments():
    _, out = _check("--no-source")
    assert not any(f.get("waiver") for f in out["findings"])
    assert not any(f["rule_id"].startswith("CFG") for f in out["findings"])


def test_config_can_turn_waiver_checks_off(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("rules:\n  CFG003: {enabled: false}\n  waiver-unused: {enabled: false}\n")
    _, out = _check("--config", str(cfg))
    assert {f["rule_id"] for f in out["findings"] if f["rule_id"].startswith("CFG")} == {"CFG001"}


def test_scanner_follows_hcl():
    text = '''
/* sqs-policy:ignore SQS001 reason="in a block comment" { */
resource "aws_sqs_queue" "a" { # sqs-policy:ignore SQS001 reason="on the opening line"
  name = "x-${join("}", ["{"])}" // sqs-policy:ignore SQS002 reason="after an interpolation"
  dynamic "x" {
    content {
      # sqs-policy:ignore SQS003 reason="nested block"
    }
  }
}
# sqs-policy:ignore SQS004 reason="after the block"
module "m" { source = "./m" } # sqs-policy:ignore SQS005 reason="after a one-line block"
'''
    got = [(line, body.strip().split(" ")[1], block) for line, body, block in scan(text)
           if body.strip().startswith("sqs-policy:ignore")]
    assert got == [(3, "SQS001", ("resource", "aws_sqs_queue", "a")), (4, "SQS002", ("resource", "aws_sqs_queue", "a")),
                   (7, "SQS003", ("resource", "aws_sqs_queue", "a")), (11, "SQS004", None), (12, "SQS005", None)]


def test_directive_grammar():
    assert parse(' queue-has-dlq,SQS004 reason="a \\"quoted\\" why" expires=2030-01-02') == (
        ["SQS002", "SQS004"], 'a "quoted" why', __import__("datetime").date(2030, 1, 2))
    for text, needle in [("", "name the rule"), ("SQS002 reason=", "reason is required"),
                         ("SQS002 reason=x expires=2030-13-01", "is not a date"),
                         ("SQS002 reason=x until=2030-01-01", "unknown key 'until'"),
                         ("CFG002 reason=x", "cannot be waived"), ('SQS002 reason="x" reason="y"', "given twice")]:
        try:
            parse(text)
        except ValueError as e:
            assert needle in str(e), (text, e)
        else:
            raise AssertionError(text)


HEREDOC_AND_STRINGS = '''resource "aws_sqs_queue" "a" {
  tags = {
    doc = <<-EOT
      # sqs-policy:ignore SQS002 reason="inside a heredoc"
    EOT
    raw = <<EOT
// sqs-policy:ignore SQS003 reason="inside a heredoc without indent"
EOT
    tpl = "$${" # sqs-policy:ignore SQS004 reason="after a literal dollar-brace"
    s   = "# sqs-policy:ignore SQS005 reason=\\"inside a string\\""
  }
}
'''


def test_heredocs_and_strings_hold_no_waiver_whatever_the_line_endings():
    """As Terraform reads the file (HCL: a newline is LF or CRLF): a heredoc's body and a string
    are never comments, in LF, CRLF or mixed endings; $${ is literal text, not a template."""
    variants = {"lf": HEREDOC_AND_STRINGS, "crlf": HEREDOC_AND_STRINGS.replace("\n", "\r\n"),
                "mixed": "".join(line + ("\r\n" if i % 2 else "\n")
                                 for i, line in enumerate(HEREDOC_AND_STRINGS.split("\n")))}
    for name, text in variants.items():
        got = [(line, body.split()[1]) for line, body, _ in scan(text) if "sqs-policy:ignore" in body]
        assert got == [(9, "SQS004")], (name, got)


MISSPELLED = '''resource "aws_sqs_queue" "waived" {
  # sqs-policy:ignroe SQS002 reason="a typo in the marker"
  # sqs-policy: ignore SQS002 reason="a space after the colon"
  # SQS-POLICY:IGNORE SQS002 reason="upper case"
  /* sqs-policy:ignore SQS002 reason="a block comment" */
  # sqs-policy:ignore SQS002 reason="unterminated
  # sqs-policy:ignore SQS002 reason="x" expires=20991231
  # sqs-policy:ignore SQS002 reason="x" expires=2099-W01-1
  # sqs-policy checks this queue: an ordinary comment
  name = "iw-waived"
}
'''


def test_misspelled_and_malformed_directives_are_reported(tmp_path):
    """A comment meant as a waiver but not written as one is CFG003 at its line, never silently
    ignored: a misspelled marker, a space after the colon, upper case, a /* */ comment, an
    unterminated reason="...", a date other than YYYY-MM-DD; an ordinary comment is not."""
    import shutil

    src = tmp_path / "src"
    shutil.copytree(SRC, src)
    text = MAIN.read_text()
    start = text.index('resource "aws_sqs_queue" "waived" {')
    end = text.index("}\n", start) + 2
    (src / "main.tf").write_text(text[:start] + MISSPELLED + text[end:])
    proc = cli("check", PLAN, "--source-dir", str(src), "--format", "json")
    out = json.loads(proc.stdout)
    base = MISSPELLED.split("\n")
    first = (text[:start]).count("\n") + 1
    cfg3 = {f["source"]["line"] - first: f["message"] for f in out["findings"]
            if f["rule_id"] == "CFG003" and f["address"] == "aws_sqs_queue.waived"}
    assert sorted(cfg3) == [1, 2, 3, 4, 5, 6, 7], cfg3
    assert "is not read as a waiver" in cfg3[1] and "/* */" in cfg3[4]
    assert "quote after reason= is not closed" in cfg3[5]
    assert "YYYY-MM-DD" in cfg3[6] and "YYYY-MM-DD" in cfg3[7]
    assert "ordinary comment" in base[8]
    # nothing waived it: the finding counts
    assert any(f["rule_id"] == "SQS002" and f["address"] == "aws_sqs_queue.waived" and not f.get("waiver")
               for f in out["findings"])


def test_config_waiver_dates_are_yyyy_mm_dd_only(tmp_path):
    """docs/policy.md: expires is YYYY-MM-DD; Python's fromisoformat also takes 20270331 and
    2027-W13-3, which the config file refuses like any other non-date."""
    for bad in ("20991231", "2099-W01-1"):
        cfg = tmp_path / "c.yaml"
        cfg.write_text(f"waivers:\n  - address: '*'\n    reason: x\n    expires: '{bad}'\n")
        proc = cli("check", PLAN, "--no-source", "--config", str(cfg))
        assert proc.returncode == 2 and b"YYYY-MM-DD" in proc.stderr, proc.stderr
