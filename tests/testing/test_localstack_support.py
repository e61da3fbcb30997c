"""Helpers the LocalStack tier relies on: the operator-policy check (LocalStack does not enforce IAM)
and the drift test's tolerance of one LocalStack defect."""
from __future__ import annotations

import base64
import json

import pytest

from tests.support.localstack import (
    ALARM_TAGS_DROPPED,
    pending_changes,
    policy_allows,
    tolerated_changes,
    unauthorized_calls,
)

pytestmark = pytest.mark.static

ACCOUNT = "000000000000"
DLQ = f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders-dlq"
SRC = f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders"
URL = f"http://sqs.us-east-1.localhost.localstack.cloud:4566/{ACCOUNT}/"


def redrive_operator_policy(dlq: str, source: str) -> dict:
    """A document shaped like modules/iam's redrive-operator policy, to test the checker on.
    (The LocalStack tests use the module's own document, from its outputs.)"""
    return {"Version": "2012-10-17", "Statement": [
        {"Sid": "MoveMessagesOutOfDlqs", "Effect": "Allow", "Resource": dlq, "Action": [
            "sqs:StartMessageMoveTask", "sqs:ListMessageMoveTasks", "sqs:CancelMessageMoveTask", "sqs:ReceiveMessage",
            "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:ListDeadLetterSourceQueues"]},
        {"Sid": "SendRedrivenMessagesToSources", "Effect": "Allow", "Resource": source,
         "Action": ["sqs:SendMessage", "sqs:GetQueueAttributes"]},
    ]}


def test_the_redrive_procedure_fits_the_operator_policy():
    handle = base64.b64encode(json.dumps({"taskId": "t1", "sourceArn": DLQ}).encode()).decode()
    calls = [
        ("sqs", "StartMessageMoveTask", {"SourceArn": DLQ, "MaxNumberOfMessagesPerSecond": 20}),
        ("sqs", "CancelMessageMoveTask", {"TaskHandle": handle}),
        ("sqs", "ListMessageMoveTasks", {"SourceArn": DLQ}),
        ("sqs", "StartMessageMoveTask", {"SourceArn": DLQ}),
        ("sqs", "GetQueueAttributes", {"QueueUrl": URL + "orders"}),
        ("sqs", "GetQueueAttributes", {"QueueUrl": URL + "orders-dlq"}),
    ]
    assert unauthorized_calls(redrive_operator_policy(DLQ, SRC), calls, original_source=SRC) == []


def test_a_missing_implied_permission_is_reported():
    policy = redrive_operator_policy(DLQ, SRC)
    policy["Statement"][1]["Action"].remove("sqs:SendMessage")  # the move task sends into the source queue
    calls = [("sqs", "StartMessageMoveTask", {"SourceArn": DLQ})]
    assert unauthorized_calls(policy, calls, original_source=SRC) == [f"StartMessageMoveTask: sqs:SendMessage on {SRC}"]
    # an explicit destination is what needs SendMessage then
    other = f"arn:aws:sqs:us-east-1:{ACCOUNT}:elsewhere"
    calls = [("sqs", "StartMessageMoveTask", {"SourceArn": DLQ, "DestinationArn": other})]
    missing = unauthorized_calls(redrive_operator_policy(DLQ, SRC), calls, original_source=SRC)
    assert missing == [f"StartMessageMoveTask: sqs:SendMessage on {other}"]


def test_calls_outside_the_policy_are_reported():
    policy = redrive_operator_policy(DLQ, SRC)
    calls = [("sqs", "PurgeQueue", {"QueueUrl": URL + "orders-dlq"}), ("sqs", "ReceiveMessage", {"QueueUrl": URL + "orders"})]
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


# ---------------------------------------------------------------------------------------------
# the drift test's tolerance of LocalStack's alarm-tag defect: exactly that, nothing else
# ---------------------------------------------------------------------------------------------
ALARM = "module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.dlq_depth[\"orders\"]"


def _alarm_values(**overrides) -> dict:
    values = {"alarm_name": "sqs-dlq-not-empty-orders-dlq", "threshold": 0, "period": 60,
              "insufficient_data_actions": None, "tags": {}, "tags_all": {}}
    return {**values, **overrides}


def _rc(address: str, rtype: str, actions: list[str], before: dict, after: dict) -> dict:
    return {"address": address, "type": rtype,
            "change": {"actions": actions, "before": before, "after": after, "after_unknown": {}}}


def _plan(*changes: dict, drift: tuple[dict, ...] = (), outputs: dict | None = None) -> dict:
    return {"resource_changes": list(changes), "resource_drift": list(drift), "output_changes": outputs or {}}


TAGGED = {"example": "complete"}
RETAG = _rc(ALARM, "aws_cloudwatch_metric_alarm", ["update"], _alarm_values(),
            _alarm_values(tags=TAGGED, tags_all=TAGGED))
REFRESH_ONLY = _rc(ALARM, "aws_cloudwatch_metric_alarm", ["update"], _alarm_values(),
                   _alarm_values(insufficient_data_actions=[]))


