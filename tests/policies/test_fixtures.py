"""Each fixture plan gives exactly the expected findings; our own examples give 0 errors."""
from __future__ import annotations

import pytest

from resilient_sqs.policy.engine import evaluate
from tests.policies import plans
from tests.support.expected_findings import EXPECTED


def _got(doc) -> set:
    return {(f.rule_id, f.status, f.severity, f.address) for f in evaluate(doc).findings}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_gives_exactly_the_expected_findings(plan_doc, name):
    got = _got(plan_doc(name))
    assert got == EXPECTED[name], f"unexpected: {sorted(got - EXPECTED[name])}; missing: {sorted(EXPECTED[name] - got)}"


def test_every_fixture_has_expectations():
    assert {f"config:{n}" for n in plans.fixture_names()} - {"config:bench"} == set(EXPECTED)


EXAMPLES = [n for n in plans.subjects() if n.startswith("example:")]  # every directory under examples/
MODULE_FIXTURES = [n for n in plans.subjects() if n.startswith("fixture:")]


@pytest.mark.parametrize("name", EXAMPLES)
def test_our_examples_have_no_errors(plan_doc, name):
    report = evaluate(plan_doc(name))
    errors = [f for f in report.findings if f.status == "fail" and f.severity == "error"]
    assert errors == [], [(f.rule_id, f.address, f.message) for f in errors]
    # every queue of the module is linked to its DLQ, and maxReceiveCount is decided:
    # the redrive policy names the DLQ by its built ARN, known at plan time
    sources = [f for f in report.passed if f.rule_id == "SQS002"]
    assert sources and all("aws_sqs_queue.dlq" in f.message for f in sources)
    mrc = [f for f in report.passed if f.rule_id == "SQS003"]
    assert sorted(f.address for f in mrc) == sorted(f.address for f in sources)
    # the alarms the root module creates by default cover every queue and DLQ
    assert len([f for f in report.passed if f.rule_id == "CW001"]) == len(sources)
    assert len([f for f in report.passed if f.rule_id == "CW002"]) == len(sources)
    # all that may remain: a consumer function that is not in the plan (its timeout
    # is only known where it is deployed)
    for f in report.findings:
        assert (f.rule_id, f.status) == ("ESM001", "unknown") and "is not in this plan" in f.message, f


def test_complete_example_is_checked_with_its_consumers(plan_doc):
    report = evaluate(plan_doc("example:complete"))
    esm = {f.rule_id for f in report.passed if f.rule_id.startswith("ESM")}
    assert esm == {"ESM002", "ESM003", "ESM004", "ESM005"}
    assert len([f for f in report.passed if f.rule_id in ("S3004", "DDB001")]) == 2


