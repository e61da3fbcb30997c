"""What surrounds the plan (issue #24): the terminal the text report and stderr go to, the
pipe or file the report is written to, the config file, the files other than the plan the
checker reads, and plans whose two views disagree. Each test runs the real CLI (a fresh
process, or its main() in this process where only its answer is judged) or the real reader
on a hand-made input that broke a promise before the fix."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.helpers import REPO_ROOT, sqs_policy_in_process

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
    proc = sqs_policy_in_process("check", write_plan(tmp_path, queue_plan(FORGED)))
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
    proc = sqs_policy_in_process("check", write_plan(tmp_path, queue_plan()), "--config", str(cfg))
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
    proc = sqs_policy_in_process(*args)
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


# -- 3. files other than the plan: regular files only, bounded, inside the tree ------------------------------
SOURCE_GOOD = Path(__file__).parent / "configs" / "source-good"
SOURCE_GOOD_PLAN = Path(__file__).parent / "plans" / "source-good.json"


def _limited():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # an endless read fails here, not on the machine


def check_source(src: Path, *args: str, plan: Path = SOURCE_GOOD_PLAN, timeout: float = 60):
    """`check --format json` of source-good's plan against the source in ``src`` (a fresh process,
    3 GiB of address space, 60 s: a blocking open or an endless read fails the test instead of hanging it)."""
    proc = subprocess.run([sys.executable, "-m", "resilient_sqs.policy", "check", str(plan), "--format", "json",
                           "--source-dir", str(src), *args], capture_output=True, cwd=REPO_ROOT, timeout=timeout,
                          preexec_fn=_limited)
    assert proc.returncode in (0, 1), proc.stderr.decode()[-500:]
    return json.loads(proc.stdout)


def _unknown(out) -> int:
    return out["summary"]["unknown"]


def copy_source(tmp_path: Path) -> Path:
    import shutil

    dst = tmp_path / "root"
    shutil.copytree(SOURCE_GOOD, dst, ignore=shutil.ignore_patterns(".terraform*"))
    return dst


def test_source_is_read_from_a_clean_copy(tmp_path):
    out = check_source(copy_source(tmp_path))
    assert _unknown(out) == 0 and out["notes"] == []


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "too-big"])
def test_a_tf_file_that_is_not_a_small_regular_file_is_not_read(tmp_path, kind):
    src = copy_source(tmp_path)
    bad = src / "zz.tf"
    if kind == "fifo":
        os.mkfifo(bad)
        why = "named pipe"
    elif kind == "dev-zero":
        bad.symlink_to("/dev/zero")
        why = "character device"
    else:
        bad.write_bytes(b"# padding\n" * (120 * 1024))  # 1.2 MiB of valid HCL (comments)
        why = "larger than the 1 MiB cap for one file"
    out = check_source(src)
    notes = [n for n in out["notes"] if "zz.tf" in n]
    assert len(notes) == 1 and why in notes[0], out["notes"]
    assert _unknown(out) > 0  # the root module is not read: what the plan leaves unknown stays unknown


def test_sarif_locator_never_blocks_on_a_fifo_even_with_no_source(tmp_path):
    src = copy_source(tmp_path)
    os.mkfifo(src / "aaa.tf")
    proc = subprocess.run([sys.executable, "-m", "resilient_sqs.policy", "check", str(SOURCE_GOOD_PLAN), "--format",
                           "sarif", "--no-source", "--source-dir", str(src)], capture_output=True, cwd=REPO_ROOT,
                          timeout=60)
    assert proc.returncode == 1, proc.stderr
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(proc.stdout)["runs"][0]["results"]}
    assert any(u.endswith("root/main.tf") for u in uris), uris  # the regular files are still read


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_modules_json_that_is_not_a_regular_file(tmp_path, kind):
    src = copy_source(tmp_path)
    (src / ".terraform" / "modules").mkdir(parents=True)
    manifest = src / ".terraform" / "modules" / "modules.json"
    if kind == "fifo":
        os.mkfifo(manifest)
    else:
        manifest.symlink_to("/dev/zero")
    out = check_source(src)
    assert any("modules.json" in n and "not a regular file" in n for n in out["notes"]), out["notes"]
    assert _unknown(out) == 0  # the local module source is still found


def _outside_module(tmp_path: Path) -> tuple[Path, Path]:
    import shutil

    src = copy_source(tmp_path)
    outside = tmp_path / "elsewhere" / "queue"
    shutil.copytree(src / "modules" / "queue", outside)
    shutil.rmtree(src / "modules")
    return src, outside


def test_modules_json_pointing_outside_the_tree_is_not_followed(tmp_path):
    src, outside = _outside_module(tmp_path)
    (src / ".terraform" / "modules").mkdir(parents=True)
    (src / ".terraform" / "modules" / "modules.json").write_text(json.dumps({"Modules": [
        {"Key": "", "Source": "", "Dir": "."}, {"Key": "audit", "Source": "./modules/queue", "Dir": str(outside)}]}))
    out = check_source(src)
    notes = [n for n in out["notes"] if "module.audit" in n]
    assert len(notes) == 1 and "outside --source-dir" in notes[0] and "--source-root" in notes[0], out["notes"]
    assert _unknown(out) > 0
    # the documented option widens it
    widened = check_source(src, "--source-root", str(outside.parent))
    assert _unknown(widened) == 0 and widened["notes"] == []


def test_local_module_source_outside_the_tree_is_not_followed(tmp_path):
    from resilient_sqs.policy.engine import evaluate

    src, outside = _outside_module(tmp_path)
    doc = json.loads(SOURCE_GOOD_PLAN.read_text())
    doc["configuration"]["root_module"]["module_calls"]["audit"]["source"] = "../elsewhere/queue"
    report = evaluate(doc, source_dir=str(src))
    assert any("module.audit" in n and "outside --source-dir" in n for n in report.notes), report.notes
    assert report.counts()["unknown"] > 0
    report = evaluate(doc, source_dir=str(src), source_roots=(str(tmp_path),))
    assert report.counts()["unknown"] == 0 and report.notes == []


def test_tf_symlink_out_of_the_tree_is_not_read(tmp_path):
    src = copy_source(tmp_path)
    secret = tmp_path / "secret"
    secret.mkdir()
    # the shared-provider pattern the fixtures themselves avoid: a providers.tf linked from elsewhere
    (secret / "x.tf").write_text((Path(__file__).parent / "configs" / "_provider" / "providers.tf").read_text())
    (src / "providers.tf").symlink_to(secret / "x.tf")
    out = check_source(src)
    assert any("providers.tf" in n and "outside --source-dir" in n for n in out["notes"]), out["notes"]


def test_total_cap_on_configuration_files(tmp_path):
    from resilient_sqs.policy.files import Budget, Refused, read_regular

    a, b = tmp_path / "a.tf", tmp_path / "b.tf"
    a.write_bytes(b"#" * 600)
    b.write_bytes(b"#" * 600)
    budget = Budget(1000)
    assert len(read_regular(a, 800, budget)) == 600
    with pytest.raises(Refused, match=r"b.tf: reading it would pass the .* cap on all the configuration files"):
        read_regular(b, 800, budget)
    with pytest.raises(Refused, match=r"a.tf: is larger than the 0.000476837 MiB cap for one file"):
        read_regular(a, 500)


def test_evaluation_step_budget(tmp_path):
    """A for expression over 300^3 items (27 million steps): stopped, noted, the plan's values stand."""
    import time

    src = copy_source(tmp_path)
    main = src / "main.tf"
    nums = ", ".join(str(i) for i in range(300))
    main.write_text(main.read_text().replace("  max_receive_count = 4\n", (
        f"  l = [{nums}]\n  max_receive_count = length(flatten([for a in local.l : [for b in local.l : "
        "[for c in local.l : c]]])) > 0 ? 4 : 4\n"), 1))
    t0 = time.monotonic()
    out = check_source(src)
    assert time.monotonic() - t0 < 60
    notes = [n for n in out["notes"] if "stopped after 1,000,000 steps" in n]
    assert len(notes) == 1, out["notes"]
    assert 0 < _unknown(out) <= 38  # at most what the plan alone leaves unknown


