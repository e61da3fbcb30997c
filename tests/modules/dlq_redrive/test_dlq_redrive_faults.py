"""The dlq-redrive function's time budget and faults, injected on real SQS/S3 (LocalStack):
pacing against the deadline, a hung call, a failed ReceiveMessage, FIFO send failures and
batching; and (issue #25) message values that must not halt a run (malformed counts, messages
that can never fit, claim-check pointers whose payload is gone), destinations that refuse,
and slow archives.

Faults go through a proxy on 127.0.0.1 (tests/support/faults.py), so botocore's own
timeouts and retries act as they would in Lambda. Time is real, except where the pacer's
sleeps are made virtual to keep a 60 s budget fast.
"""
from __future__ import annotations

import json
import time
import uuid

import pytest

from tests.support.helpers import load_dlq_redrive
from tests.support.faults import FakeContext, FaultProxy
from tests.support.localstack import depth
from tooling.redrive_scenario import EndpointSession, archived as _archived, config as _config, drain as _drain, queue_pair as _queue_pair

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


def _fifo_send(sqs, url: str, order: list[tuple[str, str, int]]) -> None:
    for mid, group, pad in order:
        sqs.send_message(QueueUrl=url, MessageBody=json.dumps({"id": mid, "pad": "x" * pad}),
                         MessageGroupId=group, MessageDeduplicationId=mid)


def _ids(msgs: list[dict]) -> list[tuple[str, str]]:
    return [(json.loads(m["Body"])["id"], m["Attributes"]["MessageGroupId"]) for m in msgs]


def _drain_fifo(sqs, url: str) -> list[dict]:
    """Everything in a FIFO queue, deleting as it goes (a group's next messages only come
    once the ones before them are gone)."""
    out = []
    while msgs := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1,
                                      AttributeNames=["All"], MessageAttributeNames=["All"]).get("Messages", []):
        out += msgs
        sqs.delete_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(msgs)])
    return out


