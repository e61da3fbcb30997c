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
        ("CW001", FAIL, W, "module.jobs.aws_sqs_queue.dlq[0]"),
        ("CW002", FAIL, W, "module.jobs.aws_sqs_queue.this"),
    },
    # policies on queues the stack does not create: evaluated on their own content
    "config:existing-queues": {
        ("SQS003", FAIL, E, "aws_sqs_queue_redrive_policy.one_receive"),
        # its source queue and DLQ are not in the plan: retention cannot be compared
        ("SQS004", UNK, E, "aws_sqs_queue_redrive_policy.one_receive"),
        ("SQS009", FAIL, E, "aws_sqs_queue_policy.open"),
        ("SQS010", FAIL, E, "aws_sqs_queue_policy.open"),
        ("SQS011", FAIL, W, "aws_sqs_queue_redrive_allow_policy.allow_all"),
    },
    # queue policies created with for_each over a local map: which queue each targets
    # is not in the plan, so "no queue policy" is unknown, not a failure
    "config:policy-from-locals": {
        ("SQS002", FAIL, E, 'aws_sqs_queue.q["billing"]'),
        ("SQS002", FAIL, E, 'aws_sqs_queue.q["shipping"]'),
        ("SQS009", UNK, E, 'aws_sqs_queue.q["billing"]'),
        ("SQS009", UNK, E, 'aws_sqs_queue.q["shipping"]'),
        ("CW002", FAIL, W, 'aws_sqs_queue.q["billing"]'),
        ("CW002", FAIL, W, 'aws_sqs_queue.q["shipping"]'),
    },
    # the TLS-only Deny must cover the bucket's objects too
    "config:s3-tls": {
        ("S3003", FAIL, E, 'aws_s3_bucket.b["tls-bucket-only"]'),
        ("S3003", UNK, E, "aws_s3_bucket.late"),
    },
    # alarms match queues on name, region and account
    "config:alarm-region": {
        ("CW001", FAIL, W, 'aws_sqs_queue.dlq["ar-west"]'),
        ("CW002", FAIL, W, 'aws_sqs_queue.src["ar-west"]'),
        ("CW001", UNK, W, 'aws_sqs_queue.dlq["ar-other"]'),
        ("CW002", UNK, W, 'aws_sqs_queue.src["ar-other"]'),
    },
    # queues that are other services' DLQs: no SQS002, no age alarm, a depth alarm
    "config:service-dlqs": {
        ("CW001", FAIL, W, 'aws_sqs_queue.dlq["svc-async-failures"]'),
        ("CW001", FAIL, W, 'aws_sqs_queue.dlq["svc-events-dlq"]'),
        ("CW001", FAIL, W, 'aws_sqs_queue.dlq["svc-fn-dlq"]'),
    },
    # documents merged from source/override documents, decided though their JSON is unknown
    "config:iam-sources": {
        ("IAM001", FAIL, E, "aws_iam_policy.producer"),
        ("IAM002", FAIL, E, "aws_iam_policy.producer"),
        ("SQS001", FAIL, E, "aws_sqs_queue.jobs"),
        ("SQS002", FAIL, E, "aws_sqs_queue.jobs"),
        ("SQS009", FAIL, E, "aws_sqs_queue.jobs"),
        ("SQS007", FAIL, W, "aws_sqs_queue.jobs"),
        ("CW002", FAIL, W, "aws_sqs_queue.jobs"),
    },
    # action patterns IAM reads as a service-wide wildcard, and Allow + NotAction
    "config:iam-equivalents": {
        *{("IAM001", FAIL, E, f'aws_iam_policy.p["{k}"]') for k in (
            "double_star", "any_name", "service_glob", "prefix_only", "star_colon_star", "not_action_anywhere",
            "not_action_named", "glob_anywhere")},
        ("IAM002", FAIL, E, 'aws_iam_policy.p["not_action_anywhere"]'),
        ("IAM002", FAIL, E, 'aws_iam_policy.p["glob_anywhere"]'),
    },
    # a DLQ must be in its source queue's account and Region
    "config:dlq-placement": {
        ("SQS002", FAIL, E, "aws_sqs_queue.cross"),  # created by the eu-west-1 provider
        ("SQS002", FAIL, E, "aws_sqs_queue.literal"),  # a literal ARN in eu-west-1
        ("SQS002", UNK, E, "aws_sqs_queue.maybe"),  # a provider whose Region the plan does not show
        *{("SQS003", UNK, E, f"aws_sqs_queue.{q}") for q in ("cross", "eu", "maybe")},
        *{(r, UNK, E, f"aws_sqs_queue.{q}") for r in ("SQS004", "SQS005", "SQS006") for q in ("literal", "literal_here")},
        *{("SQS011", FAIL, W, f"aws_sqs_queue.{q}_dlq") for q in ("cross", "eu", "maybe")},
        *{("CW001", FAIL, W, f"aws_sqs_queue.{q}_dlq") for q in ("cross", "eu", "maybe")},
        *{("CW002", FAIL, W, f"aws_sqs_queue.{q}") for q in ("cross", "eu", "maybe", "literal", "literal_here")},
    },
    # other services' DLQs named through local values: without the source any queue without
    # a DLQ of its own may be one (unknown, not "has no dead-letter queue"); see test_source.py
    "config:service-dlq-locals": {
        *{("SQS002", UNK, E, f'aws_sqs_queue.dlq["{k}"]') for k in ("svcl-async-failures", "svcl-rule-dlq", "svcl-sns-dlq")},
        *{("CW002", UNK, W, f'aws_sqs_queue.dlq["{k}"]') for k in ("svcl-async-failures", "svcl-rule-dlq", "svcl-sns-dlq")},
        ("SQS002", UNK, E, "aws_sqs_queue.subscriber"),
    },
    # SSE-KMS keys through locals, coalesce(), try() and `!= null`: encryption unknown without
    # the source (see test_source.py for the verdicts with it); one DLQ left unencrypted
    "config:kms-through-locals": {
        *{("SQS001", UNK, E, a) for a in ('aws_sqs_queue.dlq["by_arn"]', 'aws_sqs_queue.dlq["by_id"]',
                                         'aws_sqs_queue.q["by_arn"]', 'aws_sqs_queue.q["by_id"]',
                                         "module.audit.aws_sqs_queue.dlq", "module.ledger.aws_sqs_queue.dlq")},
        *{("SQS006", UNK, E, a) for a in ('aws_sqs_queue.q["by_arn"]', 'aws_sqs_queue.q["by_id"]',
                                         "module.audit.aws_sqs_queue.this", "module.ledger.aws_sqs_queue.this")},
        ("SQS001", FAIL, E, "module.leaky.aws_sqs_queue.dlq"),
        ("SQS006", FAIL, E, "module.leaky.aws_sqs_queue.this"),
        *{("SQS003", UNK, E, a) for a in ('aws_sqs_queue.q["by_alias"]', 'aws_sqs_queue.q["by_arn"]', 'aws_sqs_queue.q["by_id"]',
                                         *(f"module.{m}.aws_sqs_queue.this" for m in ("audit", "leaky", "ledger", "plain")))},
        *{("SQS011", UNK, W, a) for a in ('aws_sqs_queue.dlq["by_alias"]', 'aws_sqs_queue.dlq["by_arn"]', 'aws_sqs_queue.dlq["by_id"]',
                                         *(f"module.{m}.aws_sqs_queue.dlq" for m in ("audit", "leaky", "ledger", "plain")))},
        *{("CW001", FAIL, W, a) for a in ('aws_sqs_queue.dlq["by_alias"]', 'aws_sqs_queue.dlq["by_arn"]', 'aws_sqs_queue.dlq["by_id"]',
                                         *(f"module.{m}.aws_sqs_queue.dlq" for m in ("audit", "leaky", "ledger", "plain")))},
        *{("CW002", FAIL, W, a) for a in ('aws_sqs_queue.q["by_alias"]', 'aws_sqs_queue.q["by_arn"]', 'aws_sqs_queue.q["by_id"]',
                                         *(f"module.{m}.aws_sqs_queue.this" for m in ("audit", "leaky", "ledger", "plain")))},
    },
    # this project's module and its queue submodule: warnings whose fix names module inputs
    "config:module-inputs": {
        ("SQS003", FAIL, W, 'module.messaging.module.queue["orders"].aws_sqs_queue.this'),
        ("SQS007", FAIL, W, 'module.messaging.module.queue["feed"].aws_sqs_queue.this'),
        ("SQS003", FAIL, W, "module.legacy.aws_sqs_queue.this"),
        ("CW001", FAIL, W, "module.legacy.aws_sqs_queue.dlq[0]"),
        ("CW002", FAIL, W, "module.legacy.aws_sqs_queue.this"),
    },
    # a FIFO DLQ resets the enqueue time: payloads must outlive source + DLQ retention
    "config:claim-check-fifo": {
        ("S3004", FAIL, E, "aws_s3_bucket.payloads"),
        ("S3001", FAIL, E, "aws_s3_bucket.payloads"),
        ("S3002", FAIL, E, "aws_s3_bucket.payloads"),
        ("S3003", FAIL, E, "aws_s3_bucket.payloads"),
        ("SQS009", FAIL, E, "aws_sqs_queue.dlq"),
        ("SQS009", FAIL, E, "aws_sqs_queue.orders"),
        ("SQS007", FAIL, W, "aws_sqs_queue.dlq"),
        ("SQS007", FAIL, W, "aws_sqs_queue.orders"),
        ("SQS011", FAIL, W, "aws_sqs_queue.dlq"),
        ("CW001", FAIL, W, "aws_sqs_queue.dlq"),
        ("CW002", FAIL, W, "aws_sqs_queue.orders"),
    },
    "config:source-good": {
        # a compliant stack: without its source, the policies embedding new queues' ARNs are unknown,
        # and so is which queue each policy resource built through locals targets; see test_source.py
        ("CW002", FAIL, W, "aws_sqs_queue.payments_dlq"),
        ("IAM001", UNK, E, "aws_iam_policy.producer"),
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
        ("SQS009", UNK, E, "aws_sqs_queue.batch[0]"),
        ("SQS009", UNK, E, "aws_sqs_queue.batch[1]"),
        ("SQS009", UNK, E, "aws_sqs_queue.batch_dlq[0]"),
        ("SQS009", UNK, E, "aws_sqs_queue.batch_dlq[1]"),
        ("SQS009", UNK, E, "aws_sqs_queue.orders_dlq"),
        ("SQS009", UNK, E, "aws_sqs_queue.payments_dlq"),
        ("SQS009", UNK, E, 'aws_sqs_queue.work_dlq["billing"]'),
        ("SQS009", UNK, E, 'aws_sqs_queue.work_dlq["shipping"]'),
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
        ("IAM001", FAIL, E, "aws_iam_policy.worker"),
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
    "config:inline-waivers": {
        # evaluated without its source, the # sqs-policy:ignore comments are not read: nothing is
        # waived (tests/policies/test_inline_waivers.py checks them with the source)
        (rule, FAIL, sev, addr) for rule, sev in (("SQS002", E), ("SQS009", E), ("CW002", W))
        for addr in ("aws_sqs_queue.waived", "aws_sqs_queue.expired", "aws_sqs_queue.unused",
                     "aws_sqs_queue.malformed", 'module.legacy.aws_sqs_queue.old["a"]',
                     'module.legacy.aws_sqs_queue.old["b"]')
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
