"""Offline plans of the examples: the planned attributes carry the module's guarantees."""
from __future__ import annotations

import json

import pytest

from tests.helpers import EXAMPLES, OFFLINE_ACCOUNT, resources_by_address

pytestmark = pytest.mark.plan

PREFIX = "plantest"


def _pairs(plan: dict) -> dict[str, tuple[dict, dict]]:
    """{queue key: (source after, dlq after)} from the root module's for_each over modules/queue."""
    rcs = resources_by_address(plan)
    pairs = {}
    for addr, rc in rcs.items():
        if rc["type"] == "aws_sqs_queue" and addr.endswith(".aws_sqs_queue.this"):
            dlq = rcs[addr[: -len("this")] + "dlq"]
            key = addr.split('module.queue["', 1)[1].split('"]', 1)[0]
            pairs[key] = (rc["change"]["after"], dlq["change"]["after"])
    return pairs


def _assert_pair_guarantees(key: str, src: dict, dlq: dict, region: str = "us-east-1"):
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


def _source_queue_config(plan: dict) -> dict:
    """The configuration of the source queue (aws_sqs_queue.this) in modules/queue."""
    q = plan["configuration"]["root_module"]["module_calls"]["messaging"]["module"]["module_calls"]["queue"]["module"]
    return next(r for r in q["resources"] if r["address"] == "aws_sqs_queue.this")


def test_many_queues(offline_planner):
    plan = offline_planner.plan(EXAMPLES / "many-queues", {"name_prefix": PREFIX})
    pairs = _pairs(plan)
    assert set(pairs) == {f"{PREFIX}-{n}" for n in ("orders", "emails", "reports", "audit")}
    for key, (src, dlq) in pairs.items():
        _assert_pair_guarantees(key, src, dlq)
    # visibility = 6 x timeout + window where a consumer is given; explicit otherwise
    assert pairs[f"{PREFIX}-orders"][0]["visibility_timeout_seconds"] == 6 * 30 + 5
    assert pairs[f"{PREFIX}-emails"][0]["visibility_timeout_seconds"] == 6 * 10
    assert pairs[f"{PREFIX}-reports"][0]["visibility_timeout_seconds"] == 6 * 120 + 60
    assert pairs[f"{PREFIX}-audit"][0]["visibility_timeout_seconds"] == 300
    # shared defaults, overridden per queue
    assert pairs[f"{PREFIX}-reports"][0]["message_retention_seconds"] == 604800
    assert pairs[f"{PREFIX}-orders"][0]["message_retention_seconds"] == 345600
    # the redrive policy names the DLQ by its built ARN (known now), and the DLQ is
    # still created first: SQS refuses a redrive policy whose DLQ does not exist
    source = _source_queue_config(plan)
    assert "local.dlq_arn_static" in source["expressions"]["redrive_policy"]["references"]
    assert "aws_sqs_queue.dlq" in source["depends_on"]
    outputs = plan["output_changes"]["queues"]["after"]
    for rc in plan["resource_changes"]:
        if rc["address"].endswith("aws_sqs_queue.this"):
            assert "redrive_policy" not in rc["change"]["after_unknown"]
            key = rc["address"].split('module.queue["', 1)[1].split('"]', 1)[0]
            assert json.loads(rc["change"]["after"]["redrive_policy"]) == {
                "deadLetterTargetArn": outputs[key]["dlq_arn_static"],
                "maxReceiveCount": outputs[key]["max_receive_count"],
            }


def test_many_queues_outputs_keyed_by_queue(offline_planner):
    plan = offline_planner.plan(EXAMPLES / "many-queues", {"name_prefix": PREFIX})
    after = plan["output_changes"]["queues"]["after"]
    # names and static ARNs are known at plan time; URLs and real ARNs are not
    assert {k: v["name"] for k, v in after.items()} == {k: k for k in after}
    assert after[f"{PREFIX}-emails"]["max_receive_count"] == 3
    assert after[f"{PREFIX}-orders"]["max_receive_count"] == 4
    assert after[f"{PREFIX}-orders"]["dlq_arn_static"] == f"arn:aws:sqs:us-east-1:{OFFLINE_ACCOUNT}:{PREFIX}-orders-dlq"


def test_basic(offline_planner):
    plan = offline_planner.plan(EXAMPLES / "basic", {"name_prefix": PREFIX})
    pairs = _pairs(plan)
    assert list(pairs) == [f"{PREFIX}-orders"]
    src, dlq = pairs[f"{PREFIX}-orders"]
    _assert_pair_guarantees(f"{PREFIX}-orders", src, dlq)
    assert src["visibility_timeout_seconds"] == 180
    assert (src["message_retention_seconds"], dlq["message_retention_seconds"]) == (345600, 1209600)
    assert src["tags"] == {"example": "basic"}


def test_fifo(offline_planner):
    plan = offline_planner.plan(EXAMPLES / "fifo", {"name_prefix": PREFIX})
    pairs = _pairs(plan)
    src, dlq = pairs[f"{PREFIX}-payments"]
    _assert_pair_guarantees(f"{PREFIX}-payments", src, dlq)
    assert src["name"] == f"{PREFIX}-payments.fifo" and dlq["name"] == f"{PREFIX}-payments-dlq.fifo"
    assert src["fifo_queue"] is True and dlq["fifo_queue"] is True
    assert src["content_based_deduplication"] is True
    assert (src["deduplication_scope"], src["fifo_throughput_limit"]) == ("messageGroup", "perMessageGroupId")
    assert src["visibility_timeout_seconds"] == 120
