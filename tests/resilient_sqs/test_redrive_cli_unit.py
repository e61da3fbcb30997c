"""resilient_sqs.redrive (the sqs-redrive CLI) without AWS: queue resolution, refusals, the
dry run, starting a move task, a start whose response was lost, and following the task.

The SQS calls go to a real botocore client with the Stubber in front (requests must match
the SQS API model, and any call the test did not expect fails it). The same CLI against
LocalStack's move tasks is tested in tests/resilient_sqs/test_redrive_cli.py.
"""
from __future__ import annotations

import argparse

import boto3
import pytest
from botocore.exceptions import ReadTimeoutError
from botocore.stub import Stubber

from resilient_sqs import redrive
from resilient_sqs.redrive import UsageError, cmd_start, parser, resolve

ACCOUNT = "123456789012"
DLQ = f"https://sqs.us-east-1.amazonaws.com/{ACCOUNT}/orders-dlq"
DLQ_ARN = f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders-dlq"
SRC = f"https://sqs.us-east-1.amazonaws.com/{ACCOUNT}/orders"
SRC_ARN = f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders"


@pytest.fixture
def sqs():
    client = boto3.session.Session(region_name="us-east-1", aws_access_key_id="x",
                                   aws_secret_access_key="x").client("sqs")
    with Stubber(client) as stub:
        client.stub = stub
        yield client
        stub.assert_no_pending_responses()


def _arn(stub, url, arn):
    stub.add_response("get_queue_attributes", {"Attributes": {"QueueArn": arn}},
                      {"QueueUrl": url, "AttributeNames": ["QueueArn"]})


def _depth(stub, visible, in_flight=0):
    stub.add_response("get_queue_attributes", {"Attributes": {
        "ApproximateNumberOfMessages": str(visible), "ApproximateNumberOfMessagesNotVisible": str(in_flight)}},
        {"QueueUrl": DLQ, "AttributeNames": ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]})


def _tasks(stub, *tasks):
    stub.add_response("list_message_move_tasks", {"Results": list(tasks)}, {"SourceArn": DLQ_ARN, "MaxResults": 10})


def _sources(stub, *urls):
    stub.add_response("list_dead_letter_source_queues", {"queueUrls": list(urls)}, {"QueueUrl": DLQ})


def _args(*argv):
    return parser().parse_args(["start", *argv])


def _task(status, started, moved=0, to_move=10, handle="h-1", **extra):
    return {"Status": status, "StartedTimestamp": started, "ApproximateNumberOfMessagesMoved": moved,
            "ApproximateNumberOfMessagesToMove": to_move, "TaskHandle": handle, "SourceArn": DLQ_ARN, **extra}


# --- resolving queues ------------------------------------------------------------------

def test_a_queue_is_resolved_from_its_name_url_or_arn(sqs):
    sqs.stub.add_response("get_queue_url", {"QueueUrl": DLQ}, {"QueueName": "orders-dlq"})
    _arn(sqs.stub, DLQ, DLQ_ARN)
    assert resolve(sqs, "orders-dlq") == (DLQ, DLQ_ARN)
    _arn(sqs.stub, DLQ, DLQ_ARN)
    assert resolve(sqs, DLQ) == (DLQ, DLQ_ARN)
    sqs.stub.add_response("get_queue_url", {"QueueUrl": DLQ},
                          {"QueueName": "orders-dlq", "QueueOwnerAWSAccountId": ACCOUNT})
    _arn(sqs.stub, DLQ, DLQ_ARN)
    assert resolve(sqs, DLQ_ARN) == (DLQ, DLQ_ARN)


@pytest.mark.parametrize("ref", ["arn:aws:sns:us-east-1:1:topic", "arn:aws:sqs:us-east-1:orders"])
def test_an_arn_that_is_not_a_queue_is_refused_with_the_expected_form(sqs, ref):
    with pytest.raises(UsageError, match=r"is not an SQS queue ARN \(arn:aws:sqs:REGION:ACCOUNT:NAME\)"):
        resolve(sqs, ref)


def test_a_missing_queue_is_named_with_what_to_check(sqs):
    sqs.stub.add_client_error("get_queue_url", "AWS.SimpleQueueService.NonExistentQueue", "no such queue")
    with pytest.raises(UsageError, match=r"queue 'typo-dlq' does not exist .*check --region and the name"):
        resolve(sqs, "typo-dlq")


# --- start: refusals and the dry run ---------------------------------------------------

@pytest.mark.parametrize("rate", ["0", "501", "-3"])
def test_a_rate_outside_the_sqs_limit_is_refused_before_any_call(sqs, rate):
    with pytest.raises(UsageError, match=rf"--rate {rate}: must be 1-500 messages per second"):
        cmd_start(sqs, _args(DLQ, "--rate", rate), print, lambda s: None)


