"""Fuzz the plan checker with mutated real plans and hand-made hostile inputs.

    .venv/bin/python -m tooling.fuzz_policy [--cases 10000] [--seed 1] [--workers 2] [--timeout 20]
    .venv/bin/python -m tooling.fuzz_policy --show N      # write case N's files and print how to rerun it

Seeds are real `terraform plan` JSONs of tests/policies/configs/* and of the
examples (the test plan cache makes them). Each case is derived from
(seed, case number) alone, so any case can be reproduced. Cases run
`sqs-policy check` in worker processes (in-process ``cli.main``, with
SQS_POLICY_DEBUG so that an internal error surfaces as its traceback); a case
that does not finish within --timeout seconds is a hang (the worker is killed
and replaced).

Printed: the exit-code histogram, contract violations (exit 2 without exactly
one line on stderr, output that is not the requested format), internal errors
grouped by code site (innermost frame of the checker), and hangs.

The mutation engine (``make_case``, ``run_case``) is shared with the in-suite
fuzz test (tests/policies/test_fuzz.py), which runs a bounded number of cases.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import select
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# -- hostile values -----------------------------------------------------------------------
NAN, INF, NINF, BIGINT = "\x00NaN\x00", "\x00Infinity\x00", "\x00-Infinity\x00", "\x00BIGINT\x00"
SURROGATE = "\ud800"


def _hostile_values(rng: random.Random) -> list:
    return [
        None, True, False, 0, -1, 1, 2, 3, -30, 10 ** 6, 1e308, -1e308, 0.5, 2 ** 64, NAN, INF, NINF, BIGINT,
        "", " ", "x", "30", "-5", "true", "null", "*", "**", "module.", "module.x[", "aws_sqs_queue.", "${x}",
        "a" * rng.choice((100, 5000, 200_000)), "sp ace#hash", "caf\u00e9", f"q{SURROGATE}x", "\u2028",
        "arn:aws:sqs:us-east-1:123456789012:", "arn:aws:sqs:::q", "https://sqs.us-east-1.amazonaws.com/1/q",
        '{"deadLetterTargetArn": 5}', '{"maxReceiveCount": "NaN"}', "{", "[]", '{"Statement": 5}',
        '{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*"}]}',
        [], {}, [None], [1, "a"], ["x"], {"a": 1}, {"references": 5}, {"references": [5]},
        {"constant_value": None}, [[[]]], {"": {}}, [{"x": [{}]}],
    ]


@dataclass
class Case:
    data: bytes
    args: list[str] = field(default_factory=list)
    config: str | None = None  # YAML text
    label: str = ""


# -- plan walking ---------------------------------------------------------------------------
def _paths(node, path=(), out=None, depth=0):
    if out is None:
        out = []
    out.append(path)
    if depth > 60:
        return out
    if isinstance(node, dict):
        for k, v in node.items():
            _paths(v, path + (k,), out, depth + 1)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _paths(v, path + (i,), out, depth + 1)
    return out


def _get(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def _set(doc, path, value):
    if not path:
        return value
    parent = _get(doc, path[:-1])
    parent[path[-1]] = value
    return doc


def _interesting(path) -> int:
    """Weight of a path: where the engine reads (attribute values, addresses,
    expressions, references, provider configuration) rather than anywhere."""
    s = "/".join(map(str, path))
    w = 1
    for needle, bonus in (("values", 4), ("expressions", 4), ("references", 6), ("address", 5), ("provider_config", 5),
                          ("after_unknown", 3), ("child_modules", 2), ("policy", 5), ("redrive", 6), ("timeout", 6),
                          ("batch", 6), ("retention", 6), ("wait_time", 5), ("function_response_types", 6),
                          ("threshold", 4), ("dimensions", 4), ("statement", 4), ("variables", 2), ("index", 3),
                          ("module_calls", 2), ("format_version", 2), ("rule", 3), ("metric_query", 4)):
        if needle in s:
            w += bonus
    return w


# -- mutations --------------------------------------------------------------------------------
def _mutate_json_string(rng: random.Random, s: str):
    """A string holding JSON (a policy, a redrive policy): mutate inside it."""
    try:
        inner = json.loads(s)
    except (ValueError, TypeError):
        return None
    if not isinstance(inner, (dict, list)):
        return None
    paths = _paths(inner)
    p = rng.choice(paths[1:] or paths)
    inner = _set(inner, p, rng.choice(_hostile_values(rng)))
    text = json.dumps(inner)
    return text.replace(json.dumps(NAN), "NaN").replace(json.dumps(INF), "Infinity").replace(json.dumps(BIGINT), "9" * 4400)


def _mutate(rng: random.Random, doc, paths, weights):
    path = rng.choices(paths, cum_weights=weights)[0] if paths else ()
    try:
        cur = _get(doc, path)
    except (KeyError, IndexError, TypeError):
        return doc
    op = rng.random()
    if isinstance(cur, str) and op < 0.25:
        new = _mutate_json_string(rng, cur)
        if new is not None:
            return _set(doc, path, new)
    if op < 0.55:
        return _set(doc, path, rng.choice(_hostile_values(rng)))
    if op < 0.65 and path:
        parent = _get(doc, path[:-1])
        if isinstance(parent, dict):
            parent.pop(path[-1], None)
        elif isinstance(parent, list) and parent:
            parent.pop(path[-1])
        return doc
    if op < 0.8:  # change the type but keep the content
        if isinstance(cur, bool):
            new = str(cur).lower()
        elif isinstance(cur, (int, float)):
            new = rng.choice([str(cur), -cur, cur * 1000, [cur], NAN, INF, BIGINT])
        elif isinstance(cur, str):
            new = rng.choice([[cur], {"x": cur}, len(cur), cur + SURROGATE, cur * 2, cur[: len(cur) // 2], cur + " #"])
        elif isinstance(cur, list):
            new = rng.choice([{str(i): v for i, v in enumerate(cur)}, cur + cur, cur[:1], cur[::-1], json.dumps(cur)])
        elif isinstance(cur, dict):
            new = rng.choice([list(cur.values()), list(cur), json.dumps(cur), {**cur, "references": ["var.x", 7]}])
        else:
            new = rng.choice(_hostile_values(rng))
        return _set(doc, path, new)
    if op < 0.9:  # the resource_changes view: flip an attribute to unknown
        rcs = doc.get("resource_changes") if isinstance(doc, dict) else None
        if isinstance(rcs, list) and rcs:
            rc = rng.choice(rcs)
            ch = rc.get("change") if isinstance(rc, dict) else None
            if isinstance(ch, dict) and isinstance(ch.get("after"), dict) and ch["after"]:
                k = rng.choice(list(ch["after"]))
                au = ch.get("after_unknown")
                if isinstance(au, dict):
                    au[k] = True
        return doc
    # duplicate a list element (same address twice, ...)
    if isinstance(cur, list) and cur:
        cur.append(json.loads(json.dumps(rng.choice(cur))))
    return doc


def _encode(rng: random.Random, doc) -> bytes:
    text = json.dumps(doc)
    text = (text.replace(json.dumps(NAN), "NaN").replace(json.dumps(INF), "Infinity")
            .replace(json.dumps(NINF), "-Infinity").replace(json.dumps(BIGINT), "1" + "0" * 4400))
    r = rng.random()
    if r < 0.03:
        return "\ufeff".encode() + text.encode("utf-8", "surrogatepass")
    if r < 0.05:
        return text.encode("utf-16", "surrogatepass")  # with a BOM, as PowerShell 5.1 writes it
    if r < 0.06:
        return text.encode("utf-16-be", "surrogatepass")
    if r < 0.08:
        raw = text.encode("utf-8", "surrogatepass")
        return raw[: rng.randrange(len(raw))]
    return text.encode("utf-8", "surrogatepass")


WAIVER_ADDRESSES = ["*", "aws_sqs_queue.*", "*" * 10 + "x", "a" + "*" * 15 + "b", "*.*.*.*.*.*.*.*.*.*.*.*!",
                    "module.*[*]*.aws_*", "**********************", '*["*"]*']


def _config(rng: random.Random) -> str:
    addr = rng.choice(WAIVER_ADDRESSES)
    return f"waivers:\n  - address: {json.dumps(addr)}\n    reason: fuzz\n"


def hand_made() -> list[Case]:
    """Inputs no mutation of a real plan reaches: encodings, literals, shapes."""
    plan = {"format_version": "1.2", "planned_values": {"root_module": {}}}
    t = json.dumps(plan)
    deep = "[" * 100_000 + "]" * 100_000
    cases = [
        Case(b"", label="empty"), Case(b" \n\t", label="blank"), Case(b"\x00" * 4096, label="zeros"),
        Case(bytes(range(256)) * 64, label="binary"), Case(b"PK\x03\x04rest", label="zip"),
        Case("\ufeff".encode() + t.encode(), label="utf-8 BOM"), Case(t.encode("utf-16"), label="utf-16 BOM"),
        Case(t.encode("utf-16-le"), label="utf-16 no BOM"), Case(t.encode("utf-32"), label="utf-32 BOM"),
        Case(deep.encode(), label="deep list"), Case(("{\"a\":" * 50_000 + "1" + "}" * 50_000).encode(), label="deep object"),
        Case(t.replace('"1.2"', '"0.2"').encode(), label="format 0.2"), Case(t.replace('"1.2"', '"0.1"').encode(), label="format 0.1"),
        Case(t.replace('"1.2"', '"2.0"').encode(), label="format 2.0"), Case(t.replace('"1.2"', '"1.x"').encode(), label="format 1.x"),
        Case(b'{"format_version": "1.2", "planned_values": {}, "x": NaN}', label="NaN"),
        Case(b'{"format_version": "1.2", "planned_values": {}, "x": ' + b"1" * 5000 + b"}", label="big int"),
        Case(b'{"format_version": "1.2", "planned_values": {}, "x": 1' + b"0" * 5000 + b".5}", label="big float"),
        Case(b'{"format_version": "1.2", "planned_values": {}, "x": "\\ud800"}', label="lone surrogate"),
        Case(b'{"format_version": "1.2", "planned_values": {}, "x": "\\u0000"}', label="escaped NUL"),
        Case(b'"just a string"', label="string"), Case(b"42", label="number"), Case(b"null", label="null"),
        Case(b"[]", label="list"), Case(b"{}", label="empty object"), Case(b"{" * 10, label="open braces"),
        Case(b'{"format_version": 1.2, "planned_values": {}}', label="numeric format"),
        Case(b'{"format_version": "1.2", "planned_values": null}', label="null planned_values"),
        Case(b'{"format_version": "1.2", "planned_values": {"root_module": {"child_modules": [{"address": "'
             + b"x" * 1_000_000 + b'"}]}}}', label="1 MB module address"),
    ]
    return cases


def make_case(rng: random.Random, seeds: list[tuple[str, str, list, list]], n_mutations: int | None = None) -> Case:
    name, text, paths, weights, source_dir = rng.choice(seeds)
    doc = json.loads(text)  # a private copy
    muts = n_mutations or rng.choice((1, 1, 1, 2, 3))
    for _ in range(muts):  # later mutations may find a path gone: then they do nothing
        doc = _mutate(rng, doc, paths, weights)
    args = ["--format", rng.choice(("text", "text", "json", "sarif"))]
    if source_dir and rng.random() < 0.5:
        args += ["--source-dir", source_dir]
    if rng.random() < 0.15:
        args.append("--strict")
    if rng.random() < 0.1:
        args.append("--show-pass")
    cfg = _config(rng) if rng.random() < 0.05 else None
    return Case(_encode(rng, doc), args, cfg, f"{name} x{muts}")


def load_seeds(paths: list[Path]) -> list[tuple[str, str, list, list, str | None]]:
    """(name, JSON text, every path in the plan, cumulative weights of the paths, the
    configuration directory it was planned from when known: cases then pass it as
    --source-dir, so the configuration source reader is fuzzed too)."""
    import itertools

    dirs = _config_dirs()
    out = []
    for p in paths:
        text = Path(p).read_text()
        paths_ = _paths(json.loads(text))
        out.append((Path(p).name, text, paths_, list(itertools.accumulate(_interesting(x) for x in paths_)),
                    dirs.get(Path(p).resolve())))
    return out


def _config_dirs() -> dict[Path, str]:
    """Committed fixture plan -> the directory of the configuration it is the plan of."""
    try:
        sys.path.insert(0, str(REPO))
        from tests.policies import fixture_plans, plans
    except ImportError:
        return {}
    out = {}
    for name, (directory, _vars, _offline) in plans.subjects().items():
        out[(fixture_plans.PLANS / f"{fixture_plans.fixture_name(name)}.json").resolve()] = str(directory)
    return out


def default_seed_files() -> list[Path]:
    """Real plans of the policy fixtures and examples (planned through the test plan cache)."""
    sys.path.insert(0, str(REPO))
    from tests.policies import plans

    names = [n for n in plans.subjects() if n.startswith(("config:", "example:")) and n != "config:bench"]
    return [p for p in plans.ensure_all(names).values()]  # the committed fixture plans


# -- running one case ---------------------------------------------------------------------------
@dataclass
class Outcome:
    kind: str  # "0", "1", "2", "internal", "contract", "hang"
    site: str = ""
    detail: str = ""


def _site(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in frames if "/policies/" in f.filename or "resilient_sqs/policy" in f.filename]
    f = (mine or frames or [None])[-1]
    if f is None:
        return type(exc).__name__
    return f"{type(exc).__name__} at {Path(f.filename).name}:{f.lineno} ({f.name})"


def run_in_memory(case: Case, workdir: Path) -> Outcome:
    """The `check` pipeline on the case's bytes in this process, without argument parsing
    and file reading (the CLI tests cover those): decode, parse and validate, evaluate,
    render in the case's format, encode as the CLI writes it. For the in-suite fuzz test."""
    from resilient_sqs.policy import loader
    from resilient_sqs.policy import report as rep
    from resilient_sqs.policy.config import load_config
    from resilient_sqs.policy.engine import evaluate
    from resilient_sqs.policy.errors import InputError

    fmt = case.args[case.args.index("--format") + 1] if "--format" in case.args else "text"
    try:
        cfg = None
        if case.config is not None:
            (workdir / "policy.yaml").write_text(case.config)
            cfg = load_config(str(workdir / "policy.yaml"))
        doc = loader.parse(loader.decode_bytes(case.data, "plan.json"), "plan.json")
        source_dir = case.args[case.args.index("--source-dir") + 1] if "--source-dir" in case.args else None
        report = evaluate(doc, cfg, strict="--strict" in case.args, keep_passes="--show-pass" in case.args,
                          source_dir=source_dir)
        if fmt == "json":
            out = rep.render_json(report, "--show-pass" in case.args)
        elif fmt == "sarif":
            out = rep.render_sarif(report, doc, "plan.json", source_dir or str(workdir))
        else:
            out = rep.render_text(report, "--show-pass" in case.args)
        out.encode("utf-8", "backslashreplace")
        if fmt != "text":
            json.loads(out)
        return Outcome("1" if report.failed() else "0")
    except InputError as e:
        if len(str(e)) > 2000:
            return Outcome("contract", "exit 2 with an error line over 2000 characters", str(e)[:200])
        return Outcome("2")
    except RecursionError:
        return Outcome("2")
    except Exception as e:  # noqa: BLE001 - what the fuzzer is looking for
        return Outcome("internal", _site(e), f"{type(e).__name__}: {str(e)[:200]}")