def _by_group(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for mid, group in pairs:
        out.setdefault(group, []).append(mid)
    return out


def test_fifo_group_stops_at_its_first_unsent_message(aws, localstack, bucket):
    """A received batch that needs two send requests (three ~100 KB messages); the first request
    fails (injected 500): the later messages of its groups stay behind in the DLQ, in order; the
    groups only in the second request move on. The next run sends the rest, in order. (Which
    messages share a request depends on the order LocalStack returns the groups in.)"""
    mod = load_dlq_redrive()
    sqs = aws.client("sqs")
    src_url, dlq_url, _ = _queue_pair(sqs, f"fifo-order-{uuid.uuid4().hex[:8]}", fifo=True)
    big = 100_000
    _fifo_send(sqs, dlq_url, [("a0", "g-a", big), ("b0", "g-b", 10), ("a1", "g-a", big), ("a2", "g-a", big),
                              ("b1", "g-b", 10), ("c0", "g-c", 10)])
    lines: list[str] = []
    cfg = _config(mod, src_url, dlq_url, bucket, visibility=3)
    with FaultProxy(localstack.endpoint) as proxy:
        proxy.on("SendMessageBatch", ("error", 500, "InternalError"), times=1)
        summary = mod.Redriver(cfg, EndpointSession(proxy.endpoint), log=lines.append).run()
        sends = [action for op, action in proxy.seen if op == "SendMessageBatch"]
    assert sends == ["error", "pass"]
    expected = {"g-a": ["a0", "a1", "a2"], "g-b": ["b0", "b1"], "g-c": ["c0"]}
    first = _by_group(_ids(_drain_fifo(sqs, src_url)))
    # a group whose first message was in the failed request sent nothing after it: all or nothing
    assert all(first[g] == expected[g] for g in first) and 0 < len(first) < 3, first
    held = [d["reason"] for d in map(json.loads, lines) if d.get("decision") == "left"]
    assert any("held back" in r for r in held)
    assert (summary.redriven, summary.left, summary.order_broken) == (sum(map(len, first.values())), 6 - summary.redriven, 0)
    time.sleep(3.5)
    second = mod.Redriver(cfg, aws, log=lambda _: None).run()
    assert (second.redriven, second.left) == (summary.left, 0)
    assert {**first, **_by_group(_ids(_drain_fifo(sqs, src_url)))} == expected


def test_fifo_message_too_large_for_the_source_is_archived_and_its_group_moves_on(aws, bucket):
    """With the source's real limit known, a message that can never fit it is archived (as a
    message over the redrive limit is), not left to block its group until retention."""
    mod = load_dlq_redrive()
    sqs, s3 = aws.client("sqs"), aws.client("s3")
    src_url, dlq_url, _ = _queue_pair(sqs, f"fifo-fit-{uuid.uuid4().hex[:8]}", fifo=True, source_max_size=1024)
    _fifo_send(sqs, dlq_url, [("o0", "g-o", 2000), ("p0", "g-p", 10), ("o1", "g-o", 10), ("p1", "g-p", 10), ("o2", "g-o", 10)])
    summary = mod.Redriver(_config(mod, src_url, dlq_url, bucket, visibility=3), aws, log=lambda _: None).run()
    assert (summary.redriven, summary.archived, summary.left, summary.order_broken) == (4, 1, 0, 0)
    assert _by_group(_ids(_drain_fifo(sqs, src_url))) == {"g-p": ["p0", "p1"], "g-o": ["o1", "o2"]}
    assert [json.loads(d["body"])["id"] for d in _archived(s3, bucket)] == ["o0"]


def test_fifo_entry_refused_inside_a_request_is_reported_as_broken_order(aws, localstack, bucket):
    """SQS (LocalStack too) takes later entries of a group after an earlier entry of the same
    request was refused. With the size check in place this needs the limit to be unknown
    (GetQueueAttributes fails, injected); the inversion cannot be undone, so it is reported."""
    mod = load_dlq_redrive()
    sqs = aws.client("sqs")
    src_url, dlq_url, _ = _queue_pair(sqs, f"fifo-broken-{uuid.uuid4().hex[:8]}", fifo=True, source_max_size=1024)
    _fifo_send(sqs, dlq_url, [("o0", "g-o", 2000), ("o1", "g-o", 10)])
    lines: list[str] = []
    with FaultProxy(localstack.endpoint) as proxy:
        proxy.on("GetQueueAttributes", ("error", 500, "InternalError"), times=10)
        summary = mod.Redriver(_config(mod, src_url, dlq_url, bucket, visibility=3), EndpointSession(proxy.endpoint),
                               log=lines.append).run()
    assert (summary.redriven, summary.left, summary.order_broken) == (1, 1, 1)
    [event] = [d for d in map(json.loads, lines) if d.get("event") == "order_broken"]
    assert (event["message_group"], event["queue"]) == ("g-o", src_url)
    assert _summary(lines)["order_broken"] == 1


def test_fifo_one_group_goes_in_batches_in_order(aws, localstack, bucket):
    """One message group: 40 messages need 4 SendMessageBatch calls, in order (before: 40)."""
    mod = load_dlq_redrive()
    sqs = aws.client("sqs")
    src_url, dlq_url, _ = _queue_pair(sqs, f"fifo-batch-{uuid.uuid4().hex[:8]}", fifo=True)
    ids = [f"s{i:02d}" for i in range(40)]
    for start in range(0, 40, 10):
        sqs.send_message_batch(QueueUrl=dlq_url, Entries=[
            {"Id": str(i), "MessageBody": json.dumps({"id": mid}), "MessageGroupId": "one", "MessageDeduplicationId": mid}
            for i, mid in enumerate(ids[start:start + 10])])
    with FaultProxy(localstack.endpoint) as proxy:
        summary = mod.Redriver(_config(mod, src_url, dlq_url, bucket), EndpointSession(proxy.endpoint), log=lambda _: None).run()
        sends = proxy.count("SendMessageBatch")
    assert (summary.redriven, sends) == (40, 4)
    assert [json.loads(m["Body"])["id"] for m in _drain_fifo(sqs, src_url)] == ids


# --- round 2 (issue #25): no message value halts a run, nothing loops, failures are loud -----------

HOSTILE = [("String", "inf"), ("String", "-inf"), ("String", "1e400"), ("Number", "-5"), ("Number", "-1000000"),
           ("String", "abc"), ("String", "nan"), ("Binary", b"\x00\x07")]


def _attr(data_type, value):
    key = "BinaryValue" if data_type == "Binary" else "StringValue"
    return {"DataType": data_type, key: value}


def _decisions(lines: list[str]) -> dict[str, dict]:
    return {d["message_id"]: d for d in map(json.loads, lines) if d.get("event") == "decision"}


def test_malformed_counts_and_timestamps_are_archived_as_malformed(aws, bucket):
    """Counts and original send times that are not non-negative whole numbers, behind and among
    good messages: each is archived once as malformed (with the value in its reason); the run
    goes on and redrives the good ones. Before: OverflowError ended every run at "inf"; "-5" was
    carried on as -4; "abc", "nan" and Binary restarted the count at 1."""
    mod = load_dlq_redrive()
    sqs, s3 = aws.client("sqs"), aws.client("s3")
    src_url, dlq_url, _ = _queue_pair(sqs, f"malformed-{uuid.uuid4().hex[:8]}")
    sent = {}
    for i, (name, (data_type, value)) in enumerate(
            [(n, v) for n in ("x-redrive-count", "x-original-sent-at") for v in HOSTILE] + [("x-redrive-count", ("Number", "1"))] * 3):
        mid = sqs.send_message(QueueUrl=dlq_url, MessageBody=json.dumps({"id": f"m{i}"}),
                               MessageAttributes={name: _attr(data_type, value)})["MessageId"]
        sent[mid] = (name, value)
    lines: list[str] = []
    summary = mod.Redriver(_config(mod, src_url, dlq_url, bucket), aws, log=lines.append).run()
    assert (summary.stop, summary.received, summary.redriven) == ("empty", len(sent), 3)
    assert summary.reasons == {"malformed-attribute": len(sent) - 3} and summary.errors == 0
    redriven = _drain(sqs, src_url)
    assert [m["MessageAttributes"]["x-redrive-count"]["StringValue"] for m in redriven] == ["2"] * 3
    archived = {d["message_id"]: d for d in _archived(s3, bucket)}
    assert len(archived) == len(sent) - 3
    for mid, doc in archived.items():
        name, value = sent[mid]
        assert doc["reason"].startswith(f"malformed-attribute: {name}"), doc["reason"]
        assert ("Binary value" if isinstance(value, bytes) else repr(value)) in doc["reason"]
        assert _decisions(lines)[mid]["decision"] == "archived"
    assert _drain(sqs, dlq_url) == []


def test_a_destination_that_refuses_fails_the_run_loudly(aws, localstack, bucket, monkeypatch, capsys):
    """The source queue was deleted: every send fails with QueueDoesNotExist. The run stops,
    counts an error, logs one line naming the queue and why, and the invocation fails (the
    function's errors alarm). Before: the run returned with errors 0 and 10 "left" lines."""
    mod = load_dlq_redrive()
    sqs = aws.client("sqs")
    src_url, dlq_url, _ = _queue_pair(sqs, f"refused-{uuid.uuid4().hex[:8]}")
    _fill(sqs, dlq_url, 25)
    sqs.delete_queue(QueueUrl=src_url)
    for k, v in {"DLQ_URL": dlq_url, "SOURCE_QUEUE_URL": src_url, "ARCHIVE_BUCKET": bucket, "RATE_PER_SECOND": "500",
                 "AWS_ENDPOINT_URL": localstack.endpoint, "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                 "AWS_DEFAULT_REGION": "us-east-1", "RECEIVE_VISIBILITY_TIMEOUT": "3"}.items():
        monkeypatch.setenv(k, v)
    capsys.readouterr()
    with pytest.raises(RuntimeError) as err:
        mod.handler({}, FakeContext(30))  # real boto3 session, on LocalStack by AWS_ENDPOINT_URL
    lines = capsys.readouterr().out.splitlines()  # the handler logs with print, as in Lambda
    assert src_url in str(err.value) and "NonExistentQueue" in str(err.value)
    errors = [d for d in map(json.loads, lines) if d.get("event") == "error"]
    assert len(errors) == 1 and errors[0]["destination"] == src_url and src_url in errors[0]["message"]
    summary = _summary(lines)
    assert (summary["stop"], summary["errors"], summary["redriven"]) == ("destination refused", 1, 0)
    assert summary["received"] <= 10  # it stopped at the first refusal, not after draining the DLQ
    time.sleep(3.5)
    assert len(_drain(sqs, dlq_url)) == 25  # nothing lost


def test_access_denied_by_the_source_fails_the_run(aws, localstack, bucket):
    """The source queue's policy denies the function (LocalStack does not enforce IAM or queue
    policies, so the proxy answers SendMessageBatch with AWS's AccessDenied)."""
    mod = load_dlq_redrive()
    sqs = aws.client("sqs")
    src_url, dlq_url, _ = _queue_pair(sqs, f"denied-{uuid.uuid4().hex[:8]}")
    _fill(sqs, dlq_url, 15)
    lines: list[str] = []
    with FaultProxy(localstack.endpoint) as proxy:
        proxy.on("SendMessageBatch", ("error", 403, "AccessDenied"), times=100)
        cfg = _config(mod, src_url, dlq_url, bucket, visibility=3)
        summary = mod.Redriver(cfg, EndpointSession(proxy.endpoint), log=lines.append).run()
        sends = proxy.count("SendMessageBatch")
    assert (summary.stop, summary.errors, summary.redriven, sends) == ("destination refused", 1, 0, 1)
    assert summary.refused == {src_url: summary.refused[src_url]} and "AccessDenied" in summary.refused[src_url]
    time.sleep(3.5)
    assert len(_drain(sqs, dlq_url)) == 15


def test_messages_that_can_never_fit_the_source_are_archived_to_s3(aws, bucket):
    """The source queue takes at most 1,024 bytes (the module allows it); the DLQ takes more.
    A message that fits the DLQ but not the source (with the redrive attributes) is archived
    at once with the limit in its reason. Before: `left: InvalidParameterValue` every run."""
    mod = load_dlq_redrive()
    sqs, s3 = aws.client("sqs"), aws.client("s3")
    src_url, dlq_url, _ = _queue_pair(sqs, f"fit-{uuid.uuid4().hex[:8]}", source_max_size=1024)
    sqs.send_message(QueueUrl=dlq_url, MessageBody="b" * 1000)  # fits 1,024, not with the counter added
    sqs.send_message(QueueUrl=dlq_url, MessageBody="small")
    summary = mod.Redriver(_config(mod, src_url, dlq_url, bucket, visibility=3), aws, log=lambda _: None).run()
    assert (summary.redriven, summary.archived, summary.left) == (1, 1, 0)
    [doc] = _archived(s3, bucket)
    assert doc["body"] == "b" * 1000 and doc["reason"].startswith("too-large-to-redrive:") and "1024" in doc["reason"]
    assert [m["Body"] for m in _drain(sqs, src_url)] == ["small"]
    time.sleep(3.5)
    assert _drain(sqs, dlq_url) == []


def test_poison_queue_archive_that_cannot_take_the_reason_attribute(aws):
    """archive.type = "queue": a message near the poison queue's limit is archived without
    x-archive-reason (the decision line says why); one over the limit even without it is left
    and the run fails loudly naming the poison queue. Before: `archive failed` every run."""
    mod = load_dlq_redrive()
    sqs = aws.client("sqs")
    name = f"poisonfit-{uuid.uuid4().hex[:8]}"
    src_url, dlq_url, _ = _queue_pair(sqs, name)
    poison_url = sqs.create_queue(QueueName=f"{name}-poison", Attributes={"MaximumMessageSize": "1024"})["QueueUrl"]
    limit = {"x-redrive-count": {"DataType": "Number", "StringValue": "3"}}
    near = sqs.send_message(QueueUrl=dlq_url, MessageBody="n" * 990, MessageAttributes=limit)["MessageId"]
    lines: list[str] = []
    cfg = _config(mod, src_url, dlq_url, "unused", ARCHIVE_MODE="queue", POISON_QUEUE_URL=poison_url, visibility=3)
    summary = mod.Redriver(cfg, aws, log=lines.append).run()
    assert (summary.archived, summary.left, summary.errors) == (1, 0, 0)
    [kept] = _drain(sqs, poison_url)
    assert kept["Body"] == "n" * 990 and "x-archive-reason" not in kept.get("MessageAttributes", {})
    line = _decisions(lines)[near]
    assert line["reason"] == "redrive-limit" and "x-archive-reason not attached" in line["note"]

    too_big = sqs.send_message(QueueUrl=dlq_url, MessageBody="t" * 1500, MessageAttributes=limit)["MessageId"]
    lines.clear()
    summary = mod.Redriver(cfg, aws, log=lines.append).run()
    assert (summary.archived, summary.left, summary.errors, summary.stop) == (0, 1, 1, "destination refused")
    assert poison_url in summary.refused and "max_message_size" in summary.refused[poison_url]
    assert _decisions(lines)[too_big]["decision"] == "left"


def test_slow_archives_do_not_keep_redriven_messages_in_the_dlq(aws, localstack, bucket):
    """10 s budget (the module's margin, 2.5 s); S3 PutObject hangs (held 30 s). The messages
    already redriven are deleted before the archive calls start, and the archives end early
    enough for their own deletes. Before: every delete waited behind the archives and was
    skipped ("no time left"): the redriven copies stayed in the DLQ, duplicates next run."""
    mod = load_dlq_redrive()
    sqs = aws.client("sqs")
    src_url, dlq_url, _ = _queue_pair(sqs, f"slowarch-{uuid.uuid4().hex[:8]}")
    at_limit = {"x-redrive-count": {"DataType": "Number", "StringValue": "3"}}
    ids = _fill(sqs, dlq_url, 5)
    _fill(sqs, dlq_url, 5, MessageAttributes=at_limit)  # archived (redrive-limit)
    budget = 10.0
    lines: list[str] = []
    with FaultProxy(localstack.endpoint) as proxy:
        proxy.on("s3:PUT", ("hold", 30), times=100)
        ctx = FakeContext(budget)
        started = time.monotonic()
        cfg = _config(mod, src_url, dlq_url, bucket, SAFETY_MARGIN_MS=2500, visibility=4)
        summary = mod.Redriver(cfg, EndpointSession(proxy.endpoint), log=lines.append,
                               remaining_ms=ctx.get_remaining_time_in_millis).run()
        elapsed = time.monotonic() - started
    assert elapsed < budget, f"the run took {elapsed:.1f} s of a {budget:.0f} s budget"
    assert summary.redriven == 5 and summary.delete_failed == 0
    assert sorted(json.loads(m["Body"])["id"] for m in _drain(sqs, src_url)) == ids
    redriven = [d for d in map(json.loads, lines) if d.get("decision") == "redriven"]
    assert len(redriven) == 5 and not any("delete_error" in d for d in redriven)
    time.sleep(4.5)
    # only the five that could not be archived are still in the DLQ: none of the redriven ones
    assert sorted(m["MessageAttributes"]["x-redrive-count"]["StringValue"] for m in _drain(sqs, dlq_url)) == ["3"] * 5


def test_claim_check_pointer_whose_payload_is_gone_is_archived_as_such(aws, localstack, bucket):
    """Two large messages sent with the SQS extended client (payload in S3, pointer in the DLQ);
    one payload is then deleted (as the bucket's lifecycle rule expires it). That pointer is
    archived with a reason saying its payload is gone; the other is redriven. Before: both
    were redriven until the limit and archived as redrive-limit, the archive holding only a pointer."""
    from resilient_sqs.claim_check import extended_client

    mod = load_dlq_redrive()
    sqs, s3 = aws.client("sqs"), aws.client("s3")
    src_url, dlq_url, _ = _queue_pair(sqs, f"claim-{uuid.uuid4().hex[:8]}")
    producer = extended_client(bucket, "payloads/", s3=s3, endpoint_url=localstack.endpoint, region_name="us-east-1",
                               aws_access_key_id="test", aws_secret_access_key="test")
    for n in ("kept", "gone"):
        producer.send_message(QueueUrl=dlq_url, MessageBody=json.dumps({"id": n, "pad": "p" * 300_000}))
    pointers = {}
    for m in _drain(sqs, dlq_url, wait=1):
        pointers[m["MessageId"]] = json.loads(m["Body"])[1]
        sqs.change_message_visibility(QueueUrl=dlq_url, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=0)
    keys = sorted(p["s3Key"] for p in pointers.values())
    payloads = {json.loads(s3.get_object(Bucket=bucket, Key=k)["Body"].read())["id"]: k for k in keys}
    s3.delete_object(Bucket=bucket, Key=payloads["gone"])
    lines: list[str] = []
    summary = mod.Redriver(_config(mod, src_url, dlq_url, bucket), aws, log=lines.append).run()
    assert (summary.redriven, summary.archived, summary.reasons) == (1, 1, {"claim-check-payload-missing": 1})
    [moved] = _drain(sqs, src_url)
    assert json.loads(moved["Body"])[1]["s3Key"] == payloads["kept"]
    [doc] = _archived(s3, bucket)
    assert f"s3://{bucket}/{payloads['gone']} is gone" in doc["reason"]
    assert json.loads(doc["body"])[1]["s3Key"] == payloads["gone"]
