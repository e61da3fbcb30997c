"""Hostile, malformed and odd inputs, and the ways real pipelines hand the plan over.

The contract: exit 0/1/2; exit 2 prints one line saying what is wrong with the input
and how to fix it; never a traceback, never "internal error", never a silent pass.
Inputs are hand-written malformed files (tests/policies/malformed/) or real plans of
the fixture configurations, changed the way a broken tool or a hand edit would.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tooling.report_consumers import check_json

from resilient_sqs.policy.engine import evaluate
from tests.support.helpers import REPO_ROOT
from tests.support.policy_cli import MALFORMED, _one_line_error, cli

pytestmark = pytest.mark.plan

PY = [sys.executable, "-m", "resilient_sqs.policy"]


def _findings(proc: subprocess.CompletedProcess) -> set:
    out = json.loads(proc.stdout)
    return {(f["rule_id"], f["status"], f["address"]) for f in out["findings"]}


def _resource(doc: dict, address: str) -> list[dict]:
    """The planned values and the resource_changes `after` of one resource."""
    out = []
    stack = [doc["planned_values"]["root_module"]]
    while stack:
        m = stack.pop()
        out += [r["values"] for r in m.get("resources", ()) if r["address"] == address]
        stack += m.get("child_modules", ())
    out += [rc["change"]["after"] for rc in doc["resource_changes"] if rc["address"] == address]
    assert out, address
    return out


def _set(doc: dict, address: str, attr: str, value) -> dict:
    doc = json.loads(json.dumps(doc))
    for values in _resource(doc, address):
        values[attr] = value
    return doc


# -- malformed files: exit 2, one line ------------------------------------------------------
@pytest.mark.parametrize("fname,needles", [
    ("big-int.json", ["has a number at line 1 column", "too long to read"]),
    ("nan.json", ["NaN at line 1 column", "is not a JSON number"]),
    ("infinity.json", ["-Infinity at line", "is not a JSON number"]),
    ("bad-references.json", ["configuration.root_module.resources[0].expressions.name", "not of type"]),
    ("bad-provider-expressions.json", ["configuration.provider_config.aws.expressions", "not of type 'object'"]),
    ("bad-module-address.json", ["planned_values.root_module.child_modules[0].address", "does not match"]),
])
def test_malformed_shapes_are_named(fname, needles):
    _one_line_error(cli("check", str(MALFORMED / fname)), *needles)


def test_megabyte_module_address_gives_a_short_line(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"format_version": "1.2", "planned_values": {"root_module": {"child_modules": [
        {"address": "x" * 1_000_000, "resources": []}]}}}))
    err = _one_line_error(cli("check", str(plan)), "child_modules[0].address")
    assert len(err) < 1200


def test_format_versions(plan_files, tmp_path):
    """0.2 (Terraform 1.0.x) is read like 1.x; 0.1 (0.12 to 1.0.0) is refused naming the versions."""
    doc = json.loads(plan_files["config:queue-bad"].read_text())
    assert doc["format_version"] == "1.2"
    want = _findings(cli("check", str(plan_files["config:queue-bad"]), "--format", "json"))
    (tmp_path / "v02.json").write_text(json.dumps({**doc, "format_version": "0.2"}))
    proc = cli("check", str(tmp_path / "v02.json"), "--format", "json")
    assert proc.returncode == 1 and _findings(proc) == want
    (tmp_path / "v01.json").write_text(json.dumps({**doc, "format_version": "0.1"}))
    _one_line_error(cli("check", str(tmp_path / "v01.json")), "format_version 0.1 (Terraform 0.12 to 1.0.0)",
                    "0.2 (Terraform 1.0.x) and 1.x (Terraform 1.1 and later)")


# -- encodings ---------------------------------------------------------------------------------
@pytest.mark.parametrize("encoding,bom", [("utf-16-le", "\ufeff"), ("utf-16-be", "\ufeff"), ("utf-8", "\ufeff"),
                                          ("utf-32-le", "\ufeff"), ("utf-16-le", "")])
def test_byte_order_marks_and_utf16(plan_files, tmp_path, encoding, bom):
    """Windows PowerShell 5.1 `terraform show -json tfplan > plan.json` writes UTF-16 LE with a BOM."""
    src = plan_files["config:queue-bad"]
    want = _findings(cli("check", str(src), "--format", "json"))
    p = tmp_path / "plan.json"
    p.write_bytes((bom + src.read_text()).encode(encoding))
    proc = cli("check", str(p), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    assert _findings(proc) == want


# -- streams -----------------------------------------------------------------------------------
def test_process_substitution(plan_files):
    plan = plan_files["config:queue-bad"]
    cmd = f"{' '.join(PY)} check <(cat '{plan}') --format json"
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, timeout=120, cwd=REPO_ROOT)
    assert proc.returncode == 1, proc.stderr
    assert _findings(proc) == _findings(cli("check", str(plan), "--format", "json"))


def test_named_pipe_with_a_writer(plan_files, tmp_path):
    data = plan_files["config:queue-bad"].read_bytes()
    fifo = tmp_path / "plan.fifo"
    os.mkfifo(fifo)

    def writer():
        time.sleep(1.0)  # the checker is already waiting
        with open(fifo, "wb") as fh:
            fh.write(data[:1000])
            fh.flush()
            time.sleep(0.5)  # a slow producer
            fh.write(data[1000:])

    t = threading.Thread(target=writer)
    t.start()
    proc = cli("check", str(fifo), "--format", "json")
    t.join()
    assert proc.returncode == 1, proc.stderr
    # the same findings as the file read from disk
    assert _findings(proc) == _findings(cli("check", str(plan_files["config:queue-bad"]), "--format", "json"))
    assert json.loads(proc.stdout)["summary"]["errors"] > 0


def test_named_pipe_without_a_writer_is_refused(tmp_path):
    fifo = tmp_path / "plan.fifo"
    os.mkfifo(fifo)
    _one_line_error(cli("check", str(fifo)), "is a named pipe that no process opened for writing within 10 s")


@pytest.mark.parametrize("device,needle", [("/dev/zero", "is binary data"), ("/dev/urandom", "")])
def test_endless_devices_end(device, needle):
    if not Path(device).exists():
        pytest.skip(f"no {device}")
    err = _one_line_error(cli("check", device), device)
    assert needle in err
    assert "binary data" in err or "is not JSON" in err


def test_endless_stream_hits_the_size_limit():
    """A stream that looks like JSON and never ends stops at --max-input-mib."""
    proc = subprocess.Popen([*PY, "check", "-", "--max-input-mib", "2"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO_ROOT)

    def feed():
        try:
            proc.stdin.write(b'{"format_version": "1.2", "x": [')
            while True:
                proc.stdin.write(b"1, " * 65536)
        except (BrokenPipeError, OSError):
            pass

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    proc.wait(timeout=120)
    err = proc.stderr.read()
    assert proc.returncode == 2, err
    assert b"is larger than the input limit of 2 MiB" in err and b"--max-input-mib" in err
    assert len(err.strip().splitlines()) == 1


# -- output channel -----------------------------------------------------------------------------
@pytest.mark.parametrize("redirect", [">&-", "> /dev/full"])
def test_unwritable_stdout_exits_2_with_one_line(plan_files, redirect):
    if redirect.endswith("/dev/full") and not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    plan = plan_files["config:queue-bad"]
    proc = subprocess.run(["bash", "-c", f"{' '.join(PY)} check '{plan}' {redirect}"], capture_output=True,
                          timeout=120, cwd=REPO_ROOT)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "report" in err and "standard output" in err


def test_lone_surrogate_in_an_address(plan_files, tmp_path):
    """JSON may escape an unpaired surrogate (\\ud800): the text report shows it escaped; the JSON
    reports write U+FFFD for it (readers other than Python's refuse or mangle a lone one)."""
    text = plan_files["config:warnings"].read_text()
    assert text.count('"aws_sqs_queue.jobs"') >= 2
    p = tmp_path / "plan.json"
    p.write_text(text.replace('"aws_sqs_queue.jobs"', '"aws_sqs_queue.jobs\\ud800"'))
    for fmt in ("text", "sarif", "json"):
        proc = cli("check", str(p), "--format", fmt, "--fail-on", "warning")
        assert proc.returncode == 1, proc.stderr
        if fmt == "text":
            assert b"\\ud800" in proc.stdout
        else:
            assert b"\\ud800" not in proc.stdout and b"jobs\\ufffd" in proc.stdout
            assert not check_json(proc.stdout.decode(), fmt)


def test_sarif_uri_is_percent_encoded(plan_files, tmp_path):
    src = tmp_path / "my stack #1"
    shutil.copytree(REPO_ROOT / "tests/policies/configs/queue-bad", src)
    proc = cli("check", str(plan_files["config:queue-bad"]), "--format", "sarif", "--source-dir", str(src))
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(proc.stdout)["runs"][0]["results"]}
    assert any(u.endswith("my%20stack%20%231/main.tf") for u in uris), uris
    assert not any(" " in u or "#" in u for u in uris)