def test_a_dlq_of_no_queue_needs_to(sqs):
    _arn(sqs.stub, DLQ, DLQ_ARN)
    _depth(sqs.stub, 4)
    _sources(sqs.stub)
    with pytest.raises(UsageError, match="is not the DLQ of any queue.*give --to QUEUE"):
        cmd_start(sqs, _args(DLQ), print, lambda s: None)


def test_the_dry_run_says_what_would_move_and_starts_nothing(sqs):
    out = []
    _arn(sqs.stub, DLQ, DLQ_ARN)
    _depth(sqs.stub, 40, 2)
    _sources(sqs.stub, SRC)
    _tasks(sqs.stub, _task("RUNNING", 100, handle="busy"))
    assert cmd_start(sqs, _args(DLQ, "--dry-run", "--rate", "20"), out.append, lambda s: None) == 0
    text = "\n".join(out)
    assert out[0] == "dry run: nothing will be changed"
    assert f"from         {DLQ_ARN}" in text and SRC in text
    assert "40 visible, 2 in flight" in text and "about 2 s" in text
    assert "BLOCKED      a move task is already running: busy" in text


def test_a_running_task_blocks_a_second_one(sqs):
    _arn(sqs.stub, DLQ, DLQ_ARN)
    _depth(sqs.stub, 5)
    _sources(sqs.stub, SRC)
    _tasks(sqs.stub, _task("RUNNING", 100, handle="busy"))
    with pytest.raises(UsageError, match=r"already running on .*orders-dlq \(handle busy\).*sqs-redrive cancel"):
        cmd_start(sqs, _args(DLQ), print, lambda s: None)


def test_an_empty_dlq_moves_nothing(sqs):
    out = []
    _arn(sqs.stub, DLQ, DLQ_ARN)
    _depth(sqs.stub, 0, 0)
    _sources(sqs.stub, SRC)
    _tasks(sqs.stub)
    assert cmd_start(sqs, _args(DLQ), out.append, lambda s: None) == 0
    assert out == [f"{DLQ_ARN} is empty: nothing to move"]


# --- start and follow -----------------------------------------------------------------

def _ready_to_start(stub, to=None):
    _arn(stub, DLQ, DLQ_ARN)
    if to:
        _arn(stub, SRC, SRC_ARN)
    _depth(stub, 10)
    if not to:
        _sources(stub, SRC)
    _tasks(stub, _task("COMPLETED", 50, handle="old"))  # no running task
    _tasks(stub, _task("COMPLETED", 50, handle="old"))  # the start time to tell ours apart


def test_start_follows_the_task_to_completion(sqs):
    out, sleeps = [], []
    _ready_to_start(sqs.stub, to=SRC)
    sqs.stub.add_response("start_message_move_task", {"TaskHandle": "h-new"},
                          {"SourceArn": DLQ_ARN, "DestinationArn": SRC_ARN, "MaxNumberOfMessagesPerSecond": 7})
    _tasks(sqs.stub, _task("RUNNING", 60, moved=3), _task("COMPLETED", 50, handle="old"))
    _tasks(sqs.stub, _task("RUNNING", 60, moved=3), _task("COMPLETED", 50, handle="old"))
    _tasks(sqs.stub, _task("COMPLETED", 60, moved=10), _task("COMPLETED", 50, handle="old"))
    assert cmd_start(sqs, _args(DLQ, "--to", SRC, "--rate", "7", "--poll", "0.25"), out.append, sleeps.append) == 0
    assert out == [f"started move task h-new: 10 messages from {DLQ_ARN} to {SRC_ARN}, <= 7/s",
                   "RUNNING: moved 3 of 10",  # printed once while unchanged
                   "COMPLETED: moved 10 of 10"]
    assert sleeps == [0.25, 0.25]


def test_a_failed_task_exits_1_with_its_reason(sqs):
    out = []
    _ready_to_start(sqs.stub)
    sqs.stub.add_response("start_message_move_task", {"TaskHandle": "h-new"},
                          {"SourceArn": DLQ_ARN, "MaxNumberOfMessagesPerSecond": 10})
    _tasks(sqs.stub, _task("FAILED", 60, moved=4, FailureReason="AWS.SimpleQueueService.KmsAccessDenied"))
    assert cmd_start(sqs, _args(DLQ), out.append, lambda s: None) == 1
    assert out[-1] == "move task ended FAILED: AWS.SimpleQueueService.KmsAccessDenied"


