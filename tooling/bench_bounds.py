"""Time and memory of `sqs-policy check` on inputs a pull request controls that are cheap to
write and costly to read (issue #30 §5), the checker here side by side with an older one.

    .venv/bin/python -m tooling.bench_bounds [--old COMMIT] [--timeout S] [--baseline-mb N] [--only NAME]

Cases (each one `sqs-policy check` in a fresh process; wall time and peak RSS, exit code, and
whether the output says what was not read):

- ``tf-1mib``: the source-good configuration with one more file of 1,000,000 bytes of dense HCL
  tokens (`locals { a = [1,1,1,...] }`, the worst case per byte for python-hcl2/lark);
- ``tf-4x1mib``: four such files (the per-check byte cap is 4 MiB);
- ``expr-format``, ``expr-distinct``, ``expr-join``: a local whose evaluation is cheap in
  Terraform and large here: ``format("%0999999999d", 1)``, ``distinct()`` over a list of 60,000
  different strings, ``join()`` of a 300,000-character string repeated 2,000 times;
- ``baseline-600mb``: a baseline file of that many MB (valid JSON, generated once into the
  temporary directory).

``--old COMMIT`` (default: the commit before issue #30's work, c77733c) runs that commit's
checker (``git archive`` of policies/ and resilient_sqs/ into a temporary directory) under the
same limits: a 4 GiB address-space limit per run, ``--timeout`` seconds (default 300).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import site
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE_GOOD = REPO / "tests" / "policies" / "configs" / "source-good"
PLAN = REPO / "tests" / "policies" / "plans" / "source-good.json"
LIMIT = 4 << 30


def _limit():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def dense_tf(n_bytes: int, name: str = "a") -> str:
    body = ",".join(["1"] * ((n_bytes - 40) // 2))
    return f"locals {{\n  dense_{name} = [{body}]\n}}\n"


def _source(tmp: Path, extra: dict[str, str]) -> Path:
    src = tmp / "src"
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(SOURCE_GOOD, src, ignore=shutil.ignore_patterns(".terraform*"))
    for name, text in extra.items():
        (src / name).write_text(text)
    return src


def _expr_source(tmp: Path, expr: str) -> Path:
    """source-good, with one of its locals that a value needs wrapped in ``expr``'s evaluation."""
    src = _source(tmp, {})
    extra = f'''
locals {{
  long   = "{"x" * 300_000}"
  numbers = "{",".join(str(i) for i in range(60_000))}"
  costly = {expr}
}}
'''
    (src / "zz_costly.tf").write_text(extra)
    main = src / "main.tf"
    text = main.read_text()
    # a value the plan leaves unknown (payments' redrive policy) is built from local.max_receive_count
    assert "  max_receive_count = 4\n" in text
    main.write_text(text.replace("  max_receive_count = 4\n", "  max_receive_count = length(local.costly) * 0 + 4\n"))
    return src


def _baseline(tmp: Path, mb: int) -> Path:
    p = tmp / f"baseline-{mb}mb.json"
    if p.exists():
        return p
    entry = json.dumps({"rule": "SQS002", "address": "aws_sqs_queue.q[\"" + "k" * 200 + "\"]", "kind": "fail",
                        "related": [], "count": 1, "message": "m" * 200})
    n = mb * 1_000_000 // (len(entry) + 2)
    with open(p, "w") as fh:
        fh.write('{"sqs-policy-baseline": "1.0", "tool": "bench", "findings": [\n')
        chunk = ",\n".join([entry] * 1000)
        for i in range(n // 1000):
            fh.write(chunk + (",\n" if i < n // 1000 - 1 else "\n"))
        fh.write("]}\n")
    return p


def _old_pkg(commit: str, tmp: Path) -> Path:
    d = tmp / f"old-{commit[:8]}"
    if not d.exists():
        d.mkdir()
        arch = subprocess.run(["git", "archive", commit, "policies", "resilient_sqs"], cwd=REPO, capture_output=True,
                              check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(d)], input=arch, check=True)
        (d / "resilient_sqs" / "policy").symlink_to("../policies")
    return d


def run(args: list[str], pkg: Path | None, timeout: int) -> dict:
    env = dict(os.environ)
    cmd = [sys.executable, "-m", "resilient_sqs.policy"]
    if pkg is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(pkg), *site.getsitepackages()])
        cmd = [sys.executable, "-S", "-P", "-m", "resilient_sqs.policy"]
    wrapped = [sys.executable, "-c", "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(r.returncode)",
               *cmd, "check", *args, "--format", "json"]
    t0 = time.monotonic()
    try:
        p = subprocess.run(wrapped, capture_output=True, env=env, timeout=timeout, preexec_fn=_limit, cwd=REPO)
    except subprocess.TimeoutExpired:
        return {"seconds": None, "rss_mb": None, "rc": "timeout", "said": ""}
    secs = time.monotonic() - t0
    err = p.stderr.decode("utf-8", "replace").strip().splitlines()
    rss = int(err[-1]) // 1024 if err and err[-1].isdigit() else None
    said = ""
    try:
        notes = json.loads(p.stdout)["notes"]
        said = next((n for n in notes if any(w in n for w in ("budget", "cap", "not evaluated", "not parsed"))), "")
    except (ValueError, KeyError):
        said = (err[0] if err and not err[0].isdigit() else "")
    return {"seconds": secs, "rss_mb": rss, "rc": p.returncode, "said": said}


def cases(tmp: Path, baseline_mb: int) -> dict[str, list[str]]:
    out = {}
    src = _source(tmp / "tf1", {"zz_dense.tf": dense_tf(1_000_000)})
    out["tf-1mib"] = [str(PLAN), "--source-dir", str(src)]
    src = _source(tmp / "tf4", {f"zz_dense{i}.tf": dense_tf(1_000_000, str(i)) for i in range(4)})
    out["tf-4x1mib"] = [str(PLAN), "--source-dir", str(src)]
    for name, expr in (("expr-format", 'format("%0999999999d", 1)'),
                       ("expr-distinct", 'distinct(split(",", local.numbers))'),
                       ("expr-join", 'join("", [' + ", ".join(["local.long"] * 2000) + "])")):
        (tmp / name).mkdir(exist_ok=True)
        out[name] = [str(PLAN), "--source-dir", str(_expr_source(tmp / name, expr))]
    out[f"baseline-{baseline_mb}mb"] = [str(PLAN), "--no-source", "--baseline", str(_baseline(tmp, baseline_mb))]
    return out


def _fmt(r: dict) -> str:
    if r["rc"] == "timeout":
        return "    timeout"
    rss = f"{r['rss_mb']:>5} MB" if r["rss_mb"] is not None else "   ? MB"
    return f"{r['seconds']:7.1f} s {rss} rc={r['rc']}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", default="c77733c", help="the older checker's commit (default: before issue #30)")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--baseline-mb", type=int, default=600)
    ap.add_argument("--only", action="append")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-bounds-") as d:
        tmp = Path(d)
        old = _old_pkg(a.old, tmp)
        print(f"{'case':<16} {'old (' + a.old[:8] + ')':<28} {'new':<28} what the new one says")
        for name, args in cases(tmp, a.baseline_mb).items():
            if a.only and name not in a.only:
                continue
            before = run(args, old, a.timeout)
            after = run(args, None, a.timeout)
            print(f"{name:<16} {_fmt(before):<28} {_fmt(after):<28} {after['said'][:110]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
