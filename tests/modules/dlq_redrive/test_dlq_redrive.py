"""The dlq-redrive function against real SQS and S3 (LocalStack). Lambda cannot run
here, so the handler is called in-process with the configuration the module gives it."""
from __future__ import annotations

import json
import time
import uuid

import pytest

from tests.support.helpers import load_dlq_redrive
from tests.support.faults import FaultProxy
from tooling.redrive_scenario import EndpointSession, MAX_REDRIVE, archived as _archived, config as _config, drain as _drain, queue_pair as _queue_pair, seed as _seed

pytestmark = pytest.mark.localstack

@pytest.fixture()
def bucket(aws):
    s3 = aws.client("s3")
    name = f"redrive-archive-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name)
    return name


def test_thousand_messages_conserved(aws, bucket, record_property):
    """1,000 DLQ messages end in exactly one of redriven / archived / left; none lost or duplicated."""
    mod = load_dlq_redrive()
    sqs, s3 = aws.client("sqs"), aws.client("s3")
    src_url, dlq_url, _ = _queue_pair(sqs, f"conserve-{uuid.uuid4().hex[:8]}")
    expected = _seed(sqs, dlq_url, 1000)
    lines: list[str] = []
    rate = 200
    cfg = _config(mod, src_url, dlq_url, bucket, rate=rate)
    summary = mod.Redriver(cfg, aws, log=lines.append).run()

    redriven = _drain(sqs, src_url)
    archived = _archived(s3, bucket)
    left = _drain(sqs, dlq_url)
    ids_redriven = [json.loads(m["Body"])["id"] for m in redriven]
    ids_archived = [json.loads(d["body"])["id"] for d in archived]
    ids_left = [json.loads(m["Body"])["id"] for m in left]

    # conservation: every message is in exactly one place, once
    all_ids = ids_redriven + ids_archived + ids_left
    assert len(all_ids) == 1000 and len(set(all_ids)) == 1000
    assert set(all_ids) == set(expected)
    assert (summary.redriven, summary.archived, summary.left) == (len(ids_redriven), len(ids_archived), len(ids_left))
    # every decision is the expected one
    assert sorted(ids_redriven) == sorted(k for k, v in expected.items() if v == "redriven")
    for doc in archived:
        mid = json.loads(doc["body"])["id"]
        assert expected[mid].startswith("archived:") and doc["reason"].startswith(expected[mid].split(":", 1)[1]), (mid, doc["reason"])
    assert ids_left == []
    # redriven copies carry the incremented counter and the original send time
    for m in redriven:
        body_id = json.loads(m["Body"])["id"]
        i = int(body_id[1:])
        prev_count = (i % 10) + 1 if i % 10 in (0, 1) else 0
        assert m["MessageAttributes"]["x-redrive-count"]["StringValue"] == str(prev_count + 1), body_id
        assert "x-original-sent-at" in m["MessageAttributes"]
        assert m["MessageAttributes"]["id"]["StringValue"] == body_id
    # one structured log line per decision, plus the summary
    decisions = [d for d in map(json.loads, lines) if d.get("event") == "decision"]
    assert len(decisions) == 1000
    assert {d["decision"] for d in decisions} <= {"redriven", "archived"}
    measured = summary.redriven / (summary.finished_at - summary.started_at)
    record_property("redrive_rate_configured", rate)
    record_property("redrive_rate_measured", round(measured, 1))
    record_property("counts", f"redriven={len(ids_redriven)} archived={len(ids_archived)} left={len(ids_left)}")
    # the pacer never lets the cumulative rate run ahead of the configured one by more than one batch
    assert summary.redriven <= rate * (summary.finished_at - summary.started_at) + 10


def test_send_failure_mid_batch_leaves_unsent_messages(aws, localstack, bucket):
    """Entries the source queue rejects stay in the DLQ; the rest of the batch moves.

    The function checks sizes against the source's MaximumMessageSize (read once per run);
    here that read fails (injected), so it falls back to the SQS maximum, says so in a
    warning line, and SQS itself rejects the large entries of the batch."""
    mod = load_dlq_redrive()
    sqs = aws.client("sqs")
    # the source accepts at most 1 KiB: the big messages of the batch are rejected by SQS itself
    src_url, dlq_url, _ = _queue_pair(sqs, f"partial-{uuid.uuid4().hex[:8]}", source_max_size=1024)
    entries = []
    for i in range(10):
        body = json.dumps({"id": f"p{i}", "pad": "x" * (2000 if i % 3 == 0 else 10)})
        entries.append({"Id": str(i), "MessageBody": body})
    sqs.send_message_batch(QueueUrl=dlq_url, Entries=entries)
    lines: list[str] = []
    # a short visibility so the left messages can be inspected right after
    cfg = _config(mod, src_url, dlq_url, bucket, visibility=6)
    with FaultProxy(localstack.endpoint) as proxy:
        proxy.on("GetQueueAttributes", ("error", 500, "InternalError"), times=10)
        summary = mod.Redriver(cfg, EndpointSession(proxy.endpoint), log=lines.append).run()
    big = {f"p{i}" for i in range(10) if i % 3 == 0}
    assert summary.left == len(big) and summary.redriven == 10 - len(big)
    moved = {json.loads(m["Body"])["id"] for m in _drain(sqs, src_url)}
    assert moved == {f"p{i}" for i in range(10)} - big
    time.sleep(6.5)
    still = {json.loads(m["Body"])["id"] for m in _drain(sqs, dlq_url)}
    assert still == big
    left_lines = [d for d in map(json.loads, lines) if d.get("event") == "decision" and d["decision"] == "left"]
    assert len(left_lines) == len(big) and all("send failed" in x["reason"] for x in left_lines)
    [warning] = [d for d in map(json.loads, lines) if d.get("event") == "warning"]
    assert warning["queue"] == src_url and "sqs:GetQueueAttributes" in warning["message"]


