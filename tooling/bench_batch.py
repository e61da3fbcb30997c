"""Benchmark: many plans in one run (`sqs-policy check plans/*.json`) against one process per
plan, and what reading the configuration source costs per plan.

    .venv/bin/python -m tooling.bench_batch [--plans 400] [--source-runs 3]

Plans: --plans synthetic plans of 20 to 100 resources (3 to 14 queue pairs of the benchmark's
template, tests/policies/plans/bench.json, replicated by tooling/bench_policy.synthetic_plan in
the shape Terraform emits; sizes drawn with a fixed seed). Timed, wall and CPU (children
included), each variant once:

  400 processes      `sqs-policy check PLAN --no-source` once per plan (what a loop over stacks
                     in CI does), text to /dev/null
  one process        `sqs-policy check @list --no-source`: every plan's text report and the
                     combined summary (checked: one report per plan in its output)

A --jobs N (a fork process pool) was tried and dropped: on this machine's 2 CPUs (load 5)
--jobs 2 took 16.7 s wall against 5.1 s for one process, 400 plans.

Then the per-plan cost of --source-dir (tests/policies/plans/raw-good.json, 90 KB, against its
configuration, and bench-3 with --source-dir at this repository's root), best of
--source-runs, each in a fresh interpreter:

  --no-source
  --source-dir, parser tables cached        python-hcl2's .lark_cache.bin present
  --source-dir, read-only install, before   its cache file missing and not writable, no fallback:
                                            the LALR tables built again by every check (what
                                            every check paid before the fix)
  --source-dir, read-only install, after    the same install, tables cached in the user's cache
                                            directory (SQS_POLICY_CACHE_DIR), after a first run

A read-only install is simulated by pointing python-hcl2's PARSER_FILE at a directory that does
not exist (this benchmark may run as root, for whom no directory is read-only); "before" also
points SQS_POLICY_CACHE_DIR at a file, which turns the fallback off. Figures, not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tooling.bench_policy import synthetic_plan

REPO = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "resilient_sqs.policy"]
_RO = ("import sys\nfrom pathlib import Path\nimport hcl2.parser as p\n"
       "p.PARSER_FILE = Path('/nonexistent-sqs-policy-bench/.lark_cache.bin')\n"
       "from resilient_sqs.policy.cli import main\nsys.exit(main(sys.argv[1:]))\n")


def _cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def make_plans(n: int, out: Path, seed: int = 32) -> list[Path]:
    template = json.loads((REPO / "tests" / "policies" / "plans" / "bench.json").read_text())
    rng = random.Random(seed)
    cache: dict[int, str] = {}
    paths = []
    for i in range(n):
        pairs = rng.randint(3, 14)  # 7 resources a pair + the alarm topic and its key: 23..100
        if pairs not in cache:
            cache[pairs] = json.dumps(synthetic_plan(template, pairs))
        p = out / f"stack-{i:03d}.json"
        p.write_text(cache[pairs])
        paths.append(p)
    return paths


def timed(cmd: list[str], **kw) -> tuple[float, float, int]:
    c0, t0 = _cpu(), time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    if p.returncode not in (0, 1):
        sys.exit(f"{' '.join(map(str, cmd))[:200]}: exit {p.returncode}: {p.stderr.decode()[-500:]}")
    return wall, cpu, p.returncode


def batch(paths: list[Path], work: Path) -> None:
    listing = work / "plans.txt"
    listing.write_text("".join(f"{p}\n" for p in paths))
    resources = [len(json.loads(p.read_text())["resource_changes"]) for p in paths[:50]]
    print(f"{len(paths)} plans, {min(resources)}-{max(resources)} resources (first 50), "
          f"{sum(p.stat().st_size for p in paths) / 1e6:.1f} MB in all")
    c0, t0 = _cpu(), time.perf_counter()
    for p in paths:
        timed([*CLI, "check", str(p), "--no-source"])
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    print(f"  {len(paths)} processes          wall {wall:7.2f} s  cpu {cpu:7.2f} s  ({wall / len(paths) * 1000:.0f} ms a plan)")
    c0, t0 = _cpu(), time.perf_counter()
    p = subprocess.run([*CLI, "check", f"@{listing}", "--no-source"], capture_output=True, text=True)
    w, c = time.perf_counter() - t0, _cpu() - c0
    checked = sum(1 for line in p.stdout.splitlines() if line.startswith("=== stack-"))
    if p.returncode not in (0, 1) or checked != len(paths):
        sys.exit(f"one run: exit {p.returncode}, {checked} plan reports of {len(paths)}: {p.stderr[-500:]}")
    print(f"  one process             wall {w:7.2f} s  cpu {c:7.2f} s  ({w / len(paths) * 1000:.0f} ms a plan; "
          f"{wall / w:.1f}x faster than one process a plan)")


def source_cost(runs: int, work: Path) -> None:
    ro = work / "ro.py"
    ro.write_text(_RO)
    cache = work / "cache"
    off = work / "no-cache-dir"
    off.write_text("a file, so the fallback cache is off\n")
    env = {**os.environ, "SQS_POLICY_CACHE_DIR": str(cache)}
    env_off = {**os.environ, "SQS_POLICY_CACHE_DIR": str(off)}
    cases = [("raw-good (90 KB), its configuration", REPO / "tests/policies/plans/raw-good.json",
              REPO / "tests/policies/configs/raw-good"),
             ("bench-3 (290 KB), --source-dir at the repository root", REPO / "tests/policies/plans/bench-3.json", REPO)]
    timed([*CLI, "check", str(cases[0][1]), "--source-dir", str(cases[0][2])])  # hcl2's own cache written
    timed([sys.executable, str(ro), "check", str(cases[0][1]), "--source-dir", str(cases[0][2])], env=env)
    for label, plan, src in cases:
        print(f"  {label}: best of {runs}")
        for what, cmd, e in (
                ("--no-source", [*CLI, "check", str(plan), "--no-source"], None),
                ("--source-dir, parser tables cached", [*CLI, "check", str(plan), "--source-dir", str(src)], None),
                ("--source-dir, read-only install, before", [sys.executable, str(ro), "check", str(plan), "--source-dir",
                                                             str(src)], env_off),
                ("--source-dir, read-only install, after", [sys.executable, str(ro), "check", str(plan), "--source-dir",
                                                            str(src)], env)):
            best = min((timed(cmd, env=e) for _ in range(runs)), key=lambda x: x[0])
            print(f"    {what:<42} wall {best[0]:6.2f} s  cpu {best[1]:6.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plans", type=int, default=400)
    ap.add_argument("--source-runs", type=int, default=3)
    ap.add_argument("--skip-batch", action="store_true")
    ap.add_argument("--skip-source", action="store_true")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-batch-"))
    try:
        print(f"cpus: {len(os.sched_getaffinity(0))}, load average {os.getloadavg()[0]:.1f}")
        if not a.skip_batch:
            batch(make_plans(a.plans, work), work)
        if not a.skip_source:
            print("per-plan cost of reading the configuration source")
            source_cost(a.source_runs, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
