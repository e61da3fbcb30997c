"""Scheduled DLQ redrive with a poison-pill kill switch.

Runs in AWS Lambda (Python 3.12, boto3 from the runtime; no other dependency).
Each run drains up to MAX_MESSAGES_PER_RUN messages from one dead-letter queue:

* a message whose failure reason is in PERMANENT_FAILURE_REASONS, or that has
  already been redriven MAX_REDRIVE_COUNT times, or that is older than
  MAX_MESSAGE_AGE_SECONDS, or whose count/first-send time is not a non-negative
  whole number (malformed), or that can never fit the source queue's
  MaximumMessageSize, or a claim-check pointer whose payload is gone, is
  **archived** (S3 object or poison queue), with the reason;
* any other message is **redriven**: sent back to the source queue with its
  attributes and ``x-redrive-count`` incremented, at most
  RATE_PER_SECOND messages per second;
* a message is deleted from the DLQ only after its send/archive succeeded,
  entry by entry; a failed entry is **left** in the DLQ and reappears after
  the receive visibility timeout, for the next run. Redriven messages are
  deleted before archiving starts. FIFO: entries go in batches, in order; the
  first failed entry of a message group holds back the rest of the group;
* a destination that refuses every message (queue gone, access denied...)
  stops the run with one error line naming it; the invocation then fails.

Time budget: a batch is received only when its pacing wait and its work fit
before the function's timeout less SAFETY_MARGIN_MS, and every AWS call gets
connect/read timeouts and retries that end before the deadline. A send whose
response was lost is not retried (a retry could duplicate it): those messages
are counted as ``unconfirmed`` and left in the DLQ.

One JSON line is printed (so CloudWatch Logs keeps it) per decision, and one
summary line per run. Nothing is ever dropped silently.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import time
import urllib.parse
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from botocore.config import Config as BotoConfig
from botocore.exceptions import ConnectionClosedError, ReadTimeoutError

# Declared copies of resilient_sqs/facts.py (this file ships in a Lambda zip without the
# package); tests/resilient_sqs/test_facts.py proves they agree with it.
REDRIVE_COUNT_ATTR = "x-redrive-count"
FAILURE_REASON_ATTR = "x-failure-reason"
MAX_REDRIVE_COUNT_DEFAULT = 3
MAX_REDRIVE_COUNT_MIN, MAX_REDRIVE_COUNT_MAX = 1, 100  # the module input's bounds (max_redrive_count)
ORIGINAL_SENT_AT_ATTR = "x-original-sent-at"
ARCHIVE_REASON_ATTR = "x-archive-reason"
MAX_MESSAGE_ATTRIBUTES = 10  # SQS limit per message
MAX_PAYLOAD_BYTES = 262144  # SQS limit for one batch request; a queue's own MaximumMessageSize may be lower
MAX_BATCH_ENTRIES = 10

MALFORMED = "malformed-attribute"  # archive reason of a message whose count/timestamp cannot be read
TOO_LARGE = "too-large-to-redrive"
PAYLOAD_MISSING = "claim-check-payload-missing"
# the extended client's pointer (Java and Python libraries): ["...PayloadS3Pointer", {"s3BucketName", "s3Key"}]
POINTER_CLASS_SUFFIX = "PayloadS3Pointer"

REDRIVEN = "redriven"
ARCHIVED = "archived"
LEFT = "left"


class ConfigError(ValueError):
    """The function's environment is wrong; the message says which variable and how to fix it."""


