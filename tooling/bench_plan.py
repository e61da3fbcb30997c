"""Plan cost of the module against terraform-aws-modules/sqs v4.3.1, side by side.

    .venv/bin/python -m tooling.bench_plan                       # N = 10, 100, 300
    .venv/bin/python -m tooling.bench_plan --sizes 100,1000 --repeat 2
    .venv/bin/python -m tooling.bench_plan --variants ours,ours-noalarms --breakdown

Three configurations, each planned for N queue pairs in the same run:

* ``ours``: the root module with N default queue keys, ``account_id`` given,
  alarms on (the default);
* ``ours-noalarms``: the same with ``alarms = { enabled = false }``;
* ``anchor``: terraform-aws-modules/sqs v4.3.1 with ``for_each`` over N names
  and ``create_dlq = true``, read at run time from
  ``../shared/anchors/terraform-aws-sqs-v4.3.1`` (or ``--anchor DIR``); never
  copied into this repository. Its ``aws_caller_identity`` (one per instance) is
  answered by a tiny STS stub on 127.0.0.1 that this script starts, given to the
  anchor's plans as ``AWS_ENDPOINT_URL_STS`` (``--sts-via env``, the default), or
  as an ``endpoints { sts = ... }`` block in every variant's provider
  (``--sts-via provider``, how issue #10 measured). The block changes what the AWS
  provider spends on every resource, in both directions: at N = 100 it doubled the
  anchor's plan (10.0 s against 5.3 s) and added 4.6 s to ours; at N = 1000 the
  anchor took 66 s with it and 90 s without. A user's stack has no such block.
  When the anchor is absent the script says so and measures ours alone.

Each variant is first planned once at N = 2, not counted (the first plan after init
reads the provider binary from disk). Every plan is ``terraform plan -refresh=false -out``
with an offline provider
(dummy credentials, no account lookup), the AWS provider from the local mirror.
Per plan it reports: CPU seconds (user + sys of terraform and its provider
processes, from wait4), wall seconds, peak RSS (largest single process, and the
peak of the whole tree sampled from /proc every 0.1 s), the size of
``terraform show -json`` of the plan, and the number of managed resources
planned. A plan that does not exit 0 is not a measurement: its errors are
printed and the script exits 1. The load average before each plan is printed,
because wall time on a shared machine means little without it.

Figures, not a test: nothing here asserts a timing.
"""
from __future__ import annotations

import argparse
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tooling.terraform import REPO_ROOT, extract_errors, terraform_bin, terraform_env

DEFAULT_ANCHOR = REPO_ROOT.parent / "shared" / "anchors" / "terraform-aws-sqs-v4.3.1"
ACCOUNT_ID = "123456789012"
KEY_FMT = "bench-{:04d}"
VARIANTS = ("ours", "ours-noalarms", "anchor")


# -- STS stub ------------------------------------------------------------------------
class _StsHandler(http.server.BaseHTTPRequestHandler):
    """Answers every POST with a GetCallerIdentity response (all the anchor asks)."""

    body = (
        '<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">'
        "<GetCallerIdentityResult>"
        f"<Arn>arn:aws:iam::{ACCOUNT_ID}:user/bench</Arn><UserId>AIDABENCHBENCHBENCH</UserId>"
        f"<Account>{ACCOUNT_ID}</Account>"
        "</GetCallerIdentityResult>"
        "<ResponseMetadata><RequestId>00000000-0000-0000-0000-000000000000</RequestId></ResponseMetadata>"
        "</GetCallerIdentityResponse>"
    ).encode()
    calls = 0

    def do_POST(self):  # http.server's naming
        length = int(self.headers.get("Content-Length") or 0)
        request = self.rfile.read(length).decode(errors="replace")
        if "Action=GetCallerIdentity" not in request:
            self.send_error(400, "this stub answers GetCallerIdentity only")
            return
        type(self).calls += 1
        self.send_response(200)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args):  # quiet
        pass


def start_sts_stub() -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _StsHandler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


