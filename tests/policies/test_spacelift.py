"""Spacelift: `--report spacelift=sqs-policy.custom.spacelift.json` read by the sample plan
policy docs/spacelift-plan-policy.rego, evaluated by an OPA (Rego) evaluator: regopy (rego-cpp),
from PyPI, a dev requirement only.

The policy's input is built as Spacelift builds it: the object in `$key.custom.spacelift.json`
at `input.third_party_metadata.custom.$key`."""
from __future__ import annotations

import json

import pytest

from tests.support.helpers import REPO_ROOT, sqs_policy_in_process

POLICY = REPO_ROOT / "docs" / "spacelift-plan-policy.rego"
FILE = "sqs-policy.custom.spacelift.json"


def _query(custom: dict, query: str, expected=None):
    from regopy import Interpreter

    rego = Interpreter()
    rego.add_module("sqs-policy", POLICY.read_text())
    rego.set_input({"spacelift": {"run": {"type": "PROPOSED"}}, "terraform": {}, "third_party_metadata": {"custom": custom},
                    "expected": sorted(expected or ())})
    got = rego.query(query)
    assert got.ok(), str(got)
    exprs = got.results[0].expressions if got.results else []
    return exprs[0] if exprs else None  # a comparison that does not hold is undefined, as in OPA


def _evaluate(custom: dict, deny=None, warn=None) -> tuple[int, int]:
    """(how many deny, how many warn) messages; with ``deny``/``warn``, also that the policy's
    messages are exactly those. (regopy 1.5.2 writes a string holding a quote that came from the
    input as invalid JSON, which its Output cannot read, so messages are compared inside the
    evaluator and only numbers and booleans come out of it.)"""
    counts = []
    for rule, want in (("deny", deny), ("warn", warn)):
        counts.append(_query(custom, f"count(data.spacelift.{rule})"))
        if want is not None:
            assert len(want) == counts[-1]
            assert _query(custom, f"{{m | some m in input.expected}} == data.spacelift.{rule}", want) is True
    return tuple(counts)


def _report(tmp_path, plan, *args) -> dict:
    p = sqs_policy_in_process("check", str(plan), "--no-source", "--report", f"spacelift={FILE}", *args, cwd=tmp_path)
    assert p.returncode in (0, 1), p.stderr
    key = FILE.removesuffix(".custom.spacelift.json")  # Spacelift's rule: $key.custom.spacelift.json
    return {key: json.loads((tmp_path / FILE).read_text())}


def test_errors_deny_the_run_and_the_rest_warns(tmp_path, plan_files):
    custom = _report(tmp_path, plan_files["config:queue-bad"])
    report = custom["sqs-policy"]
    summary = report["summary"]
    assert report["failed"] is True and summary["errors"] > 0 and summary["warnings"] + summary["unknown"] > 0
    deny = {f"sqs-policy {f['rule_id']} {f['slug']} on {f['address']}: {f['message']} Fix: {f['remediation']}"
            for f in report["findings"] if f["state"] == "error"}
    warn = {f"sqs-policy {f['rule_id']} {f['slug']} on {f['address']}: "
            + ("not decided before apply: " if f["state"] == "unknown" else "") + f["message"]
            for f in report["findings"] if f["state"] in ("warning", "unknown")}
    assert _evaluate(custom, deny, warn) == (summary["errors"], summary["warnings"] + summary["unknown"])
    # and the comparison is not vacuous: one message less is not the policy's set
    assert _query(custom, "{m | some m in input.expected} == data.spacelift.deny", sorted(deny)[1:]) is None


def test_a_clean_plan_passes_the_policy(tmp_path, plan_files):
    custom = _report(tmp_path, plan_files["bench:3"])
    assert custom["sqs-policy"]["failed"] is False
    assert _evaluate(custom, set(), set()) == (0, 0)


def test_fail_on_warning_denies_warnings_too(tmp_path, plan_files):
    custom = _report(tmp_path, plan_files["config:queue-bad"], "--fail-on", "warning")
    s = custom["sqs-policy"]["summary"]
    assert _evaluate(custom) == (s["errors"] + s["warnings"], s["unknown"])


def test_waived_findings_do_not_deny(tmp_path, plan_files):
    doc = json.loads(plan_files["config:queue-bad"].read_text())
    (tmp_path / "waive.yaml").write_text("waivers:\n" + "".join(
        f"  - {{address: '{rc['address']}', reason: accepted for the test}}\n" for rc in doc["resource_changes"]))
    custom = _report(tmp_path, plan_files["config:queue-bad"], "--config", "waive.yaml")
    states = {f["state"] for f in custom["sqs-policy"]["findings"]}
    assert "waived" in states and "error" not in states
    assert _evaluate(custom) == (0, sum(1 for f in custom["sqs-policy"]["findings"]
                                        if f["state"] in ("warning", "unknown")))


@pytest.mark.parametrize("custom", [{}, {"checkov": {"results": []}}])
def test_no_report_denies(custom):
    msg = ("sqs-policy: no report (sqs-policy.custom.spacelift.json was not written; see the after_plan hook's "
           "output)")
    assert _evaluate(custom, {msg}) == (1, 0)