@dataclass(frozen=True)
class Config:
    dlq_url: str
    source_queue_url: str
    rate_per_second: float = 10.0
    max_messages_per_run: int = 1000
    max_redrive_count: int = MAX_REDRIVE_COUNT_DEFAULT
    max_message_age_seconds: int = 259200
    permanent_failure_reasons: frozenset[str] = frozenset()
    failure_reason_attribute: str = FAILURE_REASON_ATTR
    archive_mode: str = "s3"
    archive_bucket: str | None = None
    archive_prefix: str = "dlq-archive/"
    poison_queue_url: str | None = None
    receive_visibility_timeout: int = 120
    safety_margin_ms: int = 10000

    @property
    def source_is_fifo(self) -> bool:
        return self.source_queue_url.endswith(".fifo")

    @property
    def dlq_name(self) -> str:
        return urllib.parse.urlparse(self.dlq_url).path.rstrip("/").rsplit("/", 1)[-1]

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> "Config":
        env = dict(os.environ if env is None else env)

        def required(name: str) -> str:
            value = env.get(name, "").strip()
            if not value:
                raise ConfigError(f"{name} is not set: give the queue URL (the dlq-redrive module sets it)")
            return value

        def number(name: str, default: float, kind: type, low: float, high: float) -> Any:
            raw = env.get(name)
            if raw is None or raw.strip() == "":
                return default
            try:
                value = kind(raw)
            except ValueError:
                raise ConfigError(f"{name}={raw!r} is not a {kind.__name__}") from None
            if not low <= value <= high:
                raise ConfigError(f"{name}={raw} is outside {low}..{high}")
            return value

        reasons_raw = env.get("PERMANENT_FAILURE_REASONS", "").strip()
        try:
            reasons = json.loads(reasons_raw) if reasons_raw.startswith("[") else [r for r in reasons_raw.split(",") if r.strip()]
        except json.JSONDecodeError:
            raise ConfigError(f"PERMANENT_FAILURE_REASONS={reasons_raw!r} is not a JSON list of strings") from None
        if not all(isinstance(r, str) for r in reasons):
            raise ConfigError("PERMANENT_FAILURE_REASONS must be a JSON list of strings")

        mode = env.get("ARCHIVE_MODE", "s3").strip()
        cfg = cls(
            dlq_url=required("DLQ_URL"),
            source_queue_url=required("SOURCE_QUEUE_URL"),
            rate_per_second=number("RATE_PER_SECOND", 10.0, float, 0.1, 3000),
            max_messages_per_run=number("MAX_MESSAGES_PER_RUN", 1000, int, 1, 1_000_000),
            max_redrive_count=number("MAX_REDRIVE_COUNT", MAX_REDRIVE_COUNT_DEFAULT, int, MAX_REDRIVE_COUNT_MIN, MAX_REDRIVE_COUNT_MAX),
            max_message_age_seconds=number("MAX_MESSAGE_AGE_SECONDS", 259200, int, 60, 1209600),
            permanent_failure_reasons=frozenset(r.strip() for r in reasons),
            failure_reason_attribute=env.get("FAILURE_REASON_ATTRIBUTE", FAILURE_REASON_ATTR).strip() or FAILURE_REASON_ATTR,
            archive_mode=mode,
            archive_bucket=env.get("ARCHIVE_BUCKET") or None,
            archive_prefix=env.get("ARCHIVE_PREFIX", "dlq-archive/"),
            poison_queue_url=env.get("POISON_QUEUE_URL") or None,
            receive_visibility_timeout=number("RECEIVE_VISIBILITY_TIMEOUT", 120, int, 1, 43200),
            safety_margin_ms=number("SAFETY_MARGIN_MS", 10000, int, 0, 600000),
        )
        if mode not in ("s3", "queue"):
            raise ConfigError(f"ARCHIVE_MODE={mode!r}: use 's3' (ARCHIVE_BUCKET) or 'queue' (POISON_QUEUE_URL)")
        if mode == "s3" and not cfg.archive_bucket:
            raise ConfigError("ARCHIVE_MODE=s3 needs ARCHIVE_BUCKET (the claim-check bucket or another bucket)")
        if mode == "queue" and not cfg.poison_queue_url:
            raise ConfigError("ARCHIVE_MODE=queue needs POISON_QUEUE_URL")
        return cfg


@dataclass
class Summary:
    received: int = 0
    redriven: int = 0
    archived: int = 0
    left: int = 0
    unconfirmed: int = 0
    delete_failed: int = 0
    errors: int = 0
    order_broken: int = 0
    stop: str = "empty"
    reasons: dict[str, int] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)  # destination -> why it refused
    started_at: float = 0.0
    finished_at: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        elapsed = max(self.finished_at - self.started_at, 1e-9)
        return {
            "event": "summary",
            "received": self.received,
            "redriven": self.redriven,
            "archived": self.archived,
            "left": self.left,
            "unconfirmed": self.unconfirmed,
            "delete_failed": self.delete_failed,
            "errors": self.errors,
            "order_broken": self.order_broken,
            "refused": self.refused,
            "stop": self.stop,
            "archive_reasons": self.reasons,
            "elapsed_seconds": round(elapsed, 3),
            "redrive_rate_per_second": round(self.redriven / elapsed, 2),
        }


def _attr_value(attrs: dict, name: str) -> str | None:
    a = attrs.get(name)
    if not a:
        return None
    return a.get("StringValue")


# a non-negative whole number as SQS carries a Number (at most 38 digits); "3.0" is 3
_WHOLE = re.compile(r"\+?([0-9]{1,38})(?:\.0*)?")


