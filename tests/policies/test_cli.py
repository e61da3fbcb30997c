"""The CLI as CI runs it: a fresh process, exit codes, formats, config, waivers, bad input."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from resilient_sqs.policy.rules import CONFIG_RULES, RULES
from tests.support.helpers import REPO_ROOT, sqs_policy_in_process
from tests.support.policy_cli import MALFORMED, _one_line_error, cli
from tests.policies import plans


# -- malformed input: exit 2, one line, what is wrong and what to do -------------------------
@pytest.mark.parametrize("fname,needles", [
    ("not-json.txt", ["is not JSON", "terraform show -json"]),
    ("empty.json", ["is empty", "terraform show -json"]),
    ("blank.json", ["is empty"]),
    ("state-show.json", ["is state JSON", "not a plan", "terraform plan -out"]),
    ("state-file.tfstate", ["is a Terraform state file, not a plan"]),
    ("format-2.json", ["format_version 2.0 is not supported", "1.x"]),
    ("no-format.json", ["has no format_version"]),
    ("bad-actions.json", ["not a well-formed Terraform plan", "resource_changes[0].change.actions", "'create' is not of type 'array'"]),
    ("errored.json", ["errored", "incomplete"]),
    ("truncated.json", ["is not valid JSON (line 2 column 1"]),
    ("list.json", ["top-level JSON value is a list"]),
    ("provider-schemas.json", ["provider schema dump"]),
])
def test_malformed_input(fname, needles):
    _one_line_error(sqs_policy_in_process("check", str(MALFORMED / fname)), str(MALFORMED / fname), *needles)


@pytest.mark.plan
def test_binary_plan_file_says_to_run_terraform_show():
    binary = plans.fresh_plan_path("config:raw-good").with_suffix(".tfplan")
    assert binary.read_bytes()[:2] == b"PK"  # the real `terraform plan -out` file
    _one_line_error(cli("check", str(binary)), "is a binary Terraform plan file", f"terraform show -json {binary}")


def test_unreadable_paths(tmp_path):
    _one_line_error(cli("check", str(tmp_path / "missing.json")), "no such file")
    _one_line_error(cli("check", str(tmp_path)), "is a directory")


def test_binary_garbage_and_bad_utf8(tmp_path):
    (tmp_path / "bin.json").write_bytes(b"{\x00\x01\x02" + bytes(range(256)))
    _one_line_error(cli("check", str(tmp_path / "bin.json")), "binary data")
    (tmp_path / "latin1.json").write_bytes('{"format_version": "1.2", "x": "caf\xe9"}'.encode("latin-1"))
    _one_line_error(cli("check", str(tmp_path / "latin1.json")), "not UTF-8")


def test_usage_errors_are_one_line_exit_2():
    _one_line_error(cli("check"), "PLAN.json")
    _one_line_error(cli("check", "x.json", "--format", "xml"), "--format")
    _one_line_error(cli("explain", "SQS999"), "unknown rule 'SQS999'")
    _one_line_error(cli("frobnicate"), "invalid choice")


# -- exit codes and formats ------------------------------------------------------------------
def test_clean_plan_exits_0_violations_exit_1(plan_files):
    assert sqs_policy_in_process("check", str(plan_files["example:basic"])).returncode == 0
    bad = sqs_policy_in_process("check", str(plan_files["config:queue-bad"]))
    assert bad.returncode == 1
    assert b"ERROR   SQS005 dlq-fifo-matches-source  aws_sqs_queue.src[\"fifomix\"]" in bad.stdout


def test_json_format(plan_files):
    proc = sqs_policy_in_process("check", str(plan_files["config:consumers"]), "--format", "json")
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert set(out) == {"findings", "summary", "notes"}
    for f in out["findings"]:
        assert set(f) == {"rule_id", "slug", "severity", "status", "address", "message", "remediation"}
        assert f["status"] in ("fail", "unknown") and f["severity"] in ("error", "warning")
    slow = next(f for f in out["findings"] if f["rule_id"] == "ESM001" and "slow" in f["address"])
    assert "visibility 120 s < 6 × 60 s + 5 s = 365 s" in slow["message"]
    assert slow["remediation"].startswith('Set the module input visibility_timeout_seconds of module.queue["slow"]')
    # errors: ESM001 x2, ESM002, ESM004, ESM005 (provisioned mode with scaling_config); warnings: ESM003 x2
    assert out["summary"]["errors"] == 5 and out["summary"]["unknown"] == 1 and out["summary"]["warnings"] == 2


def test_show_pass_lists_passes(plan_files):
    proc = sqs_policy_in_process("check", str(plan_files["config:raw-good"]), "--format", "json", "--show-pass")
    out = json.loads(proc.stdout)
    passes = [f for f in out["findings"] if f["status"] == "pass"]
    assert len(passes) == out["summary"]["passed"] > 50


def test_strict_turns_unknown_into_failure(plan_files):
    path = str(plan_files["config:raw-good"])
    assert sqs_policy_in_process("check", path).returncode == 0
    strict = sqs_policy_in_process("check", path, "--strict", "--format", "json")
    assert strict.returncode == 1
    f = json.loads(strict.stdout)["findings"]
    # maxReceiveCount is unknown: SQS003 and SQS012 (which reads it) cannot decide
    assert [(x["rule_id"], x["status"]) for x in f] == [("SQS003", "fail"), ("SQS012", "fail")]
    assert all("cannot be decided before apply" in x["message"] for x in f)


def test_fail_on_warning(plan_files):
    path = str(plan_files["config:warnings"])  # warnings only
    out = json.loads(sqs_policy_in_process("check", path, "--format", "json").stdout)
    assert out["summary"]["warnings"] > 0 and out["summary"]["errors"] == 0
    assert sqs_policy_in_process("check", path).returncode == 0
    assert sqs_policy_in_process("check", path, "--fail-on", "warning").returncode == 1
    # a plan without warnings passes either way
    assert sqs_policy_in_process("check", str(plan_files["example:basic"]), "--fail-on", "warning").returncode == 0


@pytest.mark.parametrize("name", [n for n in plans.subjects() if n.startswith(("example:", "fixture:"))])
def test_our_plans_pass_the_cli(plan_files, name):
    """`check` on the plan of every example (complete with its consumers) and module
    fixture: exit 0, no error; `--strict` fails exactly when something is unknown."""
    path = str(plan_files[name])
    proc = sqs_policy_in_process("check", path, "--format", "json")
    assert proc.returncode == 0, proc.stdout.decode()[:2000]
    summary = json.loads(proc.stdout)["summary"]
    assert summary["errors"] == 0 and summary["passed"] > 0
    assert sqs_policy_in_process("check", path, "--strict").returncode == (1 if summary["unknown"] else 0)


def test_stdin_and_output_file(plan_files, tmp_path):
    data = plan_files["config:queue-bad"].read_bytes()
    proc = cli("check", "-", "--format", "json", "-o", str(tmp_path / "r.json"), stdin=data)
    assert proc.returncode == 1 and proc.stdout == b""
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["errors"] == 14


# -- SARIF -------------------------------------------------------------------------------------
def test_sarif_is_valid_for_code_scanning(plan_files):
    fixture = REPO_ROOT / "tests" / "policies" / "configs" / "queue-bad"
    # values not read from source (--no-source): one finding stays unknown, a SARIF note
    proc = sqs_policy_in_process("check", str(plan_files["config:queue-bad"]), "--format", "sarif", "--source-dir", str(fixture),
               "--no-source")
    assert proc.returncode == 1
    sarif = json.loads(proc.stdout)
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    run, = sarif["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(RULES) + list(CONFIG_RULES)
    for r in rules:
        assert r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["text"]
        assert r["defaultConfiguration"]["level"] in ("error", "warning")
    assert len(run["results"]) == 19
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note")
        assert res["message"]["text"]
        loc = res["locations"][0]["physicalLocation"]
        assert not loc["artifactLocation"]["uri"].startswith(("/", "file:"))  # repository-relative
        assert loc["region"]["startLine"] >= 1
        assert res["partialFingerprints"]
    # results point at the line declaring the resource
    src = next(r for r in run["results"] if r["ruleId"] == "SQS005")
    loc = src["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "tests/policies/configs/queue-bad/main.tf"
    lines = (fixture / "main.tf").read_text().splitlines()
    assert lines[loc["region"]["startLine"] - 1].startswith('resource "aws_sqs_queue" "src"')
    unknown = next(r for r in run["results"] if r["properties"]["status"] == "unknown")
    assert unknown["level"] == "note"


def test_sarif_locates_resources_inside_modules(plan_files):
    args = ("check", str(plan_files["config:consumers"]), "--format", "sarif", "--source-dir",
            "tests/policies/configs/consumers")

    def esm_uri(*extra):
        results = json.loads(sqs_policy_in_process(*args, *extra).stdout)["runs"][0]["results"]
        esm = next(r for r in results if r["ruleId"] == "ESM001" and "slow" in r["message"]["text"])
        return esm["locations"][0]["physicalLocation"]

    # its module source ../../../../modules/queue is outside --source-dir but inside the repository
    # (the git work tree): read without a flag, and named from the repository root
    loc = esm_uri()
    assert loc["artifactLocation"]["uri"] == "modules/queue/main.tf"
    line = (REPO_ROOT / "modules/queue/main.tf").read_text().splitlines()[loc["region"]["startLine"] - 1]
    assert line.startswith('resource "aws_sqs_queue" "this"')
    # a repository root that does not hold the module: not read, the plan file instead
    assert esm_uri("--repo-root", "tests/policies/configs/consumers")["artifactLocation"]["uri"].endswith("consumers.json")
    # unless a --source-root holds it
    loc = esm_uri("--repo-root", "tests/policies/configs/consumers", "--source-root", ".")
    assert loc["artifactLocation"]["uri"] == "modules/queue/main.tf"


# -- list-rules / explain ----------------------------------------------------------------------
def test_list_rules_covers_the_catalog():
    proc = cli("list-rules", "--format", "json")
    rules = json.loads(proc.stdout)
    assert [r["id"] for r in rules] == list(RULES) + list(CONFIG_RULES)
    assert len({r["slug"] for r in rules}) == len(rules)
    text = cli("list-rules").stdout.decode()
    for rid in RULES:
        assert rid in text


def test_explain_by_id_and_slug():
    by_id = cli("explain", "ESM001").stdout.decode()
    by_slug = cli("explain", "visibility-timeout-covers-consumer").stdout.decode()
    assert by_id == by_slug
    assert "6 x function timeout + batching window" in by_id and "multiplier = 6" in by_id
    assert "Sources:" in by_id


@pytest.fixture(scope="module")
def listed_rules() -> dict[str, dict]:
    """`sqs-policy list-rules --format json`, once for the module, by rule ID."""
    return {r["id"]: r for r in json.loads(cli("list-rules", "--format", "json").stdout)}


@pytest.mark.parametrize("rid", list(RULES) + list(CONFIG_RULES))
def test_explain_cites_public_references_only(rid, listed_rules):
    """Every rule cites public documentation by title and URL, and nothing internal."""
    import re

    proc = sqs_policy_in_process("explain", rid)  # the process path: test_explain_by_id_and_slug
    assert (proc.returncode, proc.stderr) == (0, b""), proc.stderr
    out = proc.stdout.decode()
    sources = out.split("  Sources:\n", 1)[1].splitlines()
    assert sources and all(re.fullmatch(r"    .+: https://\S+", line) for line in sources), sources
    assert not re.search(r"\bseeds?\b|\bissue \d|§", out, re.I), out
    assert [f"    {x['title']}: {x['url']}" for x in listed_rules[rid]["references"]] == sources


# -- configuration and waivers -----------------------------------------------------------------
def _cfg(tmp_path: Path, text: str, name: str = "policy.yaml") -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_thresholds_severity_and_selection_from_yaml(plan_files, tmp_path):
    path = str(plan_files["config:queue-bad"])
    cfg = _cfg(tmp_path, """