# -- 5. the config file, as strictly as the plan -------------------------------------------------------------
def _one_line_error(proc, *needles):
    err = proc.stderr.decode()
    assert proc.returncode == 2 and proc.stdout == b"", (proc.returncode, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "internal error" not in err, err
    for n in needles:
        assert n in err, (n, err)
    return err


@pytest.mark.parametrize("name,text,needles", [
    ("big.toml", "[rules.SQS003]\nmin = 1" + "0" * 5000 + "\n", ["number too long"]),
    ("big.yaml", "rules: {SQS003: {min: 1" + "0" * 5000 + "}}\n", ["number too long"]),
    ("deep.yaml", "select: " + "[" * 10000 + "]" * 10000 + "\n", ["deep.yaml: nests too deeply"]),
    ("deep.toml", "select = " + "[" * 10000 + "]" * 10000 + "\n", ["deep.toml: nests too deeply"]),
    ("inf.toml", "[rules.ESM001]\nmultiplier = nan\n", ["must be a finite number"]),
    ("keys.yaml", "1: x\nselect: [SQS001]\n", ["unknown key '1'"]),
])
def test_config_values_no_setting_takes(tmp_path, name, text, needles):
    cfg = tmp_path / name
    cfg.write_text(text)
    err = _one_line_error(sqs_policy_in_process("check", str(BIG_PLAN), "--config", str(cfg)), str(cfg), *needles)
    assert "the plan" not in err  # the config file is named, not the plan


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "too-big"])
def test_config_file_that_is_not_a_small_regular_file(tmp_path, kind):
    cfg = tmp_path / "policy.yaml"
    if kind == "fifo":
        os.mkfifo(cfg)
        why = "is a named pipe, not a regular file"
    elif kind == "dev-zero":
        cfg.symlink_to("/dev/zero")
        why = "is a character device, not a regular file"
    else:
        cfg.write_text("# padding\n" * 200_000)
        why = "larger than the 1 MiB cap"
    proc = subprocess.run([sys.executable, "-m", "resilient_sqs.policy", "check", str(BIG_PLAN), "--config", str(cfg)],
                          capture_output=True, cwd=REPO_ROOT, timeout=60, preexec_fn=_limited)
    _one_line_error(proc, str(cfg), why)


