"""Measure the dlq-redrive function on 1,000 DLQ messages against the embedded LocalStack.

    .venv/bin/python -m tooling.bench_redrive                  # rates 50 and 200 msg/s, standard pair
    .venv/bin/python -m tooling.bench_redrive --rates 20 --messages 500
    .venv/bin/python -m tooling.bench_redrive --pairs standard fifo --rates 200   # side by side
    .venv/bin/python -m tooling.bench_redrive --source /tmp/old_dlq_redrive.py    # another copy of the function

For each pair kind and configured rate: the conservation counts (redriven + archived +
left = messages; duplicates and losses by unique id), the measured redrive rate, the
SendMessageBatch calls made (counted on the function's own clients) and, on a FIFO pair,
the order inversions in the source queue (per message group: a message delivered after
a later one of its group). ``--groups`` sets the FIFO pair's message groups (default 1:
the case where order costs most). Prints figures; asserts nothing (the tests assert the
behaviour).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from collections import Counter


from tooling import localstack as L
from tooling.redrive_scenario import EndpointSession, archived, config, drain, load_dlq_redrive, queue_pair, seed


class CountingSession(EndpointSession):
    """Counts the API calls the function's clients make, by operation."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls: Counter = Counter()

    def client(self, service: str, **kwargs):
        c = super().client(service, **kwargs)
        c.meta.events.register("before-call", lambda model, **_: self.calls.update([model.name]))
        return c


def drain_deleting(sqs, url: str) -> list[dict]:
    """Everything in the queue, in delivery order, deleting as it goes (a FIFO group's next
    messages only come once the ones before them are gone)."""
    out = []
    while msgs := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1,
                                      AttributeNames=["All"], MessageAttributeNames=["All"]).get("Messages", []):
        out += msgs
        sqs.delete_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(msgs)])
    return out


def inversions(msgs: list[dict]) -> int:
    """Messages delivered after a message of their group that was sent after them."""
    latest: dict[str, int] = {}
    count = 0
    for m in msgs:
        group, n = m["Attributes"].get("MessageGroupId"), json.loads(m["Body"])["n"]
        if n < latest.get(group, -1):
            count += 1
        latest[group] = max(n, latest.get(group, -1))
    return count


def run_once(ls: L.LocalStack, rate: float, n: int, fifo: bool = False, groups: int = 1, source: str | None = None) -> dict:
    endpoint_session = CountingSession(ls.endpoint, L.REGION)
    plain = EndpointSession(ls.endpoint, L.REGION)
    sqs, s3 = plain.client("sqs"), plain.client("s3")
    mod = load_dlq_redrive(source)
    name = f"bench-{uuid.uuid4().hex[:8]}"
    bucket = f"{name}-archive"
    s3.create_bucket(Bucket=bucket)
    src_url, dlq_url, _ = queue_pair(sqs, name, fifo=fifo)
    expected = seed(sqs, dlq_url, n, groups=groups if fifo else None)
    summary = mod.Redriver(config(mod, src_url, dlq_url, bucket, rate=rate), endpoint_session, log=lambda _: None).run()
    ids = Counter()
    redriven = drain_deleting(sqs, src_url) if fifo else drain(sqs, src_url)
    for m in redriven:
        ids[json.loads(m["Body"])["id"]] += 1
    for d in archived(s3, bucket):
        ids[json.loads(d["body"])["id"]] += 1
    for m in drain_deleting(sqs, dlq_url) if fifo else drain(sqs, dlq_url):
        ids[json.loads(m["Body"])["id"]] += 1
    elapsed = summary.finished_at - summary.started_at
    return {
        "pair": f"fifo/{groups}g" if fifo else "standard",
        "rate": rate,
        "messages": n,
        "redriven": summary.redriven,
        "archived": summary.archived,
        "archive_reasons": dict(sorted(summary.reasons.items())),
        "left": summary.left,
        "duplicated": sum(1 for c in ids.values() if c > 1),
        "lost": len(set(expected) - set(ids)),
        "sends": endpoint_session.calls["SendMessageBatch"],
        "inversions": inversions(redriven) if fifo else 0,
        "elapsed_s": round(elapsed, 2),
        "measured_rate": round(summary.redriven / elapsed, 1) if elapsed else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rates", type=float, nargs="+", default=[50.0, 200.0])
    p.add_argument("--messages", type=int, default=1000)
    p.add_argument("--pairs", nargs="+", choices=["standard", "fifo"], default=["standard"])
    p.add_argument("--groups", type=int, default=1, help="message groups of the FIFO pair (default 1)")
    p.add_argument("--source", help="measure this copy of dlq_redrive.py instead of modules/dlq-redrive/src")
    args = p.parse_args(argv)
    if args.source and not os.path.isfile(args.source):
        p.error(f"--source {args.source}: no such file")
    external = L.external_endpoint()
    ls = L.LocalStack(endpoint=external) if external else L.start(users=[os.getpid()], progress=lambda m: print(f"  {m}", file=sys.stderr))
    try:
        print(f"{'pair':>9} {'rate':>6} {'msgs':>5} {'redriven':>8} {'archived':>8} {'left':>4} {'dup':>4} {'lost':>4} "
              f"{'sends':>5} {'invers':>6} {'elapsed s':>9} {'measured/s':>10}  archive reasons")
        for pair in args.pairs:
            for rate in args.rates:
                r = run_once(ls, rate, args.messages, fifo=pair == "fifo", groups=args.groups, source=args.source)
                print(f"{r['pair']:>9} {r['rate']:>6g} {r['messages']:>5} {r['redriven']:>8} {r['archived']:>8} {r['left']:>4} "
                      f"{r['duplicated']:>4} {r['lost']:>4} {r['sends']:>5} {r['inversions']:>6} {r['elapsed_s']:>9} "
                      f"{r['measured_rate']:>10}  {r['archive_reasons']}", flush=True)
    finally:
        if not external:
            ls.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