def test_sarif_lists_and_reads_each_module_directory_once(plan_doc, monkeypatch):
    """The .tf files are indexed once, not searched again for every finding."""
    from resilient_sqs.policy.formats import Context, render

    doc = plan_doc("config:queue-bad")
    result = evaluate(doc)
    assert len(result.findings) > 10
    calls = []
    real_glob = Path.glob
    monkeypatch.setattr(Path, "glob", lambda self, pat: calls.append(self) or real_glob(self, pat))
    render("sarif", Context(result, doc, "plan.json", str(REPO_ROOT / "tests/policies/configs/queue-bad")))
    assert len(calls) == len(set(calls)) == 1


# -- waivers --------------------------------------------------------------------------------------
def test_waiver_with_many_stars_is_matched_in_linear_time(plan_files, tmp_path):
    """A regex built from `************x` backtracks exponentially on every address it
    does not match (minutes on this plan's findings); the matcher stays linear."""
    cfg = tmp_path / "policy.yaml"
    cfg.write_text("waivers:\n"
                   "  - address: '" + "*" * 14 + "no-such-address'\n    reason: matches nothing\n"
                   "  - address: '" + "*" * 25 + "nodlq'\n    rules: [SQS002]\n    reason: a match\n")
    proc = cli("check", str(plan_files["config:queue-bad"]), "--config", str(cfg), "--format", "json")
    out = json.loads(proc.stdout)
    assert [f["address"] for f in out["findings"] if "waiver" in f] == ["aws_sqs_queue.nodlq"]
    assert [f["address"] for f in out["findings"] if f["rule_id"] == "CFG002"] == ["*" * 14 + "no-such-address"]