def test_no_wait_returns_after_the_start(sqs):
    out = []
    _ready_to_start(sqs.stub)
    sqs.stub.add_response("start_message_move_task", {"TaskHandle": "h-new"},
                          {"SourceArn": DLQ_ARN, "MaxNumberOfMessagesPerSecond": 10})
    assert cmd_start(sqs, _args(DLQ, "--no-wait"), out.append, lambda s: None) == 0
    assert out == [f"started move task h-new: 10 messages from {DLQ_ARN} to the original source queue of each "
                   f"message ({SRC}), <= 10/s"]


class _LostStart:
    """A start client whose response never arrives (the task may or may not have started)."""

    def start_message_move_task(self, **params):
        raise ReadTimeoutError(endpoint_url=SRC)


def test_a_start_whose_response_was_lost_finds_the_task_it_started(sqs):
    out = []
    _ready_to_start(sqs.stub)
    _tasks(sqs.stub, _task("RUNNING", 60), _task("COMPLETED", 50, handle="old"))  # looked for after the timeout
    _tasks(sqs.stub, _task("COMPLETED", 60, moved=10), _task("COMPLETED", 50, handle="old"))
    assert cmd_start(sqs, _args(DLQ), out.append, lambda s: None, start_sqs=_LostStart()) == 0
    assert out[0].startswith("started move task (response lost; found the task it started)")
    assert out[-1] == "COMPLETED: moved 10 of 10"


def test_a_start_whose_response_was_lost_and_started_nothing_is_an_error(sqs):
    _ready_to_start(sqs.stub)
    _tasks(sqs.stub, _task("COMPLETED", 50, handle="old"))  # nothing newer: it did not start
    with pytest.raises(ReadTimeoutError):
        cmd_start(sqs, _args(DLQ), print, lambda s: None, start_sqs=_LostStart())


def test_two_tasks_started_by_one_lost_response_are_summed(sqs):
    out = []
    _tasks(sqs.stub, _task("RUNNING", 61, moved=2, to_move=5, handle="a"), _task("COMPLETED", 60, moved=5, to_move=5))
    _tasks(sqs.stub, _task("COMPLETED", 61, moved=5, to_move=5, handle="a"), _task("COMPLETED", 60, moved=5, to_move=5))
    assert redrive.watch(sqs, DLQ_ARN, 50, out.append, lambda s: None, 1.0) == 0
    assert out == ["RUNNING: moved 7 of 10 (2 move tasks)", "COMPLETED: moved 10 of 10 (2 move tasks)"]


# --- list, cancel, and main's exits ----------------------------------------------------

def test_list_and_cancel(sqs):
    out = []
    _arn(sqs.stub, DLQ, DLQ_ARN)
    _tasks(sqs.stub, _task("RUNNING", 60, moved=3, handle="h-1"), {"Status": "COMPLETED"})
    assert redrive.cmd_list(sqs, parser().parse_args(["list", DLQ]), out.append) == 0
    assert out == ["RUNNING    moved 3 of 10 -> original sources  handle h-1",
                   "COMPLETED  moved 0 of ? -> original sources"]
    out.clear()
    sqs.stub.add_response("cancel_message_move_task", {"ApproximateNumberOfMessagesMoved": 3}, {"TaskHandle": "h-1"})
    assert redrive.cmd_cancel(sqs, parser().parse_args(["cancel", "h-1"]), out.append) == 0
    assert out == ["cancelled; 3 messages had been moved"]


def test_access_denied_exits_2_naming_the_queue_and_the_policy(sqs, monkeypatch, capsys):
    monkeypatch.setattr(redrive, "_client", lambda args, attempts=3: sqs)
    sqs.stub.add_client_error("get_queue_url", "AccessDenied", "not authorized to sqs:GetQueueUrl")
    assert redrive.main(["start", "orders-dlq", "--to", "orders"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sqs-redrive: GetQueueUrl on orders-dlq to orders failed: AccessDenied")
    assert "the redrive-operator policy from modules/iam" in err
    assert "Traceback" not in err


def test_a_usage_error_exits_2_with_one_line(sqs, monkeypatch, capsys):
    monkeypatch.setattr(redrive, "_client", lambda args, attempts=3: sqs)
    assert redrive.main(["start", DLQ, "--rate", "900"]) == 2
    assert capsys.readouterr().err == "sqs-redrive: --rate 900: must be 1-500 messages per second (the SQS limit)\n"


def test_the_client_takes_region_and_endpoint_from_the_flags():
    args = argparse.Namespace(region="eu-west-1", endpoint_url="http://localhost:4566")
    client = redrive._client(args, attempts=1)
    assert client.meta.region_name == "eu-west-1"
    assert client.meta.endpoint_url == "http://localhost:4566"
    assert client.meta.config.retries["total_max_attempts"] == 1