# -- configurations -----------------------------------------------------------------
def provider_block(sts_endpoint: str | None = None) -> str:
    """The offline provider; with ``sts_endpoint``, an ``endpoints { sts = ... }`` block."""
    endpoints = f'  endpoints {{\n    sts = "{sts_endpoint}"\n  }}\n' if sts_endpoint else ""
    return (
        'provider "aws" {\n'
        '  region                      = "us-east-1"\n'
        '  access_key                  = "offline-plan"\n'
        '  secret_key                  = "offline-plan"\n'
        "  skip_credentials_validation = true\n"
        "  skip_requesting_account_id  = true\n"
        "  skip_metadata_api_check     = true\n"
        "  skip_region_validation      = true\n"
        f"{endpoints}"
        "}\n"
    )


def write_config(variant: str, work: Path, module_dir: Path, sts_endpoint: str | None = None) -> None:
    """A root configuration in ``work`` planning N pairs of ``variant`` (N is ``var.n``)."""
    work.mkdir(parents=True, exist_ok=True)
    source = os.path.relpath(module_dir, work)
    if not source.startswith("."):
        source = "./" + source
    keys = f'[for i in range(var.n) : format("{KEY_FMT.replace("{:04d}", "%04d")}", i)]'
    if variant == "anchor":
        call = (
            'module "sqs" {\n'
            f'  source     = "{source}"\n'
            f"  for_each   = toset({keys})\n"
            "  name       = each.key\n"
            "  create_dlq = true\n"
            "}\n"
        )
    else:
        alarms = "true" if variant == "ours" else "false"
        call = (
            'module "sqs" {\n'
            f'  source     = "{source}"\n'
            f"  queues     = {{ for k in {keys} : k => {{}} }}\n"
            f'  account_id = "{ACCOUNT_ID}"\n'
            f"  alarms     = {{ enabled = {alarms} }}\n"
            "}\n"
        )
    (work / "main.tf").write_text(
        'terraform {\n  required_providers {\n    aws = { source = "hashicorp/aws" }\n  }\n}\n\n'
        'variable "n" {\n  type = number\n}\n\n'
        + call
        + "\n"
        + provider_block(sts_endpoint)
    )