def run_case(case: Case, workdir: Path) -> Outcome:
    """Run `check` on the case in this process and classify the result."""
    from resilient_sqs.policy import cli

    plan = workdir / "plan.json"
    plan.write_bytes(case.data)
    argv = ["check", str(plan), *case.args]
    if case.config is not None:
        (workdir / "policy.yaml").write_text(case.config)
        argv += ["--config", str(workdir / "policy.yaml")]
    out, err = io.BytesIO(), io.StringIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    os.environ["SQS_POLICY_DEBUG"] = "1"
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(err):
            rc = cli.main(argv)
            sys.stdout.flush()
    except SystemExit as e:  # argparse
        rc = e.code if isinstance(e.code, int) else 2
    except Exception as e:  # noqa: BLE001 - what the fuzzer is looking for
        return Outcome("internal", _site(e), f"{type(e).__name__}: {str(e)[:200]}")
    finally:
        os.environ.pop("SQS_POLICY_DEBUG", None)
    text_err = err.getvalue()
    if "internal error" in text_err or "Traceback" in text_err:
        return Outcome("internal", "reported by main()", text_err[:300])
    if rc == 2:
        lines = text_err.strip().splitlines()
        if len(lines) != 1 or out.getvalue():
            return Outcome("contract", "exit 2 without exactly one line", text_err[:300])
        if len(lines[0]) > 2000:
            return Outcome("contract", "exit 2 with an error line over 2000 characters", lines[0][:200])
        return Outcome("2")
    if rc in (0, 1):
        fmt = case.args[case.args.index("--format") + 1] if "--format" in case.args else "text"
        if fmt in ("json", "sarif"):
            try:
                json.loads(out.getvalue())
            except ValueError as e:
                return Outcome("contract", f"{fmt} output is not JSON", str(e)[:200])
        return Outcome(str(rc))
    return Outcome("contract", f"exit code {rc}", text_err[:300])


