"""Benchmark: what the CI features cost on the N = 1000 plan, beside `check` alone.

    .venv/bin/python -m tooling.bench_reports [--pairs 1000] [--runs 3]

The plan of N queue pairs is the one tooling/bench_policy.py builds (a real `terraform plan`
of tests/policies/configs/bench at N = 2, replicated in the shape Terraform emits). Each
variant runs in a fresh interpreter (start-up included), best of --runs, with
SQS_POLICY_TIMINGS for the split: read+parse, validation, evaluation, and "report": applying
the baseline and --changed-only, then rendering and writing every report. Peak RSS is the CLI process's. Variants:

  check                       text to stdout (what `check` costs today)
  check --format json
  all reports                 text + --report json, sarif, junit, github, gitlab, markdown
  --baseline                  text, against a baseline of the same plan (everything baselined)
  --changed-only              text, on the same plan (a first apply: everything changes)
  all + baseline + changed    every report, --baseline and --changed-only: the Action's run
  two checks (before)         what the Action did before: check (text), then check --format sarif

Figures, not a test: nothing here asserts a timing.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tooling.bench_policy import real_plan, synthetic_plan

_WRAPPER = (
    "import resource, subprocess, sys, time, json;"
    "t=time.perf_counter();p=subprocess.run(sys.argv[1:],capture_output=True,text=True);"
    "w=time.perf_counter()-t;u=resource.getrusage(resource.RUSAGE_CHILDREN);"
    "print(json.dumps({'wall':w,'cpu':u.ru_utime+u.ru_stime,'rss':u.ru_maxrss,'rc':p.returncode,'err':p.stderr[-2000:]}))"
)


def _once(args: list[str]) -> dict:
    env = dict(os.environ, SQS_POLICY_TIMINGS="1")
    proc = subprocess.run([sys.executable, "-c", _WRAPPER, sys.executable, "-m", "resilient_sqs.policy", *args],
                          capture_output=True, text=True, env=env)
    d = json.loads(proc.stdout)
    if d["rc"] not in (0, 1):
        raise RuntimeError(f"{args}: exit {d['rc']}: {d['err']}")
    line = next((x for x in d["err"].splitlines() if x.startswith("timings:")), "")
    return {"wall": d["wall"], "cpu": d["cpu"], "rss": d["rss"],
            **{k: float(v) for k, v in (kv.split("=") for kv in line.split()[1:])}}


def _best(rows: list[dict]) -> dict:
    """Per column, the lowest value over the runs (the machine is shared: the minimum is the least disturbed)."""
    return {k: min(r.get(k, 0.0) for r in rows) for k in rows[0]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        plan = d / "plan.json"
        plan.write_text(json.dumps(synthetic_plan(real_plan(2), a.pairs)))
        base = d / "baseline.json"
        subprocess.run([sys.executable, "-m", "resilient_sqs.policy", "baseline", str(plan), "-o", str(base)],
                       check=True, capture_output=True)
        reports = []
        for fmt, name in (("json", "r.json"), ("sarif", "r.sarif"), ("junit", "r.xml"), ("github", "r.gh"),
                          ("gitlab", "r.cq.json"), ("markdown", "r.md")):
            reports += ["--report", f"{fmt}={d / name}"]
        out = ["-o", str(d / "out.txt")]
        variants = [
            ("check", ["check", str(plan), *out]),
            ("check --format json", ["check", str(plan), "--format", "json", *out]),
            ("all reports", ["check", str(plan), *out, *reports]),
            ("--baseline", ["check", str(plan), *out, "--baseline", str(base)]),
            ("--changed-only", ["check", str(plan), *out, "--changed-only"]),
            ("all + baseline + changed", ["check", str(plan), *out, *reports, "--baseline", str(base), "--changed-only"]),
        ]
        variants.append(("sarif alone", ["check", str(plan), "--format", "sarif", "-o", str(d / "s.sarif")]))
        got: dict[str, list[dict]] = {name: [] for name, _ in variants}
        for _ in range(a.runs):  # round-robin, so that a busy moment of the machine hits every variant
            for name, args in variants:
                got[name].append(_once(args))
        rows = [(name, _best(got[name])) for name, _ in variants if name != "sarif alone"]
        sarif_alone = _best(got["sarif alone"])
        sizes = {p.name: p.stat().st_size for p in d.iterdir() if p.name.startswith("r.")}
        plan_mb = plan.stat().st_size / 1e6
    base = rows[0][1]
    head = (f"{'variant':<26} {'wall s':>7} {'CPU s':>6} {'x check':>7} {'parse s':>8} {'validate s':>10} "
            f"{'evaluate s':>10} {'report s':>8} {'peak MB':>8}")
    print(f"N = {a.pairs} queue pairs, plan {plan_mb:.1f} MB; each column the best of {a.runs} fresh runs "
          "(round-robin); x check compares CPU time")
    print(head)
    print("-" * len(head))
    for name, r in rows:
        print(f"{name:<26} {r['wall']:>7.2f} {r['cpu']:>6.2f} {r['cpu'] / base['cpu']:>7.2f} {r.get('read+parse', 0):>8.2f} "
              f"{r.get('validate', 0):>10.2f} {r.get('evaluate', 0):>10.2f} {r.get('render', 0):>8.2f} "
              f"{r['rss'] / 1024:>8.0f}")
    w, c = base["wall"] + sarif_alone["wall"], base["cpu"] + sarif_alone["cpu"]
    print(f"{'two checks (before)':<26} {w:>7.2f} {c:>6.2f} {c / base['cpu']:>7.2f}   (check, then check --format sarif: "
          "what the Action ran before)")
    print("report sizes: " + ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in sorted(sizes.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
