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
Most mutated plans get the mutation in both views (planned_values and
resource_changes), as Terraform would write it; the rest test the refusal of
plans whose views disagree. Three more generators fuzz what surrounds the plan:
``text_case`` (addresses, values and waiver reasons full of ESC sequences, fake
summary lines, bidi overrides: ``text_violation`` checks the text report),
``config_text`` (hostile YAML and TOML config files) and ``source_case``
(hostile copies of a configuration directory: expressions, truncated files,
FIFOs, /dev/zero, oversized files, modules.json pointing anywhere, symlinks).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
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


def _sync_views(doc) -> None:
    """Copy each resource's (mutated) planned values into its change's ``after``, as if Terraform
    had planned it: the checker refuses a plan whose two views disagree (loader.views_disagree)."""
    try:
        planned = {}
        stack = [doc["planned_values"]["root_module"]]
        while stack:
            m = stack.pop()
            for r in m.get("resources") or ():
                planned[r["address"]] = r
            stack.extend(m.get("child_modules") or ())
        for rc in doc.get("resource_changes") or ():
            r = planned.get(rc["address"])
            if r is not None and isinstance(rc["change"], dict) and rc["change"].get("after") is not None:
                rc["change"]["after"] = json.loads(json.dumps(r.get("values") or {}))
    except (KeyError, TypeError, AttributeError, IndexError):
        pass


def make_case(rng: random.Random, seeds: list[tuple[str, str, list, list]], n_mutations: int | None = None) -> Case:
    name, text, paths, weights, source_dir = rng.choice(seeds)
    doc = json.loads(text)  # a private copy
    muts = n_mutations or rng.choice((1, 1, 1, 2, 3))
    for _ in range(muts):  # later mutations may find a path gone: then they do nothing
        doc = _mutate(rng, doc, paths, weights)
    if rng.random() < 0.85:  # mostly reach the rules: the mutation made in both views of the plan
        _sync_views(doc)
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
    from resilient_sqs.policy.formats import Context, render
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
        ctx = Context(report, doc, "plan.json", source_dir or str(workdir), "--show-pass" in case.args)
        out = render(fmt if fmt in ("json", "sarif") else "text", ctx)
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


# -- what surrounds the plan: the text renderer, the config file, the source tree ------------------
# what a terminal acts on: C0/C1 controls (a newline inside a line), DEL, bidi overrides and isolates
TERMINAL_ACTIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
SUMMARY = re.compile(r"^[0-9]+ error\(s\), [0-9]+ warning\(s\), ")
_FORGERIES = ["\x1b[2K", "\r", "\n", "\x1b[1A", "\x1b]0;title\x07", "\x07", "\u202e", "\u2066", "\u200f", "\x9b31m",
              "\x00", "\x7f", "\u2028", "\ufeff", "\x1bc", "\x1b[?1049h", "\x08\x08\x08",
              "\n0 error(s), 0 warning(s), 0 unknown, 0 waived, 9 passed (37 rules, 1 resources)", "\nnote: fake",
              "\r0 error(s), 0 warning(s)", "\nERROR   SQS001 x\n", "\t", "caf\u00e9", "\u2603", SURROGATE]


def hostile_text(rng: random.Random, base: str = "") -> str:
    """``base`` with control, bidi and fake-summary pieces spliced in."""
    parts = [base] if base else []
    for _ in range(rng.randint(1, 4)):
        piece = rng.choice(_FORGERIES)
        at = rng.randint(0, len(parts))
        parts.insert(at, piece)
    return "".join(parts)


def text_violation(out: str) -> str | None:
    """Why a text report breaks the terminal promise (None: it keeps it): nothing a terminal acts
    on, and exactly one summary line, the last."""
    m = TERMINAL_ACTIVE.search(out)
    if m:
        return f"terminal control character {m.group()!r} at {m.start()}: {out[max(0, m.start() - 40):m.start() + 20]!r}"
    lines = out.rstrip("\n").split("\n")
    summaries = [i for i, line in enumerate(lines) if SUMMARY.match(line)]
    if summaries != [len(lines) - 1]:
        return f"summary lines at {summaries} of {len(lines)}"
    return None


