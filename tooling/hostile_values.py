"""Hostile values in every place a pull request controls, through every report format, read by
the real consumers (issue #30).

    .venv/bin/python -m tooling.hostile_values [-v] [--class NAME] [--place NAME]

A pull request's author writes the plan's ``for_each`` keys, IAM statement ids and actions,
redrive targets, waiver reasons (config file and ``# sqs-policy:ignore`` comments), ``.tf``
file names and contents (a parse error quotes them), config values, baseline entries and the
plan's own file name. Each payload class (runner commands V1/V2/Azure, table-cell breakers,
Markdown/HTML/links/mentions, Mermaid directives and statements, XML-invalid characters and
``]]>``, terminal escapes, very long strings) is put into each such place; ``sqs-policy
check`` runs once per case through its CLI entry point (in this process, so the suite's fast
tier can afford every case) with every format written (``--format text`` to standard output,
``--report FMT=PATH`` for the others, ``github`` to standard output too), and each output is
read by tooling.report_consumers: the runner's command grammar for every output and standard
error, cmark-gfm for Markdown, lxml and ElementTree for JUnit, ``json`` for the JSON ones.
The Mermaid parser (node) reads the Markdown in tests/policies/test_hostile_values.py's slower
test. Printed: per place and class, the promises broken.
"""
from __future__ import annotations

import argparse
import contextlib
import copy
import gc
import io
import json
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tooling.report_consumers import check_markdown_cells, check_report, check_runner

REPO = Path(__file__).resolve().parent.parent
PLANS = REPO / "tests" / "policies" / "plans"
CONFIGS = REPO / "tests" / "policies" / "configs"
FORMATS = ("text", "json", "sarif", "junit", "github", "gitlab", "markdown", "atlantis", "spacelift", "hcp-run-task")

PAYLOADS: dict[str, list[str]] = {
    "runner-v1": ["##[stop-commands]t0kenXYZ", "##[error title=forged]forged", "x ##[add-mask]secret",
                  "##[set-output name=x;]y", "##vso[task.setvariable variable=x]y", "##[group]g", "#" * 3 + "[endgroup]"],
    "runner-v2": ["::error::forged", "\n::error title=f::forged", "\r::add-mask::s", "\u00a0::warning::x",
                  "\n\u2003::stop-commands::tok", "\r\n::notice::n", "\n\t::set-output name=a::b"],
    "cell-breakers": ["a|b", "`x`", "```", "a\rb", "a\nb", "a\r\nb", "\\|", "a\u2028b", "a\x85b", "|---|"],
    "markdown": ["<img src=x onerror=alert(1)>", "[click](https://evil.example/)", "![i](https://evil.example/i.png)",
                 "@octocat", "a@evil.example", "https://evil.example/x", "www.evil.example", "# heading",
                 "<details open>", "<!-- c -->", "&lt;b&gt;", "**bold** _it_ ~~s~~", "<script>alert(1)</script>",
                 "[x]: https://evil.example", "\n# heading\n"],
    "mermaid": ['%%{init: {"securityLevel": "loose"}}%%', '"] click n0 href "https://evil.example" ["',
                '"] --> x["', "#quot;", "a;b", "`**md**`", "<b>x</b>", 'x"]\n  click n0 call alert()\n  y["',
                "%% comment", "end"],
    "xml": ["\x00\x01\x08\x0b\x1b", "\udc80", "\ud800x", "]]>", "\ufffe\uffff", "<![CDATA[x]]>", "&amp;"],
    "terminal": ["\x1b]0;title\x07", "\u202etxt", "\x1b[2K\r\x1b[1A"],
    "long": ["x" * 70_000, "##[" * 2000],
}


@dataclass
class Case:
    args: list[str]
    expect_rc: tuple = (0, 1)
    stderr_only: bool = False  # an input error: only standard error is judged (one line, exit 2)


