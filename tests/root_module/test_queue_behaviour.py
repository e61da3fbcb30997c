"""What the module's queues do at run time, on the applied examples (boto3 via localstack-client).

Several tests share one applied example (a module-level xdist group per example
keeps them on the worker that applied it, one after another); each test leaves
the queues it used empty, so none depends on another's leftovers.
"""
from __future__ import annotations

import json
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.localstack import example_group
from tests.support.localstack import (
    CallRecorder,
    create_operator,
    delete_operator,
    depth,
    drain,
    receive,
    send_batch,
    session,
    unauthorized_calls,
)

pytestmark = pytest.mark.localstack


def _pair(applied, example: str, key: str) -> tuple[dict, object]:
    ex = applied(example)
    return ex.queue(key), ex


# ---------------------------------------------------------------------------------------------
# poison message -> DLQ after exactly maxReceiveCount receives
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "example,key",
    [
        pytest.param("basic", "orders", id="basic-orders", marks=example_group("basic")),  # module default 5
        pytest.param("many-queues", "reports", id="many-reports", marks=example_group("many-queues")),  # defaults: 4
        pytest.param("fifo", "payments", id="fifo-payments", marks=example_group("fifo")),  # FIFO pair
    ],
)
def test_poison_message_moves_to_dlq_after_exactly_max_receive_count(example, key, applied, aws):
    pair, _ = _pair(applied, example, key)
    sqs = aws.client("sqs")
    max_rc = pair["max_receive_count"]
    redrive = json.loads(
        sqs.get_queue_attributes(QueueUrl=pair["url"], AttributeNames=["RedrivePolicy"])["Attributes"]["RedrivePolicy"]
    )
    assert redrive == {"deadLetterTargetArn": pair["dlq_arn"], "maxReceiveCount": max_rc}

    body = json.dumps({"poison": str(uuid.uuid4())})
    extra = {"MessageGroupId": "poison"} if pair["fifo"] else {}
    sqs.send_message(QueueUrl=pair["url"], MessageBody=body, **extra)

    # a consumer that fails: receives, does not delete; a 1 s visibility lets it come back quickly
    for attempt in range(1, max_rc + 1):
        msgs = receive(sqs, pair["url"], wait=10, max_n=1, visibility=1)
        assert [m["Body"] for m in msgs] == [body], f"receive {attempt}/{max_rc}: message not delivered"
        assert int(msgs[0]["Attributes"]["ApproximateReceiveCount"]) == attempt
        assert depth(sqs, pair["dlq_url"]) == (0, 0), f"message reached the DLQ after only {attempt} receives"

    # the next receive finds it gone from the source: it is in the DLQ, intact
    assert receive(sqs, pair["url"], wait=3, max_n=1, visibility=1) == []
    dead = drain(sqs, pair["dlq_url"])
    assert [m["Body"] for m in dead] == [body]
    if pair["fifo"]:
        assert dead[0]["Attributes"]["MessageGroupId"] == "poison"
    assert depth(sqs, pair["url"]) == (0, 0)