# -- the larger run: worker processes with a per-case deadline ------------------------------------
def _worker(seed_files: list[str], seed: int) -> None:
    seeds = load_seeds([Path(p) for p in seed_files])
    hand = hand_made()
    with tempfile.TemporaryDirectory() as tmp:
        for line in sys.stdin:
            i = int(line)
            case = case_for(i, seed, seeds, hand)
            o = run_case(case, Path(tmp))
            sys.__stdout__.write(json.dumps({"i": i, "kind": o.kind, "site": o.site, "detail": o.detail,
                                             "label": case.label}) + "\n")
            sys.__stdout__.flush()


def case_for(i: int, seed: int, seeds, hand) -> Case:
    if i < len(hand):
        return hand[i]
    return make_case(random.Random(f"{seed}:{i}"), seeds)


class _Worker:
    def __init__(self, seed_files, seed):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tooling.fuzz_policy", "--worker", "--seed", str(seed), *map(str, seed_files)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO, bufsize=1)
        self.case: int | None = None
        self.started = 0.0

    def send(self, i: int):
        self.case, self.started = i, time.monotonic()
        self.proc.stdin.write(f"{i}\n")
        self.proc.stdin.flush()

    def kill(self):
        self.proc.kill()
        self.proc.wait()


def run(cases: int, seed: int, workers: int, timeout: float, seed_files) -> dict:
    todo = list(range(cases))
    todo.reverse()
    results: dict[int, dict] = {}
    pool = [_Worker(seed_files, seed) for _ in range(workers)]
    t0 = time.monotonic()
    try:
        for w in pool:
            if todo:
                w.send(todo.pop())
        while any(w.case is not None for w in pool):
            busy = {w.proc.stdout: w for w in pool if w.case is not None}
            ready, _, _ = select.select(list(busy), [], [], 0.5)
            for fh in ready:
                w = busy[fh]
                line = fh.readline()
                if not line:  # the worker died
                    results[w.case] = {"i": w.case, "kind": "internal", "site": "worker process died", "detail": ""}
                    w.kill()
                    pool[pool.index(w)] = w = _Worker(seed_files, seed)
                else:
                    r = json.loads(line)
                    r["seconds"] = time.monotonic() - w.started
                    results[r["i"]] = r
                w.case = None
                if todo:
                    w.send(todo.pop())
            now = time.monotonic()
            for k, w in enumerate(pool):
                if w.case is not None and now - w.started > timeout:
                    results[w.case] = {"i": w.case, "kind": "hang", "site": f"> {timeout:g} s", "detail": ""}
                    w.kill()
                    pool[k] = nw = _Worker(seed_files, seed)
                    if todo:
                        nw.send(todo.pop())
            if len(results) % 500 == 0 and results:
                pass
    finally:
        for w in pool:
            w.kill()
    return {"results": results, "seconds": time.monotonic() - t0}