def whole_attr(attrs: dict, name: str) -> tuple[int | None, str | None]:
    """A count or timestamp attribute: (value, None); (None, None) when absent;
    (None, why) when it is anything but a non-negative whole number ("inf", "1e400",
    "-5", "abc", "nan", "", a Binary value): such a value is *malformed*, never read
    as 0, as a negative count or as an overflow."""
    a = attrs.get(name)
    if not a:
        return None, None
    raw = a.get("StringValue")
    if not isinstance(raw, str):
        what = "a Binary value" if a.get("BinaryValue") is not None else "empty"
        return None, f"{name} is {what}, not a non-negative whole number"
    m = _WHOLE.fullmatch(raw.strip())
    if m is None:
        shown = raw if len(raw) <= 40 else raw[:40] + "..."
        return None, f"{name}={shown!r} is not a non-negative whole number"
    return int(m.group(1)), None


def _clean_attrs(attrs: dict) -> dict:
    """Message attributes as SendMessage accepts them (drop list values SQS returns but refuses)."""
    out = {}
    for name, a in attrs.items():
        entry = {"DataType": a["DataType"]}
        if "StringValue" in a:
            entry["StringValue"] = a["StringValue"]
        if "BinaryValue" in a:
            entry["BinaryValue"] = a["BinaryValue"]
        out[name] = entry
    return out


def payload_size(entry: dict) -> int:
    """Bytes SQS counts for a message: body plus attribute names, types and values."""
    size = len(entry["MessageBody"].encode())
    for name, a in entry.get("MessageAttributes", {}).items():
        size += len(name.encode()) + len(a["DataType"].encode())
        if "StringValue" in a:
            size += len(a["StringValue"].encode())
        if "BinaryValue" in a:
            size += len(a["BinaryValue"])
    return size


def size_chunks(entries: list[dict], limit: int = MAX_PAYLOAD_BYTES) -> list[list[dict]]:
    """Split entries, in order, into batch requests within the SQS limits (total payload, 10 entries)."""
    chunks: list[list[dict]] = []
    current: list[dict] = []
    total = 0
    for e in entries:
        size = payload_size(e)
        if current and (total + size > limit or len(current) == MAX_BATCH_ENTRIES):
            chunks.append(current)
            current, total = [], 0
        current.append(e)
        total += size
    if current:
        chunks.append(current)
    return chunks


class Pacer:
    """Keeps the cumulative send rate at or below `rate` messages per second."""

    def __init__(self, rate: float, clock: Callable[[], float], sleep: Callable[[float], None]):
        self.rate = rate
        self.clock = clock
        self.sleep = sleep
        self.start = clock()
        self.sent = 0

    def delay(self) -> float:
        """Seconds until the next batch may leave: after k messages, the next one is due
        k / rate seconds after the start."""
        return max(0.0, self.start + self.sent / self.rate - self.clock())

    def wait_for(self, n: int) -> None:
        delay = self.delay()
        if delay > 0:
            self.sleep(delay)
        self.sent += n


UNCONFIRMED = "unconfirmed"  # a request whose response was lost: it may or may not have been applied
MAX_CALL_SECONDS = 10.0  # one AWS call, all attempts, when time is plentiful
MIN_CALL_SECONDS = 1.0  # less than this left before the deadline: no new call
RESERVE_MS = 1000  # kept for the summary line and the function's return
DELETE_RESERVE_MS = 3000  # archives end this much earlier, so the deletes that follow them still get a call

# error codes that mean a destination refuses every message (not a transient fault): the
# run stops, counts an error and fails the invocation, so the function's errors alarm fires
REFUSAL_CODES = frozenset({
    "AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist", "NonExistentQueue",
    "AccessDenied", "AccessDeniedException", "InvalidClientTokenId", "UnrecognizedClientException",
    "NoSuchBucket", "KMS.AccessDeniedException", "KMS.DisabledException", "KMS.NotFoundException",
    "KMS.InvalidStateException", "KMS.InvalidKeyUsageException",
})


def _error_code(exc: BaseException) -> str:
    return str(getattr(exc, "response", None) and exc.response.get("Error", {}).get("Code", "") or "")


def _no_response(exc: BaseException) -> bool:
    """The request may have reached AWS but its response never came back."""
    return isinstance(exc, (ReadTimeoutError, ConnectionClosedError))


