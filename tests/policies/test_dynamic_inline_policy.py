"""A role's inline policies written as ``dynamic "inline_policy"`` blocks, on a real offline
plan. The plan's configuration section leaves dynamic blocks out, so the checker sees no
expression for them; what the plan's planned values show decides what it can judge:

- the policy known while planning: the planned values carry its JSON, judged as it is;
- the policy known only after apply: the planned values show the block (its name) and mark
  its policy unknown; which document it is, only the source says. Without ``--source-dir``
  the role gets an unknown finding naming the block and the flag, never silence;
- the collection the block iterates over known only after apply: the plan shows the
  attribute unknown as a whole, exactly as for a role with no inline policy at all (the
  provider reads them back), so only the source tells them apart.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from resilient_sqs.policy.engine import evaluate
from tests.support import plan_cache
from tests.support.helpers import OFFLINE_PROVIDER

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("dynamic-inline-policy")]


def _role(name: str, for_each: str | None) -> str:
    dynamic = f'''
  dynamic "inline_policy" {{
    for_each = {for_each}
    content {{
      name   = inline_policy.key
      policy = inline_policy.value
    }}
  }}''' if for_each else ""
    return f'''
resource "aws_iam_role" "{name}" {{
  name               = "{name}"
  assume_role_policy = local.trust{dynamic}
}}
'''


STACK = OFFLINE_PROVIDER + '''
resource "aws_sqs_queue" "orders" {
  name = "orders"
}

data "aws_iam_policy_document" "consume" {
  statement {
    effect    = "Allow"
    actions   = ["sqs:ReceiveMessage", "sqs:DeleteMessage"]
    resources = [aws_sqs_queue.orders.arn]
  }
}

locals {
  trust = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = "sts:AssumeRole", Principal = { Service = "lambda.amazonaws.com" } }]
  })
  known = {
    send = jsonencode({
      Version   = "2012-10-17"
      Statement = [{ Effect = "Allow", Action = "sqs:*", Resource = "*" }]
    })
  }
}
''' + "".join([
    _role("late", "{ consume = data.aws_iam_policy_document.consume.json }"),
    _role("known", "local.known"),
    _role("late_keys", 'aws_sqs_queue.orders.arn == "" ? {} : { consume = data.aws_iam_policy_document.consume.json }'),
    _role("none", None),
])


@pytest.fixture(scope="module")
def stack():
    """(plan, configuration directory) of STACK."""
    work = Path(tempfile.mkdtemp(prefix="dynamic-inline-policy-"))
    try:
        (work / "main.tf").write_text(STACK)
        yield plan_cache.load(work, offline=False), work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _roles(report, rule: str) -> dict:
    return {f.address: (f.status, f.message) for f in report.passed + report.findings
            if f.rule_id == rule and f.address.startswith("aws_iam_role.")}


def test_what_the_plan_shows_of_dynamic_inline_policies(stack):
    plan, _ = stack
    changes = {rc["address"]: rc["change"] for rc in plan["resource_changes"]}
    configured = {r["address"]: r["expressions"] for r in plan["configuration"]["root_module"]["resources"]}
    for role in ("late", "known", "late_keys", "none"):
        assert "inline_policy" not in configured[f"aws_iam_role.{role}"]  # dynamic blocks are left out
    late = changes["aws_iam_role.late"]
    assert late["after"]["inline_policy"] == [{"name": "consume"}]
    assert late["after_unknown"]["inline_policy"] == [{"policy": True}]
    known = changes["aws_iam_role.known"]["after"]["inline_policy"]
    assert [b["name"] for b in known] == ["send"] and json.loads(known[0]["policy"])["Statement"][0]["Action"] == "sqs:*"
    # an unknown collection and no block at all look the same in the plan
    for role in ("late_keys", "none"):
        assert changes[f"aws_iam_role.{role}"]["after"].get("inline_policy") is None
        assert changes[f"aws_iam_role.{role}"]["after_unknown"]["inline_policy"] is True


def test_a_dynamic_inline_policy_the_plan_knows_is_judged_from_its_planned_value(stack):
    plan, _ = stack
    iam001 = _roles(evaluate(plan), "IAM001")
    assert iam001["aws_iam_role.known"] == ("fail", "Allow grants service-wide wildcards: sqs:* in a statement")


def test_without_source_a_dynamic_inline_policy_known_after_apply_is_an_unknown_naming_the_flag(stack):
    plan, _ = stack
    iam001 = _roles(evaluate(plan), "IAM001")
    assert iam001["aws_iam_role.late"] == (
        "unknown", 'policy document inline_policy 0 "consume" (a dynamic block) is only known after apply, and the '
                   "plan does not say what it is built from: run with --source-dir (the configuration the plan was "
                   "made from) to judge it")
    # the plan cannot tell these from a role without inline policies: nothing to report
    assert "aws_iam_role.late_keys" not in iam001 and "aws_iam_role.none" not in iam001


def test_with_source_the_dynamic_inline_policies_are_judged(stack):
    plan, work = stack
    report = evaluate(plan, source_dir=str(work))
    assert report.notes == []
    iam001 = _roles(report, "IAM001")
    assert iam001["aws_iam_role.late"] == ("pass", "no wildcard actions (via data.aws_iam_policy_document.consume)")
    assert iam001["aws_iam_role.known"][0] == "fail"
    status, message = iam001["aws_iam_role.late_keys"]
    assert status == "unknown" and message.startswith(
        'policy document inline_policy is only known after apply: dynamic "inline_policy" iterates over a collection '
        "not known (a condition is not known (the ARN of aws_sqs_queue.orders, known after apply))")
    assert "aws_iam_role.none" not in iam001