@dataclass
class Outcome:
    place: str
    cls: str
    problems: list[str] = field(default_factory=list)


# -- plans -------------------------------------------------------------------------------------------------
def _load(name: str) -> dict:
    return json.loads((PLANS / name).read_text())


def _dump(tmp: Path, doc: dict, name: str = "plan.json") -> str:
    p = tmp / name
    p.write_bytes(json.dumps(doc).encode("utf-8", "surrogatepass"))
    return str(p)


def _resources(doc: dict):
    stack = [doc["planned_values"]["root_module"]]
    while stack:
        m = stack.pop()
        yield from m.get("resources") or ()
        stack.extend(m.get("child_modules") or ())


def _set(doc: dict, address: str, **values):
    for rc in doc["resource_changes"]:
        if rc["address"] == address:
            rc["change"]["after"].update(values)
    for r in _resources(doc):
        if r["address"] == address:
            r["values"].update(values)


def _queue_plan(keys: list[str]) -> dict:
    """One queue per key, ``aws_sqs_queue.q[KEY]`` (for_each), no DLQ: every report names it."""
    from tooling.surroundings_cases import queue_plan

    doc = queue_plan('aws_sqs_queue.q["k"]')
    res = doc["planned_values"]["root_module"]["resources"][0]
    rc = doc["resource_changes"][0]
    doc["planned_values"]["root_module"]["resources"] = []
    doc["resource_changes"] = []
    for k in keys:
        addr = "aws_sqs_queue.q[" + json.dumps(k, ensure_ascii=False) + "]"
        r, c = copy.deepcopy(res), copy.deepcopy(rc)
        r["address"] = c["address"] = addr
        r["index"] = c["index"] = k
        doc["planned_values"]["root_module"]["resources"].append(r)
        doc["resource_changes"].append(c)
    return doc


def _joined(values: list[str]) -> str:
    return "\n".join(values)


# -- places ------------------------------------------------------------------------------------------------
def place_for_each_key(tmp, values):
    return Case([_dump(tmp, _queue_plan([*values, _joined(values)])), "--no-source"])


def place_module_key(tmp, values):
    doc = _queue_plan(values)
    for r in [*_resources(doc), *doc["resource_changes"]]:
        key = json.dumps(r["index"], ensure_ascii=False)
        r["address"] = f"module.m[{key}].aws_sqs_queue.q"
        r["index"] = None
        r.pop("index")
    for i, r in enumerate(doc["planned_values"]["root_module"]["resources"]):
        r["address"] = doc["resource_changes"][i]["address"]
    mods = [{"address": r["address"].rsplit(".aws_sqs_queue", 1)[0], "resources": [r]}
            for r in doc["planned_values"]["root_module"]["resources"]]
    doc["planned_values"]["root_module"] = {"resources": [], "child_modules": mods}
    for rc in doc["resource_changes"]:
        rc["module_address"] = rc["address"].rsplit(".aws_sqs_queue", 1)[0]
    return Case([_dump(tmp, doc), "--no-source"])


def place_iam_statement(tmp, values):
    doc = _load("iam-equivalents.json")
    addr = 'aws_iam_policy.p["star_colon_star"]'
    stmts = [{"Sid": v, "Effect": "Allow", "Action": ["sqs:*", v], "Resource": "*"} for v in [*values, _joined(values)]]
    _set(doc, addr, policy=json.dumps({"Version": "2012-10-17", "Statement": stmts}))
    return Case([_dump(tmp, doc), "--no-source"])


def place_redrive_target(tmp, values):
    doc = _queue_plan(["a"])
    _set(doc, doc["resource_changes"][0]["address"], redrive_policy=json.dumps(
        {"deadLetterTargetArn": "https://sqs.us-east-1.amazonaws.com/123456789012/" + _joined(values),
         "maxReceiveCount": 5}))
    return Case([_dump(tmp, doc), "--no-source"])


