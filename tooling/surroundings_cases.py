"""Hand-made cases of what surrounds the plan (issue #24), run against a checker and counted.

    .venv/bin/python -m tooling.surroundings_cases [--pkg DIR] [-v]

Each case is an input the checker's promises cover (terminal output that cannot be
forged, a report that reaches its reader or exit 2, a config file read as strictly as
the plan, files besides the plan read bounded and inside the tree, plans whose two views
disagree, sensitive values never printed, the old entry point) with the promise it must
keep; every case runs `sqs-policy check` in a fresh process (20 s, 2 GiB of address space:
a hang or an endless read is a broken promise, not a stuck run). Printed: per class, the
cases and the promises broken (with their names).

--pkg DIR runs the checker found in DIR (holding resilient_sqs/ with its policy/ package)
instead of the installed one, e.g. the code before a change:

    git archive COMMIT resilient_sqs policies | tar -x -C /tmp/old && ln -s ../policies /tmp/old/resilient_sqs/policy
    .venv/bin/python -m tooling.surroundings_cases --pkg /tmp/old
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import site
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE_GOOD = REPO / "tests" / "policies" / "configs" / "source-good"
# the offline provider file the fixture configurations are planned with (not in their directories)
SHARED_PROVIDER = REPO / "tests" / "policies" / "configs" / "_provider" / "providers.tf"
SOURCE_GOOD_PLAN = REPO / "tests" / "policies" / "plans" / "source-good.json"
BIG_PLAN = REPO / "tests" / "policies" / "plans" / "queue-bad.json"
TERMINAL_ACTIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
SUMMARY = re.compile(r"^[0-9]+ error\(s\), [0-9]+ warning\(s\), ")
TIMEOUT = 20


class Run:
    def __init__(self, rc, out: bytes, err: bytes, seconds: float, hung: bool = False):
        self.rc, self.out, self.err, self.seconds, self.hung = rc, out, err, seconds, hung

    @property
    def text(self) -> str:
        return self.out.decode("utf-8", "replace")

    @property
    def etext(self) -> str:
        return self.err.decode("utf-8", "replace")


class Checker:
    def __init__(self, pkg: str | None):
        self.pkg = pkg

    def cmd(self, module: str = "resilient_sqs.policy") -> tuple[list[str], dict]:
        env = dict(os.environ)
        env.pop("PYTHONUNBUFFERED", None)
        if self.pkg:  # no site (the editable install), no current directory (the checkout's own packages)
            env["PYTHONPATH"] = os.pathsep.join([self.pkg, *site.getsitepackages()])
            return [sys.executable, "-S", "-P", "-m", module], env
        return [sys.executable, "-m", module], env

    def run(self, *args: str, env: dict | None = None, cwd: Path = REPO, module: str = "resilient_sqs.policy",
            stdout=None) -> Run:
        cmd, base = self.cmd(module)
        t0 = time.monotonic()
        try:
            p = subprocess.run([*cmd, *args], capture_output=stdout is None, stdout=stdout,
                               stderr=subprocess.PIPE if stdout is not None else None, cwd=cwd,
                               env={**base, **(env or {})}, timeout=TIMEOUT, preexec_fn=_limit)
        except subprocess.TimeoutExpired as e:
            return Run(None, e.stdout or b"", e.stderr or b"", TIMEOUT, hung=True)
        return Run(p.returncode, p.stdout or b"", p.stderr or b"", time.monotonic() - t0)

    def into_pipe(self, args: list[str], env: dict, nonblocking: bool, read_limit: int | None) -> Run:
        cmd, base = self.cmd()
        r, w = os.pipe()
        if nonblocking:
            os.set_blocking(w, False)
        t0 = time.monotonic()
        proc = subprocess.Popen([*cmd, *args], stdout=w, stderr=subprocess.PIPE, cwd=REPO, env={**base, **env},
                                preexec_fn=_limit)
        os.close(w)
        time.sleep(0.3)
        got = b""
        with os.fdopen(r, "rb", buffering=0) as fh:
            while read_limit is None or len(got) < read_limit:
                chunk = fh.read(65536 if read_limit is None else read_limit - len(got))
                if not chunk:
                    break
                got += chunk
        try:
            rc = proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            return Run(None, got, b"", TIMEOUT, hung=True)
        return Run(rc, got, proc.stderr.read(), time.monotonic() - t0)


def _limit():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


# -- inputs ---------------------------------------------------------------------------------------------------
def queue_plan(address="aws_sqs_queue.q", values=None, after_sensitive=None) -> dict:
    vals = {"name": "q", "message_retention_seconds": 345600, "visibility_timeout_seconds": 30,
            "receive_wait_time_seconds": 20, "sqs_managed_sse_enabled": False, **(values or {})}
    res = {"address": address, "mode": "managed", "type": "aws_sqs_queue", "name": "q",
           "provider_name": "registry.terraform.io/hashicorp/aws", "schema_version": 0, "values": vals,
           "sensitive_values": {}}
    return {"format_version": "1.2", "terraform_version": "1.11.4",
            "planned_values": {"root_module": {"resources": [res]}},
            "resource_changes": [{"address": address, "mode": "managed", "type": "aws_sqs_queue", "name": "q",
                                  "provider_name": "registry.terraform.io/hashicorp/aws",
                                  "change": {"actions": ["create"], "before": None, "after": dict(vals),
                                             "after_unknown": {"arn": True, "id": True, "url": True},
                                             "before_sensitive": False, "after_sensitive": after_sensitive or {}}}]}


def write(tmp: Path, name: str, data) -> str:
    p = tmp / name
    p.write_bytes(data if isinstance(data, bytes) else (data if isinstance(data, str) else json.dumps(data))
                  .encode("utf-8", "surrogatepass"))
    return str(p)


def copy_source(tmp: Path) -> Path:
    dst = tmp / "root"
    shutil.copytree(SOURCE_GOOD, dst, ignore=shutil.ignore_patterns(".terraform*"))
    return dst


# -- promises -------------------------------------------------------------------------------------------------
def one_error_line(r: Run, *needles) -> str | None:
    if r.hung:
        return "hung"
    lines = r.etext.strip().splitlines()
    if r.rc != 2:
        return f"exit {r.rc}, not 2"
    if len(lines) != 1:
        return f"{len(lines)} stderr lines"
    if "Traceback" in r.etext or "internal error" in r.etext:
        return "internal error"
    for n in needles:
        if n not in r.etext:
            return f"stderr lacks {n!r}: {r.etext[:150]!r}"
    if TERMINAL_ACTIVE.search(r.etext.rstrip("\n")):
        return "stderr holds a terminal control character"
    return None


def clean_text(r: Run) -> str | None:
    if r.hung:
        return "hung"
    if r.rc not in (0, 1):
        return f"exit {r.rc}: {r.etext[:150]!r}"
    out = r.text
    m = TERMINAL_ACTIVE.search(out)
    if m:
        return f"stdout holds {m.group()!r}"
    lines = out.rstrip("\n").split("\n")
    if [i for i, line in enumerate(lines) if SUMMARY.match(line)] != [len(lines) - 1]:
        return "more than one summary line, or not last"
    if TERMINAL_ACTIVE.search(r.etext.replace("\n", "")):
        return "stderr holds a terminal control character"
    return None


def checked(r: Run) -> str | None:
    """exit 0 or 1, promptly (the source never fails or blocks the check)."""
    if r.hung:
        return "hung"
    if r.rc not in (0, 1):
        return f"exit {r.rc}: {r.etext[-200:]!r}"
    return None


# -- the cases --------------------------------------------------------------------------------------------------
CASES: dict[str, list] = defaultdict(list)


def case(cls: str, name: str):
    def deco(fn):
        CASES[cls].append((name, fn))
        return fn
    return deco


FORGERIES = {
    "csi-erase": "\x1b[2K\r\x1b[1A\x1b[2K", "osc-title": "\x1b]0;pwned\x07", "bel": "\x07", "cr": "\rOK ",
    "lf-summary": "\n0 error(s), 0 warning(s), 0 unknown, 0 waived, 9 passed (37 rules, 1 resources)",
    "rlo": "\u202ecod.exe", "lri": "\u2066x\u2069", "rlm": "\u200f", "c1-csi": "\x9b2K", "del": "\x7f",
    "backspace": "\x08\x08\x08\x08", "line-sep": "\u2028fake", "nel": "\x85fake", "ff": "\x0c", "vt": "\x0b",
    "alt-screen": "\x1b[?1049h", "reset": "\x1bc", "cr-summary": "\r0 error(s), 0 warning(s), 0 unknown, 0 waived",
}
for _k, _v in FORGERIES.items():
    case("terminal", f"address {_k}")(lambda tmp, c, v=_v: clean_text(c.run("check", write(
        tmp, "p.json", queue_plan("aws_sqs_queue.q" + v)))))
for _k in ("csi-erase", "lf-summary", "osc-title", "rlo"):
    case("terminal", f"waiver reason {_k}")(lambda tmp, c, v=FORGERIES[_k]: clean_text(c.run(
        "check", write(tmp, "p.json", queue_plan()), "--config",
        write(tmp, "c.yaml", "waivers:\n  - address: aws_sqs_queue.q\n    rules: [SQS001]\n    reason: "
              + json.dumps("ok" + v) + "\n"))))
    case("terminal", f"queue name value {_k}")(lambda tmp, c, v=FORGERIES[_k]: clean_text(c.run(
        "check", write(tmp, "p.json", queue_plan(values={"name": "q" + v, "fifo_queue": True})))))
    case("terminal", f"stderr plan path {_k}")(lambda tmp, c, v=FORGERIES[_k]: one_error_line(
        c.run("check", str(tmp / f"missing{v}.json"))))
for _k in ("csi-erase", "lf-summary"):
    case("terminal", f"note path {_k}")(lambda tmp, c, v=FORGERIES[_k]: clean_text(c.run(
        "check", str(SOURCE_GOOD_PLAN), "--source-dir", str(tmp / f"nowhere{v}"))))
    case("terminal", f"config path {_k}")(lambda tmp, c, v=FORGERIES[_k]: one_error_line(
        c.run("check", str(BIG_PLAN), "--config", str(tmp / f"c{v}.yaml"))))


def _reader_stops(tmp, c, fmt, unbuffered, limit):
    # --show-pass: the report (over 100 KB) is larger than what a pipe holds plus what the reader takes
    r = c.into_pipe(["check", str(BIG_PLAN), "--format", fmt, "--show-pass"],
                    {"PYTHONUNBUFFERED": "1" if unbuffered else ""}, False, limit)
    return one_error_line(r)


def _nonblocking(tmp, c, fmt, unbuffered):
    whole = tmp / "whole"
    c.run("check", str(BIG_PLAN), "--format", fmt, "--output", str(whole))
    r = c.into_pipe(["check", str(BIG_PLAN), "--format", fmt], {"PYTHONUNBUFFERED": "1" if unbuffered else ""},
                    True, None)
    if r.hung:
        return "hung"
    if r.out != whole.read_bytes():
        return f"got {len(r.out)} of {len(whole.read_bytes())} bytes with exit {r.rc}"
    return None if r.rc == 1 else f"exit {r.rc}"


for _fmt in ("sarif", "json"):
    for _u in (True, False):
        case("output", f"head -c 10 {_fmt} unbuffered={_u}")(
            lambda tmp, c, f=_fmt, u=_u: _reader_stops(tmp, c, f, u, 10))
        case("output", f"non-blocking pipe {_fmt} unbuffered={_u}")(
            lambda tmp, c, f=_fmt, u=_u: _nonblocking(tmp, c, f, u))
case("output", "head -c 30000 sarif unbuffered")(lambda tmp, c: _reader_stops(tmp, c, "sarif", True, 30000))
case("output", "--output /dev/full")(lambda tmp, c: one_error_line(
    c.run("check", str(BIG_PLAN), "--output", "/dev/full")))
case("output", "stdout /dev/full unbuffered")(lambda tmp, c: one_error_line(c.run(
    "check", str(BIG_PLAN), env={"PYTHONUNBUFFERED": "1"}, stdout=open("/dev/full", "wb"))))
case("output", "stdout /dev/full")(lambda tmp, c: one_error_line(c.run(
    "check", str(BIG_PLAN), stdout=open("/dev/full", "wb"))))


def _cfg(tmp, c, name, data, *needles, strict=False):
    r = c.run("check", str(BIG_PLAN), "--config", write(tmp, name, data), *(["--strict"] if strict else []))
    bad = one_error_line(r, name, *needles)
    if bad is None and "the plan" in r.etext:
        return "names the plan, not the config file"
    return bad


for _name, _data, _needles in [
    ("big.toml", "[rules.SQS003]\nmax = 9" + "9" * 4999, ()), ("big.yaml", "rules: {SQS003: {max: 9" + "9" * 4999 + "}}", ()),
    ("negbig.toml", "[rules.SQS003]\nmin = -" + "1" * 6000, ()),
    ("deep.yaml", "select: " + "[" * 10000 + "]" * 10000, ()), ("deepmap.yaml", "rules: " + "{a: " * 5000 + "1" + "}" * 5000, ()),
    ("deep.toml", "select = " + "[" * 10000 + "]" * 10000, ()), ("nan.toml", "[rules.ESM001]\nmultiplier = nan", ()),
    ("inf.toml", "[rules.CW001]\nmax_threshold = inf", ()), ("ninf.toml", "[rules.ESM001]\nmultiplier = -inf", ()),
    ("dupkey.yaml", "select: [SQS001]\nselect: ['*']", ("repeats",)),
    ("dupwaiver.yaml", "waivers:\n  - address: '*'\n    reason: a\n    address: x", ("repeats",)),
    ("intkey.yaml", "1: x\n2: y", ()), ("tag.yaml", "select: !!python/name:os.system", ()),
    ("bigfile.yaml", "# x\n" * 400_000, ("cap",)),
]:
    case("config", _name)(lambda tmp, c, n=_name, d=_data, nd=_needles: _cfg(tmp, c, n, d, *nd))


def _idle(tmp, c, text, strict):
    r = c.run("check", write(tmp, "p.json", queue_plan()), "--config", write(tmp, "c.yaml", text),
              *(["--strict"] if strict else []))
    if strict:
        return one_error_line(r, "no rule")
    if r.rc == 2 or "warning" not in r.etext or "no rule" not in r.etext:
        return f"exit {r.rc}, stderr {r.etext[:120]!r}: nothing says the plan was not checked"
    return None


for _t in ("select: []", "ignore: ['*']", "ignore: ['SQS*', 'ESM*', 'S3*', 'IAM*', 'CW*', 'DDB*', 'CHG*']"):
    case("config", f"checks nothing: {_t[:30]}")(lambda tmp, c, t=_t: _idle(tmp, c, t, False))
    case("config", f"checks nothing --strict: {_t[:30]}")(lambda tmp, c, t=_t: _idle(tmp, c, t, True))


def _cfg_special(tmp, c, kind):
    p = tmp / "c.yaml"
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "zero":
        p.symlink_to("/dev/zero")
    else:
        p.mkdir()
    return one_error_line(c.run("check", str(BIG_PLAN), "--config", str(p)), "c.yaml")


for _k in ("fifo", "zero", "dir"):
    case("config", f"config is a {_k}")(lambda tmp, c, k=_k: _cfg_special(tmp, c, k))
case("config", "config /dev/zero")(lambda tmp, c: one_error_line(c.run("check", str(BIG_PLAN), "--config", "/dev/zero")))


def _src(tmp, c, prep, *args, note=None, plan=SOURCE_GOOD_PLAN, fmt="json", max_unknown=None):
    src = copy_source(tmp)
    prep(tmp, src)
    r = c.run("check", str(plan), "--format", fmt, "--source-dir", str(src), *args)
    bad = checked(r)
    if bad or fmt != "json":
        return bad
    out = json.loads(r.out)
    if note and not any(note in n for n in out["notes"]):
        return f"no note saying {note!r}: {out['notes']}"
    if max_unknown is not None and out["summary"]["unknown"] > max_unknown:
        return f"{out['summary']['unknown']} unknown"
    return None


def _fifo(name):
    return lambda tmp, src: os.mkfifo(src / name)


def _link(name, target):
    return lambda tmp, src: (src / name).symlink_to(target)


def _modules_json(text_or_fn):
    def prep(tmp, src):
        d = src / ".terraform" / "modules"
        d.mkdir(parents=True)
        if callable(text_or_fn):
            text_or_fn(tmp, src, d / "modules.json")
        else:
            (d / "modules.json").write_text(text_or_fn)
    return prep


def _outside_module(tmp, src, manifest):
    out = tmp / "elsewhere"
    shutil.copytree(src / "modules" / "queue", out)
    shutil.rmtree(src / "modules")
    manifest.write_text(json.dumps({"Modules": [{"Key": "", "Dir": "."}, {"Key": "audit", "Dir": str(out)}]}))


for _n, _prep, _note in [
    ("fifo zz.tf", _fifo("zz.tf"), "named pipe"), ("fifo main-copy.tf", _fifo("aaa.tf"), "named pipe"),
    ("fifo module .tf", lambda tmp, src: os.mkfifo(src / "modules" / "queue" / "zz.tf"), "named pipe"),
    ("/dev/zero zz.tf", _link("zz.tf", "/dev/zero"), "character device"),
    ("/dev/urandom zz.tf", _link("zz.tf", "/dev/urandom"), "character device"),
    ("/dev/zero module .tf", lambda tmp, src: (src / "modules" / "queue" / "zz.tf").symlink_to("/dev/zero"),
     "character device"),
    ("5 MB zz.tf", lambda tmp, src: (src / "zz.tf").write_bytes(b"# pad\n" * 900_000), "cap"),
    ("socket zz.tf", lambda tmp, src: __import__("socket").socket(__import__("socket").AF_UNIX).bind(str(src / "zz.tf")),
     "socket"),
    ("directory zz.tf", lambda tmp, src: (src / "zz.tf").mkdir(), None),
    ("fifo modules.json", _modules_json(lambda tmp, src, m: os.mkfifo(m)), "modules.json"),
    ("/dev/zero modules.json", _modules_json(lambda tmp, src, m: m.symlink_to("/dev/zero")), "modules.json"),
    ("modules.json Dir /", _modules_json(json.dumps({"Modules": [{"Key": "audit", "Dir": "/"}]})), "outside"),
    ("modules.json Dir /etc", _modules_json(json.dumps({"Modules": [{"Key": "audit", "Dir": "/etc"}]})), "outside"),
    ("modules.json Dir ../..", _modules_json(json.dumps({"Modules": [{"Key": "audit", "Dir": "../../.."}]})),
     "outside"),
    ("modules.json Dir outside with the module", _modules_json(_outside_module), "outside"),
    ("modules.json deep", _modules_json("[" * 100000 + "]" * 100000), None),
    ("modules.json 6 MB", _modules_json(json.dumps({"Modules": [], "pad": "x" * 6_000_000})), "cap"),
    ("providers.tf symlink outside", lambda tmp, src: ((tmp / "x.tf").write_text(SHARED_PROVIDER.read_text()),
                                                       (src / "providers.tf").symlink_to(tmp / "x.tf")), "outside"),
]:
    case("files", _n)(lambda tmp, c, p=_prep, n=_note: _src(tmp, c, p, note=n))


def _huge_for(tmp, src):
    main = src / "main.tf"
    nums = ", ".join(str(i) for i in range(300))
    main.write_text(main.read_text().replace("  max_receive_count = 4\n", (
        f"  l = [{nums}]\n  max_receive_count = length(flatten([for a in local.l : [for b in local.l : "
        "[for c in local.l : c]]])) > 0 ? 4 : 4\n"), 1))


case("files", "for over 300^3")(lambda tmp, c: _src(tmp, c, _huge_for, note="steps"))
case("files", "fifo .tf, --no-source --format sarif")(lambda tmp, c: _src(tmp, c, _fifo("aaa.tf"), "--no-source",
                                                                           fmt="sarif"))
case("files", "/dev/zero .tf, --no-source --format sarif")(lambda tmp, c: _src(tmp, c, _link("aaa.tf", "/dev/zero"),
                                                                                "--no-source", fmt="sarif"))


def _sarif_outside(tmp, c):
    """A plan whose module source leads out of --source-dir: SARIF must not point into it."""
    src = copy_source(tmp)
    out = tmp / "elsewhere"
    shutil.copytree(src / "modules" / "queue", out)
    doc = json.loads(SOURCE_GOOD_PLAN.read_text())
    doc["configuration"]["root_module"]["module_calls"]["audit"]["source"] = "../elsewhere"
    r = c.run("check", write(tmp, "p.json", doc), "--format", "sarif", "--no-source", "--source-dir", str(src))
    bad = checked(r)
    if bad:
        return bad
    uris = [x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for x in json.loads(r.out)["runs"][0]["results"]]
    return f"SARIF points outside: {[u for u in uris if 'elsewhere' in u][:1]}" if any("elsewhere" in u for u in uris) \
        else None


case("files", "SARIF module source outside")(_sarif_outside)


def _views(tmp, c, edit, *needles):
    doc = queue_plan(values={"sqs_managed_sse_enabled": True})
    edit(doc)
    return one_error_line(c.run("check", write(tmp, "p.json", doc)), *needles)


def _rc(doc):
    return doc["resource_changes"][0]


def _pv(doc):
    return doc["planned_values"]["root_module"]["resources"][0]


def _hidden(doc):
    bad = json.loads(json.dumps(_rc(doc)))
    bad["address"], bad["name"] = "aws_sqs_queue.hidden", "hidden"
    bad["change"]["after"]["sqs_managed_sse_enabled"] = False
    doc["resource_changes"].append(bad)


def _pv_extra(doc):
    extra = json.loads(json.dumps(_pv(doc)))
    extra["address"], extra["name"] = "aws_sqs_queue.extra", "extra"
    doc["planned_values"]["root_module"]["resources"].append(extra)


for _n, _edit in [
    ("SSE off only in resource_changes", lambda d: _rc(d)["change"]["after"].update(sqs_managed_sse_enabled=False)),
    ("SSE off only in planned_values", lambda d: _pv(d)["values"].update(sqs_managed_sse_enabled=False)),
    ("retention differs", lambda d: _rc(d)["change"]["after"].update(message_retention_seconds=60)),
    ("attribute only in resource_changes", lambda d: _rc(d)["change"]["after"].update(kms_master_key_id="")),
    ("bad queue only in resource_changes", _hidden),
    ("queue only in planned_values", _pv_extra),
    ("deleted but still planned", lambda d: _rc(d)["change"].update(actions=["delete"], after=None)),
    ("address twice in resource_changes", lambda d: d["resource_changes"].append(json.loads(json.dumps(_rc(d))))),
    ("address twice in planned_values", lambda d: d["planned_values"]["root_module"]["resources"].append(
        json.loads(json.dumps(_pv(d))))),
]:
    case("views", _n)(lambda tmp, c, e=_edit: _views(tmp, c, e))


def _dup(tmp, c, old, new):
    text = json.dumps(queue_plan())
    assert old in text, old
    return one_error_line(c.run("check", write(tmp, "p.json", text.replace(old, new, 1))), "repeats")


for _n, _old, _new in [
    ("errored twice", '{"format_version": "1.2"', '{"format_version": "1.2", "errored": true, "errored": false'),
    ("planned_values twice", '"planned_values":', '"planned_values": {"root_module": {}}, "planned_values":'),
    ("resource_changes twice", '"resource_changes":', '"resource_changes": [], "resource_changes":'),
    ("SSE twice in values", '"sqs_managed_sse_enabled": false', '"sqs_managed_sse_enabled": false, '
                                                                 '"sqs_managed_sse_enabled": true'),
    ("actions twice", '"actions": ["create"]', '"actions": ["delete"], "actions": ["create"]'),
    ("format_version twice", '{"format_version": "1.2"', '{"format_version": "0.1", "format_version": "1.2"'),
]:
    case("views", f"repeated key: {_n}")(lambda tmp, c, o=_old, n=_new: _dup(tmp, c, o, n))

SECRET_POLICY = json.dumps({"Version": "2012-10-17", "Statement": [{
    "Sid": "AllowZq8Token", "Effect": "Allow", "Principal": "*", "Action": "sqs:Zq8Action*", "Resource": "*"}]})
SECRET_REDRIVE = json.dumps({"deadLetterTargetArn": "arn:aws:sqs:us-east-1:123456789012:dlq-Zq8Name",
                             "maxReceiveCount": 977})


def _secret(tmp, c, fmt, which):
    values = {"sqs_managed_sse_enabled": True}
    marks = {}
    if "policy" in which:
        values["policy"], marks["policy"] = SECRET_POLICY, True
    if "redrive" in which:
        values["redrive_policy"], marks["redrive_policy"] = SECRET_REDRIVE, True
    doc = queue_plan(values=values, after_sensitive=marks)
    _pv(doc)["sensitive_values"] = marks
    r = c.run("check", write(tmp, "p.json", doc), "--format", fmt, "--show-pass")
    bad = checked(r)
    if bad:
        return bad
    leaked = [s for s in ("Zq8", "977") if s in r.text]
    return f"prints {leaked}" if leaked else None


for _fmt in ("text", "json", "sarif"):
    for _w in ("policy", "redrive", "policy+redrive"):
        case("sensitive", f"{_w} {_fmt}")(lambda tmp, c, f=_fmt, w=_w: _secret(tmp, c, f, w))


def _secret_source(tmp, c, fmt, literal):
    src = copy_source(tmp)
    main = src / "main.tf"
    action = "sqs:Zq8Literal" if literal else "sqs:${var.token}"
    text = main.read_text().replace('        Action    = "sqs:SendMessage"\n        Resource  = aws_sqs_queue.orders.arn',
                                    f'        Action    = "{action}"\n        Resource  = "*"', 1)
    main.write_text('variable "token" {\n  type      = string\n  sensitive = true\n}\n\n' + text)
    doc = json.loads(SOURCE_GOOD_PLAN.read_text())
    for res in doc["configuration"]["root_module"]["resources"]:
        if res["address"] == "aws_sqs_queue_policy.orders" and not literal:
            res["expressions"]["policy"]["references"].append("var.token")
    for rc in doc["resource_changes"]:
        if rc["address"] == "aws_sqs_queue_policy.orders":
            rc["change"]["after_sensitive"] = {"policy": True}
    doc["variables"]["token"] = {"value": "Zq8Token"}
    doc["configuration"]["root_module"]["variables"]["token"] = {"sensitive": True}
    r = c.run("check", write(tmp, "p.json", doc), "--format", fmt, "--source-dir", str(src))
    bad = checked(r)
    if bad:
        return bad
    if "(from main.tf" not in r.text and "main.tf" not in r.text:
        return "the policy was not read from the source"
    return "prints Zq8" if "Zq8" in r.text else None


for _fmt in ("text", "json", "sarif"):
    for _lit in (False, True):
        case("sensitive", f"source {'literal' if _lit else 'var.token'} {_fmt}")(
            lambda tmp, c, f=_fmt, lit=_lit: _secret_source(tmp, c, f, lit))


def _python_m_policies(tmp, c):
    if c.pkg:  # in that checkout's root, with its folders on the path as `python -m` puts them
        cmd, env = c.cmd("policies")
        cmd.remove("-P")
        p = subprocess.run([*cmd, "check", str(BIG_PLAN)], capture_output=True, cwd=c.pkg, env=env, timeout=TIMEOUT)
        r = Run(p.returncode, p.stdout, p.stderr, 0)
    else:
        r = c.run("check", str(BIG_PLAN), module="policies")
    if r.rc == 1 and b"Traceback" not in r.err:
        return None
    return f"exit {r.rc}: {r.etext.strip().splitlines()[-1][:120] if r.etext.strip() else ''}"


case("misc", "python -m policies")(_python_m_policies)
for _v in ("1_0", "1e3", "nan", "0x10", " 5", "inf"):
    case("misc", f"--max-input-mib {_v!r}")(lambda tmp, c, v=_v: one_error_line(
        c.run("check", str(BIG_PLAN), "--max-input-mib", v), "not a positive number"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pkg", metavar="DIR", help="run the checker found in DIR instead of the installed one")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every broken case with why")
    ap.add_argument("-k", metavar="TEXT", help="only the cases whose class or name holds TEXT")
    args = ap.parse_args(argv)
    c = Checker(args.pkg)
    total = broken_total = 0
    t0 = time.monotonic()
    for cls, cases in CASES.items():
        broken = []
        n = 0
        for name, fn in cases:
            if args.k and args.k not in f"{cls} {name}":
                continue
            n += 1
            with tempfile.TemporaryDirectory() as d:
                try:
                    why = fn(Path(d), c)
                except Exception as e:  # noqa: BLE001 - a case that cannot even run counts as broken
                    why = f"case error {type(e).__name__}: {e}"
            if why:
                broken.append((name, why))
        total += n
        broken_total += len(broken)
        print(f"{cls:<10} {n:4d} cases, {len(broken):4d} broken" + (
            f": {', '.join(b[0] for b in broken)}" if broken and not args.verbose else ""))
        if args.verbose:
            for name, why in broken:
                print(f"    {name}: {why}")
    print(f"{'total':<10} {total:4d} cases, {broken_total:4d} broken ({time.monotonic() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