class Clients:
    """boto3 clients whose calls end before the function's deadline.

    Each call gets connect/read timeouts and a number of attempts sized to the time
    left (less RESERVE_MS), at most MAX_CALL_SECONDS; botocore's defaults (60 s
    each, retried) would outlive a Lambda timeout. Clients are cached by budget.
    """

    def __init__(self, session: Any, remaining_ms: Callable[[], int]):
        self.session = session
        self.remaining_ms = remaining_ms
        self._cache: dict[tuple[str, int, int], Any] = {}

    def get(self, service: str, attempts: int = 2, reserve_ms: int = RESERVE_MS) -> Any | None:
        """A client for one call that ends ``reserve_ms`` before the deadline, or None when
        too little time is left to make one."""
        left = (self.remaining_ms() - reserve_ms) / 1000
        if left < MIN_CALL_SECONDS:
            return None
        seconds = int(min(MAX_CALL_SECONDS, left))
        key = (service, seconds, attempts)
        if key not in self._cache:
            # backoff between attempts: at most 1 s for the first retry of a throttled call
            per_attempt = max(0.5, (seconds - (attempts - 1)) / attempts)
            connect = min(2.0, per_attempt / 3)
            self._cache[key] = self.session.client(service, config=BotoConfig(
                connect_timeout=connect, read_timeout=per_attempt - connect,
                retries={"mode": "standard", "total_max_attempts": attempts},
            ))
        return self._cache[key]


MAX_RECEIVE_FAILURES = 3  # consecutive ReceiveMessage errors (each after botocore's retries) that end a run


