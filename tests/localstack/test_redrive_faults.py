"""The dlq-redrive function's time budget and faults, injected on real SQS/S3 (LocalStack):
pacing against the deadline, a hung call, a failed ReceiveMessage, a FIFO send failure.

Faults go through a proxy on 127.0.0.1 (tests/localstack/faults.py), so botocore's own
timeouts and retries act as they would in Lambda. Time is real, except where the pacer's
sleeps are made virtual to keep a 60 s budget fast.
"""
from __future__ import annotations

import json
import time
import uuid

import pytest

from tests.helpers import load_dlq_redrive
from tests.localstack.faults import FakeContext, FaultProxy
from tests.localstack.support import depth
from tooling.redrive_scenario import EndpointSession, config as _config, drain as _drain, queue_pair as _queue_pair

pytestmark = pytest.mark.localstack


@pytest.fixture()
def bucket(aws):
    name = f"faults-archive-{uuid.uuid4().hex[:10]}"
    aws.client("s3").create_bucket(Bucket=name)
    return name


def _fill(sqs, url: str, n: int, **extra) -> list[str]:
    ids = [f"x{i:03d}" for i in range(n)]
    for start in range(0, n, 10):
        sqs.send_message_batch(QueueUrl=url, Entries=[
            {"Id": str(i), "MessageBody": json.dumps({"id": b}), **extra} for i, b in enumerate(ids[start:start + 10])])
    return ids


def _summary(lines: list[str]) -> dict:
    found = [d for d in map(json.loads, lines) if d.get("event") == "summary"]
    assert len(found) == 1, f"expected one summary line, got {len(found)}: {lines[-3:]}"
    return found[0]


@pytest.mark.parametrize("rate,timeout", [(1, 10), (0.5, 60)], ids=["1-per-s-10s", "half-per-s-60s"])
def test_pacing_stops_before_the_deadline_instead_of_holding_a_batch(aws, bucket, rate, timeout):
    """Settings the module accepts; the module's margin (timeout x 250 ms, at most 30 s)."""
    mod = load_dlq_redrive()
    sqs = aws.client("sqs")
    src_url, dlq_url, _ = _queue_pair(sqs, f"pace-{uuid.uuid4().hex[:8]}")
    _fill(sqs, dlq_url, int(rate * timeout) + 20)
    skew = [0.0]  # the pacer's sleeps pass in virtual time; calls take real time

    def now() -> float:
        return time.monotonic() + skew[0]

    deadline = now() + timeout
    cfg = _config(mod, src_url, dlq_url, bucket, rate=rate, SAFETY_MARGIN_MS=min(30000, timeout * 250))
    lines: list[str] = []
    summary = mod.Redriver(
        cfg, aws, monotonic=now, sleep=lambda d: skew.__setitem__(0, skew[0] + d), log=lines.append,
        remaining_ms=lambda: int((deadline - now()) * 1000),
    ).run()
    margin = cfg.safety_margin_ms / 1000
    # it stops when the next batch's pacing wait would eat into the safety margin, so the margin
    # is still (nearly all) there at the end; before, it slept into the deadline holding a batch
    assert deadline - now() >= margin / 2, f"the run ended {deadline - now():.1f} s before the timeout (margin {margin} s)"
    assert summary.stop == "time budget" and _summary(lines)["stop"] == "time budget"
    # every received message got its decision within the run: none is held when the function ends
    assert summary.received == summary.redriven + summary.archived + summary.left + summary.unconfirmed
    assert summary.redriven == summary.received > 0
    assert summary.redriven <= rate * (summary.finished_at - summary.started_at) + 10
    assert len(_drain(sqs, src_url)) == summary.redriven


def test_a_hung_send_ends_before_the_deadline_and_is_counted_unconfirmed(aws, localstack, bucket):
    """The source queue takes the batch, but its response never comes back (held 30 s)."""
    mod = load_dlq_redrive()
    sqs = aws.client("sqs")
    src_url, dlq_url, _ = _queue_pair(sqs, f"hung-{uuid.uuid4().hex[:8]}")
    ids = _fill(sqs, dlq_url, 10)
    budget = 8.0
    with FaultProxy(localstack.endpoint) as proxy:
        proxy.on("SendMessageBatch", ("hold", 30))
        ctx = FakeContext(budget)
        lines: list[str] = []
        started = time.monotonic()
        cfg = _config(mod, src_url, dlq_url, bucket, SAFETY_MARGIN_MS=2000, visibility=120)
        summary = mod.Redriver(cfg, EndpointSession(proxy.endpoint), log=lines.append,
                               remaining_ms=ctx.get_remaining_time_in_millis).run()
        elapsed = time.monotonic() - started
        sends = proxy.count("SendMessageBatch")
    assert elapsed < budget, f"the run took {elapsed:.1f} s of an {budget:.0f} s budget"
    assert sends == 1, f"the send was made {sends} times (a retried send duplicates what the first delivered)"
    delivered = [json.loads(m["Body"])["id"] for m in _drain(sqs, src_url)]
    assert sorted(delivered) == ids  # once each: the held request was applied, and not repeated
    assert (summary.received, summary.unconfirmed, summary.redriven, summary.left) == (10, 10, 0, 0)
    assert _summary(lines)["unconfirmed"] == 10
    unconfirmed = [d for d in map(json.loads, lines) if d.get("decision") == "unconfirmed"]
    assert len(unconfirmed) == 10 and all("ReadTimeout" in d["reason"] for d in unconfirmed)
    assert depth(sqs, dlq_url) == (0, 10)  # kept in the DLQ (in flight until the visibility timeout)