rules:
  max-receive-count: {min: 1, max: 10, floor: 1}
  SQS007: {severity: error}
  dlq-redrive-allow-by-queue: {enabled: false}
ignore: [SQS001]
""")
    out = json.loads(sqs_policy_in_process("check", path, "--config", cfg, "--format", "json").stdout)
    got = {(f["rule_id"], f["severity"], f["address"]) for f in out["findings"]}
    assert not any(r in ("SQS001", "SQS011") for r, _, _ in got)
    assert not any(r == "SQS003" and "mrc" in a for r, _, a in got)  # 1 and 10 now within 1..10
    assert ("SQS007", "error", 'aws_sqs_queue.src["shortpoll"]') in got
    assert out["summary"]["rules"] == len(RULES) - 2


def test_select_from_toml(plan_files, tmp_path):
    cfg = _cfg(tmp_path, 'select = ["ESM*"]\n[rules.ESM001]\nmultiplier = 1\n', "policy.toml")
    out = json.loads(sqs_policy_in_process("check", str(plan_files["config:consumers"]), "--config", cfg, "--format", "json").stdout)
    assert {f["rule_id"] for f in out["findings"]} <= {"ESM001", "ESM002", "ESM003", "ESM004", "ESM005"}
    # with multiplier 1: 120 >= 1 x 60 + 5, only the unknown one remains for ESM001
    assert [(f["status"]) for f in out["findings"] if f["rule_id"] == "ESM001"] == ["unknown"]


def test_waivers(plan_files, tmp_path):
    path = str(plan_files["config:queue-bad"])
    cfg = _cfg(tmp_path, """