class Redriver:
    def __init__(
        self,
        config: Config,
        session: Any,
        *,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        log: Callable[[str], None] = print,
        remaining_ms: Callable[[], int] | None = None,
    ):
        """``session``: anything with boto3's ``session.client(service, config=...)``."""
        self.cfg = config
        self.clock = clock
        self.monotonic = monotonic
        self.sleep = sleep
        self.log = log
        self.remaining_ms = remaining_ms or (lambda: 10**9)
        self.clients = Clients(session, self.remaining_ms)
        self.summary = Summary()
        self._limits: dict[str, int] = {}  # queue URL -> MaximumMessageSize, read once per run
        self._warned: set[str] = set()

    # -- decisions -------------------------------------------------------------------
    def decide(self, msg: dict) -> tuple[str, str]:
        """('redrive' | 'archive', reason) for one received DLQ message."""
        attrs = msg.get("MessageAttributes", {})
        reason = _attr_value(attrs, self.cfg.failure_reason_attribute)
        if reason is not None and reason in self.cfg.permanent_failure_reasons:
            return "archive", f"permanent-failure:{reason}"
        count, bad = whole_attr(attrs, REDRIVE_COUNT_ATTR)
        if bad is None:
            bad = whole_attr(attrs, ORIGINAL_SENT_AT_ATTR)[1]
        if bad is not None:
            # the kill switch cannot count this message: one decision, never a crash or a reset
            return "archive", f"{MALFORMED}: {bad}"
        if (count or 0) >= self.cfg.max_redrive_count:
            return "archive", "redrive-limit"
        if self.age_seconds(msg) > self.cfg.max_message_age_seconds:
            return "archive", "too-old"
        if REDRIVE_COUNT_ATTR not in attrs and len(attrs) >= MAX_MESSAGE_ATTRIBUTES:
            # no room for the counter: without it the kill switch cannot work
            return "archive", "no-room-for-redrive-counter"
        return "redrive", "retry"

    def age_seconds(self, msg: dict) -> float:
        attrs = msg.get("MessageAttributes", {})
        first_ms = whole_attr(attrs, ORIGINAL_SENT_AT_ATTR)[0] or whole_attr(
            {"s": {"StringValue": msg.get("Attributes", {}).get("SentTimestamp")}}, "s")[0]
        if not first_ms:
            return 0.0
        return max(0.0, self.clock() - first_ms / 1000.0)

    # -- actions ---------------------------------------------------------------------
    def _redrive_entry(self, msg: dict, idx: int) -> dict:
        attrs = _clean_attrs(msg.get("MessageAttributes", {}))
        count = (whole_attr(msg.get("MessageAttributes", {}), REDRIVE_COUNT_ATTR)[0] or 0) + 1
        attrs[REDRIVE_COUNT_ATTR] = {"DataType": "Number", "StringValue": str(count)}
        if ORIGINAL_SENT_AT_ATTR not in attrs and len(attrs) < MAX_MESSAGE_ATTRIBUTES:
            sent = msg.get("Attributes", {}).get("SentTimestamp")
            if sent:
                attrs[ORIGINAL_SENT_AT_ATTR] = {"DataType": "Number", "StringValue": str(sent)}
        entry = {"Id": str(idx), "MessageBody": msg["Body"], "MessageAttributes": attrs}
        if self.cfg.source_is_fifo:
            sys_attrs = msg.get("Attributes", {})
            entry["MessageGroupId"] = sys_attrs.get("MessageGroupId", "redrive")
            entry["MessageDeduplicationId"] = hashlib.sha256(f"{msg['MessageId']}:{count}".encode()).hexdigest()
        return entry

    def _send_batch(self, queue_url: str, entries: list[dict], reserve_ms: int = RESERVE_MS) -> tuple[set[str], dict[str, str], set[str]]:
        """Send entries, in order, in as few requests as the batch limits allow.

        Returns (ids sent, {id: why not}, ids unconfirmed). To a FIFO queue, entries of one
        message group go in one request in their order (SQS keeps that order); once an
        entry of a group was not sent, the group's later entries are held back (left in the
        DLQ behind it), so the group's order is kept.
        """
        ok: set[str] = set()
        failed: dict[str, str] = {}
        unconfirmed: set[str] = set()
        stopped: dict[str, str] = {}  # message group -> the id of its first entry not sent
        for chunk in size_chunks(entries):
            todo = []
            for e in chunk:
                group = e.get("MessageGroupId")
                if group is not None and group in stopped:
                    failed[e["Id"]] = f"held back: entry {stopped[group]} of message group {group} was not sent (order kept)"
                else:
                    todo.append(e)
            if not todo:
                continue
            self._send_chunk(queue_url, todo, ok, failed, unconfirmed, reserve_ms)
            for e in todo:
                group = e.get("MessageGroupId")
                if group is None:
                    continue
                if e["Id"] not in ok:
                    stopped.setdefault(group, e["Id"])
                elif group in stopped:
                    # SQS took a later entry of the group although an earlier one of the same
                    # request failed: that order is broken; say so (it cannot be undone)
                    self.summary.order_broken += 1
                    self._emit({"event": "order_broken", "queue": queue_url, "message_group": group,
                                "entry": e["Id"], "after_failed_entry": stopped[group]})
        return ok, failed, unconfirmed

    def _send_chunk(self, queue_url: str, chunk: list[dict], ok: set[str], failed: dict[str, str], unconfirmed: set[str],
                    reserve_ms: int = RESERVE_MS) -> None:
        # one attempt: botocore would retry a send whose response was lost, and the retry
        # duplicates every message the first attempt delivered
        sqs = self.clients.get("sqs", attempts=1, reserve_ms=reserve_ms)
        if sqs is None:
            failed.update({e["Id"]: "not sent: no time left before the function's timeout" for e in chunk})
            return
        try:
            resp = sqs.send_message_batch(QueueUrl=queue_url, Entries=chunk)
        except Exception as exc:  # noqa: BLE001 - any failure leaves the messages in the DLQ
            if _no_response(exc):
                unconfirmed.update(e["Id"] for e in chunk)
            elif _error_code(exc) in REFUSAL_CODES:
                self._refuse(queue_url, "SendMessageBatch", exc)
            failed.update({e["Id"]: f"{type(exc).__name__}: {exc}" for e in chunk})
            return
        ok.update(x["Id"] for x in resp.get("Successful", []))
        for f in resp.get("Failed", []):
            failed[f["Id"]] = f"{f.get('Code')}: {f.get('Message', '')}"
            if f.get("Code") in REFUSAL_CODES:
                self._refuse(queue_url, "SendMessageBatch", f"{f.get('Code')}: {f.get('Message', '')}")
        for e in chunk:  # an entry in neither list did not verifiably succeed
            if e["Id"] not in ok and e["Id"] not in failed:
                failed[e["Id"]] = "no result for entry"

    def _refuse(self, destination: str, call: str, why: Any) -> None:
        """A destination refuses every message: one error line naming it and why; the run stops."""
        if destination in self.summary.refused:
            return
        text = f"{type(why).__name__}: {why}" if isinstance(why, BaseException) else str(why)
        self.summary.refused[destination] = text
        self.summary.errors += 1
        self._emit({"event": "error", "call": call, "destination": destination, "error": text,
                    "message": f"{destination} refuses the redrive's messages ({text}); they stay in {self.cfg.dlq_url}"})

    def _warn(self, key: str, line: dict) -> None:
        if key not in self._warned:
            self._warned.add(key)
            self._emit({"event": "warning", **line})

    def max_message_size(self, queue_url: str) -> int:
        """The queue's MaximumMessageSize, read once per run (the SQS maximum when it cannot be read)."""
        if queue_url not in self._limits:
            limit = MAX_PAYLOAD_BYTES
            sqs = self.clients.get("sqs")
            if sqs is not None:
                try:
                    limit = int(sqs.get_queue_attributes(
                        QueueUrl=queue_url, AttributeNames=["MaximumMessageSize"])["Attributes"]["MaximumMessageSize"])
                except Exception as exc:  # noqa: BLE001 - a refusal stops the run; anything else: the SQS maximum
                    if _error_code(exc) in REFUSAL_CODES and "AccessDenied" not in _error_code(exc):
                        self._refuse(queue_url, "GetQueueAttributes", exc)
                    else:
                        self._warn(f"size:{queue_url}", {
                            "call": "GetQueueAttributes", "queue": queue_url, "error": f"{type(exc).__name__}: {exc}",
                            "message": f"MaximumMessageSize of {queue_url} unknown: checking sizes against {MAX_PAYLOAD_BYTES} "
                                       "(the function needs sqs:GetQueueAttributes on it)"})
            self._limits[queue_url] = limit
        return self._limits[queue_url]

    def missing_payload(self, msg: dict) -> str | None:
        """For a claim-check pointer whose S3 object is gone: the archive reason; else None."""
        try:
            pointer = json.loads(msg["Body"])
        except ValueError:
            return None
        if not (isinstance(pointer, list) and len(pointer) == 2 and isinstance(pointer[0], str)
                and pointer[0].endswith(POINTER_CLASS_SUFFIX) and isinstance(pointer[1], dict)):
            return None
        bucket, key = pointer[1].get("s3BucketName"), pointer[1].get("s3Key")
        if not (isinstance(bucket, str) and isinstance(key, str) and bucket and key):
            return f"{PAYLOAD_MISSING}: the claim-check pointer names no S3 bucket and key"
        s3 = self.clients.get("s3")
        if s3 is None:
            return None  # no time to look: redriven as any message (the consumer will see)
        try:
            s3.head_object(Bucket=bucket, Key=key)
        except Exception as exc:  # noqa: BLE001
            code = _error_code(exc)
            if code in ("404", "NoSuchKey", "NotFound", "NoSuchBucket"):
                return (f"{PAYLOAD_MISSING}: its payload s3://{bucket}/{key} is gone ({code}; expired by the bucket's "
                        "lifecycle rule or deleted): the archive holds only the pointer")
            self._warn(f"payload:{bucket}", {
                "call": "HeadObject", "bucket": bucket, "error": f"{type(exc).__name__}: {exc}",
                "message": f"cannot tell whether claim-check payloads in {bucket} exist: such messages are redriven "
                           "unchecked (the function needs s3:GetObject and s3:ListBucket on the bucket)"})
        return None

    def _archive_s3(self, msg: dict, reason: str) -> str | None:
        now = datetime.fromtimestamp(self.clock(), tz=timezone.utc)
        key = f"{self.cfg.archive_prefix}{self.cfg.dlq_name}/{now:%Y/%m/%d}/{msg['MessageId']}.json"
        attrs = {}
        for name, a in msg.get("MessageAttributes", {}).items():
            v = dict(a)
            if "BinaryValue" in v:
                v["BinaryValue"] = base64.b64encode(v["BinaryValue"]).decode()
            attrs[name] = {k: val for k, val in v.items() if k in ("DataType", "StringValue", "BinaryValue")}
        doc = {
            "message_id": msg["MessageId"],
            "dlq_url": self.cfg.dlq_url,
            "reason": reason,
            "archived_at": now.isoformat(),
            "body": msg["Body"],
            "attributes": msg.get("Attributes", {}),
            "message_attributes": attrs,
        }
        s3 = self.clients.get("s3", reserve_ms=RESERVE_MS + DELETE_RESERVE_MS)
        if s3 is None:
            return "not archived: no time left before the function's timeout"
        try:
            s3.put_object(
                Bucket=self.cfg.archive_bucket,
                Key=key,
                Body=json.dumps(doc, sort_keys=True).encode(),
                ContentType="application/json",
            )
        except Exception as exc:  # noqa: BLE001
            if _error_code(exc) in REFUSAL_CODES:
                self._refuse(f"s3://{self.cfg.archive_bucket}/{self.cfg.archive_prefix}", "PutObject", exc)
            return f"{type(exc).__name__}: {exc}"
        return None

    # -- the run ---------------------------------------------------------------------
    def run(self) -> Summary:
        s = self.summary = Summary(started_at=self.monotonic())
        pacer = Pacer(self.cfg.rate_per_second, self.monotonic, self.sleep)
        receive_failures = 0
        try:
            while True:
                if s.received >= self.cfg.max_messages_per_run:
                    s.stop = "max messages per run"
                    break
                # wait for the pacer *before* receiving, and only when the wait leaves the
                # safety margin for the batch: a received batch is never held past the deadline
                wait = pacer.delay()
                if self.remaining_ms() - wait * 1000 < self.cfg.safety_margin_ms:
                    s.stop = "time budget"
                    break
                if wait > 0:
                    self.sleep(wait)
                batch = self._receive(s)
                if batch is None:
                    receive_failures += 1
                    if receive_failures >= MAX_RECEIVE_FAILURES or s.stop == "time budget":
                        s.stop = s.stop if s.stop == "time budget" else "receive failed"
                        break
                    continue
                receive_failures = 0
                if not batch:
                    s.stop = "empty"
                    break
                s.received += len(batch)
                self._process(batch, s, pacer)
                if s.refused:
                    s.stop = "destination refused"
                    break
        finally:
            s.finished_at = self.monotonic()
            self._emit(s.as_dict())
        return s

    def _receive(self, s: Summary) -> list[dict] | None:
        """The next batch ([] when the DLQ is empty), or None when the call failed."""
        sqs = self.clients.get("sqs")
        if sqs is None:
            s.stop = "time budget"
            return None
        try:
            return sqs.receive_message(
                QueueUrl=self.cfg.dlq_url,
                MaxNumberOfMessages=min(10, self.cfg.max_messages_per_run - s.received),
                # long-poll only when the client's read timeout leaves room for it
                WaitTimeSeconds=1 if sqs.meta.config.read_timeout >= 3 else 0,
                VisibilityTimeout=self.cfg.receive_visibility_timeout,
                AttributeNames=["All"],
                MessageAttributeNames=["All"],
            ).get("Messages", [])
        except Exception as exc:  # noqa: BLE001 - logged and counted; the run goes on or stops with its summary
            s.errors += 1
            self._emit({"event": "error", "call": "ReceiveMessage", "error": f"{type(exc).__name__}: {exc}"})
            return None

    def _process(self, batch: list[dict], s: Summary, pacer: Pacer) -> None:
        to_redrive: list[tuple[dict, dict]] = []
        to_archive: list[tuple[dict, str]] = []
        for idx, msg in enumerate(batch):
            action, reason = self.decide(msg)
            if action == "redrive":
                missing = self.missing_payload(msg)
                if missing:
                    to_archive.append((msg, missing))
                    continue
                entry = self._redrive_entry(msg, idx)
                size, limit = payload_size(entry), self.max_message_size(self.cfg.source_queue_url)
                if size > limit:
                    # with the redrive attributes added it does not fit the source queue: it never will
                    to_archive.append((msg, f"{TOO_LARGE}: {size} bytes with the redrive attributes, "
                                            f"more than {limit}, the source queue's maximum message size"))
                else:
                    to_redrive.append((msg, entry))
            else:
                to_archive.append((msg, reason))

        if to_redrive and self.cfg.source_queue_url in s.refused:
            for msg, _ in to_redrive:
                self._decision(msg, LEFT, f"not sent: the source queue refuses ({s.refused[self.cfg.source_queue_url]})", s)
        elif to_redrive:
            done: list[tuple[dict, str, str, str | None]] = []
            pacer.wait_for(len(to_redrive))
            ok, failed, unconfirmed = self._send_batch(self.cfg.source_queue_url, [e for _, e in to_redrive])
            for msg, entry in to_redrive:
                if entry["Id"] in ok:
                    done.append((msg, REDRIVEN, "retry", None))
                elif entry["Id"] in unconfirmed:
                    self._decision(msg, UNCONFIRMED, f"send unconfirmed, left in the DLQ: {failed.get(entry['Id'])}", s)
                else:
                    self._decision(msg, LEFT, f"send failed: {failed.get(entry['Id'])}", s)
            # deleted before any archive call: a slow archive must not leave redriven copies in the DLQ
            self._delete(done, s)

        if to_archive:
            self._delete(self._archive(to_archive, s), s)

    def _archive(self, to_archive: list[tuple[dict, str]], s: Summary) -> list[tuple[dict, str, str, str | None]]:
        done: list[tuple[dict, str, str, str | None]] = []
        if self.cfg.archive_mode == "s3":
            for msg, reason in to_archive:
                err = self._archive_s3(msg, reason)
                if err is None:
                    done.append((msg, ARCHIVED, reason, None))
                else:
                    self._decision(msg, LEFT, f"archive failed ({reason}): {err}", s)
            return done
        url = self.cfg.poison_queue_url
        limit = self.max_message_size(url)
        entries, notes, sent = [], {}, []
        for idx, (msg, reason) in enumerate(to_archive):
            attrs = _clean_attrs(msg.get("MessageAttributes", {}))
            entry = {"Id": str(idx), "MessageBody": msg["Body"], "MessageAttributes": attrs}
            if url.endswith(".fifo"):
                entry["MessageGroupId"] = msg.get("Attributes", {}).get("MessageGroupId", "poison")
                entry["MessageDeduplicationId"] = hashlib.sha256(f"archive:{msg['MessageId']}".encode()).hexdigest()
            if len(attrs) < MAX_MESSAGE_ATTRIBUTES:
                attrs[ARCHIVE_REASON_ATTR] = {"DataType": "String", "StringValue": reason}
                if payload_size(entry) > limit:
                    # the reason would push it over the poison queue's limit: archived without it
                    del attrs[ARCHIVE_REASON_ATTR]
                    notes[entry["Id"]] = (f"{ARCHIVE_REASON_ATTR} not attached: with it the message is over "
                                          f"{limit} bytes, the poison queue's maximum message size")
            else:
                notes[entry["Id"]] = f"{ARCHIVE_REASON_ATTR} not attached: the message has {MAX_MESSAGE_ATTRIBUTES} attributes already"
            if payload_size(entry) > limit:
                self._refuse(url, "SendMessageBatch", f"message {msg['MessageId']} is {payload_size(entry)} bytes, more than "
                             f"{limit}, the poison queue's maximum message size: raise it (max_message_size) "
                             "or archive to S3 (archive.type = \"s3\")")
                self._decision(msg, LEFT, f"archive impossible ({reason}): {payload_size(entry)} bytes > poison queue limit {limit}", s)
                continue
            entries.append(entry)
            sent.append((msg, reason, entry))
        ok, failed, unconfirmed = self._send_batch(url, entries, reserve_ms=RESERVE_MS + DELETE_RESERVE_MS)
        for msg, reason, entry in sent:
            if entry["Id"] in ok:
                done.append((msg, ARCHIVED, reason, notes.get(entry["Id"])))
            elif entry["Id"] in unconfirmed:
                self._decision(msg, UNCONFIRMED, f"archive unconfirmed ({reason}), left in the DLQ: {failed.get(entry['Id'])}", s)
            else:
                self._decision(msg, LEFT, f"archive failed ({reason}): {failed.get(entry['Id'])}", s)
        return done

    def _delete(self, done: list[tuple[dict, str, str, str | None]], s: Summary) -> None:
        if not done:
            return
        entries = [{"Id": str(i), "ReceiptHandle": d[0]["ReceiptHandle"]} for i, d in enumerate(done)]
        sqs = self.clients.get("sqs")  # deleting twice is harmless: retried
        try:
            if sqs is None:
                raise TimeoutError("not deleted: no time left before the function's timeout")
            resp = sqs.delete_message_batch(QueueUrl=self.cfg.dlq_url, Entries=entries)
            failed = {f["Id"]: f"{f.get('Code')}: {f.get('Message', '')}" for f in resp.get("Failed", [])}
        except Exception as exc:  # noqa: BLE001
            failed = {e["Id"]: f"{type(exc).__name__}: {exc}" for e in entries}
        for i, (msg, decision, reason, note) in enumerate(done):
            err = failed.get(str(i))
            if err:
                # the copy went out but the original stays: it will be seen again (at-least-once)
                s.delete_failed += 1
            self._decision(msg, decision, reason, s, delete_error=err, note=note)

    def _decision(self, msg: dict, decision: str, reason: str, s: Summary, delete_error: str | None = None,
                  note: str | None = None) -> None:
        if decision == REDRIVEN:
            s.redriven += 1
        elif decision == ARCHIVED:
            s.archived += 1
            key = reason.split(":", 1)[0]
            s.reasons[key] = s.reasons.get(key, 0) + 1
        elif decision == UNCONFIRMED:
            s.unconfirmed += 1
        else:
            s.left += 1
        attrs = msg.get("MessageAttributes", {})
        count, bad = whole_attr(attrs, REDRIVE_COUNT_ATTR)
        count = None if bad else (count or 0)
        line = {
            "event": "decision",
            "message_id": msg["MessageId"],
            "decision": decision,
            "reason": reason,
            "redrive_count": count,  # null when malformed (the reason says why)
            "receive_count": int(msg.get("Attributes", {}).get("ApproximateReceiveCount", 0)),
            "age_seconds": round(self.age_seconds(msg), 1),
        }
        if delete_error:
            line["delete_error"] = delete_error
        if note:
            line["note"] = note
        self._emit(line)

    def _emit(self, obj: dict) -> None:
        self.log(json.dumps(obj, sort_keys=True))


def handler(event: dict | None = None, context: Any = None) -> dict:
    """Lambda entry point (scheduled by EventBridge)."""
    import boto3  # the Lambda runtime provides it

    cfg = Config.from_env()
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    summary = Redriver(cfg, boto3.session.Session(), remaining_ms=remaining).run()
    if summary.stop == "receive failed":
        # the summary line is out; failing the invocation also sets off the errors alarm
        raise RuntimeError(f"ReceiveMessage on {cfg.dlq_url} failed {MAX_RECEIVE_FAILURES} times in a row: {summary.as_dict()}")
    if summary.refused:
        why = "; ".join(f"{dest} refused: {reason}" for dest, reason in summary.refused.items())
        raise RuntimeError(f"the redrive of {cfg.dlq_url} stopped, its messages stay there: {why}")
    return summary.as_dict()
