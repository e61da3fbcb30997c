"""Benchmark: the policy CLI against checkov on plans of N = 10, 100, 1000 queue pairs.

    .venv/bin/python -m tooling.bench_policy [--sizes 10,100,1000] [--no-checkov] [--source-sizes 2,50,200]

Each pair is what the root module creates by default for one queue key (queue
+ DLQ with queue policies, redrive and redrive-allow policies, the default
CloudWatch alarms (DLQ depth and critical age)) plus a Lambda function, its event source
mapping and a role policy holding the module's consumer document; the plan also holds
one alarm topic and its KMS key
(tests/policies/configs/bench). The plan for N pairs is
generated from a real `terraform plan` of that configuration at N = 2 by
replicating the second pair's elements under new keys, in exactly the shape
Terraform emits. Before timing anything the generator is checked: its N = 3
output must equal a real N = 3 plan (ignoring the timestamp and list order).

Printed per N: plan size; CLI wall time (a fresh interpreter, start-up
included); time after loading (validation, evaluation, rendering); json.load
time of the same file; peak RSS of the CLI process; checkov -f wall time and
peak RSS. Before that, the cost of reading the configuration source: real plans of
tests/policies/configs/source-good (policies embedding ARNs of new queues, unknown in the
plan) checked with --no-source and with --source-dir, wall and CPU, and the unknown findings
each way. Figures, not a test: nothing here asserts a timing.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TEMPLATE_DIR = REPO / "tests" / "policies" / "configs" / "bench"
CACHE = REPO / ".cache" / "bench"
KEY_FMT = "bench-{:04d}"
TEMPLATE_KEY, OTHER_KEY = KEY_FMT.format(1), KEY_FMT.format(0)
CHECKOV = REPO / ".venv-checkov" / "bin" / "checkov"


# -- plan generation ------------------------------------------------------------------
def real_plan(pairs: int) -> dict:
    """A real plan of the template configuration (cached by content)."""
    from tooling.terraform import Terraform, offline_copy, supplied_provider

    CACHE.mkdir(parents=True, exist_ok=True)
    import hashlib

    h = hashlib.sha256(str(pairs).encode())
    # the copy it is planned in also gets configs/_provider/providers.tf
    for f in sorted([*TEMPLATE_DIR.glob("*.tf"), supplied_provider(TEMPLATE_DIR), *REPO.glob("*.tf"),
                     *(REPO / "modules").rglob("*.tf")]):
        h.update(f.read_bytes())
    out = CACHE / f"real-{pairs}-{h.hexdigest()[:12]}.json"
    if not out.exists():
        work = offline_copy(TEMPLATE_DIR)
        try:
            tf = Terraform(work, variables={"pairs": pairs}, env={"TF_DATA_DIR": str(CACHE / f"tfdata-{pairs}")})
            tf.init()
            doc = tf.show_json(tf.plan(out=str(work / "tfplan")))
        finally:
            import shutil

            shutil.rmtree(work, ignore_errors=True)
        out.write_text(json.dumps(doc))
    return json.loads(out.read_text())


def _clone(node, key: str):
    return json.loads(json.dumps(node).replace(TEMPLATE_KEY, key))


def _expand(node, keys: list[str]):
    if isinstance(node, list):
        out = []
        for el in node:
            s = json.dumps(el) if isinstance(el, (dict, list)) else None
            if s is not None and TEMPLATE_KEY in s and OTHER_KEY not in s:
                out.append(el)
                out.extend(json.loads(s.replace(TEMPLATE_KEY, k)) for k in keys)
            else:
                out.append(_expand(el, keys))
        return out
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if TEMPLATE_KEY in k and OTHER_KEY not in k:
                out[k] = v
                for nk in keys:
                    out[k.replace(TEMPLATE_KEY, nk)] = _clone(v, nk)
            else:
                out[k] = _expand(v, keys)
        return out
    return node


def synthetic_plan(template: dict, pairs: int) -> dict:
    """The plan of ``pairs`` pairs, from the real plan of 2 pairs."""
    if pairs < 2 or pairs > 10000:
        raise ValueError("pairs must be 2..10000")
    doc = _expand(copy.deepcopy(template), [KEY_FMT.format(i) for i in range(2, pairs)])
    doc["variables"]["pairs"]["value"] = pairs
    # the AWS provider's aws_iam_policy_document id is the CRC-32 of its JSON
    import zlib

    stack = [(doc.get("prior_state") or {}).get("values", {}).get("root_module", {}),
             (doc.get("planned_values") or {}).get("root_module", {})]
    while stack:
        m = stack.pop()
        for r in m.get("resources") or ():
            v = r.get("values") or {}
            if r.get("type") == "aws_iam_policy_document" and isinstance(v.get("json"), str):
                v["id"] = str(zlib.crc32(v["json"].encode()))
        stack.extend(m.get("child_modules") or ())
    return doc


def canonical(node):
    """Order-insensitive form for comparing plans (lists of objects sorted)."""
    if isinstance(node, dict):
        return {k: canonical(v) for k, v in node.items() if k != "timestamp"}
    if isinstance(node, list):
        items = [canonical(v) for v in node]
        if items and all(isinstance(v, dict) for v in items):
            items.sort(key=lambda v: json.dumps(v, sort_keys=True))
        return items
    return node


# -- measurement ----------------------------------------------------------------------
def _child_rss(cmd: list[str], env=None) -> tuple[float, int, str, str, int]:
    """Run cmd under a tiny wrapper that reports its own peak RSS exactly."""
    wrapper = (
        "import resource, subprocess, sys, time, json;"
        "t=time.perf_counter();p=subprocess.run(sys.argv[1:],capture_output=True,text=True);"
        "w=time.perf_counter()-t;"
        "print(json.dumps({'wall':w,'rss':resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,"
        "'rc':p.returncode,'out':p.stdout[-2000:],'err':p.stderr[-2000:]}))"
    )
    proc = subprocess.run([sys.executable, "-c", wrapper, *cmd], capture_output=True, text=True, env=env)
    d = json.loads(proc.stdout)
    return d["wall"], d["rss"], d["out"], d["err"], d["rc"]


def measure(path: Path, with_checkov: bool) -> dict:
    env = dict(os.environ, SQS_POLICY_TIMINGS="1")
    size = path.stat().st_size
    walls, rss, after = [], 0, []
    for _ in range(3):
        w, r, out, err, rc = _child_rss([sys.executable, "-m", "resilient_sqs.policy", "check", str(path), "--format", "json"], env)
        if rc not in (0, 1):
            raise RuntimeError(f"CLI failed on {path}: {err}")
        walls.append(w)
        rss = max(rss, r)
        line = next(x for x in err.splitlines() if x.startswith("timings:"))
        t = dict(kv.split("=") for kv in line.split()[1:])
        after.append(float(t["validate"]) + float(t["evaluate"]) + float(t["render"]))
    # json.load of the same file in a fresh interpreter (default settings), best of 3
    loads = []
    for _ in range(3):
        code = ("import json,time,sys;t=time.perf_counter();json.load(open(sys.argv[1],'rb'));"
                "print(time.perf_counter()-t)")
        loads.append(float(subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                                          text=True, check=True).stdout))
    res = {"size": size, "cli_wall": min(walls), "after_load": min(after), "json_load": min(loads), "cli_rss_kib": rss}
    if with_checkov and CHECKOV.exists():
        cenv = dict(os.environ, BC_SKIP_MAPPING="TRUE", CKV_SKIP_PACKAGE_UPDATE_CHECK="true", LOG_LEVEL="ERROR")
        w, r, out, err, rc = _child_rss([str(CHECKOV), "-f", str(path), "--framework", "terraform_plan",
                                         "--skip-download", "-o", "json", "--quiet", "--compact"], cenv)
        res.update(checkov_wall=w, checkov_rss_kib=r, checkov_rc=rc)
    return res


def validate_generator() -> str:
    template, real3 = real_plan(2), real_plan(3)
    synth3 = synthetic_plan(template, 3)
    if canonical(synth3) != canonical(real3):
        raise SystemExit("generator check FAILED: synthetic N=3 differs from the real terraform plan at N=3")
    return "generator check: synthetic plan N=3 == real `terraform plan` N=3 (ignoring timestamp and list order)"


# -- reading the configuration source (--source-dir) -------------------------------------
SOURCE_DIR = REPO / "tests" / "policies" / "configs" / "source-good"


def source_plan(queues: int) -> dict:
    """A real plan of configs/source-good with ``queues`` for_each queue pairs (cached)."""
    from tooling.terraform import Terraform, offline_copy, supplied_provider

    import hashlib
    import shutil

    variables = {"queues": {f"q{i:04d}": {"max_receive": 3 + i % 3, "visibility": 60} for i in range(queues)}}
    h = hashlib.sha256(json.dumps(variables, sort_keys=True).encode())
    for f in [*sorted(SOURCE_DIR.rglob("*.tf")), supplied_provider(SOURCE_DIR)]:
        h.update(f.read_bytes())
    CACHE.mkdir(parents=True, exist_ok=True)
    out = CACHE / f"source-{queues}-{h.hexdigest()[:12]}.json"
    if not out.exists():
        work = offline_copy(SOURCE_DIR)
        try:
            tf = Terraform(work, variables=variables, env={"TF_DATA_DIR": str(CACHE / f"tfdata-source-{queues}")})
            tf.init()
            doc = tf.show_json(tf.plan(out=str(work / "tfplan")))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        out.write_text(json.dumps(doc))
    return json.loads(out.read_text())


def _cpu_run(cmd: list[str]) -> tuple[float, float, str, int]:
    """(wall, user+sys CPU) of a fresh process, its stdout and exit code."""
    wrapper = ("import resource,subprocess,sys,time,json;t=time.perf_counter();"
               "p=subprocess.run(sys.argv[1:],capture_output=True,text=True);w=time.perf_counter()-t;"
               "r=resource.getrusage(resource.RUSAGE_CHILDREN);"
               "print(json.dumps({'wall':w,'cpu':r.ru_utime+r.ru_stime,'out':p.stdout,'rc':p.returncode}))")
    d = json.loads(subprocess.run([sys.executable, "-c", wrapper, *cmd], capture_output=True, text=True).stdout)
    return d["wall"], d["cpu"], d["out"], d["rc"]


def measure_source(sizes: list[int]) -> None:
    """CLI wall and CPU on real plans of a stack in the common styles (policies embedding
    new queues' ARNs), without and with reading its source; unknown findings each way."""
    print(f"source reading: real plans of {SOURCE_DIR.relative_to(REPO)} with N for_each queue pairs")
    head = (f"{'N pairs':>8} {'resources':>9} {'no-source wall/cpu s':>20} {'unknown':>7} "
            f"{'--source-dir wall/cpu s':>23} {'unknown':>7} {'source cost cpu s':>17}")
    print(head)
    print("-" * len(head))
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            doc = source_plan(n)
            p = Path(tmp) / f"source-{n}.json"
            p.write_text(json.dumps(doc))
            row = {}
            for mode, extra in (("off", ["--no-source"]), ("on", ["--source-dir", str(SOURCE_DIR)])):
                runs = [_cpu_run([sys.executable, "-m", "resilient_sqs.policy", "check", str(p), "--format", "json",
                                  *extra]) for _ in range(3)]
                if any(rc not in (0, 1) for *_, rc in runs):
                    raise RuntimeError(f"CLI failed on {p} ({mode})")
                out = json.loads(runs[0][2])
                row[mode] = (min(r[0] for r in runs), min(r[1] for r in runs), out["summary"]["unknown"], out["notes"])
            if row["on"][3]:
                raise RuntimeError(f"source not read: {row['on'][3]}")
            nres = len(doc.get("resource_changes") or ())
            off, on = row["off"], row["on"]
            print(f"{n:>8} {nres:>9} {off[0]:>10.3f}/{off[1]:<9.3f} {off[2]:>7} {on[0]:>11.3f}/{on[1]:<11.3f} {on[2]:>7} "
                  f"{on[1] - off[1]:>17.3f}")
    print("best of 3 fresh CLI runs each; cpu: user+sys of the CLI process. Without the source the run imports no\n"
          "HCL parser; with it, python-hcl2 (and lark) are imported and the .tf files parsed once.")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10,100,1000")
    ap.add_argument("--no-checkov", action="store_true")
    ap.add_argument("--source-sizes", default="2,50,200",
                    help="queue pairs of the source-reading measurement ('' to skip)")
    args = ap.parse_args(argv)
    if args.source_sizes:
        measure_source([int(s) for s in args.source_sizes.split(",")])
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if not sizes:
        return 0
    print(validate_generator())
    template = real_plan(2)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            p = Path(tmp) / f"plan-{n}.json"
            p.write_text(json.dumps(synthetic_plan(template, n)))
            r = measure(p, not args.no_checkov)
            r["n"] = n
            rows.append(r)
            print(f"  measured N={n}", file=sys.stderr)
    head = (f"{'N pairs':>8} {'plan MB':>8} {'CLI wall s':>10} {'after load s':>12} {'json.load s':>11} "
            f"{'CLI peak MB':>11} {'mem/size':>8} {'checkov -f s':>12} {'checkov MB':>10}")
    print(head)
    print("-" * len(head))
    for r in rows:
        ck = f"{r['checkov_wall']:>12.1f} {r['checkov_rss_kib'] / 1024:>10.0f}" if "checkov_wall" in r else f"{'-':>12} {'-':>10}"
        print(f"{r['n']:>8} {r['size'] / 1e6:>8.2f} {r['cli_wall']:>10.3f} {r['after_load']:>12.3f} {r['json_load']:>11.3f} "
              f"{r['cli_rss_kib'] / 1024:>11.1f} {r['cli_rss_kib'] * 1024 / r['size']:>8.1f} {ck}")
    if len(rows) >= 2:
        a, b = rows[-2], rows[-1]
        k = b["n"] / a["n"]
        print(f"growth N={a['n']}->{b['n']} (x{k:g}): after-load x{b['after_load'] / a['after_load']:.1f}, "
              f"json.load x{b['json_load'] / a['json_load']:.1f}"
              + (f", checkov x{b['checkov_wall'] / a['checkov_wall']:.1f}" if "checkov_wall" in b and "checkov_wall" in a else ""))
    print("CLI wall: best of 3 fresh `python -m resilient_sqs.policy check --format json` runs, interpreter start-up included;\n"
          "after load: validation + evaluation + rendering inside that run; json.load: a fresh interpreter loading\n"
          "the same file (best of 3); peak MB: max RSS of the CLI process; mem/size: that RSS / plan size.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
