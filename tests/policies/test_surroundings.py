"""What surrounds the plan (issue #24): the terminal the text report and stderr go to, the
pipe or file the report is written to, the config file, the files other than the plan the
checker reads, and plans whose two views disagree. Each test runs the real CLI (a fresh
process) or the real reader on a hand-made input that broke a promise before the fix."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT

SUMMARY = re.compile(r"^[0-9]+ error\(s\), [0-9]+ warning\(s\), ")
# what a terminal acts on: C0/C1 controls (ESC, BEL, CR, LF inside a line), bidi overrides and isolates
TERMINAL_ACTIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
FORGED = ("aws_sqs_queue.q\x1b[2K\r\x1b[1A\x1b[2K\x1b]0;pwned\x07\n"
          "0 error(s), 0 warning(s), 0 unknown, 0 waived, 9 passed (37 rules, 1 resources)\u202e")


def cli(*args: str, stdin: bytes | None = None, cwd: Path = REPO_ROOT, env: dict | None = None,
        **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "resilient_sqs.policy", *args], capture_output=True, cwd=cwd,
                          input=stdin, timeout=120, env={**os.environ, **(env or {})}, **kw)


def queue_plan(address: str = "aws_sqs_queue.q", values: dict | None = None, after: dict | None = None,
               after_sensitive: dict | None = None) -> dict:
    """A one-queue plan as `terraform show -json` writes it (SSE off, no DLQ: errors)."""
    vals = {"name": "q", "message_retention_seconds": 345600, "visibility_timeout_seconds": 30,
            "receive_wait_time_seconds": 20, "sqs_managed_sse_enabled": False, **(values or {})}
    res = {"address": address, "mode": "managed", "type": "aws_sqs_queue", "name": "q",
           "provider_name": "registry.terraform.io/hashicorp/aws", "schema_version": 0, "values": vals,
           "sensitive_values": {}}
    return {"format_version": "1.2", "terraform_version": "1.11.4",
            "planned_values": {"root_module": {"resources": [res]}},
            "resource_changes": [{"address": address, "mode": "managed", "type": "aws_sqs_queue", "name": "q",
                                  "provider_name": "registry.terraform.io/hashicorp/aws",
                                  "change": {"actions": ["create"], "before": None,
                                             "after": dict(vals if after is None else after),
                                             "after_unknown": {"arn": True, "id": True, "url": True},
                                             "before_sensitive": False,
                                             "after_sensitive": after_sensitive or {}}}]}


def write_plan(tmp_path: Path, doc: dict, name: str = "plan.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return str(p)


# -- 2. terminal output cannot be forged ----------------------------------------------------------------------
def test_forged_address_cannot_erase_the_error_or_print_a_summary(tmp_path):
    proc = cli("check", write_plan(tmp_path, queue_plan(FORGED)))
    out = proc.stdout.decode()
    assert proc.returncode == 1, proc.stderr
    summaries = [line for line in out.splitlines() if SUMMARY.match(line)]
    assert len(summaries) == 1 and summaries[0] == out.splitlines()[-1], out
    assert summaries[0].startswith("3 error(s)"), summaries
    assert not TERMINAL_ACTIVE.search(out), repr(out[:300])
    # the address is still there, readable: the escapes show what the input holds
    assert "aws_sqs_queue.q\\x1b[2K\\r\\x1b[1A" in out and "\\u202e" in out and "\\x07" in out


def test_forged_waiver_reason_is_escaped(tmp_path):
    cfg = tmp_path / "policy.yaml"
    cfg.write_text('waivers:\n  - address: "aws_sqs_queue.q"\n    rules: [SQS001]\n'
                   '    reason: "ok\\e[2K\\r\\n0 error(s), 0 warning(s), fake\\a"\n')
    proc = cli("check", write_plan(tmp_path, queue_plan()), "--config", str(cfg))
    out = proc.stdout.decode()
    assert [line for line in out.splitlines() if SUMMARY.match(line)] == [out.splitlines()[-1]], out
    assert "waived: ok\\x1b[2K\\r\\n0 error(s)" in out
    assert not TERMINAL_ACTIVE.search(out), repr(out)


@pytest.mark.parametrize("args", [
    ["check", "missing\x1b[2K\r\x1b]0;t\x07\u202e.json"],
    ["check", "x.json", "--format", "\x1b[31mred"],
    ["explain", "SQS\x1b[2K\x07"],
])
def test_stderr_escapes_what_it_quotes(args):
    proc = cli(*args)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and len(err.splitlines()) == 1, err
    assert not TERMINAL_ACTIVE.search(err), repr(err)
    assert "\\x1b" in err


def test_escape_leaves_printable_text_alone():
    from resilient_sqs.policy.terminal import escape

    assert escape('module.q["café ☃"].aws_sqs_queue.this[0]') == 'module.q["café ☃"].aws_sqs_queue.this[0]'
    for ch in ["\x00", "\x1b", "\x07", "\r", "\n", "\x7f", "\x85", "\x9b", "\u061c", "\u200b", "\u200e", "\u202a",
               "\u202e", "\u2066", "\u2069", "\u2028", "\u2029", "\ufeff", "\ud800"]:
        got = escape(f"a{ch}b")
        assert got.startswith("a\\") and got.endswith("b") and ch not in got, (ch, got)


# -- 4. the report reaches its reader, or exit 2 ------------------------------------------------------------
BIG_PLAN = Path(__file__).parent / "plans" / "queue-bad.json"  # its SARIF report is over 100 KB: more than a pipe holds


def _run_into_pipe(args: list[str], env: dict, nonblocking: bool, read_limit: int | None, delay: float = 0.3):
    """Run the CLI with stdout the write end of a pipe; read all of it (or read_limit bytes, then close)."""
    import time

    r, w = os.pipe()
    if nonblocking:
        os.set_blocking(w, False)
    proc = subprocess.Popen([sys.executable, "-m", "resilient_sqs.policy", *args], stdout=w, stderr=subprocess.PIPE,
                            cwd=REPO_ROOT, env={**os.environ, **env})
    os.close(w)
    time.sleep(delay)  # the pipe fills while nobody reads
    got = b""
    with os.fdopen(r, "rb", buffering=0) as fh:
        while read_limit is None or len(got) < read_limit:
            chunk = fh.read(65536 if read_limit is None else read_limit - len(got))
            if not chunk:
                break
            got += chunk
    err = proc.stderr.read().decode()
    return proc.wait(timeout=60), got, err


@pytest.mark.parametrize("unbuffered", [True, False])
def test_reader_that_stops_early_gives_exit_2(unbuffered):
    env = {"PYTHONUNBUFFERED": "1"} if unbuffered else {"PYTHONUNBUFFERED": ""}
    rc, got, err = _run_into_pipe(["check", str(BIG_PLAN), "--format", "sarif"], env, False, read_limit=10)
    assert rc == 2 and len(got) == 10, (rc, err)
    assert len(err.splitlines()) == 1 and "cut short" in err and "Traceback" not in err, err


@pytest.mark.parametrize("unbuffered", [True, False])
def test_non_blocking_pipe_gets_the_whole_report(tmp_path, unbuffered):
    whole = tmp_path / "report.sarif"
    args = ["check", str(BIG_PLAN), "--format", "sarif"]
    assert cli(*args, "--output", str(whole)).returncode == 1
    env = {"PYTHONUNBUFFERED": "1"} if unbuffered else {"PYTHONUNBUFFERED": ""}
    rc, got, err = _run_into_pipe(args, env, True, read_limit=None)
    assert (rc, err) == (1, "") and len(whole.read_bytes()) > 65536
    assert got == whole.read_bytes()
