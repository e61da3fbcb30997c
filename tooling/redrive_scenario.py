"""The 1,000-message DLQ scenario of the dlq-redrive function, shared by its LocalStack
tests (tests/modules/dlq_redrive/test_dlq_redrive.py) and its benchmark (tooling/bench_redrive.py).

Queues are created with boto3, shaped like modules/queue's pair; the messages mix
redrive counts, ages and failure reasons so that every decision path is taken.
"""
from __future__ import annotations

import json
import time

from resilient_sqs.facts import FAILURE_REASON_ATTRIBUTE, REDRIVE_COUNT_ATTRIBUTE

from tooling.terraform import REPO_ROOT

MAX_REDRIVE = 3
MAX_AGE = 3600
PERMANENT = ["VALIDATION_ERROR"]


class EndpointSession:
    """A boto3 session whose clients talk to one endpoint (LocalStack, or a proxy in front of it)."""

    def __init__(self, endpoint: str, region: str = "us-east-1"):
        import boto3

        self.endpoint = endpoint
        self._session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name=region)

    def client(self, service: str, **kwargs):
        return self._session.client(service, endpoint_url=self.endpoint, **kwargs)


def load_dlq_redrive(path: str | None = None):
    """The dlq-redrive function's source as a module (Lambda cannot run here; tests call it in-process).
    ``path``: another copy of the source (a benchmark's "before"), loaded under its own name."""
    import importlib.util
    import sys

    name = "dlq_redrive" if path is None else f"dlq_redrive_{abs(hash(str(path)))}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path or REPO_ROOT / "modules" / "dlq-redrive" / "src" / "dlq_redrive.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod  # dataclasses need the module registered
        spec.loader.exec_module(mod)
    return sys.modules[name]


def queue_pair(sqs, name: str, fifo: bool = False, source_max_size: int | None = None) -> tuple[str, str, str]:
    """A source queue and its DLQ shaped like modules/queue's (redrive policy, long polling)."""
    suffix = ".fifo" if fifo else ""
    fifo_attrs = {"FifoQueue": "true"} if fifo else {}
    dlq_url = sqs.create_queue(QueueName=f"{name}-dlq{suffix}", Attributes={"MessageRetentionPeriod": "1209600", **fifo_attrs})["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    attrs = {
        "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "5"}),
        "ReceiveMessageWaitTimeSeconds": "20",
        **fifo_attrs,
    }
    if source_max_size:
        attrs["MaximumMessageSize"] = str(source_max_size)
    src_url = sqs.create_queue(QueueName=f"{name}{suffix}", Attributes=attrs)["QueueUrl"]
    return src_url, dlq_url, dlq_arn


def config(mod, src_url: str, dlq_url: str, bucket: str, **kw):
    env = {
        "DLQ_URL": dlq_url,
        "SOURCE_QUEUE_URL": src_url,
        "RATE_PER_SECOND": str(kw.pop("rate", 500)),
        "MAX_MESSAGES_PER_RUN": str(kw.pop("per_run", 5000)),
        "MAX_REDRIVE_COUNT": str(MAX_REDRIVE),
        "MAX_MESSAGE_AGE_SECONDS": str(MAX_AGE),
        "PERMANENT_FAILURE_REASONS": json.dumps(PERMANENT),
        "ARCHIVE_MODE": "s3",
        "ARCHIVE_BUCKET": bucket,
        "ARCHIVE_PREFIX": "dlq-archive/",
        "RECEIVE_VISIBILITY_TIMEOUT": str(kw.pop("visibility", 60)),
    }
    env.update({k: str(v) for k, v in kw.items()})
    return mod.Config.from_env(env)


def drain(sqs, url: str, wait: int = 1) -> list[dict]:
    out = []
    while True:
        msgs = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=wait, VisibilityTimeout=300,
            MessageAttributeNames=["All"], AttributeNames=["All"],
        ).get("Messages", [])
        if not msgs:
            return out
        out.extend(msgs)