# -- values the rules read ---------------------------------------------------------------------------
FN, ESM, SLOW = ('module.consumer["slow"].aws_lambda_function.this', 'module.consumer["slow"].aws_lambda_event_source_mapping.this',
                 'module.queue["slow"].aws_sqs_queue.this')


@pytest.mark.parametrize("address,attr,value,rule", [
    (FN, "timeout", "60", "ESM001"),
    (FN, "timeout", -5, "ESM001"),  # AWS accepts 1..900: a negative timeout used to pass
    (ESM, "maximum_batching_window_in_seconds", "5", "ESM001"),
    (ESM, "function_response_types", "ReportBatchItemFailures", "ESM002"),
    ("aws_lambda_event_source_mapping.fifo", "batch_size", "20", "ESM004"),
    (SLOW, "message_retention_seconds", "345600", "SQS008"),
    (SLOW, "receive_wait_time_seconds", "20", "SQS007"),
    (SLOW, "visibility_timeout_seconds", 1e400, "ESM001"),
])
def test_wrong_typed_or_impossible_values_are_findings(plan_doc, address, attr, value, rule):
    """A value of the wrong type, not finite or outside what AWS accepts is a failing
    finding that names it: not an internal error, not a pass."""
    doc = _set(plan_doc("config:consumers"), address, attr, value)
    report = evaluate(doc)
    got = [f for f in report.findings if f.rule_id == rule and f.message.startswith(f"{attr} is ")]
    assert got and all(f.status == "fail" for f in got), [(f.rule_id, f.message) for f in report.findings]
    assert "not" in got[0].message and got[0].remediation.startswith("Set ") and attr in got[0].remediation


def test_nan_max_receive_count_in_a_redrive_policy_fails(plan_doc):
    """maxReceiveCount NaN used to pass SQS003 ("nan within 3..5")."""
    doc = plan_doc("config:warnings")
    pol = json.loads(_resource(doc, "aws_sqs_queue.jobs")[0]["redrive_policy"])
    arn = json.dumps(pol["deadLetterTargetArn"])
    for mrc in ('"NaN"', "1e400", '"5x"', "null", "0"):
        v = f'{{"deadLetterTargetArn": {arn}, "maxReceiveCount": {mrc}}}'
        report = evaluate(_set(doc, "aws_sqs_queue.jobs", "redrive_policy", v))
        f = next(f for f in report.findings if f.rule_id == "SQS003")
        assert f.status == "fail" and f.message.startswith("maxReceiveCount is"), f.message
    # a NaN literal: the redrive policy is not JSON at all
    raw = json.dumps(pol).replace(f'"maxReceiveCount": {pol["maxReceiveCount"]}', '"maxReceiveCount": NaN')
    assert "NaN" in raw
    report = evaluate(_set(doc, "aws_sqs_queue.jobs", "redrive_policy", raw))
    f = next(f for f in report.findings if f.address == "aws_sqs_queue.jobs" and f.rule_id == "SQS002")
    assert f.status == "fail" and "NaN" in f.message, f.message


def test_unset_values_as_update_plans_write_them(plan_doc):
    """The provider stores an unset policy, redrive(-allow) policy or list as "" or []:
    read as unset, as when the plan creates the resource."""
    doc = plan_doc("config:queue-bad")
    want = {(f.rule_id, f.status, f.address) for f in evaluate(doc).findings}
    for address in ("aws_sqs_queue.defaults", "aws_sqs_queue.defaults_dlq"):
        for attr in ("redrive_allow_policy", "policy", "redrive_policy"):
            if all(v.get(attr) in (None, "") for v in _resource(doc, address)):
                doc = _set(doc, address, attr, "")
    doc = _set(doc, "aws_sqs_queue.defaults", "kms_master_key_id", "")
    assert {(f.rule_id, f.status, f.address) for f in evaluate(doc).findings} == want