waivers:
  - address: aws_sqs_queue.nodlq
    rules: [SQS002]
    reason: "poison messages are handled by the consumer (TICKET-1)"
    expires: 2999-12-31
  - address: 'aws_sqs_queue.src["mrc*"]'
    rules: [max-receive-count]
    reason: "legacy consumers, tracked in TICKET-2"
  - address: aws_sqs_queue.no_such_queue
    reason: "stale"
""")
    proc = sqs_policy_in_process("check", path, "--config", cfg, "--format", "json")
    out = json.loads(proc.stdout)
    waived = {(f["rule_id"], f["address"]) for f in out["findings"] if "waiver" in f}
    assert waived == {("SQS002", "aws_sqs_queue.nodlq"), ("SQS003", 'aws_sqs_queue.src["mrc1"]'),
                      ("SQS003", 'aws_sqs_queue.src["mrc10"]')}
    assert out["summary"]["waived"] == 3 and out["summary"]["errors"] == 12
    unused = [f for f in out["findings"] if f["rule_id"] == "CFG002"]
    assert [f["address"] for f in unused] == ["aws_sqs_queue.no_such_queue"]
    sarif = json.loads(sqs_policy_in_process("check", path, "--config", cfg, "--format", "sarif").stdout)
    sup = [r for r in sarif["runs"][0]["results"] if r.get("suppressions")]
    assert len(sup) == 3 and sup[0]["suppressions"][0]["kind"] == "external"


def test_waivers_make_a_plan_pass(plan_files, tmp_path):
    cfg = _cfg(tmp_path, """