@pytest.mark.parametrize("text", ["select: []\n", "ignore: ['*']\n", "select: [SQS001]\nrules: {SQS001: {enabled: false}}\n"])
def test_config_that_checks_nothing_says_so(tmp_path, text):
    cli = sqs_policy_in_process  # main() in this process: its answer is what is judged here
    cfg = tmp_path / "policy.yaml"
    cfg.write_text(text)
    plan = write_plan(tmp_path, queue_plan())  # a plan with errors
    proc = cli("check", plan, "--config", str(cfg), "--format", "json")
    err = proc.stderr.decode()
    assert proc.returncode == 0 and err.startswith("sqs-policy: warning: ") and len(err.splitlines()) == 1, err
    assert "enables no rule" in err and "nothing in the plan is checked" in err
    out = json.loads(proc.stdout)
    assert out["summary"]["rules"] == 0 and any("enables no rule" in n for n in out["notes"])
    _one_line_error(cli("check", plan, "--config", str(cfg), "--strict"), "enables no rule", "--strict")
    # one rule left is a check
    cfg.write_text("select: [SQS001]\n")
    proc = cli("check", plan, "--config", str(cfg))
    assert proc.returncode == 1 and proc.stderr == b""


# -- also seen ---------------------------------------------------------------------------------------------
def test_python_m_policies_in_the_checkout_runs_the_checker():
    proc = subprocess.run([sys.executable, "-m", "policies", "check", str(BIG_PLAN), "--format", "json"],
                          capture_output=True, cwd=REPO_ROOT, timeout=120)
    assert proc.returncode == 1 and proc.stderr == b"", proc.stderr.decode()[-500:]
    assert json.loads(proc.stdout)["summary"]["errors"] > 0


@pytest.mark.parametrize("value", ["1_0", "1e3", "nan", "inf", " 5", "0", "-1", "0x10"])
def test_max_input_mib_takes_plain_decimals_only(value):
    _one_line_error(sqs_policy_in_process("check", str(BIG_PLAN), "--max-input-mib", value),
                    f"{value!r} is not a positive number")


def test_max_input_mib_plain_decimal():
    assert sqs_policy_in_process("check", str(BIG_PLAN), "--max-input-mib", "0.5").returncode == 1
    _one_line_error(sqs_policy_in_process("check", str(BIG_PLAN), "--max-input-mib", "0.1"), "larger than the input limit of 0.1 MiB")


# -- 6. two views of one plan ------------------------------------------------------------------------------
def test_consistent_views_are_judged(tmp_path):
    proc = sqs_policy_in_process("check", write_plan(tmp_path, queue_plan()), "--format", "json")
    assert proc.returncode == 1 and any(f["rule_id"] == "SQS001" for f in json.loads(proc.stdout)["findings"])


def test_sse_off_only_in_resource_changes_is_refused(tmp_path):
    doc = queue_plan(values={"sqs_managed_sse_enabled": True})
    doc["resource_changes"][0]["change"]["after"]["sqs_managed_sse_enabled"] = False
    _one_line_error(sqs_policy_in_process("check", write_plan(tmp_path, doc)), "two views of the plan disagree",
                    "aws_sqs_queue.q.sqs_managed_sse_enabled differs between planned_values and "
                    "resource_changes[0].change.after")