# ---------------------------------------------------------------------------------------------
# redrive: 1,000 messages back from the DLQ as the redrive operator, none lost or duplicated
# ---------------------------------------------------------------------------------------------
def _wait_task(op_sqs, dlq_arn: str, until: set[str], timeout: float = 120) -> dict:
    """The most recent move task of the DLQ, once its status is in ``until``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        results = op_sqs.list_message_move_tasks(SourceArn=dlq_arn, MaxResults=1)["Results"]
        if results and results[0]["Status"] in until:
            return results[0]
        time.sleep(0.2)
    raise AssertionError(f"move task of {dlq_arn} did not reach {until} within {timeout} s")


def _fail_every_message(aws, pair: dict, n: int, consumers: int = 4, timeout: float = 180) -> None:
    """Consumers that never delete: every message is received maxReceiveCount times, then dead-lettered."""
    deadline = time.monotonic() + timeout

    def consume(sqs) -> None:
        while depth(sqs, pair["dlq_url"])[0] < n and time.monotonic() < deadline:
            for _ in range(10):
                receive(sqs, pair["url"], wait=0, max_n=10, visibility=0)

    clients = [aws.client("sqs") for _ in range(consumers)]  # created here: client creation is not thread-safe
    with ThreadPoolExecutor(consumers) as pool:
        list(pool.map(consume, clients))


@example_group("basic")
def test_redrive_1000_messages_with_operator_credentials_loses_and_duplicates_nothing(applied, aws, localstack):
    pair, ex = _pair(applied, "basic", "orders")
    sqs = aws.client("sqs")
    n = 1000
    ids = [str(uuid.uuid4()) for _ in range(n)]
    bodies = [json.dumps({"id": i}) for i in ids]
    producers = [aws.client("sqs") for _ in range(4)]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda k: send_batch(producers[k], pair["url"], bodies[k::4]), range(4)))
    assert depth(sqs, pair["url"])[0] == n

    _fail_every_message(aws, pair, n)
    assert depth(sqs, pair["dlq_url"]) == (n, 0), f"{depth(sqs, pair['dlq_url'])[0]} of {n} messages dead-lettered"
    assert depth(sqs, pair["url"]) == (0, 0)

    # the operator: an IAM user holding only the module's redrive-operator policy
    policy = json.loads(ex.outputs["iam_policies"][f"{ex.name_prefix}-orders"]["redrive_operator_policy_json"])
    assert {st["Sid"] for st in policy["Statement"]} >= {"MoveMessagesOutOfDlqs", "SendRedrivenMessagesToSources"}
    user = f"{ex.name_prefix}-redrive-operator"
    user_arn, key_id, secret = create_operator(aws, user, policy)
    try:
        op = session(localstack, key_id, secret)
        assert op.client("sts").get_caller_identity()["Arn"] == user_arn
        op_sqs = op.client("sqs")
        recorder = CallRecorder()
        recorder.attach(op_sqs)

        # a throttled redrive, cancelled part way: what moved is in the source, the rest still in the DLQ
        first = op_sqs.start_message_move_task(SourceArn=pair["dlq_arn"], MaxNumberOfMessagesPerSecond=20)
        time.sleep(1.5)
        op_sqs.cancel_message_move_task(TaskHandle=first["TaskHandle"])
        task = _wait_task(op_sqs, pair["dlq_arn"], {"CANCELLED"})
        moved = task["ApproximateNumberOfMessagesMoved"]
        assert 0 < moved < n, f"cancelled task moved {moved} of {n}"
        in_source, in_dlq = depth(op_sqs, pair["url"])[0], depth(op_sqs, pair["dlq_url"])[0]
        assert (in_source, in_dlq) == (moved, n - moved)

        # the full redrive, back to the original source queue (no DestinationArn)
        op_sqs.start_message_move_task(SourceArn=pair["dlq_arn"])
        task = _wait_task(op_sqs, pair["dlq_arn"], {"COMPLETED", "FAILED"})
        assert task["Status"] == "COMPLETED", task
        assert depth(op_sqs, pair["dlq_url"]) == (0, 0)

        missing = unauthorized_calls(policy, recorder.calls, original_source=pair["arn"])
        assert not missing, "the redrive needed permissions outside the operator policy:\n" + "\n".join(missing)
        made = {name for _, name, _ in recorder.calls}
        assert made >= {"StartMessageMoveTask", "CancelMessageMoveTask", "ListMessageMoveTasks"}
    finally:
        delete_operator(aws, user)

    received = Counter(json.loads(m["Body"])["id"] for m in drain(sqs, pair["url"]))
    lost = set(ids) - set(received)
    duplicated = {i: c for i, c in received.items() if c > 1}
    assert not lost, f"{len(lost)} of {n} messages lost in the redrive"
    assert not duplicated, f"{len(duplicated)} messages delivered more than once: {list(duplicated.items())[:5]}"
    assert set(received) == set(ids)


# ---------------------------------------------------------------------------------------------
# visibility timeout and heartbeat
# ---------------------------------------------------------------------------------------------
@example_group("many-queues")
def test_received_message_stays_hidden_for_the_queue_visibility_timeout(applied, aws):
    # emails: consumer timeout 10 s -> visibility 6 x 10 = 60 s, the shortest in the example
    pair, _ = _pair(applied, "many-queues", "emails")
    sqs = aws.client("sqs")
    vis = pair["visibility_timeout_seconds"]
    attrs = sqs.get_queue_attributes(QueueUrl=pair["url"], AttributeNames=["VisibilityTimeout"])["Attributes"]
    assert int(attrs["VisibilityTimeout"]) == vis == 60

    body = json.dumps({"visibility": str(uuid.uuid4())})
    sqs.send_message(QueueUrl=pair["url"], MessageBody=body)
    first = receive(sqs, pair["url"], wait=5, max_n=1)  # the queue's own timeout, no override
    received_at = time.monotonic()
    assert [m["Body"] for m in first] == [body]

    # hidden until the timeout ends (1.5 s margin for clock and request latency)
    while (left := vis - 1.5 - (time.monotonic() - received_at)) > 0:
        early = receive(sqs, pair["url"], wait=int(min(20, max(1, left))), max_n=1, visibility=1)
        assert early == [], f"redelivered {time.monotonic() - received_at:.1f} s after receive; visibility is {vis} s"

    # and delivered again right after it
    again = receive(sqs, pair["url"], wait=10, max_n=1)
    elapsed = time.monotonic() - received_at
    assert [m["Body"] for m in again] == [body], f"not redelivered {elapsed:.1f} s after receive (visibility {vis} s)"
    assert int(again[0]["Attributes"]["ApproximateReceiveCount"]) == 2
    sqs.delete_message(QueueUrl=pair["url"], ReceiptHandle=again[0]["ReceiptHandle"])
    assert depth(sqs, pair["url"]) == (0, 0)


@example_group("basic")
def test_heartbeat_keeps_message_hidden_past_its_visibility_timeout(applied, aws):
    pair, _ = _pair(applied, "basic", "orders")
    sqs = aws.client("sqs")
    body = json.dumps({"heartbeat": str(uuid.uuid4())})
    sqs.send_message(QueueUrl=pair["url"], MessageBody=body)

    initial = 4
    msgs = receive(sqs, pair["url"], wait=5, max_n=1, visibility=initial)
    received_at = time.monotonic()
    assert [m["Body"] for m in msgs] == [body]
    handle = msgs[0]["ReceiptHandle"]

    # a consumer still working sends heartbeats: each extends the timeout by 5 s from now
    for beat_at in (2.0, 5.0):
        time.sleep(max(0.0, beat_at - (time.monotonic() - received_at)))
        sqs.change_message_visibility(QueueUrl=pair["url"], ReceiptHandle=handle, VisibilityTimeout=5)
    hidden_until = 5.0 + 5  # the last heartbeat, at 5 s, hides it until about 10 s

    while (left := hidden_until - 1.0 - (time.monotonic() - received_at)) > 0:
        early = receive(sqs, pair["url"], wait=int(max(1, min(left, 20))), max_n=1, visibility=1)
        assert early == [], (
            f"redelivered {time.monotonic() - received_at:.1f} s after receive despite heartbeats "
            f"(initial timeout {initial} s)"
        )
    assert time.monotonic() - received_at > initial + 3  # it really outlived the initial timeout

    # heartbeats stop (the consumer died): the message comes back
    again = receive(sqs, pair["url"], wait=10, max_n=1)
    assert [m["Body"] for m in again] == [body]
    sqs.delete_message(QueueUrl=pair["url"], ReceiptHandle=again[0]["ReceiptHandle"])
    assert depth(sqs, pair["url"]) == (0, 0)
