"""examples/same-stack-consumer on LocalStack, as far as LocalStack goes.

LocalStack without Docker cannot run a Lambda function, so the example is applied
with `create_function = false` (tooling.example_settings.EXAMPLE_VARIABLES): the queue
pair, the consumer and producer roles with the module's documents, and the alarms
are real; the function and its event source mapping are not (their plan, and that
it has no cycle, are tests/examples/test_examples_plan.py's). Here the roles hold what the
module says, and the example's handler, called in-process with a batch received
from the applied queue (what the mapping would hand it), reports exactly the bad
message, which then reaches the DLQ after maxReceiveCount receives.
"""
from __future__ import annotations

import importlib.util
import json
import uuid

import pytest

from tests.support.helpers import EXAMPLES
from tests.support.localstack import example_group
from tests.support.localstack import drain

pytestmark = [pytest.mark.localstack, example_group("same-stack-consumer")]

EXAMPLE = "same-stack-consumer"


def _handler():
    spec = importlib.util.spec_from_file_location("same_stack_handler", EXAMPLES / EXAMPLE / "src" / "handler.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.handler


def _event(messages: list[dict], queue_arn: str) -> dict:
    """The SQS event a Lambda event source mapping builds from received messages."""
    return {"Records": [{
        "messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
        "attributes": m.get("Attributes", {}), "messageAttributes": {}, "md5OfBody": m["MD5OfBody"],
        "eventSource": "aws:sqs", "eventSourceARN": queue_arn, "awsRegion": "us-east-1",
    } for m in messages]}


def test_roles_carry_the_modules_documents(applied, aws):
    ex = applied(EXAMPLE)
    iam = aws.client("iam")
    queue = ex.queue("orders")
    consumer_role = ex.outputs["consumer_role_arn"].rsplit("/", 1)[1]
    producer_role = ex.outputs["producer_role_arn"].rsplit("/", 1)[1]
    consumer = iam.get_role_policy(RoleName=consumer_role, PolicyName=f"consume-{queue['name']}")["PolicyDocument"]
    producer = iam.get_role_policy(RoleName=producer_role, PolicyName=f"produce-{queue['name']}")["PolicyDocument"]
    consumer = json.loads(consumer) if isinstance(consumer, str) else consumer
    producer = json.loads(producer) if isinstance(producer, str) else producer
    receive = next(s for s in consumer["Statement"] if "sqs:ReceiveMessage" in s["Action"])
    assert receive["Resource"] == [queue["arn"]]
    assert producer["Statement"] == [{"Sid": "SendToQueues", "Effect": "Allow", "Action": ["sqs:SendMessage"], "Resource": [queue["arn"]]}]
    # no function here (LocalStack cannot run one): no mapping either
    assert ex.outputs.get("consumer_function_name") is None and ex.outputs["consumers"] == {}


def test_handler_reports_only_the_bad_message_which_reaches_the_dlq(applied, aws):
    ex = applied(EXAMPLE)
    queue = ex.queue("orders")
    sqs = aws.client("sqs")
    handler = _handler()
    good, bad = json.dumps({"order_id": str(uuid.uuid4())}), "not json"
    sqs.send_message(QueueUrl=queue["url"], MessageBody=good)
    sqs.send_message(QueueUrl=queue["url"], MessageBody=bad)
    try:
        received = []
        for _ in range(10):
            received += sqs.receive_message(QueueUrl=queue["url"], MaxNumberOfMessages=10, WaitTimeSeconds=1,
                                            VisibilityTimeout=1).get("Messages", [])
            if len(received) >= 2:
                break
        assert sorted(m["Body"] for m in received) == sorted([good, bad])
        result = handler(_event(received, queue["arn"]), None)
        failed = {f["itemIdentifier"] for f in result["batchItemFailures"]}
        assert failed == {m["MessageId"] for m in received if m["Body"] == bad}
        # what the mapping does with the result: the good one is deleted, the bad one comes back
        for m in received:
            if m["MessageId"] not in failed:
                sqs.delete_message(QueueUrl=queue["url"], ReceiptHandle=m["ReceiptHandle"])
        # ...until maxReceiveCount receives move it to the DLQ
        for _ in range(queue["max_receive_count"] * 4):
            got = sqs.receive_message(QueueUrl=queue["url"], MaxNumberOfMessages=1, WaitTimeSeconds=2,
                                      VisibilityTimeout=1).get("Messages", [])
            for m in got:
                assert handler(_event(got, queue["arn"]), None)["batchItemFailures"] == [{"itemIdentifier": m["MessageId"]}]
            dead = sqs.receive_message(QueueUrl=queue["dlq_url"], MaxNumberOfMessages=1, WaitTimeSeconds=0).get("Messages", [])
            if dead:
                assert dead[0]["Body"] == bad
                break
        else:
            pytest.fail("the bad message did not reach the DLQ")
    finally:
        drain(sqs, queue["url"])
        drain(sqs, queue["dlq_url"])
