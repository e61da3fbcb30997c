"""What every planned queue pair of the examples must carry (the module's guarantees),
shared by the plan tests of the examples (tests/examples/)."""
from __future__ import annotations

import json

from tests.support.helpers import OFFLINE_ACCOUNT, resources_by_address


def queue_pairs(plan: dict) -> dict[str, tuple[dict, dict]]:
    """{queue key: (source after, dlq after)} from the root module's for_each over modules/queue."""
    rcs = resources_by_address(plan)
    pairs = {}
    for addr, rc in rcs.items():
        if rc["type"] == "aws_sqs_queue" and addr.endswith(".aws_sqs_queue.this"):
            dlq = rcs[addr[: -len("this")] + "dlq[0]"]
            key = addr.split('module.queue["', 1)[1].split('"]', 1)[0]
            pairs[key] = (rc["change"]["after"], dlq["change"]["after"])
    return pairs


def assert_pair_guarantees(key: str, src: dict, dlq: dict, region: str = "us-east-1"):
    assert dlq["message_retention_seconds"] > src["message_retention_seconds"], key
    assert src["message_retention_seconds"] >= 86400, key
    for q in (src, dlq):
        assert q["sqs_managed_sse_enabled"] is True or q.get("kms_master_key_id"), f"{key}: SSE off"
        assert q["receive_wait_time_seconds"] == 20, key
        statements = json.loads(q["policy"])["Statement"]
        tls = [s for s in statements if s["Effect"] == "Deny" and s["Condition"]["Bool"]["aws:SecureTransport"] == "false"]
        assert tls and tls[0]["Principal"] == "*" and tls[0]["Action"] == "sqs:*", f"{key}: no TLS-only deny"
        assert not [s for s in statements if s["Effect"] == "Allow" and s.get("Principal") == "*"], key
    allow = json.loads(dlq["redrive_allow_policy"])
    assert allow == {
        "redrivePermission": "byQueue",
        "sourceQueueArns": [f"arn:aws:sqs:{region}:{OFFLINE_ACCOUNT}:{src['name']}"],
    }, key
    assert src["fifo_queue"] == dlq["fifo_queue"], key
    # the redrive policy is known at plan time: the DLQ's ARN built like the real one
    redrive = json.loads(src["redrive_policy"])
    assert redrive["deadLetterTargetArn"] == f"arn:aws:sqs:{region}:{OFFLINE_ACCOUNT}:{dlq['name']}", key
    assert isinstance(redrive["maxReceiveCount"], int) and redrive["maxReceiveCount"] >= 2, key