def archived(s3, bucket: str) -> list[dict]:
    docs = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix="dlq-archive/"):
        for obj in page.get("Contents", []):
            docs.append(json.loads(s3.get_object(Bucket=bucket, Key=obj["Key"])["Body"].read()))
    return docs


def seed(sqs, dlq_url: str, n: int, groups: int | None = None) -> dict[str, str]:
    """n messages with mixed redrive counts, ages and failure reasons; returns {id: expected decision}.
    ``groups``: a FIFO DLQ; message i goes in message group ``g{i % groups}``."""
    now_ms = int(time.time() * 1000)
    expected: dict[str, str] = {}
    entries = []
    for i in range(n):
        mid = f"m{i:04d}"
        attrs = {"id": {"DataType": "String", "StringValue": mid}}
        kind = i % 10
        if kind in (0, 1):  # redriven before, still under the limit
            attrs[REDRIVE_COUNT_ATTRIBUTE] = {"DataType": "Number", "StringValue": str(kind + 1)}
            expected[mid] = "redriven"
        elif kind == 2:  # at the limit
            attrs[REDRIVE_COUNT_ATTRIBUTE] = {"DataType": "Number", "StringValue": str(MAX_REDRIVE)}
            expected[mid] = "archived:redrive-limit"
        elif kind == 3:  # first sent long ago
            attrs["x-original-sent-at"] = {"DataType": "Number", "StringValue": str(now_ms - (MAX_AGE + 600) * 1000)}
            expected[mid] = "archived:too-old"
        elif kind == 4:  # permanent failure reason
            attrs[FAILURE_REASON_ATTRIBUTE] = {"DataType": "String", "StringValue": "VALIDATION_ERROR"}
            expected[mid] = "archived:permanent-failure"
        elif kind == 5:  # transient failure reason
            attrs[FAILURE_REASON_ATTRIBUTE] = {"DataType": "String", "StringValue": "TIMEOUT"}
            expected[mid] = "redriven"
        else:
            expected[mid] = "redriven"
        entry = {"Id": str(i % 10), "MessageBody": json.dumps({"id": mid, "n": i}), "MessageAttributes": attrs}
        if groups:
            entry.update(MessageGroupId=f"g{i % groups}", MessageDeduplicationId=mid)
        entries.append(entry)
        if len(entries) == 10:
            sqs.send_message_batch(QueueUrl=dlq_url, Entries=entries)
            entries = []
    if entries:
        sqs.send_message_batch(QueueUrl=dlq_url, Entries=entries)
    return expected


