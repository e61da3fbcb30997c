"""Measure the dlq-redrive function on 1,000 DLQ messages against the embedded LocalStack.

    .venv/bin/python -m tooling.bench_redrive                  # rates 50 and 200 msg/s
    .venv/bin/python -m tooling.bench_redrive --rates 20 --messages 500

For each configured rate: the conservation counts (redriven + archived + left =
messages; duplicates and losses by unique id) and the measured redrive rate.
Prints figures; asserts nothing (the tests assert the behaviour).
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


def run_once(ls: L.LocalStack, rate: float, n: int) -> dict:
    endpoint_session = EndpointSession(ls.endpoint, L.REGION)
    sqs, s3 = endpoint_session.client("sqs"), endpoint_session.client("s3")
    mod = load_dlq_redrive()
    name = f"bench-{uuid.uuid4().hex[:8]}"
    bucket = f"{name}-archive"
    s3.create_bucket(Bucket=bucket)
    src_url, dlq_url, _ = queue_pair(sqs, name)
    expected = seed(sqs, dlq_url, n)
    summary = mod.Redriver(config(mod, src_url, dlq_url, bucket, rate=rate), endpoint_session, log=lambda _: None).run()
    ids = Counter()
    for m in drain(sqs, src_url):
        ids[json.loads(m["Body"])["id"]] += 1
    for d in archived(s3, bucket):
        ids[json.loads(d["body"])["id"]] += 1
    for m in drain(sqs, dlq_url):
        ids[json.loads(m["Body"])["id"]] += 1
    elapsed = summary.finished_at - summary.started_at
    return {
        "rate": rate,
        "messages": n,
        "redriven": summary.redriven,
        "archived": summary.archived,
        "archive_reasons": dict(sorted(summary.reasons.items())),
        "left": summary.left,
        "duplicated": sum(1 for c in ids.values() if c > 1),
        "lost": len(set(expected) - set(ids)),
        "elapsed_s": round(elapsed, 2),
        "measured_rate": round(summary.redriven / elapsed, 1) if elapsed else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rates", type=float, nargs="+", default=[50.0, 200.0])
    p.add_argument("--messages", type=int, default=1000)
    args = p.parse_args(argv)
    external = L.external_endpoint()
    ls = L.LocalStack(endpoint=external) if external else L.start(users=[os.getpid()], progress=lambda m: print(f"  {m}", file=sys.stderr))
    try:
        print(f"{'rate':>6} {'msgs':>5} {'redriven':>8} {'archived':>8} {'left':>4} {'dup':>4} {'lost':>4} {'elapsed s':>9} {'measured/s':>10}  archive reasons")
        for rate in args.rates:
            r = run_once(ls, rate, args.messages)
            print(f"{r['rate']:>6g} {r['messages']:>5} {r['redriven']:>8} {r['archived']:>8} {r['left']:>4} {r['duplicated']:>4} "
                  f"{r['lost']:>4} {r['elapsed_s']:>9} {r['measured_rate']:>10}  {r['archive_reasons']}", flush=True)
    finally:
        if not external:
            ls.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
