"""examples/complete at run time: claim check, idempotency, alarms (boto3 on a real LocalStack).

Lambda cannot run here, so consumer handlers are called in-process with events built
from real received messages (``resilient_sqs.consumer.lambda_event``), and the test
plays the event source mapping: it deletes the records the handler did not report as
failed. Every test leaves the queues it used empty.
"""
from __future__ import annotations

import base64
import hashlib
import json
import math
import os
import time
import uuid

import pytest

from resilient_sqs.consumer import BatchProcessor, lambda_event
from resilient_sqs.idempotency import COMPLETED, INPROGRESS, IdempotencyStore, idempotent
from tests.localstack.conftest import example_group
from tests.localstack.support import depth, drain, readme_snippet, receive

pytestmark = [pytest.mark.localstack, example_group("complete")]

POINTER_CLASS = "software.amazon.payloadoffloading.PayloadS3Pointer"
MiB = 1024 * 1024


@pytest.fixture()
def complete(applied):
    return applied("complete")


@pytest.fixture()
def readme_code(aws, localstack):
    """The documented producer and consumer (docs/runtime.md), as published (clients pointed at LocalStack)."""
    processed: list = []
    producer = readme_snippet("Producer:", aws, localstack)
    consumer = readme_snippet("Consumer", aws, localstack, process=processed.append)
    return producer, consumer, processed


def _payload(size: int) -> str:
    """A JSON document of exactly ``size`` bytes with random content."""
    head = json.dumps({"id": str(uuid.uuid4()), "blob": ""})
    room = size - len(head)
    blob = base64.b64encode(os.urandom(room))[:room].decode()
    doc = json.dumps({"id": json.loads(head)["id"], "blob": blob})
    assert len(doc.encode()) == size
    return doc


# ---------------------------------------------------------------------------------------------
# claim check
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["orders", "payments"], ids=["standard", "fifo"])
def test_claim_check_round_trip_of_a_2_mib_payload(key, complete, aws, readme_code):
    producer, consumer, processed = readme_code
    pair, bucket = complete.queue(key), complete.outputs["claim_check_bucket"]
    sqs, s3 = aws.client("sqs"), aws.client("s3")
    payload = _payload(2 * MiB)
    digest = hashlib.sha256(payload.encode()).hexdigest()
    extra = {"MessageGroupId": "claim-check"} if pair["fifo"] else {}

    producer["send"](pair["url"], bucket["name"], payload, prefix=bucket["payload_prefix"], **extra)

    [msg] = receive(sqs, pair["url"], wait=5, max_n=1, visibility=60)
    # the extended clients' pointer format
    pointer_class, pointer = json.loads(msg["Body"])
    assert pointer_class == POINTER_CLASS
    assert set(pointer) == {"s3BucketName", "s3Key"} and pointer["s3BucketName"] == bucket["name"]
    assert pointer["s3Key"].startswith(bucket["payload_prefix"])
    assert msg["MessageAttributes"]["ExtendedPayloadSize"] == {"DataType": "Number", "StringValue": str(2 * MiB)}
    head = s3.head_object(Bucket=bucket["name"], Key=pointer["s3Key"])
    assert head["ContentLength"] == 2 * MiB
    assert head["ServerSideEncryption"] == "AES256"  # the bucket's default encryption

    # the consumer, in-process, on a Lambda event built from the real message
    resolved: list[str] = []
    resolve = consumer["resolve"]
    consumer["resolve"] = lambda record: resolved.append(resolve(record)) or resolved[-1]
    result = consumer["handler"](lambda_event([msg], pair["arn"]), None)
    assert result == {"batchItemFailures": []}
    assert hashlib.sha256(resolved[0].encode()).hexdigest() == digest
    assert processed == [json.loads(payload)]

    sqs.delete_message(QueueUrl=pair["url"], ReceiptHandle=msg["ReceiptHandle"])  # what Lambda does on success
    # the payload stays for retries and redrives; the lifecycle rule expires it
    assert s3.head_object(Bucket=bucket["name"], Key=pointer["s3Key"])["ContentLength"] == 2 * MiB
    assert depth(sqs, pair["url"]) == (0, 0)