def test_poison_queue_archive_and_fifo_groups(aws):
    """FIFO pair, archive to a poison queue: redriven messages keep their group; poison ones are kept, not dropped."""
    mod = load_dlq_redrive()
    sqs = aws.client("sqs")
    name = f"fifo-{uuid.uuid4().hex[:8]}"
    src_url, dlq_url, _ = _queue_pair(sqs, name, fifo=True)
    poison_url = sqs.create_queue(QueueName=f"{name}-poison")["QueueUrl"]
    for i in range(6):
        attrs = {}
        if i % 2:
            attrs["x-redrive-count"] = {"DataType": "Number", "StringValue": str(MAX_REDRIVE)}
        sqs.send_message(
            QueueUrl=dlq_url, MessageBody=json.dumps({"id": f"f{i}"}), MessageGroupId=f"g{i % 3}",
            MessageDeduplicationId=f"d{i}", MessageAttributes=attrs or {},
        )
    cfg = _config(mod, src_url, dlq_url, "unused", ARCHIVE_MODE="queue", POISON_QUEUE_URL=poison_url)
    summary = mod.Redriver(cfg, aws, log=lambda _: None).run()
    assert (summary.redriven, summary.archived, summary.left) == (3, 3, 0)
    redriven = _drain(sqs, src_url)
    assert {json.loads(m["Body"])["id"]: m["Attributes"]["MessageGroupId"] for m in redriven} == {"f0": "g0", "f2": "g2", "f4": "g1"}
    poison = _drain(sqs, poison_url)
    assert sorted(json.loads(m["Body"])["id"] for m in poison) == ["f1", "f3", "f5"]
    assert {m["MessageAttributes"]["x-archive-reason"]["StringValue"] for m in poison} == {"redrive-limit"}


def test_run_is_bounded_per_run(aws, bucket):
    """max_messages_per_run bounds a run; the rest waits, untouched, for the next run."""
    mod = load_dlq_redrive()
    sqs = aws.client("sqs")
    src_url, dlq_url, _ = _queue_pair(sqs, f"bounded-{uuid.uuid4().hex[:8]}")
    sqs.send_message_batch(QueueUrl=dlq_url, Entries=[{"Id": str(i), "MessageBody": f"b{i}"} for i in range(10)])
    sqs.send_message_batch(QueueUrl=dlq_url, Entries=[{"Id": str(i), "MessageBody": f"c{i}"} for i in range(5)])
    cfg = _config(mod, src_url, dlq_url, bucket, per_run=7)
    first = mod.Redriver(cfg, aws, log=lambda _: None).run()
    assert first.received == 7 and first.redriven == 7
    second = mod.Redriver(cfg, aws, log=lambda _: None).run()
    assert second.redriven == 7
    third = mod.Redriver(cfg, aws, log=lambda _: None).run()
    assert third.redriven == 1
    assert sorted(m["Body"] for m in _drain(sqs, src_url)) == sorted([f"b{i}" for i in range(10)] + [f"c{i}" for i in range(5)])


def test_message_too_large_to_carry_the_counter_is_archived(aws, bucket):
    """A DLQ message so close to the SQS size limit that the redrive attributes would not fit."""
    mod = load_dlq_redrive()
    sqs, s3 = aws.client("sqs"), aws.client("s3")
    # the source at 256 KiB (the module's queues' largest max_message_size); LocalStack's DLQ at its 1 MiB default
    src_url, dlq_url, _ = _queue_pair(sqs, f"large-{uuid.uuid4().hex[:8]}", source_max_size=mod.MAX_PAYLOAD_BYTES)
    sqs.send_message(QueueUrl=dlq_url, MessageBody="x" * (mod.MAX_PAYLOAD_BYTES - 16))
    sqs.send_message(QueueUrl=dlq_url, MessageBody="small")
    summary = mod.Redriver(_config(mod, src_url, dlq_url, bucket), aws, log=lambda _: None).run()
    assert (summary.redriven, summary.archived, summary.reasons) == (1, 1, {"too-large-to-redrive": 1})
    assert [m["Body"] for m in _drain(sqs, src_url)] == ["small"]
    assert [len(d["body"]) for d in _archived(s3, bucket)] == [mod.MAX_PAYLOAD_BYTES - 16]
    assert _drain(sqs, dlq_url) == []
