"""dlq-redrive decision and pacing logic (pure functions, virtual time)."""
from __future__ import annotations

import time

from tests.support.helpers import load_dlq_redrive

mod = load_dlq_redrive()


def _cfg(**kw):
    env = {"DLQ_URL": "https://sqs/1/dlq", "SOURCE_QUEUE_URL": "https://sqs/1/src", "ARCHIVE_BUCKET": "b",
           "MAX_REDRIVE_COUNT": "3", "MAX_MESSAGE_AGE_SECONDS": "3600", "PERMANENT_FAILURE_REASONS": "VALIDATION_ERROR,BAD_SCHEMA"}
    env.update(kw)
    return mod.Config.from_env(env)


def _msg(attrs=None, sent_ms=None, body="x"):
    return {
        "MessageId": "id-1", "ReceiptHandle": "rh", "Body": body,
        "Attributes": {"SentTimestamp": str(sent_ms if sent_ms is not None else int(time.time() * 1000))},
        "MessageAttributes": attrs or {},
    }


def _num(v):
    return {"DataType": "Number", "StringValue": str(v)}


def test_pacer_never_runs_ahead_of_the_rate():
    now = [0.0]
    sleeps = []

    def sleep(d):
        sleeps.append(d)
        now[0] += d

    pacer = mod.Pacer(rate=20, clock=lambda: now[0], sleep=sleep)
    sent_at = []
    for _ in range(50):  # 50 batches of 10 = 500 messages at 20/s
        pacer.wait_for(10)
        sent_at.append((now[0], pacer.sent))
        now[0] += 0.01  # the send itself
    for t, total in sent_at:
        # everything sent by time t, minus the batch that just left, fits in rate * t
        assert total - 10 <= 20 * t + 1e-9
    elapsed = now[0]
    assert 500 / elapsed <= 20 * 1.03  # ~20/s overall, never faster (one batch of burst)
    assert 500 / elapsed >= 20 * 0.9  # and not needlessly slow


def test_decisions():
    r = mod.Redriver(_cfg(), None)
    now_ms = int(time.time() * 1000)
    assert r.decide(_msg()) == ("redrive", "retry")
    assert r.decide(_msg({"x-redrive-count": _num(2)})) == ("redrive", "retry")
    assert r.decide(_msg({"x-redrive-count": _num(3)})) == ("archive", "redrive-limit")
    assert r.decide(_msg({"x-failure-reason": {"DataType": "String", "StringValue": "BAD_SCHEMA"}})) == ("archive", "permanent-failure:BAD_SCHEMA")
    assert r.decide(_msg({"x-failure-reason": {"DataType": "String", "StringValue": "TIMEOUT"}})) == ("redrive", "retry")
    assert r.decide(_msg(sent_ms=now_ms - 3700 * 1000)) == ("archive", "too-old")
    # the original send time wins over SentTimestamp (which a redrive resets)
    assert r.decide(_msg({"x-original-sent-at": _num(now_ms - 3700 * 1000)})) == ("archive", "too-old")
    # ten attributes already: no room for the counter, so the kill switch could not work
    full = {f"a{i}": {"DataType": "String", "StringValue": "v"} for i in range(10)}
    assert r.decide(_msg(full)) == ("archive", "no-room-for-redrive-counter")
    nine = {f"a{i}": {"DataType": "String", "StringValue": "v"} for i in range(9)}
    assert r.decide(_msg(nine)) == ("redrive", "retry")
    entry = r._redrive_entry(_msg(nine), 0)
    assert len(entry["MessageAttributes"]) == 10 and entry["MessageAttributes"]["x-redrive-count"]["StringValue"] == "1"


def test_fifo_redrive_keeps_group_and_dedupes_per_attempt():
    r = mod.Redriver(_cfg(SOURCE_QUEUE_URL="https://sqs/1/src.fifo"), None)
    m = _msg({"x-redrive-count": _num(1)})
    m["Attributes"]["MessageGroupId"] = "order-7"
    e = r._redrive_entry(m, 3)
    assert e["MessageGroupId"] == "order-7" and e["Id"] == "3"
    assert e["MessageDeduplicationId"] != r._redrive_entry(_msg(), 3)["MessageDeduplicationId"]


