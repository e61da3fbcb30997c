"""Benchmark: the Markdown report's size on large plans, without and with the comment-size cut.

    .venv/bin/python -m tooling.bench_markdown [--pairs 300]

Plans, with the real terraform and the mirrored AWS provider (offline), a stack of N queue
pairs that fail several rules each (no encryption, no alarms, short polling), then renders the
Markdown report (what the Action writes to the job summary and users post as a PR comment) of

  failing        `check` of that plan
  baselined      `check --baseline` with a baseline of the same plan: a clean run, every
                 finding baselined

each without the cut ("before": the report as it was, no character budget) and with it
("after": MAX_MARKDOWN, GitHub's 65,536-character comment limit), side by side. Sizes are
characters (GitHub counts characters); each "after" report is parsed with cmark-gfm to check
it still renders a table or its notes. Figures, not a test.
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

STACK = '''variable "pairs" {
  type = number
}

locals {
  keys = toset([for i in range(var.pairs) : format("q%04d", i)])
}

resource "aws_sqs_queue" "dlq" {
  for_each                  = local.keys
  name                      = "${each.key}-dlq"
  message_retention_seconds = 345600
}

resource "aws_sqs_queue" "src" {
  for_each = local.keys
  name     = each.key
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq[each.key].arn
    maxReceiveCount     = 5
  })
}
'''


def plan(pairs: int) -> dict:
    from tooling.terraform import Terraform, offline_provider_override

    work = Path(tempfile.mkdtemp(prefix="bench-markdown-"))
    try:
        (work / "main.tf").write_text(STACK)
        (work / "providers.tf").write_text(
            'terraform {\n  required_providers {\n    aws = {\n      source = "hashicorp/aws"\n    }\n  }\n}\n\n'
            + offline_provider_override())
        tf = Terraform(work, variables={"pairs": pairs})
        tf.init()
        return tf.plan_json(out="tfplan")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(doc: dict, baseline, cut: bool) -> str:
    from resilient_sqs.policy.engine import evaluate
    from resilient_sqs.policy.formats import Context, markdown

    old = markdown.MAX_MARKDOWN
    if not cut:
        markdown.MAX_MARKDOWN = 10**12
    try:
        kw = {"baseline": baseline} if baseline is not None else {}
        report = evaluate(doc, keep_passes=True, **kw)
        ctx = Context(report, doc, "plan.json", ".", reports=(("text", None), ("sarif", "sqs-policy.sarif")))
        return markdown.render(ctx)
    finally:
        markdown.MAX_MARKDOWN = old


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=300)
    args = ap.parse_args(argv)
    import cmarkgfm
    from cmarkgfm.cmark import Options

    from resilient_sqs.policy.baseline import read_baseline, write_baseline
    from resilient_sqs.policy.engine import evaluate

    doc = plan(args.pairs)
    with tempfile.TemporaryDirectory() as d:
        path = str(Path(d) / "baseline.json")
        write_baseline(evaluate(doc), path, None)
        baseline = read_baseline(path)
    print(f"{args.pairs} pairs ({len(doc['resource_changes'])} resources), real plan")
    print(f"{'run':<12} {'before (chars)':>15} {'after (chars)':>15}  after renders")
    for name, bl in (("failing", None), ("baselined", baseline)):
        before, after = measure(doc, bl, False), measure(doc, bl, True)
        html = cmarkgfm.github_flavored_markdown_to_html(after, options=Options.CMARK_OPT_UNSAFE)
        shows = ("table" if "<table>" in html else "") + (" + note" if "cut to fit" in after else "")
        print(f"{name:<12} {len(before):>15,} {len(after):>15,}  {shows or 'text'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
