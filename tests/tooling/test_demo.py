"""`make demo`'s description of the plan (tooling/demo.py), on the committed plan of
examples/complete (which the full tier compares with a fresh plan of the example)."""
from __future__ import annotations

import json

from tests.support.helpers import REPO_ROOT
from tooling.demo import explain_counts, summarize

PLAN = REPO_ROOT / "tests" / "policies" / "plans" / "example-complete.json"


def test_summary_describes_every_queue_with_its_own_dlq():
    plan = json.loads(PLAN.read_text())
    created = [rc["change"]["after"] for rc in plan["resource_changes"]
               if rc["type"] == "aws_sqs_queue" and "create" in rc["change"]["actions"]]
    sources = [q for q in created if q.get("redrive_policy")]
    assert len(sources) >= 2 and len(created) == 2 * len(sources)
    text = "\n".join(summarize(plan))
    for src in sources:
        dlq_name = json.loads(src["redrive_policy"])["deadLetterTargetArn"].rsplit(":", 1)[-1]
        dlq = next(q for q in created if q["name"] == dlq_name)
        assert f"queue {src['name']}" in text
        assert (f"dead-letter queue {dlq['name']} ({dlq['message_retention_seconds'] // 86400} d)") in text


def test_the_checkers_resource_count_is_explained_by_the_plans_creates_and_data_sources():
    from tests.support.helpers import sqs_policy_in_process

    summary = sqs_policy_in_process("check", str(PLAN)).stdout.decode().rstrip().splitlines()[-1]
    plan = json.loads(PLAN.read_text())
    created = sum("create" in rc["change"]["actions"] for rc in plan["resource_changes"])
    text = explain_counts(plan, summary)
    assert text.startswith("(its ") and f"the {created} the plan creates" in text, (summary, text)
    assert "aws_iam_policy_document x" in text
    # a count it cannot account for is not explained away
    assert explain_counts(plan, summary.replace(" resources)", "0 resources)")).startswith("(the plan creates ")