def test_small_messages_go_inline_and_a_missing_payload_is_retried_not_dropped(complete, aws, readme_code):
    producer, consumer, processed = readme_code
    pair, bucket = complete.queue("orders"), complete.outputs["claim_check_bucket"]
    sqs = aws.client("sqs")
    small = json.dumps({"id": "small", "n": 1})
    producer["send"](pair["url"], bucket["name"], small)
    # a pointer whose payload is not there (yet): the handler must fail the record, not drop it
    sqs.send_message(
        QueueUrl=pair["url"],
        MessageBody=json.dumps([POINTER_CLASS, {"s3BucketName": bucket["name"], "s3Key": "payloads/missing"}]),
        MessageAttributes={"ExtendedPayloadSize": {"DataType": "Number", "StringValue": "3000000"}},
    )
    msgs = []
    deadline = time.monotonic() + 20
    while len(msgs) < 2 and time.monotonic() < deadline:
        msgs += receive(sqs, pair["url"], wait=2, visibility=60)
    assert len(msgs) == 2
    inline = next(m for m in msgs if m["Body"] == small)
    assert "ExtendedPayloadSize" not in inline.get("MessageAttributes", {})
    missing = next(m for m in msgs if m is not inline)

    result = consumer["handler"](lambda_event(msgs, pair["arn"]), None)
    assert result == {"batchItemFailures": [{"itemIdentifier": missing["MessageId"]}]}
    assert processed == [json.loads(small)]
    for m in msgs:  # the processed one as Lambda would; the failed one to leave the queue empty
        sqs.delete_message(QueueUrl=pair["url"], ReceiptHandle=m["ReceiptHandle"])
    assert depth(sqs, pair["url"]) == (0, 0)


def test_lifecycle_rule_expires_payloads_after_the_derived_expiry(complete, aws):
    bucket = complete.outputs["claim_check_bucket"]
    sqs, s3 = aws.client("sqs"), aws.client("s3")

    # the longest a message of the served queues can live, from the queues themselves: DLQ
    # retention (standard: the enqueue time is kept on the move), source + DLQ (FIFO: reset)
    def retention(url: str) -> int:
        return int(sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["MessageRetentionPeriod"])["Attributes"][
            "MessageRetentionPeriod"])

    longest = 0
    for key in bucket["queues"]:
        pair = complete.outputs["queues"][key]
        life = retention(pair["dlq_url"]) + (retention(pair["url"]) if pair["fifo"] else 0)
        longest = max(longest, life)
    expected_days = math.ceil(longest / 86400)
    assert bucket["expiration_days"] == expected_days

    rules = s3.get_bucket_lifecycle_configuration(Bucket=bucket["name"])["Rules"]
    expiring = [r for r in rules if "Expiration" in r]
    assert len(expiring) == 1, rules
    [rule] = expiring
    assert rule["Status"] == "Enabled"
    assert rule["Filter"] == {"Prefix": bucket["payload_prefix"]}
    assert rule["Expiration"] == {"Days": expected_days}
    aborts = [r for r in rules if "AbortIncompleteMultipartUpload" in r]
    assert [r["AbortIncompleteMultipartUpload"] for r in aborts] == [{"DaysAfterInitiation": 1}]