def test_policies_of_existing_queues_fail_the_cli_even_when_nothing_else_is_known(plan_files):
    """A queue policy allowing everyone and a redrive policy with maxReceiveCount 1, both on a
    queue the plan does not create: exit 1 (they used to pass, even with --strict)."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "resilient_sqs.policy", "check", str(plan_files["config:existing-queues"]),
                           "--strict"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stdout


def test_merged_policy_documents_are_decided(plan_doc):
    """The consumer document (a source document overridden by Sid, plus an override
    document) passes on its own merged statements, not "only known after apply"."""
    report = evaluate(plan_doc("config:iam-sources"))
    passed = {(f.rule_id, f.address) for f in report.passed}
    assert {("IAM001", "aws_iam_policy.consumer"), ("IAM002", "aws_iam_policy.consumer")} <= passed
    msg = next(f.message for f in report.findings if f.rule_id == "IAM001")
    assert "via data.aws_iam_policy_document.producer" in msg


def test_remediations_name_the_module_inputs(plan_doc):
    fixes = {(f.rule_id, f.address): f.remediation for f in evaluate(plan_doc("config:module-inputs")).findings}
    assert fixes[("SQS003", 'module.messaging.module.queue["orders"].aws_sqs_queue.this')] == \
        'Set the module input queues["orders"].max_receive_count of module.messaging to 3..5.'
    assert fixes[("SQS007", 'module.messaging.module.queue["feed"].aws_sqs_queue.this')] == \
        'Set the module input queues["feed"].receive_wait_time_seconds of module.messaging = 20.'
    assert fixes[("SQS003", "module.legacy.aws_sqs_queue.this")] == \
        "Set the module input max_receive_count of module.legacy to 3..5."
    # the submodule used on its own, with for_each: the input of that module instance
    fixes = {(f.rule_id, f.address): f.remediation for f in evaluate(plan_doc("config:consumers")).findings}
    assert fixes[("ESM001", 'module.queue["slow"].aws_sqs_queue.this')].startswith(
        'Set the module input visibility_timeout_seconds of module.queue["slow"] to at least 365')
    # a raw resource keeps its attribute
    fixes = {(f.rule_id, f.address): f.remediation for f in evaluate(plan_doc("config:queue-bad")).findings}
    assert fixes[("SQS003", 'aws_sqs_queue.src["mrc1"]')] == "Set maxReceiveCount to 3..5."


def test_module_inputs_follow_the_attributes_a_finding_judged(plan_doc):
    """The module input replaces an attribute the rule judged (rules.Result.judged, as
    checkov's evaluated keys), on the resource it judged it on: the same words about an
    attribute the finding did not judge, or about another resource, stay as written."""
    from resilient_sqs.policy.graph import Plan
    from resilient_sqs.policy.module_inputs import ModuleInputs

    inputs = ModuleInputs(Plan(plan_doc("config:module-inputs")))
    orders = 'module.messaging.module.queue["orders"].aws_sqs_queue.this'
    fix = "Set maxReceiveCount to 3..5; Set receive_wait_time_seconds = 20."
    assert inputs.rewrite(orders, fix, ((orders, "maxReceiveCount"),)) == (
        'Set the module input queues["orders"].max_receive_count of module.messaging to 3..5; '
        "Set receive_wait_time_seconds = 20.")
    assert inputs.rewrite(orders, fix, ()) == fix
    assert inputs.rewrite(orders, fix, (("module.legacy.aws_sqs_queue.this", "maxReceiveCount"),)) == fix


def test_fifo_payload_expiry_counts_source_and_dlq_retention(plan_doc):
    f = next(f for f in evaluate(plan_doc("config:claim-check-fifo")).findings if f.rule_id == "S3004")
    assert "1296000 s (15 d) < the longest message lifetime 1555200 s (18 d)" in f.message
    assert "FIFO aws_sqs_queue.orders + its DLQ aws_sqs_queue.dlq" in f.message
    assert f.remediation.startswith("Set expiration.days to at least 18 ")


def test_no_unit_is_repeated_in_a_message(plan_doc):
    """"18 d (1555200 s (18 d))": each duration is written once, with its unit."""
    import re

    for name in plans.subjects():
        report = evaluate(plan_doc(name))
        for f in report.findings + report.passed:
            assert not re.search(r"\(\d[\d.]* (s|d|h|min) \(", f.message), (name, f.message)


def test_service_dlqs_are_dlqs(plan_doc):
    report = evaluate(plan_doc("config:service-dlqs"))
    depth = {f.address for f in report.passed if f.rule_id == "CW001"}
    assert depth == {'aws_sqs_queue.dlq["svc-sns-dlq"]'}
    assert not any(f.rule_id in ("SQS002", "CW002") for f in report.findings + report.passed)


@pytest.mark.parametrize("name", MODULE_FIXTURES)
def test_module_fixture_plans_have_no_findings(plan_doc, name):
    """Plans of the other modules (tests/fixtures): nothing to report, and what
    applies to them is checked (the dlq-redrive function's role documents)."""
    report = evaluate(plan_doc(name))
    assert report.findings == [], [(f.rule_id, f.status, f.address, f.message) for f in report.findings]
    assert report.passed


def test_module_queue_visibility_derived_from_consumer_is_checked(plan_doc):
    """many-queues: no ESM in the plan, so ESM rules do not apply; the module's own
    outputs are not what the rules read: the planned queue attributes are."""
    report = evaluate(plan_doc("example:many-queues"))
    dlq_retention = [f for f in report.passed if f.rule_id == "SQS004"]
    assert len(dlq_retention) == 4
    assert all("1209600 s (14 d) > source" in f.message for f in dlq_retention)
