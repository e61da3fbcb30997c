"""`pytest --sqs-plan plan.json`: the plan checker's rules as pytest items
(policies/pytest_plugin.py, installed as resilient_sqs.policy.pytest_plugin, registered through
the pytest11 entry point sqs_policy_plan).

The plugin runs in pytester sessions (in-process: fast); `sqs-policy check` runs once, in one
subprocess, for every committed fixture plan, and every item's outcome must follow from the
checker's own verdict on that rule and resource. No Terraform.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

# Imported once here: pytester's in-process runs drop every module first imported during a
# run. Re-imported later, hcl2 and lark would be second copies beside the objects the
# checker's modules still hold (other tests' source reading then fails), and the checker's
# modules would be re-imported (and re-rewritten) per run.
import hcl2.api  # noqa: F401
import jsonschema  # noqa: F401
import lark  # noqa: F401
import yaml  # noqa: F401
import resilient_sqs.policy.cli
import resilient_sqs.policy.config
import resilient_sqs.policy.engine
import resilient_sqs.policy.loader
import resilient_sqs.policy.schema
import resilient_sqs.policy.formats
import resilient_sqs.policy.source  # noqa: F401
from tests.support.helpers import REPO_ROOT
from tests.policies import plans

pytest_plugins = ["pytester"]

PLANS = REPO_ROOT / "tests" / "policies" / "plans"
UPDATES = REPO_ROOT / "tests" / "policies" / "updates"
MALFORMED = REPO_ROOT / "tests" / "policies" / "malformed"
# inner sessions of many items: no failure texts, no log capture, no cache
QUIET = ("-q", "--tb=no", "-s", *(a for p in ("logging", "warnings", "cacheprovider", "faulthandler", "xdist", "timeout")
                                   for a in ("-p", f"no:{p}")))


def _committed_plans() -> list[tuple[Path, Path]]:
    """Every committed fixture plan with the configuration it was planned from (its
    --source-dir): first-apply plans from MANIFEST.json's subject, update plans from their
    scenario directory."""
    subjects = plans.subjects()
    manifest = json.loads((PLANS / "MANIFEST.json").read_text())["fixtures"]
    out = []
    for p in sorted(PLANS.glob("*.json")):
        if p.name == "MANIFEST.json":
            continue
        out.append((p, subjects[manifest[p.stem]["subject"]][0]))
    for p in sorted((PLANS / "update").glob("*.json")):
        if p.name != "MANIFEST.json":
            out.append((p, UPDATES / p.stem))
    return out


def _sqs_policy_json(runs: list[tuple[Path, Path]], tmp: Path, *extra: str) -> dict[Path, dict]:
    """`sqs-policy check PLAN --format json --show-pass --source-dir DIR EXTRA` of each plan,
    through the CLI's own main() (argument parsing, engine, JSON report), in this process:
    63 interpreters would cost seconds."""
    import gc

    from resilient_sqs.policy.cli import main

    out = {}
    gc_was_on = gc.isenabled()
    try:
        for i, (plan, src) in enumerate(runs):
            dest = tmp / f"sqs-policy-{i}.json"
            rc = main(["check", str(plan), "--format", "json", "--show-pass", "--source-dir", str(src),
                       "-o", str(dest), *extra])
            assert rc in (0, 1), (plan, rc)
            out[plan] = json.loads(dest.read_text())
    finally:
        if gc_was_on:  # main() turns the collector off for its one-shot process
            gc.enable()
    return out


def _expected(findings: list[dict], fail_on: str = "error") -> str:
    """The pytest outcome of one rule on one resource, from the checker's findings on it:
    failed (a failing error, or warning with fail-on warning) > xfailed (waived, or a warning
    that does not fail the check) > skipped (unknown) > passed."""
    def one(f):
        if f.get("waiver"):
            return "xfailed"
        if f["status"] == "pass":
            return "passed"
        if f["status"] == "unknown":
            return "skipped"
        return "failed" if f["severity"] == "error" or fail_on == "warning" else "xfailed"

    got = {one(f) for f in findings}
    return next(o for o in ("failed", "xfailed", "skipped", "passed") if o in got)


def _outcomes(reprec) -> dict[tuple[str, str, str], tuple[str, dict]]:
    """{(plan, rule, address): (outcome, user properties)} of an inline pytest run."""
    out = {}
    for rep in reprec.getreports("pytest_runtest_logreport"):
        if rep.when != "call":
            assert rep.passed, (rep.nodeid, rep.when, rep.longreprtext)
            continue
        props = dict(rep.user_properties)
        outcome = "xfailed" if hasattr(rep, "wasxfail") else rep.outcome
        key = (props["plan"], props["rule"], props["address"])
        assert key not in out, f"two items for {key}"
        out[key] = (outcome, props, rep)
    return out


def _by_rule_and_resource(report: dict) -> dict[tuple[str, str], list[dict]]:
    groups: dict[tuple[str, str], list[dict]] = {}
    for f in report["findings"]:
        groups.setdefault((f["rule_id"], f["address"]), []).append(f)
    return groups


def _compare(runs, reports, reprec, fail_on="error"):
    got = _outcomes(reprec)
    expected = {}
    for plan, _ in runs:
        for (rid, addr), findings in _by_rule_and_resource(reports[plan]).items():
            worst = min((f["status"] for f in findings), key=("fail", "unknown", "pass").index)
            expected[(str(plan), rid, addr)] = (_expected(findings, fail_on), worst)
    seen = {k: (o, props["status"]) for k, (o, props, _) in got.items()}
    missing = sorted(set(expected) - set(seen))[:5]
    extra = sorted(set(seen) - set(expected))[:5]
    assert not missing and not extra, f"items missing: {missing}; items sqs-policy does not report: {extra}"
    wrong = [(k, seen[k], expected[k]) for k in expected if seen[k] != expected[k]]
    assert not wrong, f"{len(wrong)} items differ from sqs-policy check, e.g. (got, expected): {wrong[:5]}"
    return got


# ------------------------------------------------------------------------------------------
def test_registered_as_a_pytest11_entry_point_that_imports_only_pytest():
    from importlib.metadata import entry_points

    eps = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert eps.get("sqs_policy_plan") == "resilient_sqs.policy.pytest_plugin", (
        f"pytest11 entry points: {eps}; after changing pyproject.toml, reinstall: pip install -e .")
    # loading the plugin as pytest does, through its entry point (every pytest run of every suite
    # where the package is installed), imports its package's __init__ (the version) and none of the
    # checker's modules, nor anything of the repository's tests/ or tooling/
    code = ("import sys; from importlib.metadata import entry_points; "
            "p = next(ep for ep in entry_points(group='pytest11') if ep.name == 'sqs_policy_plan').load(); "
            "print(sorted(m for m in sys.modules if m.startswith(('resilient_sqs', 'tests', 'tooling', 'yaml', "
            "'jsonschema', 'hcl2', 'boto3', 'python_terraform')))); "
            "print(p.__file__)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == str(["resilient_sqs", "resilient_sqs.policy", "resilient_sqs.policy.pytest_plugin"]), lines[0]
    import ast

    imported = set()
    for node in ast.walk(ast.parse(Path(lines[1]).read_text())):
        if isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level:  # relative: inside resilient_sqs.policy
            base = ".".join(["resilient_sqs", "policy"][:3 - node.level] + ([node.module] if node.module else []))
            imported |= {f"{base}.{a.name}" for a in node.names} if not node.module else {base}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module)
    assert {m.split(".")[0] for m in imported} <= {"__future__", "os", "dataclasses", "pathlib", "typing", "pytest",
                                                   "resilient_sqs"}, imported
    assert {m for m in imported if m.startswith("resilient_sqs")} <= {
        "resilient_sqs.policy.loader", "resilient_sqs.policy.config", "resilient_sqs.policy.engine",
        "resilient_sqs.policy.errors", "resilient_sqs.policy.formats", "resilient_sqs.policy.formats.text",
        "resilient_sqs.policy.terminal", "resilient_sqs.policy.partial", "resilient_sqs.policy.files"}, imported


def test_the_former_import_path_is_the_plugin_itself(tmp_path):
    """resilient_sqs.testing.plan_plugin, where the plugin lived, is the plugin module (not a copy
    whose hooks pytest would register a second time): `-p` with it, autoloading off, checks a plan."""
    import shutil

    plan = shutil.copy(PLANS / "queue-bad.json", tmp_path / "plan.json")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    same = subprocess.run([sys.executable, "-c", "import resilient_sqs.testing.plan_plugin as old, "
                           "resilient_sqs.policy.pytest_plugin as new; print(old is new)"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert same.stdout.strip() == "True", same.stderr
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "resilient_sqs.testing.plan_plugin", "--sqs-plan",
                           str(plan), "--sqs-no-source", "-q", "-rf", "-p", "no:cacheprovider"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAILED plan.json::SQS002[aws_sqs_queue.nodlq]" in proc.stdout, proc.stdout


@pytest.mark.sweep  # the fast tier compares five plans: the strict/config test below
def test_every_committed_plan_gives_the_same_verdicts_as_sqs_policy_check(pytester, tmp_path):
    """One item per rule and resource of every committed plan (first-apply and update plans,
    each with its own --sqs-source-dir, all in one session), with the outcome the checker's
    verdict on that rule and resource gives."""
    runs = _committed_plans()
    assert len(runs) >= 60
    reports = _sqs_policy_json(runs, tmp_path)
    args = [a for plan, src in runs for a in ("--sqs-plan", str(plan), "--sqs-source-dir", str(src))]
    # --tb=no: pytest's failure summary costs O(failures x items); the texts are tested below
    reprec = pytester.inline_run(*args, *QUIET)
    got = _compare(runs, reports, reprec)
    outcomes = {o for o, _, _ in got.values()}
    assert outcomes == {"passed", "failed", "skipped", "xfailed"}, outcomes
    # readable item ids: <plan>::<RULE>[<address>]
    (plan, rid, addr), (_, _, rep) = next(iter(got.items()))
    assert rep.nodeid.endswith(f"{Path(plan).name}::{rid}[{addr}]"), rep.nodeid
    assert not reprec.getfailedcollections()


def test_strict_config_and_fail_on_warning_give_the_same_verdicts_as_sqs_policy_check(pytester, tmp_path):
    cfg = tmp_path / "policy.yaml"
    cfg.write_text(textwrap.dedent("""\
        ignore: [DDB003]
        rules:
          SQS003: {min: 1, max: 9}
          CW001: {severity: error}
        waivers:
          - address: aws_sqs_queue.dlq
            rules: [SQS007]
            reason: "the DLQ is only read by the redrive tool (OPS-7)"
          - address: module.queue["*"].*
            reason: "legacy consumers (OPS-9)"
            expires: 2099-12-31
    """))
    names = ["consumers", "existing-queues", "queue-bad", "warnings", "service-dlqs"]
    runs = [(p, s) for p, s in _committed_plans() if p.parent == PLANS and p.stem in names]
    assert len(runs) == len(names)
    extra = ["--strict", "--config", str(cfg), "--fail-on", "warning"]
    reports = _sqs_policy_json(runs, tmp_path, *extra)
    statuses = {f["status"] for r in reports.values() for f in r["findings"]}
    assert any("(--strict)" in f["message"] for r in reports.values() for f in r["findings"])
    assert any(f.get("waiver") for r in reports.values() for f in r["findings"])
    assert statuses == {"pass", "fail"}, statuses  # --strict: nothing is left unknown
    args = [a for plan, src in runs for a in ("--sqs-plan", str(plan), "--sqs-source-dir", str(src))]
    reprec = pytester.inline_run(*args, "--sqs-strict", "--sqs-config", str(cfg), "--sqs-fail-on", "warning", *QUIET)
    got = _compare(runs, reports, reprec, fail_on="warning")
    assert not any(rid == "DDB003" for _, rid, _ in got)


def _run(pytester, plan: str, *args: str):
    return _outcomes(pytester.inline_run("--sqs-plan", str(PLANS / f"{plan}.json"), "--sqs-no-source", *args,
                                         "-p", "no:cacheprovider"))


def _item(got, rule: str, address: str):
    return next(v for (_, r, a), v in got.items() if r == rule and a == address)


def test_failure_text_is_the_finding_and_its_fix_without_a_traceback(pytester):
    got = _run(pytester, "queue-bad")
    outcome, props, rep = _item(got, "SQS002", "aws_sqs_queue.nodlq")
    assert outcome == "failed" and props["status"] == "fail" and props["severity"] == "error"
    text = rep.longreprtext
    assert text.splitlines()[0] == "SQS002 queue-has-dlq (error) on aws_sqs_queue.nodlq"
    assert "has no dead-letter queue" in text and "fix: Add redrive_policy" in text
    for noise in ("Traceback", "pytest_plugin.py", "def runtest", "PlanRuleFailure", "raise "):
        assert noise not in text, text
    assert len(text.splitlines()) <= 6, text
    # the one-line summary (-ra, junit message) is the finding's message
    assert rep.longrepr.reprcrash.message.startswith("error: has no dead-letter queue")


def test_unknown_is_skipped_with_its_reason_and_strict_makes_it_fail(pytester):
    addr = 'module.queue["fast"].aws_sqs_queue.this'
    outcome, props, rep = _item(_run(pytester, "consumers"), "ESM001", addr)
    assert outcome == "skipped" and props["status"] == "unknown"
    reason = rep.longrepr[2]
    assert "existing-function is not in this plan" in reason and "--sqs-strict" in reason and addr in reason
    outcome, props, rep = _item(_run(pytester, "consumers", "--sqs-strict"), "ESM001", addr)
    assert outcome == "failed" and props["status"] == "fail"
    assert "cannot be decided before apply (--strict)" in rep.longreprtext
    # the same rule's passing findings on the resource (other consumers: the module's, sloppy and
    # the three provisioned-mode mappings) are listed beside it
    assert rep.longreprtext.count("pass: visibility 60 s") == 5


def test_an_item_points_at_the_tf_block_of_its_resource(pytester):
    """With the source directory, the skip summary (and a failure's last line) names the
    .tf file and line the finding was decided from, as SARIF does."""
    src = plans.CONFIGS / "dlq-placement"
    reprec = pytester.inline_run("--sqs-plan", str(PLANS / "dlq-placement.json"), "--sqs-source-dir", str(src), *QUIET)
    outcome, _, rep = _item(_outcomes(reprec), "SQS002", "aws_sqs_queue.maybe")
    assert outcome == "skipped"
    path, line, _ = rep.longrepr
    assert Path(path).resolve() == (src / "main.tf").resolve()  # relative to the working directory
    # the line the finding was decided from (its redrive_policy), inside the resource's block
    lines = (src / "main.tf").read_text().splitlines()[:line]
    assert "maybe_dlq.arn" in lines[-1], lines[-1]
    assert next(x for x in reversed(lines) if x.startswith("resource ")).startswith('resource "aws_sqs_queue" "maybe" ')


def test_waivers_thresholds_and_selection_from_the_config_file(pytester, tmp_path):
    cfg = tmp_path / "policy.toml"
    cfg.write_text(textwrap.dedent("""\
        ignore = ["CW002"]
        [rules.SQS003]
        min = 1
        [[waivers]]
        address = "aws_sqs_queue.dlq"
        rules = ["CW001"]
        reason = "alarms live in the observability stack (OPS-1)"
        expires = 2099-01-01
        [[waivers]]
        address = "aws_sqs_queue.jobs"
        rules = ["SQS007"]
        reason = "old exception"
        expires = 2020-01-01
        [[waivers]]
        address = "aws_sqs_queue.gone"
        reason = "nothing matches"
    """))
    plain = _run(pytester, "warnings")
    assert _item(plain, "SQS003", "aws_sqs_queue.jobs")[0] == "xfailed"  # a warning: maxReceiveCount 2
    assert _item(plain, "CW001", "aws_sqs_queue.dlq")[0] == "xfailed"
    assert any(r == "CW002" for _, r, _ in plain)
    got = _run(pytester, "warnings", "--sqs-config", str(cfg))
    assert _item(got, "SQS003", "aws_sqs_queue.jobs")[0] == "passed"  # threshold from the file
    assert not any(r == "CW002" for _, r, _ in got)  # ignored
    outcome, props, rep = _item(got, "CW001", "aws_sqs_queue.dlq")
    assert outcome == "xfailed" and props["waiver"] == "alarms live in the observability stack (OPS-1)"
    assert "waived until 2099-01-01" in rep.wasxfail
    outcome, _, rep = _item(got, "CFG001", "aws_sqs_queue.jobs")  # the expired waiver fails
    assert outcome == "failed" and "expired on 2020-01-01" in rep.longreprtext
    assert _item(got, "CFG002", "aws_sqs_queue.gone")[0] == "xfailed"  # unused: a warning
    # --sqs-fail-on warning: the remaining warnings fail their items
    got = _run(pytester, "warnings", "--sqs-config", str(cfg), "--sqs-fail-on", "warning")
    assert _item(got, "SQS007", "aws_sqs_queue.dlq")[0] == "failed"
    assert _item(got, "CFG002", "aws_sqs_queue.gone")[0] == "failed"
    assert _item(got, "CW001", "aws_sqs_queue.dlq")[0] == "xfailed"  # still waived


@pytest.mark.parametrize("args,needles", [
    (["--sqs-plan", "nope.json"], ["sqs-policy: nope.json: no such file", "terraform show -json"]),
    (["--sqs-plan", str(MALFORMED / "not-json.txt")], ["is not JSON", "terraform show -json"]),
    (["--sqs-plan", str(MALFORMED / "empty.json")], ["is empty"]),
    (["--sqs-plan", str(PLANS / "warnings.json"), "--sqs-config", "missing.yaml"], ["config missing.yaml: no such file"]),
    (["--sqs-plan", str(PLANS / "warnings.json"), "--sqs-config", "{bad}"], ["unknown key 'colour'"]),
    (["--sqs-plan", str(PLANS / "warnings.json"), "--sqs-config", "{badrule}"], ["unknown rule 'SQS999'"]),
    (["--sqs-plan", "-"], ["standard input", "plan.json"]),
    (["--sqs-strict", "--sqs-config", "x.yaml"], ["--sqs-config, --sqs-strict apply only to a plan", "--sqs-plan"]),
    (["--sqs-plan", str(PLANS / "warnings.json"), "--sqs-plan", str(PLANS / "bench.json"),
      "--sqs-source-dir", ".", "--sqs-source-dir", ".", "--sqs-source-dir", "."], ["given 3 times for 2 --sqs-plan"]),
    (["--sqs-plan", str(PLANS / "warnings.json"), "--sqs-plan", str(PLANS / "warnings.json")], ["given twice"]),
    (["--sqs-plan", str(PLANS / "warnings.json"), "--sqs-no-source", "--sqs-source-dir", "."], ["contradict"]),
])
def test_bad_input_is_a_usage_error_with_the_checkers_message(pytester, tmp_path, args, needles):
    (tmp_path / "bad.yaml").write_text("colour: red\n")
    (tmp_path / "badrule.yaml").write_text("rules:\n  SQS999: {enabled: false}\n")
    args = [a.replace("{bad}", str(tmp_path / "bad.yaml")).replace("{badrule}", str(tmp_path / "badrule.yaml"))
            for a in args]
    pytester.makepyfile(test_other="def test_other():\n    pass\n")
    result = pytester.runpytest_inprocess(*args, "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, (result.ret, result.outlines, result.errlines)
    err = "\n".join(result.errlines)
    assert "Traceback" not in err and "INTERNALERROR" not in err and "INTERNALERROR" not in result.stdout.str()
    error_lines = [line for line in result.errlines if line.startswith("ERROR: ")]
    assert len(error_lines) == 1, result.errlines
    for n in needles:
        assert n in error_lines[0], (n, error_lines[0])


def test_without_sqs_plan_the_plugin_adds_nothing(pytester):
    pytester.makepyfile(test_other="def test_other():\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=1)
    assert "sqs-plan" not in result.stdout.str() and "sqs-policy" not in result.stdout.str()
    # it was loaded all the same (entry point), and its marker is known
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--markers")
    assert "@pytest.mark.sqs_plan" in result.stdout.str()


def test_junitxml_holds_plan_rules_beside_the_suites_own_tests(pytester):
    pytester.makepyfile(test_behaviour="def test_poison_to_dlq():\n    pass\n")
    xml = pytester.path / "report.xml"
    result = pytester.runpytest_inprocess("--sqs-plan", str(PLANS / "consumers.json"), "--sqs-no-source",
                                          f"--junitxml={xml}", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    cases = {c.get("name"): c for c in ET.parse(xml).iter("testcase")}
    assert "test_poison_to_dlq" in cases
    failed = cases["ESM002[aws_lambda_event_source_mapping.sloppy]"]
    f = failed.find("failure")
    assert f is not None and f.get("message").startswith("error: function_response_types lacks ReportBatchItemFailures")
    assert "fix: Set function_response_types" in f.text and "Traceback" not in f.text
    props = {p.get("name"): p.get("value") for p in failed.iter("property")}
    assert props["rule"] == "ESM002" and props["status"] == "fail" and props["address"] == "aws_lambda_event_source_mapping.sloppy"
    unknown = cases['ESM001[module.queue["fast"].aws_sqs_queue.this]'].find("skipped")
    assert unknown is not None and "not in this plan" in unknown.get("message")
    assert cases["SQS001[module.fifo.aws_sqs_queue.this]"].find("failure") is None
    assert len(cases) == 1 + 94  # 77, and ESM005 on the five mappings before and ESM002, ESM003, ESM005 on three more, SQS012 on the three source queues
    # the run's summary names the checker's own counts
    result.stdout.fnmatch_lines(["*consumers.json: 5 error(s), 2 warning(s), 1 unknown, 0 waived, 91 passed*"])


def test_items_are_selected_like_any_test(pytester):
    plan = str(PLANS / "queue-bad.json")
    reprec = pytester.inline_run("--sqs-plan", plan, "--sqs-no-source", "-k", "SQS002", "-p", "no:cacheprovider")
    got = _outcomes(reprec)
    assert got and {r for _, r, _ in got} == {"SQS002"}
    reprec = pytester.inline_run("--sqs-plan", plan, "--sqs-no-source", "-m", "not sqs_plan", "-p", "no:cacheprovider")
    assert not _outcomes(reprec)


@pytest.mark.install
def test_a_plain_install_plus_pytest_runs_the_plan_rules(tmp_path):
    """`pip install <checkout> pytest` (no extra) in a fresh venv: pytest finds the plugin
    through the installed entry point, and leaves a suite without --sqs-plan alone."""
    from tests.support.packaging import _run, _source_copy

    src = _source_copy(tmp_path / "src")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "--quiet",
                           str(src), "pytest"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"pip install failed:\n{proc.stdout}\n{proc.stderr}"
    work = tmp_path / "team"
    work.mkdir()
    (work / "test_behaviour.py").write_text("def test_poison_to_dlq():\n    pass\n")
    plain = _run(venv, "pytest", "-q", cwd=work)
    assert plain.returncode == 0 and "1 passed" in plain.stdout, plain.stdout + plain.stderr
    proc = _run(venv, "pytest", "-q", "--sqs-plan", str(PLANS / "warnings.json"), "--junitxml=report.xml", cwd=work)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # warnings only: xfailed, as sqs-policy check exits 0
    assert "18 passed, 5 xfailed" in proc.stdout, proc.stdout
    names = {c.get("name") for c in ET.parse(work / "report.xml").iter("testcase")}
    assert {"test_poison_to_dlq", "CW002[aws_sqs_queue.jobs]"} <= names and len(names) == 1 + 22
    bad = _run(venv, "pytest", "--sqs-plan", "missing.json", cwd=work)
    assert bad.returncode == 4 and "ERROR: sqs-policy: missing.json: no such file" in bad.stderr, bad.stderr


def test_hostile_address_is_no_runner_command_in_pytest_output(pytester):
    """A for_each key holding runner commands (issue #30): pytest's output of the plan items
    (names, -ra summary, failure text) carries none (the runner's grammar, tooling.runner_commands)."""
    import json

    from tooling import hostile_values
    from tooling.report_consumers import check_runner

    keys = ["##[stop-commands]t0ken", "\n::error::forged", "\u00a0::add-mask::x", "a\rb ##vso[task.x]y"]
    plan = pytester.path / "plan.json"
    plan.write_bytes(json.dumps(hostile_values._queue_plan(keys)).encode())
    r = pytester.runpytest_subprocess("--sqs-plan", str(plan), "--sqs-source-dir", str(pytester.path), "-ra", "-v",
                                      "-p", "no:cacheprovider")
    out = r.stdout.str() + r.stderr.str()
    assert "SQS002" in out and "failed" in out
    assert not check_runner(out, "pytest"), check_runner(out, "pytest")[:5]