def test_batches_are_split_to_fit_the_request_limit():
    entries = [{"Id": str(i), "MessageBody": "x" * 100_000} for i in range(10)]
    chunks = mod.size_chunks(entries)
    assert [len(c) for c in chunks] == [2, 2, 2, 2, 2]
    assert all(sum(mod.payload_size(e) for e in c) <= mod.MAX_PAYLOAD_BYTES for c in chunks)
    assert [e["Id"] for c in chunks for e in c] == [str(i) for i in range(10)]
    attrs = {"k": {"DataType": "String", "StringValue": "vv"}, "b": {"DataType": "Binary", "BinaryValue": b"123"}}
    assert mod.payload_size({"MessageBody": "héllo", "MessageAttributes": attrs}) == 6 + (1 + 6 + 2) + (1 + 6 + 3)



# values seen in real DLQs or that a producer can set: none is a count, none may crash a run,
# reset the count or make it negative
MALFORMED = ["inf", "-inf", "1e400", "-5", "-1000000", "abc", "nan", "NaN", "", " ", "1.5", "0x10", "3e2", "9" * 39]


def _str(v):
    return {"DataType": "String", "StringValue": v}


def test_malformed_count_or_timestamp_is_one_archive_decision():
    r = mod.Redriver(_cfg(), None)
    for name in ("x-redrive-count", "x-original-sent-at"):
        for value in MALFORMED:
            for attr in (_str(value), {"DataType": "Number", "StringValue": value}):
                m = _msg({name: attr})
                action, reason = r.decide(m)
                assert (action, reason.split(":", 1)[0]) == ("archive", "malformed-attribute"), (name, value)
                assert name in reason and repr(value[:40]) in reason, reason
                assert r.age_seconds(m) >= 0  # the log line's fields do not raise either
        binary = _msg({name: {"DataType": "Binary", "BinaryValue": b"\x00\x01"}})
        assert r.decide(binary) == ("archive", f"malformed-attribute: {name} is a Binary value, not a non-negative whole number")


def test_whole_numbers_are_counts():
    r = mod.Redriver(_cfg(), None)
    for value, count in [("0", 0), ("2", 2), (" 2 ", 2), ("+1", 1), ("2.0", 2), ("2.", 2), ("0002", 2)]:
        assert mod.whole_attr({"x-redrive-count": _num(value)}, "x-redrive-count") == (count, None)
        assert r.decide(_msg({"x-redrive-count": _num(value)})) == ("redrive", "retry")
        assert r._redrive_entry(_msg({"x-redrive-count": _num(value)}), 0)["MessageAttributes"]["x-redrive-count"]["StringValue"] == str(count + 1)
    assert r.decide(_msg({"x-redrive-count": _num("3.000")})) == ("archive", "redrive-limit")
    assert r.decide(_msg({"x-redrive-count": _num("9" * 38)})) == ("archive", "redrive-limit")
    assert mod.whole_attr({}, "x-redrive-count") == (None, None)


def test_consumer_reads_the_count_by_the_same_rule():
    from resilient_sqs.consumer import read_redrive_count, redrive_count

    def rec(attr):
        return {"messageId": "m", "body": "b", "messageAttributes": {"x-redrive-count": attr} if attr else {}}

    assert (redrive_count(rec(None)), redrive_count(rec({"dataType": "Number", "stringValue": "2.0"}))) == (0, 2)
    for value in MALFORMED:
        count, why = read_redrive_count(rec({"dataType": "String", "stringValue": value}))
        assert count is None and "x-redrive-count" in why, value
        assert redrive_count(rec({"dataType": "Number", "stringValue": value})) is None
        # the same decision as the redrive function's
        assert mod.whole_attr({"x-redrive-count": _str(value)}, "x-redrive-count")[1] == why
    assert read_redrive_count(rec({"dataType": "Binary", "stringValue": None, "binaryValue": "AAE="})) == (
        None, "x-redrive-count is a Binary value, not a non-negative whole number")