def test_alarm_retag_after_localstack_dropped_the_tags_is_tolerated():
    plan = _plan(RETAG, drift=(REFRESH_ONLY,))
    assert pending_changes(plan, (ALARM_TAGS_DROPPED,)) == []
    assert len(tolerated_changes(plan, (ALARM_TAGS_DROPPED,))) == 1
    # without the defect (a LocalStack that keeps the tags, or real AWS) the same plan fails
    assert pending_changes(plan) == [
        f"update {ALARM}: tags: {{}} -> {TAGGED!r}; tags_all: {{}} -> {TAGGED!r}",
        "  (refresh saw: insufficient_data_actions: None -> [])",
    ]


@pytest.mark.parametrize(
    "change",
    [
        # another attribute of the alarm changes with the tags
        _rc(ALARM, "aws_cloudwatch_metric_alarm", ["update"], _alarm_values(),
            _alarm_values(tags=TAGGED, tags_all=TAGGED, threshold=5)),
        # tags that were there and differ: not what LocalStack's defect produces
        _rc(ALARM, "aws_cloudwatch_metric_alarm", ["update"], _alarm_values(tags={"example": "old"}, tags_all={"example": "old"}),
            _alarm_values(tags=TAGGED, tags_all=TAGGED)),
        # a replacement, not an in-place re-tag
        _rc(ALARM, "aws_cloudwatch_metric_alarm", ["delete", "create"], _alarm_values(),
            _alarm_values(tags=TAGGED, tags_all=TAGGED)),
        # tags of another resource type
        _rc("module.messaging.module.queue[\"orders\"].aws_sqs_queue.this", "aws_sqs_queue", ["update"],
            {"name": "orders", "tags": {}, "tags_all": {}}, {"name": "orders", "tags": TAGGED, "tags_all": TAGGED}),
        # an alarm to create
        _rc(ALARM, "aws_cloudwatch_metric_alarm", ["create"], None, _alarm_values(tags=TAGGED, tags_all=TAGGED)),
    ],
    ids=["tags-and-threshold", "tags-changed-not-dropped", "replace", "queue-tags", "create"],
)
def test_any_other_change_still_fails(change):
    assert pending_changes(_plan(change), (ALARM_TAGS_DROPPED,)) != []


def test_output_changes_count_and_refresh_only_drift_does_not():
    assert pending_changes(_plan(outputs={"queues": {"actions": ["update"]}}), (ALARM_TAGS_DROPPED,)) == [
        "update output queues"
    ]
    # Terraform reports "No changes" (plan -detailed-exitcode 0) when only the refresh differs
    assert pending_changes(_plan(_rc(ALARM, "aws_cloudwatch_metric_alarm", ["no-op"], _alarm_values(), _alarm_values()),
                                 drift=(REFRESH_ONLY,))) == []


def test_not_action_not_resource_question_mark_and_case():
    policy = {"Statement": [
        {"Effect": "Allow", "NotAction": "sqs:Purge*", "Resource": "arn:aws:sqs:us-east-1:?????????????:orders"},
        {"Effect": "Allow", "Action": "S3:getobject", "NotResource": "arn:aws:s3:::b/private/*"},
    ]}
    assert not policy_allows(policy, "sqs:SendMessage", SRC)  # ? is exactly one character: 13 of them vs 12 digits
    policy["Statement"][0]["Resource"] = "arn:aws:sqs:us-east-1:????????????:orders"
    assert policy_allows(policy, "sqs:SendMessage", SRC)
    assert not policy_allows(policy, "sqs:PurgeQueue", SRC)
    assert policy_allows(policy, "s3:GetObject", "arn:aws:s3:::b/payloads/x")  # actions ignore case
    assert not policy_allows(policy, "s3:GetObject", "arn:aws:s3:::b/private/x")
    assert not policy_allows({"Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::B/*"}]},
                             "s3:GetObject", "arn:aws:s3:::b/x")  # resources do not


def test_conditions_are_evaluated():
    deny_http = {"Effect": "Deny", "Action": "s3:*", "Resource": "*", "Condition": {"Bool": {"aws:SecureTransport": "false"}}}
    allow = {"Effect": "Allow", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::b/*",
             "Condition": {"StringEquals": {"s3:x-amz-server-side-encryption": "AES256"}}}
    policy = {"Statement": [deny_http, allow]}
    assert policy_allows(policy, "s3:PutObject", "arn:aws:s3:::b/k", {"s3:x-amz-server-side-encryption": "AES256"})
    assert not policy_allows(policy, "s3:PutObject", "arn:aws:s3:::b/k")  # the key is absent: no match
    assert not policy_allows(policy, "s3:PutObject", "arn:aws:s3:::b/k",
                             {"s3:x-amz-server-side-encryption": "AES256", "aws:SecureTransport": "false"})
    with pytest.raises(ValueError, match="DateGreaterThan"):
        policy_allows({"Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*",
                                      "Condition": {"DateGreaterThan": {"aws:CurrentTime": "2020-01-01"}}}]},
                      "s3:GetObject", "arn:aws:s3:::b/k")


def test_required_permissions_of_library_calls():
    from tests.support.localstack import required_permissions

    assert required_permissions("sqs", "SendMessageBatch", {"QueueUrl": URL + "orders"}) == [("sqs:SendMessage", SRC)]
    assert required_permissions("s3", "PutObject", {"Bucket": "b", "Key": "payloads/1"}) == [("s3:PutObject", "arn:aws:s3:::b/payloads/1")]
    assert required_permissions("dynamodb", "PutItem", {"TableName": "t"}) == [
        ("dynamodb:PutItem", f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/t")]
