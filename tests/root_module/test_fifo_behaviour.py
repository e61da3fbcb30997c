"""FIFO basics on examples/fifo: per-group order, group blocking, deduplication per message group.

The example's one pair is shared by these tests (and the FIFO poison-message
test): each leaves both queues empty, and they run one after another.
"""
from __future__ import annotations

import uuid

import pytest

from tests.support.localstack import example_group
from tests.support.localstack import depth, drain, receive

pytestmark = [pytest.mark.localstack, example_group("fifo")]


@pytest.fixture
def pair(applied, aws):
    pair = applied("fifo").queue("payments")
    sqs = aws.client("sqs")
    assert depth(sqs, pair["url"]) == (0, 0), "the FIFO queue is not empty at the start of the test"
    yield pair
    assert depth(sqs, pair["url"]) == (0, 0), "the test left messages in the FIFO queue"


def test_fifo_queue_has_the_configured_fifo_attributes(pair, aws):
    attrs = aws.client("sqs").get_queue_attributes(QueueUrl=pair["url"], AttributeNames=["All"])["Attributes"]
    assert pair["url"].endswith(".fifo") and pair["dlq_url"].endswith(".fifo")
    assert attrs["FifoQueue"] == "true"
    assert attrs["ContentBasedDeduplication"] == "true"
    assert attrs["DeduplicationScope"] == "messageGroup"
    assert attrs["FifoThroughputLimit"] == "perMessageGroupId"


def test_order_is_kept_per_group_and_a_group_waits_for_its_message_in_flight(pair, aws):
    sqs = aws.client("sqs")
    run = uuid.uuid4().hex[:8]
    sent = {"a": [f"{run}-a{i}" for i in range(6)], "b": [f"{run}-b{i}" for i in range(6)]}
    for i in range(6):  # interleaved: a0 b0 a1 b1 ...
        for group in ("a", "b"):
            sqs.send_message(QueueUrl=pair["url"], MessageBody=sent[group][i], MessageGroupId=f"{run}-{group}")

    # a0 in flight: nothing more of group a is delivered, group b flows
    first = receive(sqs, pair["url"], wait=5, max_n=1, visibility=60)
    assert [m["Body"] for m in first] == [sent["a"][0]]
    others = []
    for _ in range(5):
        others += receive(sqs, pair["url"], wait=1, max_n=10, visibility=60)
    assert [m["Body"] for m in others] == sent["b"], "group a delivered more while a0 was in flight, or b out of order"
    for m in first + others:
        sqs.delete_message(QueueUrl=pair["url"], ReceiptHandle=m["ReceiptHandle"])

    # a0 done: the rest of group a, in order
    rest = [m["Body"] for m in drain(sqs, pair["url"])]
    assert rest == sent["a"][1:]


def test_duplicates_are_dropped_within_a_group_but_not_across_groups(pair, aws):
    sqs = aws.client("sqs")
    run = uuid.uuid4().hex[:8]
    body = f"{run}-charge-42"
    # content-based deduplication: the same body twice in one group is delivered once
    sqs.send_message(QueueUrl=pair["url"], MessageBody=body, MessageGroupId=f"{run}-g1")
    sqs.send_message(QueueUrl=pair["url"], MessageBody=body, MessageGroupId=f"{run}-g1")
    # deduplication scope is the message group: the same body in another group is a new message
    sqs.send_message(QueueUrl=pair["url"], MessageBody=body, MessageGroupId=f"{run}-g2")
    # an explicit deduplication id wins over the content
    sqs.send_message(QueueUrl=pair["url"], MessageBody=f"{run}-first", MessageGroupId=f"{run}-g1",
                     MessageDeduplicationId=f"{run}-dedup")
    sqs.send_message(QueueUrl=pair["url"], MessageBody=f"{run}-retry", MessageGroupId=f"{run}-g1",
                     MessageDeduplicationId=f"{run}-dedup")

    got = sorted((m["Attributes"]["MessageGroupId"], m["Body"]) for m in drain(sqs, pair["url"]))
    assert got == sorted([(f"{run}-g1", body), (f"{run}-g2", body), (f"{run}-g1", f"{run}-first")])