def test_a_failed_receive_does_not_abort_the_run(aws, localstack, bucket):
    """ReceiveMessage fails after botocore's retries (two 500s); the run goes on and reports it."""
    mod = load_dlq_redrive()
    sqs = aws.client("sqs")
    src_url, dlq_url, _ = _queue_pair(sqs, f"recvfail-{uuid.uuid4().hex[:8]}")
    ids = _fill(sqs, dlq_url, 15)
    lines: list[str] = []
    with FaultProxy(localstack.endpoint) as proxy:
        proxy.on("ReceiveMessage", ("error", 500, "InternalError"), times=2)
        cfg = _config(mod, src_url, dlq_url, bucket)
        summary = mod.Redriver(cfg, EndpointSession(proxy.endpoint), log=lines.append).run()
    assert _summary(lines)["errors"] == 1
    errors = [d for d in map(json.loads, lines) if d.get("event") == "error"]
    assert [e["call"] for e in errors] == ["ReceiveMessage"] and "InternalError" in errors[0]["error"]
    assert (summary.redriven, summary.stop) == (15, "empty")
    assert sorted(json.loads(m["Body"])["id"] for m in _drain(sqs, src_url)) == ids


def test_receive_failing_every_time_ends_with_a_summary_and_fails_the_invocation(aws, localstack, bucket, monkeypatch):
    mod = load_dlq_redrive()
    sqs = aws.client("sqs")
    src_url, dlq_url, _ = _queue_pair(sqs, f"recvdown-{uuid.uuid4().hex[:8]}")
    lines: list[str] = []
    with FaultProxy(localstack.endpoint) as proxy:
        proxy.on("ReceiveMessage", ("error", 500, "InternalError"), times=100)
        cfg = _config(mod, src_url, dlq_url, bucket)
        summary = mod.Redriver(cfg, EndpointSession(proxy.endpoint), log=lines.append).run()
    assert (summary.stop, summary.errors) == ("receive failed", mod.MAX_RECEIVE_FAILURES)
    assert _summary(lines)["stop"] == "receive failed"
    # the handler turns that run into a failed invocation (the function's errors alarm), after its summary
    monkeypatch.setattr(mod.Redriver, "run", lambda self: summary)
    for k, v in {"DLQ_URL": dlq_url, "SOURCE_QUEUE_URL": src_url, "ARCHIVE_BUCKET": bucket}.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(RuntimeError, match="ReceiveMessage .* failed 3 times"):
        mod.handler({}, FakeContext(30))


def test_fifo_group_stops_at_its_first_unsent_message(aws, bucket):
    """One entry of a send batch is refused (too large for the source): the later messages of
    its group stay behind it in the DLQ; another group in the same batch moves on."""
    mod = load_dlq_redrive()
    sqs = aws.client("sqs")
    src_url, dlq_url, _ = _queue_pair(sqs, f"fifo-order-{uuid.uuid4().hex[:8]}", fifo=True, source_max_size=1024)
    order = [("o0", "g-o", 2000), ("p0", "g-p", 10), ("o1", "g-o", 10), ("p1", "g-p", 10), ("o2", "g-o", 10)]
    for i, (mid, group, pad) in enumerate(order):
        sqs.send_message(QueueUrl=dlq_url, MessageBody=json.dumps({"id": mid, "pad": "x" * pad}),
                         MessageGroupId=group, MessageDeduplicationId=mid)
    lines: list[str] = []
    cfg = _config(mod, src_url, dlq_url, bucket, visibility=3)
    summary = mod.Redriver(cfg, aws, log=lines.append).run()
    moved = _drain(sqs, src_url)
    assert [(json.loads(m["Body"])["id"], m["Attributes"]["MessageGroupId"]) for m in moved] == [("p0", "g-p"), ("p1", "g-p")]
    assert (summary.redriven, summary.left) == (2, 3)
    held = {d["message_id"]: d["reason"] for d in map(json.loads, lines) if d.get("decision") == "left"}
    assert sum("held back" in r for r in held.values()) == 2
    time.sleep(3.5)
    assert [json.loads(m["Body"])["id"] for m in _drain(sqs, dlq_url)] == ["o0", "o1", "o2"]  # order intact
