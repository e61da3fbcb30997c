"""`make demo`'s description of the plan (tooling/demo.py), on the committed plan of
examples/complete (which the full tier compares with a fresh plan of the example)."""
from __future__ import annotations

import json

from tests.helpers import REPO_ROOT
from tooling.demo import summarize

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