def report(summary: dict, cases: int, seed: int) -> str:
    res = summary["results"].values()
    hist = Counter(r["kind"] for r in res)
    lines = [f"cases: {cases} (seed {seed}), {summary['seconds']:.0f} s",
             "exit-code histogram: " + ", ".join(f"{k}: {hist.get(k, 0)}" for k in ("0", "1", "2", "internal", "contract", "hang"))]
    for kind in ("internal", "contract", "hang"):
        by_site = defaultdict(list)
        for r in res:
            if r["kind"] == kind:
                by_site[r["site"]].append(r)
        if by_site:
            lines.append(f"{kind}: {sum(len(v) for v in by_site.values())} case(s) at {len(by_site)} site(s)")
            for site, rs in sorted(by_site.items(), key=lambda kv: -len(kv[1])):
                ex = rs[0]
                lines.append(f"  {len(rs):5d}  {site}   e.g. case {ex['i']} ({ex.get('label', '')}): {ex['detail'][:160]}")
    slow = sorted((r for r in res if r.get("seconds", 0) > 2), key=lambda r: -r["seconds"])[:5]
    if slow:
        lines.append("slowest: " + ", ".join(f"case {r['i']} {r['seconds']:.1f} s" for r in slow))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds after which a case counts as a hang")
    ap.add_argument("--show", type=int, metavar="N", help="write case N's files to a directory and print the command")
    ap.add_argument("--json", metavar="FILE", help="also write every case's result to FILE")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("seed_files", nargs="*", help="plan JSONs to mutate (default: the policy fixtures' and examples' plans)")
    args = ap.parse_args(argv)
    if args.worker:
        _worker(args.seed_files, args.seed)
        return 0
    files = [Path(p) for p in args.seed_files] or default_seed_files()
    if args.show is not None:
        case = case_for(args.show, args.seed, load_seeds(files), hand_made())
        d = Path(tempfile.mkdtemp(prefix=f"fuzz-case-{args.show}-"))
        (d / "plan.json").write_bytes(case.data)
        cmd = f"sqs-policy check {d / 'plan.json'} {' '.join(case.args)}"
        if case.config is not None:
            (d / "policy.yaml").write_text(case.config)
            cmd += f" --config {d / 'policy.yaml'}"
        print(f"case {args.show} ({case.label}): {cmd}")
        return 0
    summary = run(args.cases, args.seed, args.workers, args.timeout, files)
    print(report(summary, args.cases, args.seed))
    if args.json:
        Path(args.json).write_text(json.dumps(sorted(summary["results"].values(), key=lambda r: r["i"]), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