def test_bucket_is_private_encrypted_and_tls_only(complete, aws):
    name = complete.outputs["claim_check_bucket"]["name"]
    s3 = aws.client("s3")
    sse = s3.get_bucket_encryption(Bucket=name)["ServerSideEncryptionConfiguration"]["Rules"]
    assert [r["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] for r in sse] == ["AES256"]
    assert s3.get_public_access_block(Bucket=name)["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True, "IgnorePublicAcls": True, "BlockPublicPolicy": True, "RestrictPublicBuckets": True,
    }
    assert s3.get_bucket_ownership_controls(Bucket=name)["OwnershipControls"]["Rules"] == [
        {"ObjectOwnership": "BucketOwnerEnforced"}
    ]
    policy = json.loads(s3.get_bucket_policy(Bucket=name)["Policy"])
    assert any(
        st["Effect"] == "Deny" and st["Action"] in ("s3:*", ["s3:*"])
        and st["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
        for st in policy["Statement"]
    ), policy


# ---------------------------------------------------------------------------------------------
# idempotency: the side effect runs once per message, through the table's conditional write
# ---------------------------------------------------------------------------------------------
class ProcessCrash(BaseException):
    """The consumer process dies (timeout, OOM, kill): no except/finally of the handler runs."""


class Consumer:
    """A Lambda consumer with an idempotent record handler; ``effects`` records the side effects."""

    def __init__(self, table: str, aws, in_progress_seconds: int = 60):
        self.store = IdempotencyStore(table, in_progress_seconds=in_progress_seconds, dynamodb=aws.client("dynamodb"))
        self.effects: list[str] = []
        self.crash_after_side_effect = False
        self.processor = BatchProcessor(log=lambda _line: None)
        self.name = f"orders-{uuid.uuid4().hex[:6]}"  # its own key space in the shared table

        @idempotent(self.store, name=self.name)
        def charge(record: dict) -> dict:
            order = json.loads(record["body"])
            self.effects.append(order["id"])  # the side effect
            if self.crash_after_side_effect:
                raise ProcessCrash()
            return {"charged": order["id"]}

        self.charge = charge

    def handler(self, event: dict, context=None) -> dict:
        return self.processor.process(event, self.charge)

    def key(self, body: str) -> str:
        return f"{self.name}#{hashlib.sha256(body.encode()).hexdigest()}"


def _invoke(consumer: Consumer, sqs, pair: dict, messages: list[dict], delete: bool = True) -> dict:
    """Play the event source mapping: invoke, then delete every record not reported as failed."""
    result = consumer.handler(lambda_event(messages, pair["arn"]))
    failed = {f["itemIdentifier"] for f in result["batchItemFailures"]}
    if delete:
        for m in messages:
            if m["MessageId"] not in failed:
                sqs.delete_message(QueueUrl=pair["url"], ReceiptHandle=m["ReceiptHandle"])
    return result


def _redeliver(sqs, pair: dict, msg: dict) -> dict:
    """Force SQS to deliver ``msg`` again now (visibility 0), and receive it."""
    sqs.change_message_visibility(QueueUrl=pair["url"], ReceiptHandle=msg["ReceiptHandle"], VisibilityTimeout=0)
    [again] = receive(sqs, pair["url"], wait=5, max_n=1, visibility=60)
    assert again["MessageId"] == msg["MessageId"]
    return again


def _item(aws, table: str, key: str) -> dict | None:
    return aws.client("dynamodb").get_item(TableName=table, Key={"id": {"S": key}}, ConsistentRead=True).get("Item")


def _send_and_receive(sqs, pair: dict, body: str) -> dict:
    sqs.send_message(QueueUrl=pair["url"], MessageBody=body)
    [msg] = receive(sqs, pair["url"], wait=5, max_n=1, visibility=60)
    return msg


def test_idempotency_table_has_the_powertools_layout(complete, aws):
    table = complete.outputs["idempotency_table"]
    assert (table["key_attr"], table["expiry_attr"]) == ("id", "expiration")
    ddb = aws.client("dynamodb")
    desc = ddb.describe_table(TableName=table["name"])["Table"]
    assert desc["KeySchema"] == [{"AttributeName": "id", "KeyType": "HASH"}]
    assert desc["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    ttl = ddb.describe_time_to_live(TableName=table["name"])["TimeToLiveDescription"]
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expiration"}


def test_redelivered_message_runs_its_side_effect_once(complete, aws):
    """The consumer finishes, then dies before the message is deleted: SQS delivers it again."""
    pair, table = complete.queue("orders"), complete.outputs["idempotency_table"]["name"]
    sqs = aws.client("sqs")
    consumer = Consumer(table, aws)
    body = json.dumps({"id": f"order-{uuid.uuid4().hex[:8]}", "amount": 42})
    first = _send_and_receive(sqs, pair, body)

    before = time.time()
    assert _invoke(consumer, sqs, pair, [first], delete=False) == {"batchItemFailures": []}  # the delete is lost
    item = _item(aws, table, consumer.key(body))
    assert item["status"] == {"S": COMPLETED}
    assert json.loads(item["data"]["S"]) == {"charged": json.loads(body)["id"]}
    assert before + 3600 - 5 <= int(item["expiration"]["N"]) <= time.time() + 3600  # the table's TTL removes it

    second = _redeliver(sqs, pair, first)
    assert second["Attributes"]["ApproximateReceiveCount"] == "2"
    assert _invoke(consumer, sqs, pair, [second]) == {"batchItemFailures": []}
    assert consumer.effects == [json.loads(body)["id"]]  # once, not twice
    assert depth(sqs, pair["url"]) == (0, 0)  # and the duplicate was deleted, not retried


def test_duplicate_sends_in_one_batch_run_the_side_effect_once(complete, aws):
    pair, table = complete.queue("orders"), complete.outputs["idempotency_table"]["name"]
    sqs = aws.client("sqs")
    consumer = Consumer(table, aws)
    body = json.dumps({"id": f"order-{uuid.uuid4().hex[:8]}", "amount": 7})
    for _ in range(2):  # a producer retried its send
        sqs.send_message(QueueUrl=pair["url"], MessageBody=body)
    msgs: list[dict] = []
    deadline = time.monotonic() + 20
    while len(msgs) < 2 and time.monotonic() < deadline:
        msgs += receive(sqs, pair["url"], wait=2, visibility=60)
    assert len({m["MessageId"] for m in msgs}) == 2
    assert _invoke(consumer, sqs, pair, msgs) == {"batchItemFailures": []}
    assert consumer.effects == [json.loads(body)["id"]]
    assert depth(sqs, pair["url"]) == (0, 0)


def test_crash_before_completion_holds_redeliveries_until_the_claim_expires(complete, aws):
    """The consumer dies after the side effect but before recording completion.

    Until ``in_progress_seconds`` have passed the claim stands: a redelivery is failed
    (not processed, not deleted) so a consumer still at work is never doubled. After it,
    the next delivery takes the claim over and runs the handler again: in that window the
    guarantee is at-least-once (documented in resilient_sqs/idempotency.py).
    """
    pair, table = complete.queue("orders"), complete.outputs["idempotency_table"]["name"]
    sqs = aws.client("sqs")
    claim_seconds = 3
    consumer = Consumer(table, aws, in_progress_seconds=claim_seconds)
    order_id = f"order-{uuid.uuid4().hex[:8]}"
    body = json.dumps({"id": order_id})
    first = _send_and_receive(sqs, pair, body)

    consumer.crash_after_side_effect = True
    claimed_at = time.time()
    with pytest.raises(ProcessCrash):
        _invoke(consumer, sqs, pair, [first])
    consumer.crash_after_side_effect = False
    item = _item(aws, table, consumer.key(body))
    assert item["status"] == {"S": INPROGRESS}
    assert int(item["in_progress_expiration"]["N"]) / 1000 == pytest.approx(claimed_at + claim_seconds, abs=2)

    # redelivered while the claim stands: failed, side effect not repeated, message kept
    second = _redeliver(sqs, pair, first)
    assert _invoke(consumer, sqs, pair, [second]) == {"batchItemFailures": [{"itemIdentifier": first["MessageId"]}]}
    assert consumer.effects == [order_id]

    time.sleep(max(0.0, claimed_at + claim_seconds + 0.5 - time.time()))
    third = _redeliver(sqs, pair, second)
    assert _invoke(consumer, sqs, pair, [third]) == {"batchItemFailures": []}
    assert consumer.effects == [order_id, order_id]  # the crash window: at-least-once
    assert _item(aws, table, consumer.key(body))["status"] == {"S": COMPLETED}
    assert depth(sqs, pair["url"]) == (0, 0)


def test_a_failing_handler_releases_its_claim(complete, aws):
    pair, table = complete.queue("orders"), complete.outputs["idempotency_table"]["name"]
    sqs = aws.client("sqs")
    consumer = Consumer(table, aws)
    attempts: list[int] = []

    @idempotent(consumer.store, name=consumer.name)
    def flaky(record: dict) -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise ConnectionError("downstream unavailable")
        return "ok"

    consumer.charge = flaky
    body = json.dumps({"id": f"order-{uuid.uuid4().hex[:8]}"})
    first = _send_and_receive(sqs, pair, body)
    assert _invoke(consumer, sqs, pair, [first]) == {"batchItemFailures": [{"itemIdentifier": first["MessageId"]}]}
    assert _item(aws, table, consumer.key(body)) is None  # released: the retry may run
    second = _redeliver(sqs, pair, first)
    assert _invoke(consumer, sqs, pair, [second]) == {"batchItemFailures": []}
    assert len(attempts) == 2
    assert depth(sqs, pair["url"]) == (0, 0)


def test_an_expired_record_is_claimed_again(complete, aws):
    """DynamoDB's TTL deletes expired items lazily (within days): the claim must not trust their presence."""
    table = complete.outputs["idempotency_table"]["name"]
    ddb = aws.client("dynamodb")
    later = time.time() + 7200  # two hours on: past the 1 h record expiry
    now_store = IdempotencyStore(table, expires_after_seconds=3600, dynamodb=ddb)
    later_store = IdempotencyStore(table, expires_after_seconds=3600, dynamodb=ddb, clock=lambda: later)
    key = f"expiry-{uuid.uuid4().hex}"
    assert now_store.claim(key) == (True, None)
    now_store.complete(key, {"n": 1})
    assert now_store.claim(key) == (False, {"n": 1})  # still valid now
    assert later_store.claim(key) == (True, None)  # the expired record is no guard
    assert _item(aws, table, key)["status"] == {"S": INPROGRESS}


# ---------------------------------------------------------------------------------------------
# alarms
# ---------------------------------------------------------------------------------------------
# The README's defaults: (queue or dlq, metric, threshold, evaluation periods); period 60 s, Maximum
SIMPLE_ALARMS = {
    "dlq_depth": ("dlq", "ApproximateNumberOfMessagesVisible", 0, 1),
    "dlq_stale": ("dlq", "ApproximateAgeOfOldestMessage", 3600, 1),
    "age_warning": ("queue", "ApproximateAgeOfOldestMessage", 300, 1),
    "age_critical": ("queue", "ApproximateAgeOfOldestMessage", 1800, 1),
    "backlog": ("queue", "ApproximateNumberOfMessagesVisible", 1000, 5),
}


def test_alarms_watch_the_configured_metrics_and_notify_the_topic(complete, aws):
    alarms = complete.outputs["alarms"]
    topic = alarms["sns_topic_arn"]
    cw, sns, kms = aws.client("cloudwatch"), aws.client("sns"), aws.client("kms")
    for key, names in alarms["alarm_names"].items():
        pair = complete.outputs["queues"][key]
        assert set(names) == set(SIMPLE_ALARMS) | {"dlq_influx"}
        found = {a["AlarmName"]: a for a in cw.describe_alarms(AlarmNames=list(names.values()))["MetricAlarms"]}
        assert set(found) == set(names.values())
        for kind, name in names.items():
            a = found[name]
            assert a["AlarmActions"] == [topic] and a["OKActions"] == [topic] and a["ActionsEnabled"], name
            assert a["ComparisonOperator"] == "GreaterThanThreshold" and a["TreatMissingData"] == "notBreaching", name
            if kind == "dlq_influx":  # metric math: messages added to the DLQ per minute
                queries = {q["Id"]: q for q in a["Metrics"]}
                stat = queries["visible"]["MetricStat"]
                assert stat["Metric"] == {"Namespace": "AWS/SQS", "MetricName": "ApproximateNumberOfMessagesVisible",
                                          "Dimensions": [{"Name": "QueueName", "Value": pair["dlq_name"]}]}
                assert (stat["Period"], stat["Stat"]) == (60, "Maximum")
                assert queries["added"]["Expression"] == "DIFF(visible)" and queries["added"]["ReturnData"]
                assert (a["Threshold"], a["EvaluationPeriods"]) == (50, 2)
                continue
            which, metric, threshold, periods = SIMPLE_ALARMS[kind]
            queue_name = pair["dlq_name"] if which == "dlq" else pair["name"]
            assert (a["Namespace"], a["MetricName"]) == ("AWS/SQS", metric), name
            assert a["Dimensions"] == [{"Name": "QueueName", "Value": queue_name}], name
            assert (a["Statistic"], a["Period"], a["Threshold"], a["EvaluationPeriods"]) == ("Maximum", 60, threshold, periods), name
    # the topic is encrypted with the key the module made for CloudWatch
    key_arn = alarms["kms_key_arn"]
    assert sns.get_topic_attributes(TopicArn=topic)["Attributes"]["KmsMasterKeyId"] == key_arn
    assert kms.get_key_rotation_status(KeyId=key_arn)["KeyRotationEnabled"] is True
    key_policy = json.loads(kms.get_key_policy(KeyId=key_arn, PolicyName="default")["Policy"])
    assert any(
        st.get("Principal") == {"Service": "cloudwatch.amazonaws.com"} and {"kms:GenerateDataKey", "kms:Decrypt"} <= set(st["Action"])
        for st in key_policy["Statement"]
    )


def test_poison_message_sets_off_the_dlq_alarm_and_the_topic_notifies_a_subscriber(complete, aws):
    """End to end, nothing faked: a poison message reaches the DLQ, SQS publishes the DLQ's
    depth to CloudWatch, the DLQ depth alarm evaluates it and goes to ALARM, and its SNS
    topic delivers the notification to a subscribed queue."""
    pair, alarms = complete.queue("payments"), complete.outputs["alarms"]
    name = alarms["alarm_names"][f"{complete.name_prefix}-payments"]["dlq_depth"]
    sqs, sns, cw = aws.client("sqs"), aws.client("sns"), aws.client("cloudwatch")
    inbox = sqs.create_queue(QueueName=f"{complete.name_prefix}-alarm-inbox")["QueueUrl"]
    inbox_arn = sqs.get_queue_attributes(QueueUrl=inbox, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sub = sns.subscribe(TopicArn=alarms["sns_topic_arn"], Protocol="sqs", Endpoint=inbox_arn,
                        ReturnSubscriptionArn=True)["SubscriptionArn"]
    try:
        # the poison message: received and never deleted until SQS dead-letters it
        sqs.send_message(QueueUrl=pair["url"], MessageBody=json.dumps({"poison": True}), MessageGroupId="poison")
        for _ in range(pair["max_receive_count"]):
            assert receive(sqs, pair["url"], wait=5, max_n=1, visibility=0)
        assert receive(sqs, pair["url"], wait=1, max_n=1, visibility=0) == []
        assert depth(sqs, pair["dlq_url"])[0] == 1

        started = time.monotonic()
        state = None
        while time.monotonic() - started < 240:
            state = cw.describe_alarms(AlarmNames=[name])["MetricAlarms"][0]["StateValue"]
            if state == "ALARM":
                break
            time.sleep(2)
        assert state == "ALARM", f"{name} still {state} after {time.monotonic() - started:.0f} s"

        notes = []
        deadline = time.monotonic() + 30
        while not notes and time.monotonic() < deadline:
            notes = [json.loads(m["Body"]) for m in receive(sqs, inbox, wait=2)]
            notes = [n for n in notes if json.loads(n["Message"]).get("AlarmName") == name]
        assert notes, f"no notification of {name} reached the subscribed queue"
        alarm_doc = json.loads(notes[0]["Message"])
        assert alarm_doc["NewStateValue"] == "ALARM"
        assert notes[0]["TopicArn"] == alarms["sns_topic_arn"]
    finally:
        sns.unsubscribe(SubscriptionArn=sub)
        sqs.delete_queue(QueueUrl=inbox)
        drain(sqs, pair["dlq_url"])
