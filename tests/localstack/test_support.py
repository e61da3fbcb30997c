"""The operator-policy check the redrive test relies on (LocalStack does not enforce IAM)."""
from __future__ import annotations

import base64
import json

import pytest

from tests.localstack.support import policy_allows, redrive_operator_policy, unauthorized_calls

pytestmark = pytest.mark.static

ACCOUNT = "000000000000"
DLQ = f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders-dlq"
SRC = f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders"
URL = f"http://sqs.us-east-1.localhost.localstack.cloud:4566/{ACCOUNT}/"


def test_the_redrive_procedure_fits_the_operator_policy():
    handle = base64.b64encode(json.dumps({"taskId": "t1", "sourceArn": DLQ}).encode()).decode()
    calls = [
        ("StartMessageMoveTask", {"SourceArn": DLQ, "MaxNumberOfMessagesPerSecond": 20}),
        ("CancelMessageMoveTask", {"TaskHandle": handle}),
        ("ListMessageMoveTasks", {"SourceArn": DLQ}),
        ("StartMessageMoveTask", {"SourceArn": DLQ}),
        ("GetQueueAttributes", {"QueueUrl": URL + "orders"}),
        ("GetQueueAttributes", {"QueueUrl": URL + "orders-dlq"}),
    ]
    assert unauthorized_calls(redrive_operator_policy(DLQ, SRC), calls, original_source=SRC) == []


def test_a_missing_implied_permission_is_reported():
    policy = redrive_operator_policy(DLQ, SRC)
    policy["Statement"][1]["Action"].remove("sqs:SendMessage")  # the move task sends into the source queue
    calls = [("StartMessageMoveTask", {"SourceArn": DLQ})]
    assert unauthorized_calls(policy, calls, original_source=SRC) == [f"StartMessageMoveTask: sqs:SendMessage on {SRC}"]
    # an explicit destination is what needs SendMessage then
    other = f"arn:aws:sqs:us-east-1:{ACCOUNT}:elsewhere"
    calls = [("StartMessageMoveTask", {"SourceArn": DLQ, "DestinationArn": other})]
    missing = unauthorized_calls(redrive_operator_policy(DLQ, SRC), calls, original_source=SRC)
    assert missing == [f"StartMessageMoveTask: sqs:SendMessage on {other}"]


def test_calls_outside_the_policy_are_reported():
    policy = redrive_operator_policy(DLQ, SRC)
    calls = [("PurgeQueue", {"QueueUrl": URL + "orders-dlq"}), ("ReceiveMessage", {"QueueUrl": URL + "orders"})]
    assert unauthorized_calls(policy, calls, original_source=SRC) == [
        f"PurgeQueue: sqs:PurgeQueue on {DLQ}",
        f"ReceiveMessage: sqs:ReceiveMessage on {SRC}",  # the operator may not consume the source queue
    ]


def test_explicit_deny_wins_and_wildcards_match():
    policy = {"Statement": [
        {"Effect": "Allow", "Action": "sqs:*", "Resource": "arn:aws:sqs:*:*:orders*"},
        {"Effect": "Deny", "Action": ["sqs:DeleteMessage"], "Resource": [DLQ]},
    ]}
    assert policy_allows(policy, "sqs:ReceiveMessage", DLQ)
    assert not policy_allows(policy, "sqs:DeleteMessage", DLQ)
    assert not policy_allows(policy, "sqs:ReceiveMessage", f"arn:aws:sqs:us-east-1:{ACCOUNT}:payments")
