"""Benchmark of the behaviour checks: sqs-behave on a stack of 3 queue pairs with alarms (this
module by relative path, with a claim-check bucket and an idempotency table, so every scenario
runs), on an embedded LocalStack that is already running (started here, not timed).

Prints the wall time end to end (target <= 3 min), the scenarios alone, after apply and before
destroy (target <= 60 s), and where the time goes (Terraform phases, each scenario).

    python -m tooling.bench_behave [--endpoint URL]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from tests.support.behave_stacks import write_stack
from tooling import localstack as L

THIRD_PAIR = '''    "${var.name_prefix}-reports" = {
      consumer = { timeout_seconds = 5 }
    }
'''


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--endpoint", help="a running LocalStack (default: start an embedded one, not timed)")
    args = ap.parse_args(argv)
    ls = None
    endpoint = args.endpoint
    if not endpoint:
        print("starting an embedded LocalStack (not timed) ...", flush=True)
        ls = L.start(users=[os.getpid()])
        endpoint = ls.endpoint
    try:
        with tempfile.TemporaryDirectory(prefix="bench-behave-") as tmp:
            stack = write_stack("module", Path(tmp))
            main_tf = stack / "main.tf"
            text = main_tf.read_text()
            main_tf.write_text(text.replace('    "${var.name_prefix}-orders" = {}\n',
                                            '    "${var.name_prefix}-orders" = {}\n' + THIRD_PAIR))
            prefix = f"bb{uuid.uuid4().hex[:6]}"
            env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
            t0 = time.monotonic()
            proc = subprocess.run([sys.executable, "-m", "resilient_sqs.testing.cli", str(stack), "--endpoint", endpoint,
                                   "--var", f"name_prefix={prefix}", "--format", "json"],
                                  capture_output=True, text=True, env=env, timeout=3600)
            wall = time.monotonic() - t0
    finally:
        if ls is not None:
            ls.stop()
    if proc.returncode not in (0, 1):
        print(proc.stderr[-4000:], file=sys.stderr)
        return 2
    doc = json.loads(proc.stdout)
    t = doc["timings"]
    c = doc["summary"]
    print(f"\nstack: 3 queue pairs with DLQ depth alarms (1 FIFO), claim-check bucket, idempotency table "
          f"({len(doc['results'])} scenario items: {c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped)")
    print(f"wall end to end:          {wall:6.1f} s   (target <= 180 s)")
    print(f"scenarios alone:          {t.get('scenarios', 0):6.1f} s   (target <= 60 s; after apply, before destroy)")
    print("where the time goes:")
    for k in ("endpoint", "terraform init", "terraform plan", "terraform apply", "scenarios", "destroy"):
        if k in t:
            print(f"  {k:<22} {t[k]:6.1f} s")
    print("slowest scenarios (pairs run concurrently, a pair's scenarios one after another):")
    for r in sorted(doc["results"], key=lambda r: -r["seconds"])[:8]:
        print(f"  {r['scenario']}[{r['subject']}]: {r['seconds']:.1f} s ({r['outcome']})")
    per_pair: dict[str, float] = {}
    for r in doc["results"]:
        per_pair[r["subject"]] = per_pair.get(r["subject"], 0.0) + r["seconds"]
    print("per subject (sequential sum): " + ", ".join(f"{k} {v:.0f} s" for k, v in sorted(per_pair.items())))
    for r in doc["results"]:
        if r["outcome"] == "failed":
            print(f"FAILED {r['scenario']}[{r['subject']}]: {r['message']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
