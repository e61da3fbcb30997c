"""Each fixture plan gives exactly the expected findings; our own examples give 0 errors."""
from __future__ import annotations

import pytest

from resilient_sqs.policy.engine import evaluate
from tests.policies import plans


E, W = "error", "warning"
FAIL, UNK = "fail", "unknown"

# (rule, status, severity, address) of every non-passing finding
EXPECTED = {
    "config:raw-good": {
        # the FIFO pair's redrive policy embeds the DLQ's real ARN
        ("SQS003", UNK, E, "aws_sqs_queue.events"),
    },
    "config:queue-bad": {
        ("SQS001", FAIL, E, 'aws_sqs_queue.src["nosse"]'),
        ("SQS001", FAIL, E, 'aws_sqs_queue.dlq["plaindlq"]'),
        ("SQS001", FAIL, E, "aws_sqs_queue.defaults"),
        ("SQS002", FAIL, E, "aws_sqs_queue.nodlq"),
        ("SQS003", FAIL, E, 'aws_sqs_queue.src["mrc1"]'),
        ("SQS003", FAIL, W, 'aws_sqs_queue.src["mrc10"]'),
        ("SQS003", UNK, E, "aws_sqs_queue.defaults"),
        ("SQS004", FAIL, E, 'aws_sqs_queue.src["shortdlq"]'),
        ("SQS005", FAIL, E, 'aws_sqs_queue.src["fifomix"]'),
        ("SQS006", FAIL, E, 'aws_sqs_queue.src["plaindlq"]'),
        ("SQS007", FAIL, W, 'aws_sqs_queue.src["shortpoll"]'),
        ("SQS008", FAIL, E, 'aws_sqs_queue.src["shortret"]'),
        ("SQS009", FAIL, E, "aws_sqs_queue.defaults"),
        ("SQS010", FAIL, E, 'aws_sqs_queue.src["public"]'),
        ("SQS011", FAIL, E, 'aws_sqs_queue.dlq["wrongallow"]'),
        ("SQS011", FAIL, W, "aws_sqs_queue.defaults_dlq"),
    },
    "config:consumers": {
        # the module's redrive policies are known at plan time (maxReceiveCount decided);
        # its queue ARNs are not, so the mappings are linked through references
        ("ESM001", FAIL, E, 'module.queue["slow"].aws_sqs_queue.this'),
        ("ESM001", FAIL, E, "module.fifo.aws_sqs_queue.this"),
        ("ESM001", UNK, E, 'module.queue["fast"].aws_sqs_queue.this'),
        ("ESM002", FAIL, E, "aws_lambda_event_source_mapping.sloppy"),
        ("ESM003", FAIL, W, "aws_lambda_event_source_mapping.sloppy"),
        ("ESM004", FAIL, E, "aws_lambda_event_source_mapping.fifo"),
    },
    "config:redrive-links": {
        ("SQS004", FAIL, E, "aws_sqs_queue.literal"),
        # redrive policies embedding a DLQ's real ARN: unknown, linked through references
        ("SQS003", UNK, E, "aws_sqs_queue.sep"),
        ("SQS003", UNK, E, 'aws_sqs_queue.keyed["a"]'),
        ("SQS003", UNK, E, 'aws_sqs_queue.keyed["b"]'),
        ("SQS003", UNK, E, 'module.pair["x"].aws_sqs_queue.this'),
        ("SQS003", UNK, E, 'module.pair["y"].aws_sqs_queue.this'),
        ("SQS004", UNK, E, "aws_sqs_queue.uses_existing"),
        ("SQS005", UNK, E, "aws_sqs_queue.uses_existing"),
        ("SQS006", UNK, E, "aws_sqs_queue.uses_existing"),
        ("SQS011", UNK, W, "aws_sqs_queue.sep_dlq"),
    },
    "config:claim-check-bad": {
        ("DDB001", FAIL, E, "aws_dynamodb_table.idempotency"),
        ("DDB002", FAIL, E, "aws_dynamodb_table.idempotency"),
        ("DDB003", FAIL, W, "aws_dynamodb_table.idempotency"),
        ("IAM001", FAIL, E, "aws_iam_policy.producer"),
        ("IAM001", FAIL, E, "data.aws_iam_policy_document.table_admin"),
        ("IAM002", FAIL, E, "aws_iam_policy.producer"),
        ("IAM002", FAIL, E, "aws_iam_role_policy.reader"),
        ("S3001", FAIL, E, "aws_s3_bucket.logs"),
        ("S3002", FAIL, E, "aws_s3_bucket.logs"),
        ("S3003", FAIL, E, "aws_s3_bucket.logs"),
        ("S3004", FAIL, E, "aws_s3_bucket.payloads"),
        ("CW001", FAIL, W, "module.jobs.aws_sqs_queue.dlq"),
        ("CW002", FAIL, W, "module.jobs.aws_sqs_queue.this"),
    },
    "config:source-good": {
        # a compliant stack: without its source, the policies embedding new queues' ARNs are unknown,
        # and the links that go through locals are missed (false errors); see test_source.py
        ("CW002", FAIL, W, "aws_sqs_queue.payments_dlq"),
        ("IAM001", UNK, E, "aws_iam_policy.producer"),
        ("IAM001", UNK, E, "aws_iam_role_policy.consumer"),
        ("IAM001", UNK, E, "aws_sqs_queue_policy.orders"),
        ("IAM001", UNK, E, "aws_sqs_queue_policy.payments"),
        ("IAM001", UNK, E, 'module.audit.aws_sqs_queue_policy.this["dlq"]'),
        ("IAM001", UNK, E, 'module.audit.aws_sqs_queue_policy.this["this"]'),
        ("SQS002", FAIL, E, "aws_sqs_queue.payments_dlq"),
        ("SQS002", UNK, E, "aws_sqs_queue.payments"),
        ("SQS003", UNK, E, "aws_sqs_queue.batch[0]"),
        ("SQS003", UNK, E, "aws_sqs_queue.batch[1]"),
        ("SQS003", UNK, E, "aws_sqs_queue.orders"),
        ("SQS003", UNK, E, "aws_sqs_queue.payments"),
        ("SQS003", UNK, E, 'aws_sqs_queue.work["billing"]'),
        ("SQS003", UNK, E, 'aws_sqs_queue.work["shipping"]'),
        ("SQS003", UNK, E, "module.audit.aws_sqs_queue.this"),
        ("SQS004", UNK, E, "aws_sqs_queue.payments"),
        ("SQS005", UNK, E, "aws_sqs_queue.payments"),
        ("SQS006", UNK, E, "aws_sqs_queue.payments"),
        ("SQS009", FAIL, E, "aws_sqs_queue.batch[0]"),
        ("SQS009", FAIL, E, "aws_sqs_queue.batch[1]"),
        ("SQS009", FAIL, E, "aws_sqs_queue.batch_dlq[0]"),
        ("SQS009", FAIL, E, "aws_sqs_queue.batch_dlq[1]"),
        ("SQS009", FAIL, E, "aws_sqs_queue.orders_dlq"),
        ("SQS009", FAIL, E, "aws_sqs_queue.payments_dlq"),
        ("SQS009", FAIL, E, 'aws_sqs_queue.work_dlq["billing"]'),
        ("SQS009", FAIL, E, 'aws_sqs_queue.work_dlq["shipping"]'),
        ("SQS009", UNK, E, "aws_sqs_queue.orders"),
        ("SQS009", UNK, E, "aws_sqs_queue.payments"),
        ("SQS009", UNK, E, "module.audit.aws_sqs_queue.dlq"),
        ("SQS009", UNK, E, "module.audit.aws_sqs_queue.this"),
        ("SQS010", UNK, E, "aws_sqs_queue.orders"),
        ("SQS010", UNK, E, "aws_sqs_queue.payments"),
        ("SQS010", UNK, E, "module.audit.aws_sqs_queue.dlq"),
        ("SQS010", UNK, E, "module.audit.aws_sqs_queue.this"),
        ("SQS011", UNK, W, "aws_sqs_queue.batch_dlq[0]"),
        ("SQS011", UNK, W, "aws_sqs_queue.batch_dlq[1]"),
        ("SQS011", UNK, W, "aws_sqs_queue.orders_dlq"),
        ("SQS011", UNK, W, 'aws_sqs_queue.work_dlq["billing"]'),
        ("SQS011", UNK, W, 'aws_sqs_queue.work_dlq["shipping"]'),
        ("SQS011", UNK, W, "module.audit.aws_sqs_queue.dlq"),
    },
    "config:source-bad": {
        # mistakes hidden in values unknown until apply: without the source most are unknown
        ("CW001", FAIL, W, "aws_sqs_queue.audit_dlq"),
        ("CW001", FAIL, W, "aws_sqs_queue.orders_dlq"),
        ("CW001", FAIL, W, "aws_sqs_queue.refunds_dlq"),
        ("CW001", FAIL, W, 'aws_sqs_queue.work_dlq["billing"]'),
        ("CW001", FAIL, W, 'aws_sqs_queue.work_dlq["shipping"]'),
        ("CW001", FAIL, W, "module.legacy.aws_sqs_queue.dlq"),
        ("CW002", FAIL, W, "aws_sqs_queue.audit"),
        ("CW002", FAIL, W, "aws_sqs_queue.orders"),
        ("CW002", FAIL, W, "aws_sqs_queue.payments"),
        ("CW002", FAIL, W, "aws_sqs_queue.payments_dlq"),
        ("CW002", FAIL, W, "aws_sqs_queue.refunds"),
        ("CW002", FAIL, W, 'aws_sqs_queue.work["billing"]'),
        ("CW002", FAIL, W, 'aws_sqs_queue.work["shipping"]'),
        ("CW002", FAIL, W, "module.legacy.aws_sqs_queue.this"),
        ("IAM001", UNK, E, "aws_iam_policy.producer"),
        ("IAM001", UNK, E, "aws_iam_policy.worker"),
        ("IAM001", UNK, E, "aws_sqs_queue_policy.orders"),
        ("IAM001", UNK, E, "aws_sqs_queue_policy.payments"),
        ("S3001", FAIL, E, "aws_s3_bucket.payloads"),
        ("S3002", FAIL, E, "aws_s3_bucket.payloads"),
        ("S3003", FAIL, E, "aws_s3_bucket.payloads"),
        ("SQS002", FAIL, E, "aws_sqs_queue.payments_dlq"),
        ("SQS002", UNK, E, "aws_sqs_queue.payments"),
        ("SQS003", UNK, E, "aws_sqs_queue.audit"),
        ("SQS003", UNK, E, "aws_sqs_queue.orders"),
        ("SQS003", UNK, E, "aws_sqs_queue.payments"),
        ("SQS003", UNK, E, "aws_sqs_queue.refunds"),
        ("SQS003", UNK, E, 'aws_sqs_queue.work["billing"]'),
        ("SQS003", UNK, E, 'aws_sqs_queue.work["shipping"]'),
        ("SQS003", UNK, E, "module.legacy.aws_sqs_queue.this"),
        ("SQS004", UNK, E, "aws_sqs_queue.payments"),
        ("SQS005", UNK, E, "aws_sqs_queue.payments"),
        ("SQS006", UNK, E, "aws_sqs_queue.payments"),
        ("SQS009", FAIL, E, "aws_sqs_queue.audit"),
        ("SQS009", FAIL, E, "aws_sqs_queue.audit_dlq"),
        ("SQS009", FAIL, E, "aws_sqs_queue.orders_dlq"),
        ("SQS009", FAIL, E, "aws_sqs_queue.payments_dlq"),
        ("SQS009", FAIL, E, "aws_sqs_queue.refunds"),
        ("SQS009", FAIL, E, "aws_sqs_queue.refunds_dlq"),
        ("SQS009", FAIL, E, 'aws_sqs_queue.work["billing"]'),
        ("SQS009", FAIL, E, 'aws_sqs_queue.work["shipping"]'),
        ("SQS009", FAIL, E, 'aws_sqs_queue.work_dlq["billing"]'),
        ("SQS009", FAIL, E, 'aws_sqs_queue.work_dlq["shipping"]'),
        ("SQS009", FAIL, E, "module.legacy.aws_sqs_queue.dlq"),
        ("SQS009", FAIL, E, "module.legacy.aws_sqs_queue.this"),
        ("SQS009", UNK, E, "aws_sqs_queue.orders"),
        ("SQS009", UNK, E, "aws_sqs_queue.payments"),
        ("SQS010", UNK, E, "aws_sqs_queue.orders"),
        ("SQS010", UNK, E, "aws_sqs_queue.payments"),
        ("SQS011", FAIL, W, "aws_sqs_queue.audit_dlq"),
        ("SQS011", FAIL, W, "aws_sqs_queue.orders_dlq"),
        ("SQS011", FAIL, W, "aws_sqs_queue.refunds_dlq"),
        ("SQS011", FAIL, W, "module.legacy.aws_sqs_queue.dlq"),
        ("SQS011", UNK, W, 'aws_sqs_queue.work_dlq["billing"]'),
        ("SQS011", UNK, W, 'aws_sqs_queue.work_dlq["shipping"]'),
    },
    "config:warnings": {
        ("SQS003", FAIL, W, "aws_sqs_queue.jobs"),
        ("SQS007", FAIL, W, "aws_sqs_queue.dlq"),
        ("SQS011", FAIL, W, "aws_sqs_queue.dlq"),
        ("CW001", FAIL, W, "aws_sqs_queue.dlq"),
        ("CW002", FAIL, W, "aws_sqs_queue.jobs"),
    },
}


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
    assert esm == {"ESM002", "ESM003", "ESM004"}
    assert len([f for f in report.passed if f.rule_id in ("S3004", "DDB001")]) == 2


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
