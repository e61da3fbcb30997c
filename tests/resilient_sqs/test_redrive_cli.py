"""sqs-redrive (native StartMessageMoveTask redrive) against real SQS (LocalStack)."""
from __future__ import annotations

import json
import time
import uuid

import pytest

from resilient_sqs import redrive

pytestmark = pytest.mark.localstack


def _depth(sqs, url: str) -> int:
    a = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])
    return sum(int(v) for v in a["Attributes"].values())


def _dead_lettered_pair(sqs, n: int) -> tuple[str, str, str]:
    """A pair whose DLQ holds n messages that really came from the source (maxReceiveCount 1 here, to be quick)."""
    name = f"cli-{uuid.uuid4().hex[:8]}"
    dlq_url = sqs.create_queue(QueueName=f"{name}-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    src_url = sqs.create_queue(
        QueueName=name,
        Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "1"})},
    )["QueueUrl"]
    for start in range(0, n, 10):
        sqs.send_message_batch(
            QueueUrl=src_url,
            Entries=[{"Id": str(i), "MessageBody": json.dumps({"id": f"{name}-{start + i}"})} for i in range(min(10, n - start))],
        )
    # receive each once without deleting; with visibility 0 the next receive moves it to the DLQ
    deadline = time.time() + 60
    while _depth(sqs, dlq_url) < n and time.time() < deadline:
        sqs.receive_message(QueueUrl=src_url, MaxNumberOfMessages=10, VisibilityTimeout=0, WaitTimeSeconds=0)
    assert _depth(sqs, dlq_url) == n and _depth(sqs, src_url) == 0
    return src_url, dlq_url, dlq_arn


@pytest.fixture()
def cli(localstack, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")

    def run(*argv: str) -> tuple[int, list[str]]:
        lines: list[str] = []
        rc = redrive.main(["--endpoint-url", localstack.endpoint, *argv], out=lines.append, sleep=time.sleep)
        return rc, lines

    return run


def test_dry_run_changes_nothing(aws, cli):
    sqs = aws.client("sqs")
    src_url, dlq_url, dlq_arn = _dead_lettered_pair(sqs, 20)
    rc, lines = cli("start", dlq_url, "--rate", "5", "--dry-run")
    assert rc == 0
    text = "\n".join(lines)
    assert "dry run" in text and dlq_arn in text and src_url in text and "20 visible" in text
    assert _depth(sqs, dlq_url) == 20 and _depth(sqs, src_url) == 0
    assert sqs.list_message_move_tasks(SourceArn=dlq_arn).get("Results", []) == []


def test_start_moves_everything_back_with_progress(aws, cli):
    sqs = aws.client("sqs")
    src_url, dlq_url, dlq_arn = _dead_lettered_pair(sqs, 60)
    rc, lines = cli("start", dlq_arn, "--rate", "50", "--poll", "0.5")
    assert rc == 0, lines
    assert lines[0].startswith("started move task")
    assert lines[-1].startswith("COMPLETED: moved 60")
    got = []
    while True:
        msgs = sqs.receive_message(QueueUrl=src_url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
        if not msgs:
            break
        got += [json.loads(m["Body"])["id"] for m in msgs]
        sqs.delete_message_batch(QueueUrl=src_url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(msgs)])
    assert len(got) == 60 and len(set(got)) == 60
    assert _depth(sqs, dlq_url) == 0
    rc, listed = cli("list", dlq_url)
    assert rc == 0 and listed[0].startswith("COMPLETED") and "moved 60" in listed[0]


def test_start_to_explicit_destination(aws, cli):
    sqs = aws.client("sqs")
    _, dlq_url, _ = _dead_lettered_pair(sqs, 10)
    other = sqs.create_queue(QueueName=f"cli-other-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    rc, lines = cli("start", dlq_url, "--to", other, "--rate", "10", "--poll", "0.5")
    assert rc == 0, lines
    assert _depth(sqs, other) == 10 and _depth(sqs, dlq_url) == 0


def test_errors_are_one_line_and_exit_2(aws, cli, capsys):
    sqs = aws.client("sqs")
    rc, _ = cli("start", f"no-such-queue-{uuid.uuid4().hex[:6]}")
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "does not exist" in err[0]
    _, dlq_url, _ = _dead_lettered_pair(sqs, 1)
    rc, _ = cli("start", dlq_url, "--rate", "0")
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "--rate 0" in err[0]
    lonely = sqs.create_queue(QueueName=f"cli-lonely-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    sqs.send_message(QueueUrl=lonely, MessageBody="x")
    rc, _ = cli("start", lonely)
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and "is not the DLQ of any queue" in err[0] and "--to" in err[0]


def test_a_lost_start_response_is_not_retried_and_what_moved_is_reported(aws, localstack, monkeypatch):
    """StartMessageMoveTask reaches SQS (the task starts and moves all 30) but its response is
    lost. A retried start would begin a second task and the CLI would follow that one ("moved 0")."""
    from tests.support.faults import FaultProxy

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    sqs = aws.client("sqs")
    src_url, dlq_url, dlq_arn = _dead_lettered_pair(sqs, 30)
    with FaultProxy(localstack.endpoint) as proxy:
        proxy.on("StartMessageMoveTask", "drop")
        lines: list[str] = []
        rc = redrive.main(["--endpoint-url", proxy.endpoint, "start", dlq_arn, "--rate", "100", "--poll", "0.5"],
                          out=lines.append, sleep=time.sleep)
        starts = proxy.count("StartMessageMoveTask")
    assert starts == 1, f"StartMessageMoveTask was sent {starts} times"
    assert rc == 0, lines
    assert lines[-1].startswith("COMPLETED: moved 30"), lines
    assert len(sqs.list_message_move_tasks(SourceArn=dlq_arn)["Results"]) == 1
    assert _depth(sqs, src_url) == 30 and _depth(sqs, dlq_url) == 0


def test_a_refusing_destination_exits_non_zero_naming_the_queue(aws, localstack, cli, capsys, monkeypatch):
    """The source queue was deleted: one line that names the DLQ and the likely cause, exit 2.
    The caller is denied StartMessageMoveTask (LocalStack does not enforce IAM: the proxy
    answers with AWS's AccessDenied): one line naming the queue, the code and the policy, exit 2."""
    from tests.support.faults import FaultProxy

    sqs = aws.client("sqs")
    src_url, dlq_url, dlq_arn = _dead_lettered_pair(sqs, 3)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with FaultProxy(localstack.endpoint) as proxy:
        proxy.on("StartMessageMoveTask", ("error", 403, "AccessDenied"))
        rc = redrive.main(["--endpoint-url", proxy.endpoint, "start", dlq_arn, "--no-wait"], out=lambda _: None)
    [err] = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and f"StartMessageMoveTask on {dlq_arn} failed: AccessDenied" in err and "redrive-operator" in err
    sqs.delete_queue(QueueUrl=src_url)
    rc, _ = cli("start", dlq_url)
    [err] = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and dlq_arn in err and "source queue deleted" in err
    assert _depth(sqs, dlq_url) == 3
