"""Measure the embedded LocalStack: install, startup, first calls, stop, and example apply times.

    .venv/bin/python -m tooling.bench_localstack                 # startup + every example
    .venv/bin/python -m tooling.bench_localstack --cold          # also a cold install (~1 min, ~500 MB, no pip cache)
    .venv/bin/python -m tooling.bench_localstack --examples basic --starts 3 --no-parallel

Prints figures; asserts nothing (timings depend on the machine and its load,
which is printed with them).
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import statistics
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import boto3

from tooling import localstack as L
from tooling.example_settings import example_variables
from tooling.terraform import REPO_ROOT, Terraform, copy_config

EXAMPLES = REPO_ROOT / "examples"


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def bench_cold_install() -> float:
    tmp = Path(tempfile.mkdtemp(prefix="ls-cold-", dir=REPO_ROOT / ".cache"))
    old_env = os.environ.get("PIP_NO_CACHE_DIR")
    cold = L.Launcher(dataclasses.replace(L.SETTINGS, venv=tmp / "venv"))
    os.environ["PIP_NO_CACHE_DIR"] = "1"
    try:
        t = time.monotonic()
        cold.install(progress=lambda m: print(f"    {m}", flush=True))
        return time.monotonic() - t
    finally:
        if old_env is None:
            os.environ.pop("PIP_NO_CACHE_DIR", None)
        else:
            os.environ["PIP_NO_CACHE_DIR"] = old_env
        shutil.rmtree(tmp, ignore_errors=True)


def _client(ls: L.LocalStack, service: str):
    return boto3.client(service, endpoint_url=ls.endpoint, region_name=L.REGION,
                        aws_access_key_id="test", aws_secret_access_key="test")


def bench_startup(starts: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"start (to healthy)": [], "first SQS call": [], "first S3 call": [],
                                   "first DynamoDB call (starts Java)": [], "stop (all loaded)": []}
    for _ in range(starts):
        t = time.monotonic()
        ls = L.start()
        out["start (to healthy)"].append(time.monotonic() - t)
        try:
            for label, call in (
                ("first SQS call", lambda: _client(ls, "sqs").list_queues()),
                ("first S3 call", lambda: _client(ls, "s3").list_buckets()),
                ("first DynamoDB call (starts Java)", lambda: _client(ls, "dynamodb").list_tables()),
            ):
                t = time.monotonic()
                call()
                out[label].append(time.monotonic() - t)
        finally:
            t = time.monotonic()
            ls.stop()
            out["stop (all loaded)"].append(time.monotonic() - t)
    return out


def bench_example(ls: L.LocalStack, name: str) -> dict[str, float]:
    work = copy_config(EXAMPLES / name)
    variables = {**example_variables(EXAMPLES / name), "name_prefix": f"bench{uuid.uuid4().hex[:6]}", "aws_max_retries": 2}
    tf = Terraform(work, variables=variables, env=ls.env())
    times: dict[str, float] = {}
    try:
        for label, fn in (("init", tf.init), ("apply", tf.apply), ("re-plan", tf.plan_json), ("destroy", tf.destroy)):
            t = time.monotonic()
            fn()
            times[label] = time.monotonic() - t
    finally:
        if "destroy" not in times and "apply" in times:
            tf.destroy()
        shutil.rmtree(work, ignore_errors=True)
    return times


def _row(cells: list[str], widths: list[int]) -> str:
    return "  ".join(c.ljust(w) for c, w in zip(cells, widths))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cold", action="store_true", help="also time a cold install into a temporary venv")
    ap.add_argument("--starts", type=int, default=3, help="startup measurements (default 3)")
    ap.add_argument("--examples", nargs="*", default=None, help="examples to apply (default: all)")
    ap.add_argument("--no-parallel", action="store_true", help="skip the all-examples-at-once run")
    args = ap.parse_args(argv)
    names = args.examples if args.examples is not None else sorted(
        p.name for p in EXAMPLES.iterdir() if p.is_dir() and list(p.glob("*.tf")))

    print(f"LocalStack {L.LOCALSTACK_VERSION}, {os.cpu_count()} CPUs, load average {_load()}\n", flush=True)
    if args.cold:
        print("cold install (temporary venv, pip cache disabled):", flush=True)
        print(f"  install: {bench_cold_install():.1f} s (load {_load()})\n", flush=True)
    L.install()

    if args.starts:
        res = bench_startup(args.starts)
        print(f"startup, {args.starts} runs (seconds: median / min / max):")
        for label, vals in res.items():
            print(f"  {label:<36} {statistics.median(vals):6.1f} {min(vals):6.1f} {max(vals):6.1f}")
        print(flush=True)

    if names:
        ls = L.start(users=[os.getpid()])
        try:
            widths = [14, 7, 7, 9, 9]
            print("examples one at a time (seconds):")
            print("  " + _row(["example", "init", "apply", "re-plan", "destroy"], widths))
            for name in names:
                t = bench_example(ls, name)
                print("  " + _row([name] + [f"{t[k]:.1f}" for k in ("init", "apply", "re-plan", "destroy")], widths),
                      flush=True)
            if not args.no_parallel and len(names) > 1:
                print(f"\nall {len(names)} examples at once (seconds):")
                t0 = time.monotonic()
                with ThreadPoolExecutor(len(names)) as pool:
                    results = dict(zip(names, pool.map(lambda n: bench_example(ls, n), names)))
                for name, t in results.items():
                    print("  " + _row([name] + [f"{t[k]:.1f}" for k in ("init", "apply", "re-plan", "destroy")],
                                      widths))
                print(f"  wall clock for all: {time.monotonic() - t0:.1f} s (load {_load()})")
        finally:
            ls.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