def test_resource_only_in_resource_changes_is_refused(tmp_path):
    doc = queue_plan(values={"sqs_managed_sse_enabled": True})
    bad = json.loads(json.dumps(doc["resource_changes"][0]))
    bad["address"], bad["name"] = "aws_sqs_queue.hidden", "hidden"
    bad["change"]["after"]["sqs_managed_sse_enabled"] = False
    doc["resource_changes"].append(bad)
    _one_line_error(sqs_policy_in_process("check", write_plan(tmp_path, doc)), "resource_changes[1] (aws_sqs_queue.hidden) will be "
                    "create, but planned_values does not have it")


def test_resource_only_in_planned_values_is_refused(tmp_path):
    doc = queue_plan()
    doc["resource_changes"][0]["address"] = "aws_sqs_queue.other"
    _one_line_error(sqs_policy_in_process("check", write_plan(tmp_path, doc)), "two views of the plan disagree")


def test_deleted_resource_still_in_planned_values_is_refused(tmp_path):
    doc = queue_plan()
    ch = doc["resource_changes"][0]["change"]
    ch["actions"], ch["before"], ch["after"] = ["delete"], ch["after"], None
    _one_line_error(sqs_policy_in_process("check", write_plan(tmp_path, doc)), "will be delete with nothing after it, but "
                    "planned_values still has it")


@pytest.mark.parametrize("edit,where", [
    (lambda t: t.replace('{"format_version": "1.2"', '{"format_version": "1.2", "errored": true, "errored": false', 1),
     "the top-level object repeats the key 'errored'"),
    (lambda t: t.replace('"planned_values":', '"planned_values": {"root_module": {}}, "planned_values":', 1),
     "the top-level object repeats the key 'planned_values'"),
    (lambda t: t.replace('"sqs_managed_sse_enabled": false', '"sqs_managed_sse_enabled": false, '
                         '"sqs_managed_sse_enabled": true'),
     "planned_values.root_module.resources[0].values repeats the key 'sqs_managed_sse_enabled'"),
])
def test_repeated_keys_are_refused_naming_where(tmp_path, edit, where):
    text = json.dumps(queue_plan())
    assert edit(text) != text
    p = tmp_path / "plan.json"
    p.write_text(edit(text))
    _one_line_error(sqs_policy_in_process("check", str(p)), where, "Terraform never writes that")


def test_committed_fixture_plans_have_agreeing_views():
    from resilient_sqs.policy import loader

    plans = Path(__file__).parent / "plans"
    files = sorted(p for d in (plans, plans / "update", plans / "features")
                   for p in d.glob("*.json") if p.name != "MANIFEST.json")
    assert len(files) > 80
    for p in files:
        doc = json.loads(p.read_text())
        assert loader.views_disagree(doc) is None, p
        if not doc.get("errored"):  # an errored plan is refused as incomplete (tests/policies/test_plan_features.py)
            assert loader.load(str(p))["format_version"]


# -- 1. sensitive values: judged, never printed ---------------------------------------------------------------
SECRET_POLICY = json.dumps({"Version": "2012-10-17", "Statement": [{
    "Sid": "AllowS3cr3tT0ken", "Effect": "Allow", "Principal": "*", "Action": "sqs:S3cr3tAction*", "Resource": "*"}]})
SECRET_REDRIVE = json.dumps({"deadLetterTargetArn": "arn:aws:sqs:us-east-1:123456789012:dlq-S3cr3tName",
                             "maxReceiveCount": 987})


def _sensitive_plan() -> dict:
    doc = queue_plan(values={"policy": SECRET_POLICY, "redrive_policy": SECRET_REDRIVE, "sqs_managed_sse_enabled": True},
                     after_sensitive={"policy": True, "redrive_policy": True})
    doc["planned_values"]["root_module"]["resources"][0]["sensitive_values"] = {"policy": True, "redrive_policy": True}
    return doc


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_sensitive_plan_values_are_judged_but_not_printed(tmp_path, fmt):
    plan = write_plan(tmp_path, _sensitive_plan())
    proc = sqs_policy_in_process("check", plan, "--format", fmt, "--show-pass")
    out = proc.stdout.decode()
    assert proc.returncode == 1, proc.stderr
    for secret in ("S3cr3t", "987", "dlq-S3cr3tName"):
        assert secret not in out, (secret, [line for line in out.splitlines() if secret in line][:3])
    # judged as usual: the receive count and the open policy still fail, saying (sensitive) where the value was
    assert "maxReceiveCount (sensitive) is outside" in out
    assert "actions not scoped to named resources: (sensitive) on" in out