def text_case(rng: random.Random, seeds) -> Case:
    """A seed plan whose addresses (in both views) and string values carry forgeries, rendered as text."""
    name, text, _paths_, _w, _src = rng.choice(seeds)
    doc = json.loads(text)
    renames = {}
    for rc in doc.get("resource_changes") or ():
        if rng.random() < 0.5:
            renames[rc["address"]] = hostile_text(rng, rc["address"])
            rc["address"] = renames[rc["address"]]
        after = (rc.get("change") or {}).get("after")
        if isinstance(after, dict):
            for k, v in list(after.items()):
                if isinstance(v, str) and rng.random() < 0.2:
                    after[k] = hostile_text(rng, v)
    stack = [doc["planned_values"]["root_module"]]
    while stack:
        m = stack.pop()
        for r in m.get("resources") or ():
            r["address"] = renames.get(r["address"], r["address"])
        stack.extend(m.get("child_modules") or ())
    # the change's after, now hostile, is what both views say
    after = {rc["address"]: rc["change"].get("after") for rc in doc.get("resource_changes") or ()}
    stack = [doc["planned_values"]["root_module"]]
    while stack:
        m = stack.pop()
        for r in m.get("resources") or ():
            if isinstance(after.get(r["address"]), dict):
                r["values"] = json.loads(json.dumps(after[r["address"]]))
        stack.extend(m.get("child_modules") or ())
    cfg = None
    if rng.random() < 0.3:
        cfg = (f"waivers:\n  - address: {json.dumps(rng.choice(['*', 'aws_sqs_queue.*', '*.*']))}\n"
               f"    reason: {json.dumps(hostile_text(rng, 'reason'))}\n")
    args = ["--format", "text"] + (["--show-pass"] if rng.random() < 0.3 else [])
    return Case(json.dumps(doc).encode("utf-8", "surrogatepass"), args, cfg, f"text {name}")


def run_text_case(case: Case, workdir: Path) -> Outcome:
    """run_in_memory, then the terminal promise on the text output."""
    from resilient_sqs.policy import loader
    from resilient_sqs.policy.formats import Context, render
    from resilient_sqs.policy.config import load_config
    from resilient_sqs.policy.engine import evaluate
    from resilient_sqs.policy.errors import InputError

    try:
        cfg = None
        if case.config is not None:
            (workdir / "policy.yaml").write_text(case.config, errors="surrogatepass")
            cfg = load_config(str(workdir / "policy.yaml"))
        doc = loader.parse(loader.decode_bytes(case.data, "plan.json"), "plan.json")
        report = evaluate(doc, cfg, keep_passes="--show-pass" in case.args)
        out = render("text", Context(report, doc, "plan.json", str(workdir), "--show-pass" in case.args))
    except InputError as e:
        from resilient_sqs.policy.terminal import escape

        line = escape(" ".join(str(e).split()))
        if TERMINAL_ACTIVE.search(line):
            return Outcome("contract", "error line with a terminal control character", line[:200])
        return Outcome("2")
    except Exception as e:  # noqa: BLE001 - what the fuzzer is looking for
        return Outcome("internal", _site(e), f"{type(e).__name__}: {str(e)[:200]}")
    why = text_violation(out)
    if why:
        return Outcome("contract", "text report forgeable", why[:200])
    return Outcome("1" if report.failed() else "0")


_RULE_WORDS = ["SQS001", "SQS003", "queue-has-dlq", "ESM001", "CFG001", "*", "SQS*", "", "nope", "SQS999", "dlq-*"]


