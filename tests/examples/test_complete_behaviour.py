"""examples/complete at run time: the claim check with the SQS extended client, Powertools'
batch processing and idempotency on the module's table, alarms (a real LocalStack).

Lambda cannot run here, so consumer handlers are called in-process with events built from
real received messages (``resilient_sqs.consumer.lambda_event``), and the test plays the
event source mapping: it deletes the records the handler did not report as failed.
LocalStack does not enforce IAM, so every call the libraries make is recorded and checked
against the module's producer/consumer policy documents (output ``iam_policies``).
Every test leaves the queues it used empty.
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
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, SqsFifoPartialProcessor, process_partial_response
from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer, IdempotencyConfig, idempotent_function

from resilient_sqs.claim_check import extended_client
from resilient_sqs.consumer import lambda_event
from tests.support.localstack import example_group
from tests.support.faults import FakeContext
from tests.support.localstack import depth, drain, readme_snippet, receive, recording_calls, unauthorized_calls

pytestmark = [pytest.mark.localstack, example_group("complete")]

POINTER_CLASS = "software.amazon.payloadoffloading.PayloadS3Pointer"
LEGACY_POINTER_CLASS = "com.amazon.sqs.javamessaging.MessageS3Pointer"
MiB = 1024 * 1024


@pytest.fixture()
def complete(applied):
    return applied("complete")


def _policies(complete, key: str) -> dict:
    return complete.outputs["iam_policies"][f"{complete.name_prefix}-{key}"]


def _assert_allowed(policy_json: str, calls: list, role: str) -> None:
    missing = unauthorized_calls(policy_json, calls)
    assert not missing, f"calls outside the module's {role} policy (a module bug):\n" + "\n".join(missing)


@pytest.fixture()
def lambda_env(complete, localstack, monkeypatch):
    """The environment of a consumer function of the orders queue (and LocalStack's endpoint)."""
    bucket, pair = complete.outputs["claim_check_bucket"], complete.queue("orders")
    env = {
        **localstack.env(),
        "CLAIM_CHECK_BUCKET": bucket["name"], "PAYLOAD_PREFIX": bucket["payload_prefix"],
        "IDEMPOTENCY_TABLE": complete.outputs["idempotency_table"]["name"], "DLQ_URL": pair["dlq_url"],
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return env


def _payload(size: int) -> str:
    """A JSON document of exactly ``size`` bytes with random content."""
    head = json.dumps({"id": str(uuid.uuid4()), "blob": ""})
    room = size - len(head)
    blob = base64.b64encode(os.urandom(room))[:room].decode()
    doc = json.dumps({"id": json.loads(head)["id"], "blob": blob})
    assert len(doc.encode()) == size
    return doc


def _receive_n(sqs, url: str, n: int) -> list[dict]:
    msgs: list[dict] = []
    deadline = time.monotonic() + 20
    while len(msgs) < n and time.monotonic() < deadline:
        msgs += receive(sqs, url, wait=2, visibility=60)
    assert len(msgs) == n, f"received {len(msgs)} of {n}"
    return msgs


def _settle(sqs, pair: dict, messages: list[dict], result: dict) -> None:
    """Lambda deletes the records not reported failed; the failed ones are deleted too, to leave the queue empty."""
    for m in messages:
        sqs.delete_message(QueueUrl=pair["url"], ReceiptHandle=m["ReceiptHandle"])


# ---------------------------------------------------------------------------------------------
# claim check: the README's producer and consumer (extended client + Powertools), as published
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["orders", "payments"], ids=["standard", "fifo"])
def test_readme_claim_check_round_trip_of_a_2_mib_payload(key, complete, aws, localstack, lambda_env):
    pair, bucket = complete.queue(key), complete.outputs["claim_check_bucket"]
    sqs, s3 = aws.client("sqs"), aws.client("s3")
    processed: list = []
    payload = _payload(2 * MiB)
    digest = hashlib.sha256(payload.encode()).hexdigest()
    extra = {"MessageGroupId": "claim-check"} if pair["fifo"] else {}

    with recording_calls() as producer_calls:
        producer = readme_snippet("Producer:", localstack)
        producer["send"](pair["url"], payload, **extra)
    _assert_allowed(_policies(complete, key)["producer_policy_json"], producer_calls.calls, "producer")
    assert producer_calls.operations() == {"s3:PutObject", "sqs:SendMessage"}

    [msg] = receive(sqs, pair["url"], wait=5, max_n=1, visibility=60)
    pointer_class, pointer = json.loads(msg["Body"])  # the extended clients' pointer format
    assert pointer_class == POINTER_CLASS
    assert set(pointer) == {"s3BucketName", "s3Key"} and pointer["s3BucketName"] == bucket["name"]
    assert pointer["s3Key"].startswith(bucket["payload_prefix"]) and len(pointer["s3Key"]) > len(bucket["payload_prefix"])
    assert msg["MessageAttributes"]["ExtendedPayloadSize"] == {"DataType": "Number", "StringValue": str(2 * MiB)}
    head = s3.head_object(Bucket=bucket["name"], Key=pointer["s3Key"])
    assert head["ContentLength"] == 2 * MiB
    assert head["ServerSideEncryption"] == "AES256"  # the bucket's default encryption
    # the bucket's expiring lifecycle rule covers the key
    rules = s3.get_bucket_lifecycle_configuration(Bucket=bucket["name"])["Rules"]
    assert any("Expiration" in r and pointer["s3Key"].startswith(r["Filter"]["Prefix"]) for r in rules), rules

    with recording_calls() as consumer_calls:
        consumer = readme_snippet("Consumer", localstack, process=lambda order: processed.append(order) or {"ok": True})
        if pair["fifo"]:
            consumer["processor"] = SqsFifoPartialProcessor()
        result = consumer["handler"](lambda_event([msg], pair["arn"]), FakeContext(30))
    assert result == {"batchItemFailures": []}
    assert [hashlib.sha256(json.dumps(p, separators=(", ", ": ")).encode()).hexdigest() for p in processed] == [digest]
    _assert_allowed(_policies(complete, key)["consumer_policy_json"], consumer_calls.calls, "consumer")
    assert {"s3:GetObject", "dynamodb:PutItem", "dynamodb:UpdateItem"} <= consumer_calls.operations()

    sqs.delete_message(QueueUrl=pair["url"], ReceiptHandle=msg["ReceiptHandle"])  # what Lambda does on success
    # the payload stays for retries and redrives; the lifecycle rule expires it
    assert s3.head_object(Bucket=bucket["name"], Key=pointer["s3Key"])["ContentLength"] == 2 * MiB
    assert depth(sqs, pair["url"]) == (0, 0)


def test_extended_client_receive_and_the_java_legacy_pointer(complete, aws, localstack, lambda_env):
    """The library's own receive/delete on the module's queue, and the pointer older Java clients write."""
    pair, bucket = complete.queue("orders"), complete.outputs["claim_check_bucket"]
    sqs = aws.client("sqs")
    payload = _payload(300 * 1024)  # just over the 256 KiB threshold
    with recording_calls() as calls:
        legacy = extended_client(bucket["name"], bucket["payload_prefix"])
        legacy.use_legacy_attribute = True
        legacy.send_message(QueueUrl=pair["url"], MessageBody=payload)
    _assert_allowed(_policies(complete, "orders")["producer_policy_json"], calls.calls, "producer")
    [raw] = receive(sqs, pair["url"], wait=5, max_n=1, visibility=0)  # look, and leave it visible
    assert json.loads(raw["Body"])[0] == LEGACY_POINTER_CLASS and "SQSLargePayloadSize" in raw["MessageAttributes"]

    with recording_calls() as calls:
        reader = extended_client(bucket["name"], bucket["payload_prefix"])
        [msg] = reader.receive_message(QueueUrl=pair["url"], MaxNumberOfMessages=1, WaitTimeSeconds=5,
                                       MessageAttributeNames=["All"])["Messages"]
        assert msg["Body"] == payload
        reader.delete_message(QueueUrl=pair["url"], ReceiptHandle=msg["ReceiptHandle"])
    _assert_allowed(_policies(complete, "orders")["consumer_policy_json"], calls.calls, "consumer")
    assert calls.operations() == {"sqs:ReceiveMessage", "s3:GetObject", "sqs:DeleteMessage"}  # payload kept
    assert depth(sqs, pair["url"]) == (0, 0)


def test_small_messages_go_inline_and_a_missing_payload_is_retried_not_dropped(complete, aws, localstack, lambda_env):
    pair, bucket = complete.queue("orders"), complete.outputs["claim_check_bucket"]
    sqs = aws.client("sqs")
    processed: list = []
    producer = readme_snippet("Producer:", localstack)
    small = json.dumps({"id": f"small-{uuid.uuid4().hex[:6]}", "n": 1})
    producer["send"](pair["url"], small)
    # a pointer whose payload is not there (yet): the handler must fail the record, not drop it
    sqs.send_message(
        QueueUrl=pair["url"],
        MessageBody=json.dumps([POINTER_CLASS, {"s3BucketName": bucket["name"], "s3Key": "payloads/missing"}]),
        MessageAttributes={"ExtendedPayloadSize": {"DataType": "Number", "StringValue": "3000000"}},
    )
    msgs = _receive_n(sqs, pair["url"], 2)
    inline = next(m for m in msgs if m["Body"] == small)
    assert "ExtendedPayloadSize" not in inline.get("MessageAttributes", {})
    missing = next(m for m in msgs if m is not inline)
    consumer = readme_snippet("Consumer", localstack, process=lambda order: processed.append(order) or {"ok": True})
    result = consumer["handler"](lambda_event(msgs, pair["arn"]), FakeContext(30))
    assert result == {"batchItemFailures": [{"itemIdentifier": missing["MessageId"]}]}
    assert processed == [json.loads(small)]
    _settle(sqs, pair, msgs, result)
    assert depth(sqs, pair["url"]) == (0, 0)


def test_readme_consumer_routes_a_permanent_failure_to_the_dlq_within_its_policy(complete, aws, localstack, lambda_env):
    pair = complete.queue("orders")
    sqs = aws.client("sqs")
    sqs.send_message(QueueUrl=pair["url"], MessageBody=json.dumps({"no-id": uuid.uuid4().hex}))
    sqs.send_message(QueueUrl=pair["url"], MessageBody=json.dumps({"id": uuid.uuid4().hex}),
                     MessageAttributes={"x-redrive-count": {"DataType": "Number", "StringValue": "4"}})
    msgs = _receive_n(sqs, pair["url"], 2)
    with recording_calls() as calls:
        consumer = readme_snippet("Consumer", localstack, process=lambda order: {"ok": True})
        result = consumer["handler"](lambda_event(msgs, pair["arn"]), FakeContext(30))
    over = next(m for m in msgs if "x-redrive-count" in m.get("MessageAttributes", {}))
    assert result == {"batchItemFailures": [{"itemIdentifier": over["MessageId"]}]}  # the kill switch
    _assert_allowed(_policies(complete, "orders")["consumer_policy_json"], calls.calls, "consumer")
    assert "sqs:SendMessage" in calls.operations()
    _settle(sqs, pair, msgs, result)
    [dead] = drain(sqs, pair["dlq_url"])
    assert dead["MessageAttributes"]["x-failure-reason"]["StringValue"] == "VALIDATION_ERROR"
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
# idempotency: Powertools' DynamoDBPersistenceLayer on the module's table
# ---------------------------------------------------------------------------------------------
class Consumer:
    """A Lambda consumer: Powertools batch + idempotent record handler; ``effects`` records the side effects."""

    def __init__(self, complete, aws, expires_after_seconds: int = 3600):
        self.table = complete.outputs["idempotency_table"]
        self.persistence = DynamoDBPersistenceLayer(table_name=self.table["name"], key_attr=self.table["key_attr"],
                                                    expiry_attr=self.table["expiry_attr"], boto3_session=aws)
        self.config = IdempotencyConfig(event_key_jmespath="body", expires_after_seconds=expires_after_seconds)
        self.effects: list[str] = []
        self.processor = BatchProcessor(event_type=EventType.SQS)

        @idempotent_function(data_keyword_argument="record", config=self.config, persistence_store=self.persistence)
        def charge(record) -> dict:
            order = json.loads(record.body)
            self.effects.append(order["id"])  # the side effect
            return {"charged": order["id"]}

        self.charge = charge

    def handler(self, event: dict, context) -> dict:
        self.config.register_lambda_context(context)
        return process_partial_response(event=event, record_handler=self.charge, processor=self.processor, context=context)

    def items(self, aws, body: str) -> list[dict]:
        """The table's items for this body (the key is "<function>#<md5 of the body>")."""
        digest = hashlib.md5(json.dumps(body).encode()).hexdigest()
        items = aws.client("dynamodb").scan(TableName=self.table["name"], ConsistentRead=True)["Items"]
        return [i for i in items if i["id"]["S"].endswith(digest)]


def _invoke(consumer: Consumer, sqs, pair: dict, messages: list[dict], delete: bool = True) -> dict:
    """Play the event source mapping: invoke, then delete every record not reported as failed."""
    result = consumer.handler(lambda_event(messages, pair["arn"]), FakeContext(30))
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


def test_powertools_runs_a_redelivered_message_once_and_writes_the_ttl_attribute(complete, aws):
    """The consumer finishes, then dies before the message is deleted: SQS delivers it again."""
    pair = complete.queue("orders")
    sqs, ddb = aws.client("sqs"), aws.client("dynamodb")
    with recording_calls() as calls:
        consumer = Consumer(complete, aws)
    body = json.dumps({"id": f"order-{uuid.uuid4().hex[:8]}", "amount": 42})
    first = _send_and_receive(sqs, pair, body)

    before = time.time()
    assert _invoke(consumer, sqs, pair, [first], delete=False) == {"batchItemFailures": []}  # the delete is lost
    [item] = consumer.items(aws, body)
    assert item["status"] == {"S": "COMPLETED"}
    assert json.loads(item["data"]["S"]) == {"charged": json.loads(body)["id"]}
    # the attribute the table's TTL is on is the one Powertools wrote, in epoch seconds
    ttl_attr = ddb.describe_time_to_live(TableName=consumer.table["name"])["TimeToLiveDescription"]["AttributeName"]
    assert before + 3600 - 5 <= int(item[ttl_attr]["N"]) <= time.time() + 3600

    second = _redeliver(sqs, pair, first)
    assert second["Attributes"]["ApproximateReceiveCount"] == "2"
    assert _invoke(consumer, sqs, pair, [second]) == {"batchItemFailures": []}
    assert consumer.effects == [json.loads(body)["id"]]  # once, not twice
    assert depth(sqs, pair["url"]) == (0, 0)  # and the duplicate was deleted, not retried
    _assert_allowed(_policies(complete, "orders")["consumer_policy_json"], calls.calls, "consumer")
    assert {"dynamodb:PutItem", "dynamodb:UpdateItem"} <= calls.operations()


def test_powertools_runs_duplicate_sends_in_one_batch_once(complete, aws):
    pair = complete.queue("orders")
    sqs = aws.client("sqs")
    with recording_calls() as calls:
        consumer = Consumer(complete, aws)
    body = json.dumps({"id": f"order-{uuid.uuid4().hex[:8]}", "amount": 7})
    for _ in range(2):  # a producer retried its send
        sqs.send_message(QueueUrl=pair["url"], MessageBody=body)
    msgs = _receive_n(sqs, pair["url"], 2)
    assert len({m["MessageId"] for m in msgs}) == 2
    assert _invoke(consumer, sqs, pair, msgs) == {"batchItemFailures": []}
    assert consumer.effects == [json.loads(body)["id"]]
    assert depth(sqs, pair["url"]) == (0, 0)
    _assert_allowed(_policies(complete, "orders")["consumer_policy_json"], calls.calls, "consumer")


def test_powertools_runs_a_message_again_once_its_record_has_expired(complete, aws):
    """A record past ``expiration`` is no guard, even while DynamoDB's TTL has not deleted it yet."""
    pair = complete.queue("orders")
    sqs = aws.client("sqs")
    with recording_calls() as calls:
        consumer = Consumer(complete, aws, expires_after_seconds=1)
    body = json.dumps({"id": f"order-{uuid.uuid4().hex[:8]}"})
    first = _send_and_receive(sqs, pair, body)
    assert _invoke(consumer, sqs, pair, [first], delete=False) == {"batchItemFailures": []}
    [item] = consumer.items(aws, body)
    time.sleep(max(0.0, int(item["expiration"]["N"]) + 1.1 - time.time()))
    assert len(consumer.items(aws, body)) == 1  # still in the table: TTL deletes lazily
    second = _redeliver(sqs, pair, first)
    assert _invoke(consumer, sqs, pair, [second]) == {"batchItemFailures": []}
    assert consumer.effects == [json.loads(body)["id"]] * 2
    assert depth(sqs, pair["url"]) == (0, 0)
    _assert_allowed(_policies(complete, "orders")["consumer_policy_json"], calls.calls, "consumer")


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
