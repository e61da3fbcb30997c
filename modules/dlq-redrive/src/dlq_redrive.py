"""Scheduled DLQ redrive with a poison-pill kill switch.

Runs in AWS Lambda (Python 3.12, boto3 from the runtime; no other dependency).
Each run drains up to MAX_MESSAGES_PER_RUN messages from one dead-letter queue:

* a message whose failure reason is in PERMANENT_FAILURE_REASONS, or that has
  already been redriven MAX_REDRIVE_COUNT times, or that is older than
  MAX_MESSAGE_AGE_SECONDS, is **archived** (S3 object or poison queue);
* any other message is **redriven**: sent back to the source queue with its
  attributes and ``x-redrive-count`` incremented, at most
  RATE_PER_SECOND messages per second;
* a message is deleted from the DLQ only after its send/archive succeeded,
  entry by entry; a failed entry is **left** in the DLQ and reappears after
  the receive visibility timeout, for the next run. FIFO: the first failed
  entry of a message group stops the group, so its order is kept.

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
import time
import urllib.parse
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from botocore.config import Config as BotoConfig
from botocore.exceptions import ConnectionClosedError, ReadTimeoutError

REDRIVE_COUNT_ATTR = "x-redrive-count"
ORIGINAL_SENT_AT_ATTR = "x-original-sent-at"
ARCHIVE_REASON_ATTR = "x-archive-reason"
MAX_MESSAGE_ATTRIBUTES = 10  # SQS limit per message
MAX_PAYLOAD_BYTES = 262144  # SQS limit for one message and for one batch request

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
    max_redrive_count: int = 3
    max_message_age_seconds: int = 259200
    permanent_failure_reasons: frozenset[str] = frozenset()
    failure_reason_attribute: str = "x-failure-reason"
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
            max_redrive_count=number("MAX_REDRIVE_COUNT", 3, int, 1, 1000),
            max_message_age_seconds=number("MAX_MESSAGE_AGE_SECONDS", 259200, int, 60, 1209600),
            permanent_failure_reasons=frozenset(r.strip() for r in reasons),
            failure_reason_attribute=env.get("FAILURE_REASON_ATTRIBUTE", "x-failure-reason").strip() or "x-failure-reason",
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
    stop: str = "empty"
    reasons: dict[str, int] = field(default_factory=dict)
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


def _int_attr(attrs: dict, name: str, default: int = 0) -> int:
    raw = _attr_value(attrs, name)
    try:
        return int(float(raw)) if raw is not None else default
    except ValueError:
        return default


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
    """Split entries into batch requests whose total payload stays within the SQS limit."""
    chunks: list[list[dict]] = []
    current: list[dict] = []
    total = 0
    for e in entries:
        size = payload_size(e)
        if current and total + size > limit:
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

    def get(self, service: str, attempts: int = 2) -> Any | None:
        """A client for one call, or None when too little time is left to make one."""
        left = (self.remaining_ms() - RESERVE_MS) / 1000
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


def fifo_rounds(entries: list[dict]) -> list[list[dict]]:
    """FIFO entries split into rounds holding at most one entry per message group, in
    order: a group's next entry is only sent once the one before it was."""
    rounds: list[list[dict]] = []
    seen: dict[str, int] = {}
    for e in entries:
        k = seen.get(e["MessageGroupId"], 0)
        seen[e["MessageGroupId"]] = k + 1
        if k == len(rounds):
            rounds.append([])
        rounds[k].append(e)
    return rounds


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

    # -- decisions -------------------------------------------------------------------
    def decide(self, msg: dict) -> tuple[str, str]:
        """('redrive' | 'archive', reason) for one received DLQ message."""
        attrs = msg.get("MessageAttributes", {})
        reason = _attr_value(attrs, self.cfg.failure_reason_attribute)
        if reason is not None and reason in self.cfg.permanent_failure_reasons:
            return "archive", f"permanent-failure:{reason}"
        count = _int_attr(attrs, REDRIVE_COUNT_ATTR)
        if count >= self.cfg.max_redrive_count:
            return "archive", "redrive-limit"
        if self.age_seconds(msg) > self.cfg.max_message_age_seconds:
            return "archive", "too-old"
        if REDRIVE_COUNT_ATTR not in attrs and len(attrs) >= MAX_MESSAGE_ATTRIBUTES:
            # no room for the counter: without it the kill switch cannot work
            return "archive", "no-room-for-redrive-counter"
        return "redrive", "retry"

    def age_seconds(self, msg: dict) -> float:
        attrs = msg.get("MessageAttributes", {})
        first_ms = _int_attr(attrs, ORIGINAL_SENT_AT_ATTR, default=0) or int(msg.get("Attributes", {}).get("SentTimestamp", 0))
        if not first_ms:
            return 0.0
        return max(0.0, self.clock() - first_ms / 1000.0)

    # -- actions ---------------------------------------------------------------------
    def _redrive_entry(self, msg: dict, idx: int) -> dict:
        attrs = _clean_attrs(msg.get("MessageAttributes", {}))
        count = _int_attr(msg.get("MessageAttributes", {}), REDRIVE_COUNT_ATTR) + 1
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

    def _send_batch(self, queue_url: str, entries: list[dict]) -> tuple[set[str], dict[str, str], set[str]]:
        """Send entries (in as many requests as the size limit and FIFO order need).

        Returns (ids sent, {id: why not}, ids unconfirmed). To a FIFO queue, an entry that
        was not sent stops the rest of its message group, so the group's order is kept.
        """
        ok: set[str] = set()
        failed: dict[str, str] = {}
        unconfirmed: set[str] = set()
        stopped: dict[str, str] = {}  # message group -> the id of its first entry not sent
        for rnd in fifo_rounds(entries) if queue_url.endswith(".fifo") else [entries]:
            todo = []
            for e in rnd:
                group = e.get("MessageGroupId")
                if group in stopped:
                    failed[e["Id"]] = f"held back: entry {stopped[group]} of message group {group} was not sent (order kept)"
                else:
                    todo.append(e)
            for chunk in size_chunks(todo):
                self._send_chunk(queue_url, chunk, ok, failed, unconfirmed)
            for e in todo:
                if e["Id"] not in ok and e.get("MessageGroupId") is not None:
                    stopped.setdefault(e["MessageGroupId"], e["Id"])
        return ok, failed, unconfirmed

    def _send_chunk(self, queue_url: str, chunk: list[dict], ok: set[str], failed: dict[str, str], unconfirmed: set[str]) -> None:
        # one attempt: botocore would retry a send whose response was lost, and the retry
        # duplicates every message the first attempt delivered
        sqs = self.clients.get("sqs", attempts=1)
        if sqs is None:
            failed.update({e["Id"]: "not sent: no time left before the function's timeout" for e in chunk})
            return
        try:
            resp = sqs.send_message_batch(QueueUrl=queue_url, Entries=chunk)
        except Exception as exc:  # noqa: BLE001 - any failure leaves the messages in the DLQ
            if _no_response(exc):
                unconfirmed.update(e["Id"] for e in chunk)
            failed.update({e["Id"]: f"{type(exc).__name__}: {exc}" for e in chunk})
            return
        ok.update(x["Id"] for x in resp.get("Successful", []))
        failed.update({f["Id"]: f"{f.get('Code')}: {f.get('Message', '')}" for f in resp.get("Failed", [])})
        for e in chunk:  # an entry in neither list did not verifiably succeed
            if e["Id"] not in ok and e["Id"] not in failed:
                failed[e["Id"]] = "no result for entry"

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
        s3 = self.clients.get("s3")
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
            return f"{type(exc).__name__}: {exc}"
        return None

    # -- the run ---------------------------------------------------------------------
    def run(self) -> Summary:
        s = Summary(started_at=self.monotonic())
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
                entry = self._redrive_entry(msg, idx)
                if payload_size(entry) > MAX_PAYLOAD_BYTES:
                    # with the redrive attributes added it no longer fits in a message
                    to_archive.append((msg, "too-large-to-redrive"))
                else:
                    to_redrive.append((msg, entry))
            else:
                to_archive.append((msg, reason))

        done: list[tuple[dict, str, str]] = []  # (msg, decision, reason) to delete from the DLQ
        if to_redrive:
            pacer.wait_for(len(to_redrive))
            ok, failed, unconfirmed = self._send_batch(self.cfg.source_queue_url, [e for _, e in to_redrive])
            for msg, entry in to_redrive:
                if entry["Id"] in ok:
                    done.append((msg, REDRIVEN, "retry"))
                elif entry["Id"] in unconfirmed:
                    self._decision(msg, UNCONFIRMED, f"send unconfirmed, left in the DLQ: {failed.get(entry['Id'])}", s)
                else:
                    self._decision(msg, LEFT, f"send failed: {failed.get(entry['Id'])}", s)

        if to_archive:
            if self.cfg.archive_mode == "s3":
                for msg, reason in to_archive:
                    err = self._archive_s3(msg, reason)
                    if err is None:
                        done.append((msg, ARCHIVED, reason))
                    else:
                        self._decision(msg, LEFT, f"archive failed ({reason}): {err}", s)
            else:
                entries = []
                for idx, (msg, reason) in enumerate(to_archive):
                    attrs = _clean_attrs(msg.get("MessageAttributes", {}))
                    if len(attrs) < MAX_MESSAGE_ATTRIBUTES:
                        attrs[ARCHIVE_REASON_ATTR] = {"DataType": "String", "StringValue": reason}
                    entry = {"Id": str(idx), "MessageBody": msg["Body"], "MessageAttributes": attrs}
                    if self.cfg.poison_queue_url.endswith(".fifo"):
                        entry["MessageGroupId"] = msg.get("Attributes", {}).get("MessageGroupId", "poison")
                        entry["MessageDeduplicationId"] = hashlib.sha256(f"archive:{msg['MessageId']}".encode()).hexdigest()
                    entries.append(entry)
                ok, failed, unconfirmed = self._send_batch(self.cfg.poison_queue_url, entries)
                for (msg, reason), entry in zip(to_archive, entries):
                    if entry["Id"] in ok:
                        done.append((msg, ARCHIVED, reason))
                    elif entry["Id"] in unconfirmed:
                        self._decision(msg, UNCONFIRMED, f"archive unconfirmed ({reason}), left in the DLQ: {failed.get(entry['Id'])}", s)
                    else:
                        self._decision(msg, LEFT, f"archive failed ({reason}): {failed.get(entry['Id'])}", s)

        self._delete(done, s)

    def _delete(self, done: list[tuple[dict, str, str]], s: Summary) -> None:
        if not done:
            return
        entries = [{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, (m, _, _) in enumerate(done)]
        sqs = self.clients.get("sqs")  # deleting twice is harmless: retried
        try:
            if sqs is None:
                raise TimeoutError("not deleted: no time left before the function's timeout")
            resp = sqs.delete_message_batch(QueueUrl=self.cfg.dlq_url, Entries=entries)
            failed = {f["Id"]: f"{f.get('Code')}: {f.get('Message', '')}" for f in resp.get("Failed", [])}
        except Exception as exc:  # noqa: BLE001
            failed = {e["Id"]: f"{type(exc).__name__}: {exc}" for e in entries}
        for i, (msg, decision, reason) in enumerate(done):
            err = failed.get(str(i))
            if err:
                # the copy went out but the original stays: it will be seen again (at-least-once)
                s.delete_failed += 1
                self._decision(msg, decision, reason, s, delete_error=err)
            else:
                self._decision(msg, decision, reason, s)

    def _decision(self, msg: dict, decision: str, reason: str, s: Summary, delete_error: str | None = None) -> None:
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
        line = {
            "event": "decision",
            "message_id": msg["MessageId"],
            "decision": decision,
            "reason": reason,
            "redrive_count": _int_attr(attrs, REDRIVE_COUNT_ATTR),
            "receive_count": int(msg.get("Attributes", {}).get("ApproximateReceiveCount", 0)),
            "age_seconds": round(self.age_seconds(msg), 1),
        }
        if delete_error:
            line["delete_error"] = delete_error
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
    return summary.as_dict()