# --- the 2,000-message fault scenario (python -m tooling.redrive_scenario) ---------------------
def fault_scenario(endpoint: str, n: int = 2000, fifo: bool = False, groups: int = 20, rate: float = 100.0,
                   budget: float = 60.0, max_runs: int = 30, fault_runs: int = 3, progress=print) -> dict:
    """Seed ``n`` redrivable messages in a DLQ and run the function (budget ``budget`` s, the
    module's safety margin) until the DLQ is empty, through a fault proxy that throttles
    sends, holds a send's response past its timeout (unconfirmed: applied, maybe redriven
    again) and fails receives, in each of the first ``fault_runs`` runs. Returns lost / duplicates (and how many the runs
    reported as unconfirmed or not deleted) / FIFO order inversions / the longest run."""
    import uuid as _uuid
    from collections import Counter

    from tests.support.faults import FakeContext, FaultProxy

    mod = load_dlq_redrive()
    direct = EndpointSession(endpoint)
    sqs, s3 = direct.client("sqs"), direct.client("s3")
    name = f"scenario-{_uuid.uuid4().hex[:8]}"
    bucket = f"{name}-archive"
    s3.create_bucket(Bucket=bucket)
    src_url, dlq_url, _ = queue_pair(sqs, name, fifo=fifo)
    entries = []
    for i in range(n):
        e = {"Id": str(i % 10), "MessageBody": json.dumps({"id": f"s{i:05d}", "n": i})}
        if fifo:
            e.update(MessageGroupId=f"g{i % groups}", MessageDeduplicationId=f"s{i:05d}")
        entries.append(e)
        if len(entries) == 10:
            sqs.send_message_batch(QueueUrl=dlq_url, Entries=entries)
            entries = []
    totals = Counter()
    run_times = []
    delivered: list[dict] = []

    def drain_source() -> None:
        while msgs := sqs.receive_message(QueueUrl=src_url, MaxNumberOfMessages=10, WaitTimeSeconds=0,
                                          AttributeNames=["All"]).get("Messages", []):
            delivered.extend(msgs)
            sqs.delete_message_batch(QueueUrl=src_url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                                                                for i, m in enumerate(msgs)])

    with FaultProxy(endpoint) as proxy:
        session = EndpointSession(proxy.endpoint)
        for run in range(max_runs):
            depth_attrs = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=[
                "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
            if int(depth_attrs["ApproximateNumberOfMessages"]) + int(depth_attrs["ApproximateNumberOfMessagesNotVisible"]) == 0:
                break
            if run < fault_runs:  # transient faults: 2 throttled sends, one whose response is held past its timeout, a failed receive
                proxy.on("SendMessageBatch", ("error", 400, "ThrottlingException"), times=2)
                proxy.on("SendMessageBatch", ("hold", 15), times=1)
                proxy.on("ReceiveMessage", ("error", 500, "InternalError"), times=2)
            ctx = FakeContext(budget)
            cfg = config(mod, src_url, dlq_url, bucket, rate=rate, visibility=5, SAFETY_MARGIN_MS=int(min(30000, budget * 250)))
            started = time.monotonic()
            s = mod.Redriver(cfg, session, log=lambda _: None, remaining_ms=ctx.get_remaining_time_in_millis).run()
            run_times.append(time.monotonic() - started)
            for k in ("received", "redriven", "archived", "left", "unconfirmed", "delete_failed", "errors", "order_broken"):
                totals[k] += getattr(s, k)
            progress(f"run {run + 1}: {s.redriven} redriven, {s.left} left, {s.unconfirmed} unconfirmed, "
                     f"{s.delete_failed} not deleted, stop {s.stop!r}, {run_times[-1]:.1f} s")
            drain_source()
            time.sleep(5.5)  # the receive visibility: what a run left comes back
    drain_source()
    counts = Counter(json.loads(m["Body"])["id"] for m in delivered)
    archived_ids = {json.loads(d["body"])["id"] for d in archived(s3, bucket)}
    inversions, latest = 0, {}
    for m in delivered:
        g, k = m["Attributes"].get("MessageGroupId"), json.loads(m["Body"])["n"]
        if fifo and k < latest.get(g, -1):
            inversions += 1
        latest[g] = max(k, latest.get(g, -1))
    return {
        "messages": n, "pair": f"fifo/{groups} groups" if fifo else "standard", "runs": len(run_times),
        "lost": n - len(set(counts) | archived_ids),
        "duplicates": sum(c - 1 for c in counts.values()),
        "reported_unconfirmed_or_not_deleted": totals["unconfirmed"] + totals["delete_failed"],
        "inversions": inversions if fifo else None,
        "max_run_seconds": round(max(run_times, default=0.0), 1), "budget_seconds": budget,
        "totals": dict(totals),
    }


def main(argv: list[str] | None = None) -> int:
    import argparse
    import os
    import sys

    from tooling import localstack as L

    p = argparse.ArgumentParser(description="The dlq-redrive 2,000-message fault scenario on LocalStack (prints figures)")
    p.add_argument("--messages", type=int, default=2000)
    p.add_argument("--fifo", action="store_true")
    p.add_argument("--groups", type=int, default=20)
    p.add_argument("--rate", type=float, default=100.0)
    p.add_argument("--budget", type=float, default=60.0, help="the function's timeout, seconds")
    args = p.parse_args(argv)
    external = L.external_endpoint()
    ls = L.LocalStack(endpoint=external) if external else L.start(users=[os.getpid()], progress=lambda m: print(f"  {m}", file=sys.stderr))
    try:
        result = fault_scenario(ls.endpoint, args.messages, args.fifo, args.groups, args.rate, args.budget)
        print(json.dumps(result, indent=2))
    finally:
        if not external:
            ls.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
