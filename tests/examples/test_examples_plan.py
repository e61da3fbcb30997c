"""Offline plans of the examples: the planned attributes carry the module's guarantees."""
from __future__ import annotations

import json

import pytest

from tests.support.examples import assert_pair_guarantees, queue_pairs
from tests.support.helpers import EXAMPLES, OFFLINE_ACCOUNT, resources_by_address

pytestmark = pytest.mark.plan

PREFIX = "plantest"


def _source_queue_config(plan: dict) -> dict:
    """The configuration of the source queue (aws_sqs_queue.this) in modules/queue."""
    q = plan["configuration"]["root_module"]["module_calls"]["messaging"]["module"]["module_calls"]["queue"]["module"]
    return next(r for r in q["resources"] if r["address"] == "aws_sqs_queue.this")


def test_many_queues(offline_planner):
    plan = offline_planner.plan(EXAMPLES / "many-queues", {"name_prefix": PREFIX})
    pairs = queue_pairs(plan)
    assert set(pairs) == {f"{PREFIX}-{n}" for n in ("orders", "emails", "reports", "audit")}
    for key, (src, dlq) in pairs.items():
        assert_pair_guarantees(key, src, dlq)
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
    pairs = queue_pairs(plan)
    assert list(pairs) == [f"{PREFIX}-orders"]
    src, dlq = pairs[f"{PREFIX}-orders"]
    assert_pair_guarantees(f"{PREFIX}-orders", src, dlq)
    assert src["visibility_timeout_seconds"] == 180
    assert (src["message_retention_seconds"], dlq["message_retention_seconds"]) == (345600, 1209600)
    assert src["tags"] == {"example": "basic"}
    # alarms on, but no topic and no KMS key nobody asked for; the output says nobody is notified
    types = {rc["type"] for rc in plan["resource_changes"]}
    assert "aws_cloudwatch_metric_alarm" in types and not types & {"aws_sns_topic", "aws_kms_key"}
    assert plan["output_changes"]["queues"]["after"][f"{PREFIX}-orders"]["dlq_created"] is True


def test_same_stack_consumer(offline_planner):
    """A consumer function of the same stack: one plan, no cycle; the mapping invokes
    the function, the function reads the queue's URL, the roles get the module's documents."""
    plan = offline_planner.plan(EXAMPLES / "same-stack-consumer", {"name_prefix": PREFIX})
    rcs = resources_by_address(plan)
    queue = f"{PREFIX}-orders"
    src, dlq = queue_pairs(plan)[queue]
    assert_pair_guarantees(queue, src, dlq)
    assert src["visibility_timeout_seconds"] == 6 * 30
    fn = rcs["aws_lambda_function.consumer[0]"]["change"]
    esm = rcs[f'module.messaging.module.consumer["{queue}"].aws_lambda_event_source_mapping.this']["change"]["after"]
    assert esm["function_name"] == fn["after"]["function_name"] == f"{PREFIX}-orders-consumer"
    assert fn["after"]["timeout"] == 30 and esm["scaling_config"] == [{"maximum_concurrency": 5}]
    assert esm["function_response_types"] == ["ReportBatchItemFailures"]
    # the function's environment holds the queue's URL (known after apply: the queue comes first)
    assert fn["after_unknown"]["environment"][0]["variables"] is True
    # the roles carry the module's least-privilege documents, known at plan time
    consumer_policy = json.loads(rcs["aws_iam_role_policy.consumer"]["change"]["after"]["policy"])
    arn = f"arn:aws:sqs:us-east-1:{OFFLINE_ACCOUNT}:{queue}"
    assert {"sqs:ReceiveMessage", "sqs:DeleteMessage"} <= set(consumer_policy["Statement"][0]["Action"])
    assert consumer_policy["Statement"][0]["Resource"] == [arn]
    producer_policy = json.loads(rcs["aws_iam_role_policy.producer"]["change"]["after"]["policy"])
    assert producer_policy["Statement"] == [{"Sid": "SendToQueues", "Effect": "Allow", "Action": ["sqs:SendMessage"], "Resource": [arn]}]
    # the mapping is created after the function: its function comes from consumer_functions,
    # which refers to the function; the queues input does not
    call = plan["configuration"]["root_module"]["module_calls"]["messaging"]["expressions"]
    assert "aws_lambda_function.consumer" in call["consumer_functions"]["references"]
    assert not any("aws_lambda_function" in r for r in call["queues"].get("references", []))


def test_same_stack_consumer_without_the_function(offline_planner):
    """create_function = false (LocalStack cannot run functions): no function, no mapping, the rest stays."""
    plan = offline_planner.plan(EXAMPLES / "same-stack-consumer", {"name_prefix": PREFIX, "create_function": False})
    types = [rc["type"] for rc in plan["resource_changes"]]
    assert "aws_lambda_function" not in types and "aws_lambda_event_source_mapping" not in types
    assert types.count("aws_sqs_queue") == 2 and types.count("aws_iam_role") == 2 and types.count("aws_iam_role_policy") == 2


def test_fifo(offline_planner):
    plan = offline_planner.plan(EXAMPLES / "fifo", {"name_prefix": PREFIX})
    pairs = queue_pairs(plan)
    src, dlq = pairs[f"{PREFIX}-payments"]
    assert_pair_guarantees(f"{PREFIX}-payments", src, dlq)
    assert src["name"] == f"{PREFIX}-payments.fifo" and dlq["name"] == f"{PREFIX}-payments-dlq.fifo"
    assert src["fifo_queue"] is True and dlq["fifo_queue"] is True
    assert src["content_based_deduplication"] is True
    assert (src["deduplication_scope"], src["fifo_throughput_limit"]) == ("messageGroup", "perMessageGroupId")
    assert src["visibility_timeout_seconds"] == 120