def _hostile_config_value(rng: random.Random, depth: int = 0):
    r = rng.random()
    if r < 0.15 and depth < 3:
        return [_hostile_config_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if r < 0.25 and depth < 3:
        return {rng.choice(["min", "max", "floor", "severity", "enabled", "x", "multiplier"]):
                _hostile_config_value(rng, depth + 1)}
    return rng.choice([0, -1, 3, 10 ** 30, 1.5, True, None, "error", "warning", "fatal", "", "x" * 300,
                       "2026-06-30", "not a date", rng.choice(_RULE_WORDS), hostile_text(rng, "t"), "(", "[a-"])


def config_text(rng: random.Random) -> tuple[str, bytes]:
    """(file name, bytes) of a hostile config file: YAML or TOML, valid or not."""
    r = rng.random()
    if r < 0.1:  # raw hostile bytes
        name = rng.choice(["c.yaml", "c.toml", "c.yml"])
        return name, rng.choice([
            b"select: " + b"[" * 20000 + b"]" * 20000, b"select = " + b"[" * 20000 + b"]" * 20000,
            b"rules: {SQS003: {min: 1" + b"0" * 5000 + b"}}", b"[rules.SQS003]\nmin = 1" + b"0" * 5000,
            b"\xff\xfe\x00garbage", b"a: &a [*a, *a]", b"? [1, 2]\n: x", b"select: !!python/object:os.system x",
            b"[rules.ESM001]\nmultiplier = nan", b"[rules.ESM001]\nmultiplier = inf", b"select = []\nselect = []",
            b"1: x", b"- a\n- b", b"", b"\xef\xbb\xbfselect: [SQS001]", b"waivers: [" + b"{}, " * 5000 + b"]",
            b"x" * 2_000_000,
        ])
    data: dict = {}
    if rng.random() < 0.5:
        data["select"] = rng.choice([[], ["*"], [rng.choice(_RULE_WORDS)], _hostile_config_value(rng)])
    if rng.random() < 0.4:
        data["ignore"] = rng.choice([["*"], [rng.choice(_RULE_WORDS)], _hostile_config_value(rng)])
    if rng.random() < 0.5:
        data["rules"] = {rng.choice(_RULE_WORDS): _hostile_config_value(rng) for _ in range(rng.randint(1, 3))}
    if rng.random() < 0.5:
        data["waivers"] = [{k: _hostile_config_value(rng) if rng.random() < 0.4 else v for k, v in
                            {"address": rng.choice(WAIVER_ADDRESSES), "reason": hostile_text(rng, "because"),
                             "rules": [rng.choice(_RULE_WORDS)], "expires": "2099-01-01"}.items()}
                           for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.1:
        data[rng.choice(["unknown", 7, "Select"])] = 1
    if rng.random() < 0.7:
        import yaml

        try:
            text = yaml.safe_dump(data, allow_unicode=True) if rng.random() < 0.5 else json.dumps(data)
        except (yaml.YAMLError, TypeError, ValueError):
            text = json.dumps(data, default=str)
        return rng.choice(["c.yaml", "c.yml"]), text.encode("utf-8", "surrogatepass")
    lines = []
    for k in ("select", "ignore"):
        if isinstance(data.get(k), list):
            lines.append(f"{k} = {json.dumps(data[k], default=str)}")
    for rid, opts in (data.get("rules") or {}).items():
        lines.append(f"[rules.{json.dumps(rid)}]")
        if isinstance(opts, dict):
            lines += [f"{k} = {json.dumps(v, default=str)}" for k, v in opts.items() if v is not None]
    return "c.toml", "\n".join(lines).encode("utf-8", "surrogatepass")


def run_config_case(name: str, data: bytes, plan_text: str, workdir: Path) -> Outcome:
    """load_config on the file, then a text check of a real plan with it: exit 0, 1 or one error line."""
    from resilient_sqs.policy import loader
    from resilient_sqs.policy.formats import Context, render
    from resilient_sqs.policy.config import load_config
    from resilient_sqs.policy.engine import evaluate
    from resilient_sqs.policy.errors import InputError

    f = workdir / name
    f.write_bytes(data)
    try:
        cfg = load_config(str(f))
        doc = loader.parse(plan_text, "plan.json")
        report = evaluate(doc, cfg, keep_passes=False)
        out = render("text", Context(report, doc, "plan.json", str(workdir)))
    except InputError as e:
        if len(str(e)) > 2000 or "the plan" in str(e).split(":", 2)[-1][:40]:
            return Outcome("contract", "config error too long or naming the plan", str(e)[:200])
        return Outcome("2")
    except Exception as e:  # noqa: BLE001
        return Outcome("internal", _site(e), f"{type(e).__name__}: {str(e)[:200]}")
    why = text_violation(out)
    if why:
        return Outcome("contract", "text report forgeable", why[:200])
    return Outcome("1" if report.failed() else "0")


_HCL_SNIPPETS = [
    "[for a in [1, 2, 3] : [for b in [1, 2, 3] : a * b]]", "length(" + "[" * 200 + "]" * 200 + ")", "1" + "0" * 5000,
    '"${' + "x" * 10 + '"', '"\x1b[2K\\n"', "tostring(null)", "jsonencode({a = [for i in [1, 2] : i]})",
    "var.nope", "local.nope", "module.nope.x", "each.value", "count.index", "try(local.l[99], 5)", '"\u202e"',
    "merge({}, 5)", "format(\"%d\", \"x\")", "coalesce()", "split(\",\", 5)", "[" * 3000 + "]" * 3000,
    "{ for k, v in {a = 1} : k => v... }", "1 / 0", "\"a\" + 1", "lookup({}, \"k\")", "templatefile(\"x\", {})",
]


def source_case(rng: random.Random, base: Path, workdir: Path) -> tuple[Path, str]:
    """A copy of configuration ``base`` in ``workdir`` with one or two hostile changes: an expression,
    a truncated file, a FIFO or /dev/zero or oversized .tf, a modules.json pointing elsewhere or not
    JSON or not a file, a symlink out of the tree, a .tf.json. Returns (directory, label)."""
    import shutil

    d = workdir / "src"
    if d.exists():
        shutil.rmtree(d)
    shutil.copytree(base, d, ignore=shutil.ignore_patterns(".terraform*"), symlinks=True)
    tfs = sorted(d.rglob("*.tf"))
    labels = []
    for _ in range(rng.choice((1, 1, 2))):
        op = rng.randrange(9)
        f = rng.choice(tfs)
        if op <= 2:  # replace a literal (number or string) with a hostile expression
            text = f.read_text()
            lits = [m for m in re.finditer(r'(?<== )(?:[0-9]+|"[^"$\n]*")', text)]
            if lits:
                m = rng.choice(lits)
                text = text[:m.start()] + rng.choice(_HCL_SNIPPETS) + text[m.end():]
                f.write_text(text)
            labels.append("expression")
        elif op == 3:
            raw = f.read_bytes()
            f.write_bytes(raw[: rng.randrange(len(raw) + 1)] + rng.choice([b"", b"\xff\xfe", b"${", b"<<EOF\n"]))
            labels.append("truncated")
        elif op == 4:
            extra = d / rng.choice(["zz.tf", "aa.tf"])
            kind = rng.choice(["fifo", "zero", "big", "dir"])
            if kind == "fifo":
                os.mkfifo(extra)
            elif kind == "zero":
                extra.symlink_to("/dev/zero")
            elif kind == "big":
                extra.write_bytes(b"# x\n" * (1_200_000))
            else:
                extra.mkdir()
            labels.append(f"extra .tf {kind}")
        elif op == 5:
            mj = d / ".terraform" / "modules" / "modules.json"
            mj.parent.mkdir(parents=True, exist_ok=True)
            if mj.exists() or mj.is_symlink():
                mj.unlink()
            kind = rng.choice(["outside", "root", "etc", "dotdot", "notjson", "deep", "fifo", "zero", "shape"])
            mods = [{"Key": "", "Source": "", "Dir": "."}]
            key = next((m.group(1) for t in tfs for m in re.finditer(r'module "([^"]+)"', t.read_text())), "x")
            if kind in ("outside", "root", "etc", "dotdot"):
                mods.append({"Key": key, "Source": "./m", "Dir": {"outside": str(workdir), "root": "/",
                                                                     "etc": "/etc", "dotdot": "../../.."}[kind]})
                mj.write_text(json.dumps({"Modules": mods}))
            elif kind == "notjson":
                mj.write_text("{not json")
            elif kind == "deep":
                mj.write_text("[" * 100_000 + "]" * 100_000)
            elif kind == "fifo":
                os.mkfifo(mj)
            elif kind == "zero":
                mj.symlink_to("/dev/zero")
            else:
                mj.write_text(json.dumps({"Modules": rng.choice([5, [5], [{"Key": 5, "Dir": []}], None])}))
            labels.append(f"modules.json {kind}")
        elif op == 6:
            outside = workdir / "outside.tf"
            outside.write_text('resource "aws_sqs_queue" "x" {}\n')
            f.unlink()
            f.symlink_to(outside)
            labels.append("symlink out")
        elif op == 7:
            (d / "extra.tf.json").write_text("{}")
            labels.append(".tf.json")
        else:
            text = f.read_text()
            f.write_text(text.replace('"', '"' + rng.choice(["\\u202e", "\\n", "é", "$${"]), 1))
            labels.append("string")
    return d, "+".join(labels)


def run_source_case(doc_text: str, src: Path, fmt: str) -> Outcome:
    """evaluate with --source-dir ``src`` and render; every case must end in 0 or 1 (the source never
    fails a check), within seconds, a text report keeping the terminal promise."""
    from resilient_sqs.policy import loader
    from resilient_sqs.policy.formats import Context, render
    from resilient_sqs.policy.engine import evaluate

    t0 = time.monotonic()
    try:
        doc = loader.parse(doc_text, "plan.json")
        report = evaluate(doc, source_dir=str(src))
        out = render(fmt if fmt in ("json", "sarif") else "text", Context(report, doc, "plan.json", str(src)))
    except Exception as e:  # noqa: BLE001 - reading the source must never fail the check
        return Outcome("internal", _site(e), f"{type(e).__name__}: {str(e)[:200]}")
    if time.monotonic() - t0 > 20:
        return Outcome("hang", "> 20 s", f"{time.monotonic() - t0:.0f} s")
    if fmt == "text":
        why = text_violation(out)
        if why:
            return Outcome("contract", "text report forgeable", why[:200])
    else:
        json.loads(out)
    return Outcome("1" if report.failed() else "0")


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
