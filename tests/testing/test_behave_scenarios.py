"""Scenarios the stacks of test_behave.py cannot reach on LocalStack, run directly on real SQS
queues made here: visibility-covers-consumer needs an event source mapping, and LocalStack
cannot create the Lambda function behind one (so no applied stack here has one)."""
from __future__ import annotations

import uuid

import pytest

from resilient_sqs.testing.aws import Clients
from resilient_sqs.testing.discover import Consumer, Discovery, Pair, QueueInfo
from resilient_sqs.testing.scenarios import Context, ScenarioFailed, ScenarioSkipped
from resilient_sqs.testing.scenarios.visibility_covers_consumer import visibility_covers_consumer

pytestmark = pytest.mark.localstack


def _pair(sqs, visibility: int, timeout: int | None) -> Pair:
    name = f"vis-{uuid.uuid4().hex[:8]}"
    url = sqs.create_queue(QueueName=name, Attributes={"VisibilityTimeout": str(visibility)})["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    q = QueueInfo(name=name, url=url, arn=arn, address="aws_sqs_queue.work", fifo=False, visibility=visibility,
                  retention=345600, region="us-east-1", account="000000000000")
    consumers = [Consumer("aws_lambda_event_source_mapping.work", "worker", timeout,
                          None if timeout else "the function is not in the stack")]
    return Pair(queue=q, dlq=None, max_receive_count=None, redrive_allow=None, consumers=consumers)


@pytest.fixture()
def ctx(localstack):
    clients = Clients(localstack.endpoint)
    return Context(clients=clients, discovery=Discovery([], [], []), metric_interval=10)


def test_visibility_shorter_than_the_consumer_timeout_fails_naming_the_setting(ctx):
    pair = _pair(ctx.clients.client("sqs"), visibility=2, timeout=5)
    with pytest.raises(ScenarioFailed) as err:
        visibility_covers_consumer(ctx, pair)
    msg = str(err.value)
    assert f"queue {pair.name}" in msg and "reappeared after" in msg and "visibility timeout is 2 s" in msg
    assert "Change: aws_sqs_queue.work: visibility_timeout_seconds" in msg


def test_visibility_covering_the_consumer_timeout_passes(ctx):
    pair = _pair(ctx.clients.client("sqs"), visibility=8, timeout=4)
    assert "stayed hidden for the consumer's timeout (4 s" in visibility_covers_consumer(ctx, pair)


def test_unknown_consumer_timeout_is_a_skip_with_the_reason(ctx):
    pair = _pair(ctx.clients.client("sqs"), visibility=8, timeout=None)
    with pytest.raises(ScenarioSkipped, match="the function is not in the stack"):
        visibility_covers_consumer(ctx, pair)