def place_config_waiver(tmp, values):
    doc = _queue_plan(["a", "b"])
    cfg = {"waivers": [{"address": 'aws_sqs_queue.q["a"]', "rules": ["SQS002"], "reason": _joined(values),
                        "expires": "2099-01-01"},
                       {"address": 'aws_sqs_queue.q["b"]', "rules": ["SQS001"], "reason": _joined(values),
                        "expires": "2000-01-01"},
                       {"address": "nothing." + _joined(values), "reason": "unused: " + _joined(values)}]}
    (tmp / "cfg.yaml").write_bytes(json.dumps(cfg).encode("utf-8", "surrogatepass"))  # JSON is YAML
    return Case([_dump(tmp, doc), "--no-source", "--config", str(tmp / "cfg.yaml")])


def place_baseline_entry(tmp, values):
    doc = _queue_plan(["a"])
    base = {"sqs-policy-baseline": "1.0", "tool": "x", "findings": [
        {"rule": "SQS002", "address": v, "kind": "fail", "related": [], "count": 1, "message": v}
        for v in [*values, _joined(values)]]}
    (tmp / "base.json").write_bytes(json.dumps(base).encode("utf-8", "surrogatepass"))
    return Case([_dump(tmp, doc), "--no-source", "--baseline", str(tmp / "base.json")])


def _source(tmp) -> Path:
    dst = tmp / "root"
    shutil.copytree(CONFIGS / "inline-waivers", dst, ignore=shutil.ignore_patterns(".terraform*"))
    return dst


def _plan_with_source(tmp, src: Path) -> list[str]:
    plan = tmp / "iw.json"
    shutil.copy(PLANS / "inline-waivers.json", plan)
    return [str(plan), "--source-dir", str(src)]


def place_inline_waiver_reason(tmp, values):
    src = _source(tmp)
    main = src / "main.tf"
    text = main.read_text()
    reason = _joined(values).replace("\\", "\\\\").replace('"', '\\"')
    text = text.replace('reason="audit queue: its consumer parks poison messages itself (TICKET-1)"',
                        f'reason="{reason}"')
    main.write_bytes(text.encode("utf-8", "surrogatepass"))
    return Case(_plan_with_source(tmp, src))


def _file_name(v: str) -> str:
    name = "".join("_" if c in "/\0" or 0xD800 <= ord(c) <= 0xDBFF else c for c in v)
    raw = name.encode("utf-8", "surrogateescape")[:200]
    return raw.decode("utf-8", "ignore") or "_"


def place_tf_file_name(tmp, values):
    src = _source(tmp)
    for v in values:
        name = _file_name(v) + ".tf"
        try:
            (src / name).write_text('# sqs-policy:ignore SQS009 reason="outside any block"\n')
        except (OSError, UnicodeEncodeError, ValueError):
            continue
    return Case(_plan_with_source(tmp, src))


def place_parse_error(tmp, values):
    src = _source(tmp)
    (src / "zz.tf").write_bytes(('locals {\n  a = "x"\n}\n' + _joined(values) + " {\n").encode(
        "utf-8", "surrogatepass"))
    return Case(_plan_with_source(tmp, src))


def place_plan_file_name(tmp, values):
    name = _file_name(_joined(values)).replace("\n", "_") + ".json"
    d = tmp / "plans"
    d.mkdir()
    try:
        path = _dump(d, _queue_plan(["a"]), name)
    except (OSError, UnicodeEncodeError, ValueError):
        path = _dump(d, _queue_plan(["a"]))
    return Case([path, "--no-source"])


def place_config_value(tmp, values):
    (tmp / "cfg.yaml").write_bytes(json.dumps({"select": [_joined(values)]}).encode("utf-8", "surrogatepass"))
    return Case([_dump(tmp, _queue_plan(["a"])), "--config", str(tmp / "cfg.yaml")], (2,), stderr_only=True)