# -- measurement --------------------------------------------------------------------
def _tree_rss_kib(root: int) -> int:
    """Sum of VmRSS over ``root`` and its descendants (Linux /proc; 0 elsewhere)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as fh:
                ppid, vm = None, 0
                for line in fh:
                    if line.startswith("PPid:"):
                        ppid = int(line.split()[1])
                    elif line.startswith("VmRSS:"):
                        vm = int(line.split()[1])
        except (OSError, ValueError):
            continue
        rss[int(name)] = vm
        if ppid is not None:
            children.setdefault(ppid, []).append(int(name))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, ()))
    return total


def run_measured(cmd: list[str], cwd: Path, env: dict) -> dict:
    """Run ``cmd``; CPU and max RSS from wait4 (the process and its waited-for children)."""
    out_f = tempfile.TemporaryFile()
    err_f = tempfile.TemporaryFile()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out_f, stderr=err_f)
    peak_tree = 0
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        peak_tree = max(peak_tree, _tree_rss_kib(proc.pid))
        time.sleep(0.1)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    out_f.seek(0)
    err_f.seek(0)
    return {
        "rc": proc.returncode,
        "cpu": ru.ru_utime + ru.ru_stime,
        "user": ru.ru_utime,
        "sys": ru.ru_stime,
        "wall": wall,
        "maxrss_mib": ru.ru_maxrss / 1024,
        "tree_rss_mib": peak_tree / 1024,
        "stdout": out_f.read().decode(errors="replace"),
        "stderr": err_f.read().decode(errors="replace"),
    }


def plan_once(work: Path, n: int, env: dict, breakdown: bool) -> dict:
    tf = terraform_bin()
    varfile = work / "bench.tfvars.json"
    varfile.write_text(json.dumps({"n": n}))
    plan_file = work / f"plan-{n}.tfplan"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    m = run_measured(
        [tf, "plan", "-refresh=false", "-input=false", "-lock=false", "-no-color",
         f"-var-file={varfile}", f"-out={plan_file}"],
        work, env,
    )
    m["load"] = load
    if m["rc"] != 0:
        errors = extract_errors(m["stderr"]) or extract_errors(m["stdout"]) or [m["stderr"][-2000:]]
        m["errors"] = errors
        return m
    show = subprocess.run([tf, "show", "-json", str(plan_file)], cwd=work, env=env, capture_output=True,
                          stdin=subprocess.DEVNULL)
    if show.returncode != 0:
        m["rc"] = show.returncode
        m["errors"] = extract_errors(show.stderr.decode(errors="replace")) or ["terraform show -json failed"]
        return m
    doc = json.loads(show.stdout)
    m["json_bytes"] = len(show.stdout)
    m["resources"] = sum(1 for r in doc.get("resource_changes", []) if r.get("mode") == "managed")
    m["data_sources"] = _count_data(doc.get("prior_state", {}).get("values", {}).get("root_module", {}))
    if breakdown:
        m["sections"] = {k: len(json.dumps(v)) for k, v in doc.items()}
    m["json_path"] = None
    if os.environ.get("BENCH_PLAN_KEEP_JSON"):
        keep = Path(os.environ["BENCH_PLAN_KEEP_JSON"])
        keep.mkdir(parents=True, exist_ok=True)
        dest = keep / f"{work.name}-{n}.json"
        dest.write_bytes(show.stdout)
        m["json_path"] = str(dest)
    plan_file.unlink(missing_ok=True)
    return m


def _count_data(module: dict) -> int:
    total = sum(1 for r in module.get("resources", []) if r.get("mode") == "data")
    return total + sum(_count_data(c) for c in module.get("child_modules", []))


def init(work: Path, env: dict) -> None:
    proc = subprocess.run([terraform_bin(), "init", "-input=false", "-no-color", "-backend=false"], cwd=work,
                          env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise SystemExit(f"terraform init failed in {work}:\n" + "\n".join(extract_errors(proc.stderr) or [proc.stderr]))


# -- report -------------------------------------------------------------------------
def fmt_row(variant: str, n: int, m: dict) -> str:
    if m["rc"] != 0:
        return f"| {n} | {variant} | PLAN FAILED (exit {m['rc']}) | | | | | | |"
    return (
        f"| {n} | {variant} | {m['cpu']:.1f} ({m['user']:.1f}+{m['sys']:.1f}) | {m['wall']:.1f} | "
        f"{m['maxrss_mib']:.0f} / {m['tree_rss_mib']:.0f} | {m['json_bytes'] / 1e6:.2f} | "
        f"{m['json_bytes'] / n / 1024:.1f} | {m['resources']} | {m['load']:.1f} |"
    )


def summary(results: dict, sizes: list[int]) -> list[str]:
    """Ratios the issue's targets are stated in, from the best (lowest CPU) run of each cell."""
    best = {k: min(v, key=lambda m: m["cpu"]) for k, v in results.items() if all(m["rc"] == 0 for m in v)}
    lines = []
    for n in sizes:
        o, a = best.get(("ours", n)), best.get(("anchor", n))
        if o and a:
            lines.append(f"N={n}: ours / anchor CPU = {o['cpu'] / a['cpu']:.2f}x; "
                         f"peak tree RSS ours / anchor = {o['tree_rss_mib'] / a['tree_rss_mib']:.2f}x; "
                         f"ours plan JSON = {o['json_bytes'] / n / 1024:.1f} KB per pair")
        on = best.get(("ours-noalarms", n))
        if on and a:
            lines.append(f"N={n}: ours (alarms off) / anchor CPU = {on['cpu'] / a['cpu']:.2f}x")
    for variant in VARIANTS:
        cells = sorted((n, m) for (v, n), m in best.items() if v == variant)
        if len(cells) >= 2:
            (n0, m0), (n1, m1) = cells[0], cells[-1]
            lines.append(f"{variant}: CPU(N={n1}) / CPU(N={n0}) = {m1['cpu'] / m0['cpu']:.1f} (N grows {n1 / n0:.0f}x)")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10,100,300", help="comma-separated N (default 10,100,300; 1000 is slow)")
    ap.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated subset of {','.join(VARIANTS)}")
    ap.add_argument("--repeat", type=int, default=1, help="plans per cell (the summary uses the lowest CPU)")
    ap.add_argument("--anchor", type=Path, default=DEFAULT_ANCHOR, help="terraform-aws-modules/sqs v4.3.1 checkout")
    ap.add_argument("--ours-dir", type=Path, default=REPO_ROOT,
                    help="the module to measure as ours (default: this checkout; e.g. another worktree to compare)")
    ap.add_argument("--breakdown", action="store_true", help="also print the plan JSON size per top-level key")
    ap.add_argument("--json", type=Path, help="also write all figures to this JSON file")
    ap.add_argument("--sts-via", choices=("env", "provider"), default="env",
                    help="how the anchor reaches the STS stub: env (AWS_ENDPOINT_URL_STS for the anchor's plans; "
                         "default) or provider (an endpoints block in every variant's provider, as issue #10 "
                         "measured; the block changes the AWS provider's cost for every resource)")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown or not sizes or any(n < 1 for n in sizes) or args.repeat < 1:
        ap.error(f"--variants takes {', '.join(VARIANTS)}; --sizes positive integers; --repeat >= 1"
                 + (f" (unknown variant: {', '.join(unknown)})" if unknown else ""))

    anchor = args.anchor.resolve()
    if "anchor" in variants and not (anchor / "main.tf").is_file():
        print(f"NOTE: terraform-aws-modules/sqs v4.3.1 not found at {anchor} (pass --anchor DIR). "
              "Measuring ours only; no side-by-side ratios.", file=sys.stderr)
        variants = [v for v in variants if v != "anchor"]
    if not variants:
        return 1

    server, endpoint = start_sts_stub() if "anchor" in variants else (None, None)
    env = terraform_env()
    root = Path(tempfile.mkdtemp(prefix="bench-plan-"))
    results: dict[tuple[str, int], list[dict]] = {}
    failed = False
    try:
        for variant in variants:
            work = root / variant
            write_config(variant, work, anchor if variant == "anchor" else args.ours_dir.resolve(),
                         endpoint if args.sts_via == "provider" else None)
            init(work, env)
        # the anchor reads aws_caller_identity: its STS calls go to the stub
        envs = {v: dict(env, AWS_ENDPOINT_URL_STS=endpoint) if v == "anchor" and args.sts_via == "env" else env
                for v in variants}
        # One plan per variant that is not counted: the first plan after init reads the
        # provider's ~700 MB binary from disk and warms caches.
        for variant in variants:
            warm = plan_once(root / variant, 2, envs[variant], False)
            if warm["rc"] != 0:
                print(f"warm-up plan of {variant} failed; not measuring:\n  " + "\n  ".join(warm["errors"]),
                      file=sys.stderr)
                return 1
        cpus = os.cpu_count()
        print(f"terraform plan -refresh=false, offline provider, STS stub via {args.sts_via}; {cpus} CPUs; "
              f"load average at start {os.getloadavg()[0]:.1f}")
        print("| N | variant | CPU s (user+sys) | wall s | peak RSS MiB (largest process / tree) "
              "| plan JSON MB | KB per pair | resources | load |")
        print("|---|---|---|---|---|---|---|---|---|")
        for n in sizes:
            for _ in range(args.repeat):
                for variant in variants:  # interleaved, so load affects each alike
                    m = plan_once(root / variant, n, envs[variant], args.breakdown)
                    results.setdefault((variant, n), []).append(m)
                    print(fmt_row(variant, n, m), flush=True)
                    if m["rc"] != 0:
                        failed = True
                        print("  plan failed; not a measurement:\n  " + "\n  ".join(m["errors"]), file=sys.stderr)
                    elif args.breakdown:
                        print("  sections (bytes): " + ", ".join(f"{k}={v}" for k, v in
                                                                  sorted(m["sections"].items(), key=lambda kv: -kv[1])))
                        print(f"  data sources in prior_state: {m['data_sources']}")
        if server is not None:
            print(f"STS stub answered {_StsHandler.calls} GetCallerIdentity calls")
        print(f"load average at end {os.getloadavg()[0]:.1f}")
        for line in summary(results, sizes):
            print(line)
        if args.json:
            args.json.write_text(json.dumps(
                {f"{v}/{n}": [{k: x for k, x in m.items() if k not in ("stdout", "stderr")} for m in ms]
                 for (v, n), ms in results.items()}, indent=1))
    finally:
        if server is not None:
            server.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