def test_sensitive_values_stay_visible_when_not_marked(tmp_path):
    doc = _sensitive_plan()
    doc["resource_changes"][0]["change"]["after_sensitive"] = {}
    doc["planned_values"]["root_module"]["resources"][0]["sensitive_values"] = {}
    out = sqs_policy_in_process("check", write_plan(tmp_path, doc)).stdout.decode()
    assert "maxReceiveCount 987 is outside" in out and "sqs:S3cr3tAction*" in out and "(sensitive)" not in out


def _sensitive_source(tmp_path: Path, literal: bool) -> tuple[str, Path]:
    """source-good with the orders topic statement's Action from a sensitive variable (or a literal in a
    sensitive attribute) and Resource "*": the policy is unknown in the plan, decided from the source."""
    src = copy_source(tmp_path)
    main = src / "main.tf"
    action = "sqs:S3cr3tL1teral" if literal else "sqs:${var.token}"
    text = main.read_text().replace(
        '        Action    = "sqs:SendMessage"\n        Resource  = aws_sqs_queue.orders.arn',
        f'        Action    = "{action}"\n        Resource  = "*"', 1)
    assert action in text
    main.write_text('variable "token" {\n  type      = string\n  sensitive = true\n}\n\n' + text)
    doc = json.loads(SOURCE_GOOD_PLAN.read_text())
    for r in doc["configuration"]["root_module"]["resources"]:
        if r["address"] == "aws_sqs_queue_policy.orders" and not literal:
            r["expressions"]["policy"]["references"].append("var.token")
    for rc in doc["resource_changes"]:
        if rc["address"] == "aws_sqs_queue_policy.orders":
            rc["change"]["after_sensitive"] = {"policy": True}
    doc["variables"]["token"] = {"value": "S3cr3tT0ken"}
    doc["configuration"]["root_module"]["variables"]["token"] = {"sensitive": True}
    return write_plan(tmp_path, doc, "sensitive-source.json"), src


@pytest.mark.parametrize("literal", [False, True])
@pytest.mark.parametrize("fmt", ["text", "sarif"])
def test_sensitive_values_read_from_the_source_are_not_printed(tmp_path, literal, fmt):
    plan, src = _sensitive_source(tmp_path, literal)
    proc = sqs_policy_in_process("check", plan, "--source-dir", str(src), "--format", fmt, "--show-pass")
    out = proc.stdout.decode()
    assert proc.returncode == 1, proc.stderr
    assert "S3cr3t" not in out, [line for line in out.splitlines() if "S3cr3t" in line][:3]
    assert ("actions not scoped to named resources: " + ("" if literal else "sqs:") + "(sensitive) on") in out


@pytest.mark.parametrize("text,where", [
    ("select: [SQS001]\nselect: ['*']\n", "line 2 repeats the key 'select'"),
    ("waivers:\n  - address: a\n    reason: r\n    reason: s\n", "line 4 repeats the key 'reason'"),
    ("rules: {SQS003: {min: 3}, SQS003: {min: 2}}\n", "repeats the key 'SQS003'"),
])
def test_config_repeating_a_key_is_refused(tmp_path, text, where):
    cfg = tmp_path / "policy.yaml"
    cfg.write_text(text)
    _one_line_error(sqs_policy_in_process("check", str(BIG_PLAN), "--config", str(cfg)), str(cfg), where)


def test_config_yaml_merge_keys_still_work(tmp_path):
    cfg = tmp_path / "policy.yaml"
    cfg.write_text("rules:\n  SQS003: &base {min: 1, max: 2}\n  visibility-timeout-covers-consumer: {multiplier: 6}\n"
                   "  SQS004: {<<: {severity: warning}, severity: error}\n")
    proc = sqs_policy_in_process("check", str(BIG_PLAN), "--config", str(cfg))
    assert proc.returncode == 1 and proc.stderr == b"", proc.stderr


def test_sensitive_number_in_a_note_naming_its_resource_is_masked():
    from resilient_sqs.policy.findings import Report
    from resilient_sqs.policy.sensitive import from_plan, redact_report

    secrets = from_plan(_sensitive_plan())
    report = Report(notes=["main.tf:3: aws_sqs_queue.q.redrive_policy is 987 in the plan but 5 in the source",
                           "aws_sqs_queue.other: 987 stays"])
    redact_report(report, secrets)
    assert report.notes == ["main.tf:3: aws_sqs_queue.q.redrive_policy is (sensitive) in the plan but 5 in the source",
                            "aws_sqs_queue.other: 987 stays"]