waivers:
  - address: "*"
    rules: [SQS003, SQS012]
    reason: "maxReceiveCount (and so SQS012, which reads it) is enforced by the module's own validation"
""")
    proc = sqs_policy_in_process("check", str(plan_files["config:raw-good"]), "--strict", "--config", cfg)
    assert proc.returncode == 0, proc.stdout.decode()


def test_expired_waiver_is_a_failure_not_a_usage_error(plan_files, tmp_path):
    cfg = _cfg(tmp_path, """
waivers:
  - address: aws_sqs_queue.nodlq
    rules: [SQS002]
    reason: "until the consumer is migrated"
    expires: 2020-01-31
""")
    proc = sqs_policy_in_process("check", str(plan_files["config:queue-bad"]), "--config", cfg, "--format", "json")
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    expired = [f for f in out["findings"] if f["rule_id"] == "CFG001"]
    assert len(expired) == 1 and "expired on 2020-01-31" in expired[0]["message"]
    # and the finding it covered is reported again
    assert any(f["rule_id"] == "SQS002" and "waiver" not in f for f in out["findings"])


@pytest.mark.parametrize("name,text,needles", [
    ("c.yaml", "rules: [1, 2\n", ["not valid YAML"]),
    ("c.toml", "rules = {\n", ["not valid TOML"]),
    ("c.json", "{}", ["unknown format", "*.yaml"]),
    ("c.yaml", "rulez: {}\n", ["unknown key 'rulez'"]),
    ("c.yaml", "rules: {SQS999: {}}\n", ["unknown rule 'SQS999'"]),
    ("c.yaml", "rules: {SQS003: {mn: 3}}\n", ["rules.SQS003: unknown option 'mn'", "min"]),
    ("c.yaml", "rules: {SQS003: {min: three}}\n", ["rules.SQS003.min", "must be an integer"]),
    ("c.yaml", "rules: {SQS003: {severity: fatal}}\n", ["severity", "error, warning"]),
    ("c.yaml", "select: [NOPE*]\n", ["matches no rule"]),
    ("c.yaml", "waivers: [{address: x}]\n", ["waivers[0]: reason is required"]),
    ("c.yaml", "waivers: [{address: x, reason: r, expires: soon}]\n", ["waivers[0]: expires", "YYYY-MM-DD"]),
    ("c.yaml", "waivers: [{reason: r}]\n", ["waivers[0]: address is required"]),
    ("c.yaml", "- a\n- b\n", ["top level must be a mapping"]),
    ("c.yaml", "rules: {DDB001: {table_pattern: '('}}\n", ["not a regular expression RE2 reads", "missing )"]),
    # RE2 (linear time): Python's lookarounds and backreferences are refused, not silently slow
    ("c.yaml", "rules: {DDB001: {table_pattern: '(?=idem)'}}\n", ["not a regular expression RE2 reads", "(?="]),
    ("c.yaml", "rules: {DDB001: {table_pattern: '(a)\\1'}}\n", ["not a regular expression RE2 reads"]),
])
def test_bad_config_is_a_usage_error(plan_files, tmp_path, name, text, needles):
    cfg = _cfg(tmp_path, text, name)
    _one_line_error(sqs_policy_in_process("check", str(plan_files["config:raw-good"]), "--config", cfg), *needles)


def test_missing_config_file(plan_files, tmp_path):
    _one_line_error(sqs_policy_in_process("check", str(plan_files["config:raw-good"]), "--config", str(tmp_path / "nope.yaml")), "no such file")


def test_console_script_is_installed():
    exe = Path(sys.executable).parent / "sqs-policy"
    assert exe.exists(), "pip install -e . should install the sqs-policy console script"
    proc = subprocess.run([str(exe), "list-rules"], capture_output=True, timeout=60, env=dict(os.environ))
    assert proc.returncode == 0 and b"SQS001" in proc.stdout


def test_start_up_stays_lean(plan_files):
    """A clean check imports neither jsonschema (the precompiled validator suffices)
    nor PyYAML (no YAML configuration given)."""
    code = ("import sys\nfrom resilient_sqs.policy.cli import main\nrc = main(['check', sys.argv[1], '--format', 'json'])\n"
            "sys.stderr.write(repr(sorted(m for m in ('jsonschema', 'yaml') if m in sys.modules)))\n")
    proc = subprocess.run([sys.executable, "-c", code, str(plan_files["example:many-queues"])],
                          capture_output=True, text=True, timeout=60)
    assert proc.stderr.strip() == "[]", proc.stderr


def test_a_catastrophic_table_pattern_runs_in_linear_time(tmp_path):
    """(a+)+$ backtracks exponentially in Python's re on a long name that nearly matches; the
    checker runs config patterns with RE2 (issue #30 §5), so a check with it ends promptly."""
    from resilient_sqs.policy.rules.storage import is_idempotency_table

    assert is_idempotency_table("(?i)idempot", "aws_dynamodb_table.x", "orders-IDEMPOTENCY") is True
    assert is_idempotency_table("(a+)+$", "aws_dynamodb_table.x", "a" * 100_000 + "!") is False
    cfg = tmp_path / "c.yaml"
    cfg.write_text("rules: {DDB001: {table_pattern: '(a+)+$'}}\n")
    proc = cli("check", str(plans.plan_path("config:queue-bad")), "--no-source", "--config", str(cfg))
    assert proc.returncode in (0, 1), proc.stderr