def place_baseline_rule(tmp, values):
    (tmp / "base.json").write_bytes(json.dumps({"sqs-policy-baseline": "1.0", "findings": [
        {"rule": _joined(values), "address": "x"}]}).encode("utf-8", "surrogatepass"))
    return Case([_dump(tmp, _queue_plan(["a"])), "--baseline", str(tmp / "base.json")], (2,), stderr_only=True)


def place_plan_parse_error(tmp, values):
    p = tmp / "bad.json"
    p.write_bytes(('{"format_version": "1.2", ' + json.dumps(_joined(values))[1:-1] + "}").encode(
        "utf-8", "surrogatepass"))
    return Case([str(p)], (2,), stderr_only=True)


PLACES = {name.removeprefix("place_").replace("_", "-"): fn for name, fn in globals().items()
          if name.startswith("place_")}


# -- running -------------------------------------------------------------------------------------------------
class _Out(io.StringIO):
    pass


def run_check(args: list[str], report_dir: Path) -> tuple[int, str, str, dict[str, str]]:
    """``sqs-policy check ARGS`` with every format: (exit code, stdout, stderr, {format: report})."""
    from resilient_sqs.policy import cli

    paths = {fmt: report_dir / f"report.{fmt}" for fmt in FORMATS if fmt != "text"}
    argv = ["check", *args, "--format", "text", *[f"--report={fmt}={p}" for fmt, p in paths.items()]]
    out, err = _Out(), _Out()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = cli.main(argv)
        finally:
            gc.enable()  # main() turns the collector off for its own short-lived process
    reports = {"text": out.getvalue()}
    for fmt, p in paths.items():
        if p.exists():
            reports[fmt] = p.read_bytes().decode("utf-8")
    return rc, out.getvalue(), err.getvalue(), reports


def run_case(place: str, cls: str, values: list[str] | None = None) -> Outcome:
    values = PAYLOADS[cls] if values is None else values
    oc = Outcome(place, cls)
    with tempfile.TemporaryDirectory(prefix="hostile-") as d:
        tmp = Path(d)
        case = PLACES[place](tmp, values)
        rep = tmp / "reports"
        rep.mkdir()
        rc, out, err, reports = run_check(case.args, rep)
        if rc not in case.expect_rc:
            oc.problems.append(f"exit {rc}, expected {case.expect_rc}: {err[:300]!r}")
        if "Traceback" in err or "internal error" in err:
            oc.problems.append(f"internal error: {err[:300]!r}")
        oc.problems += [f"stderr: {p}" for p in check_runner(err, "stderr")]
        if err.count("\n") > 1 and case.stderr_only:
            oc.problems.append(f"{err.count(chr(10))} lines on stderr")
        if not case.stderr_only:
            for fmt, text in reports.items():
                oc.problems += check_report(fmt, text)
            if "json" in reports and "markdown" in reports:
                found = [(f["address"], f["message"]) for f in json.loads(reports["json"])["findings"]]
                oc.problems += check_markdown_cells(reports["markdown"], found)
    return oc


def run_all(places=None, classes=None) -> list[Outcome]:
    return [run_case(p, c) for p in (places or PLACES) for c in (classes or PAYLOADS)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--place", action="append", choices=sorted(PLACES))
    ap.add_argument("--class", dest="classes", action="append", choices=sorted(PAYLOADS))
    ap.add_argument("-v", action="store_true", help="print every broken promise, not only the counts")
    a = ap.parse_args(argv)
    outcomes = run_all(a.place, a.classes)
    broken = 0
    for oc in outcomes:
        status = "ok" if not oc.problems else f"{len(oc.problems)} broken"
        print(f"{oc.place:<24} {oc.cls:<14} {status}")
        if oc.problems:
            broken += 1
            for p in oc.problems[: None if a.v else 3]:
                print(f"    {p[:300]}")
    print(f"{len(outcomes)} cases, {broken} with a broken promise")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
