"""The findings every committed fixture plan must give (tests/policies/test_fixtures.py),
and the baseline the source-reading tests compare with (tests/policies/test_source.py)."""
from __future__ import annotations

E, W = "error", "warning"
FAIL, UNK = "fail", "unknown"

# (rule, status, severity, address) of every non-passing finding
EXPECTED = {
    "config:raw-good": {
        # the FIFO pair's redrive policy embeds the DLQ's real ARN
        ("SQS003", UNK, E, "aws_sqs_queue.events"),
        # SQS012 reads maxReceiveCount: undecided where SQS003 is
        ("SQS012", UNK, E, "aws_sqs_queue.events"),
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
        ("SQS012", FAIL, E, 'aws_sqs_queue.expiring["delayed"]'),
        ("SQS012", FAIL, E, 'aws_sqs_queue.expiring["expiring"]'),
        ("SQS012", UNK, E, "aws_sqs_queue.defaults"),
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
        # provisioned mode: with scaling_config too (refused by Lambda), without maximum_pollers
        ("ESM005", FAIL, E, "aws_lambda_event_source_mapping.provisioned_capped"),
        ("ESM003", FAIL, W, "aws_lambda_event_source_mapping.provisioned_unbounded"),
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
        # SQS012 reads maxReceiveCount: undecided where SQS003 is
        ("SQS012", UNK, E, 'aws_sqs_queue.keyed["a"]'),
        ("SQS012", UNK, E, 'aws_sqs_queue.keyed["b"]'),
        ("SQS012", UNK, E, "aws_sqs_queue.sep"),
        ("SQS012", UNK, E, 'module.pair["x"].aws_sqs_queue.this'),
        ("SQS012", UNK, E, 'module.pair["y"].aws_sqs_queue.this'),
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
        # the function's role is not in the plan: whether it may send to its DLQ and
        # destination cannot be read
        ("PRD010", UNK, E, "aws_lambda_function.worker"),
        ("PRD010", UNK, E, "aws_lambda_function_event_invoke_config.worker"),
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
        # SQS012 reads maxReceiveCount: undecided where SQS003 is
        ("SQS012", UNK, E, "aws_sqs_queue.cross"),
        ("SQS012", UNK, E, "aws_sqs_queue.eu"),
        ("SQS012", UNK, E, "aws_sqs_queue.maybe"),
    },
    # other services' DLQs named through local values: without the source any queue without
    # a DLQ of its own may be one (unknown, not "has no dead-letter queue"); see test_source.py
    "config:service-dlq-locals": {
        *{("SQS002", UNK, E, f'aws_sqs_queue.dlq["{k}"]') for k in ("svcl-async-failures", "svcl-rule-dlq", "svcl-sns-dlq")},
        *{("CW002", UNK, W, f'aws_sqs_queue.dlq["{k}"]') for k in ("svcl-async-failures", "svcl-rule-dlq", "svcl-sns-dlq")},
        ("SQS002", UNK, E, "aws_sqs_queue.subscriber"),
        # the subscriber queue's policy does not admit the topic; its subscription DLQ is named
        # through a local value (with the source: a DLQ that does not admit the topic either)
        ("PRD001", FAIL, E, "aws_sns_topic_subscription.subscriber"),
        ("PRD003", UNK, E, "aws_sns_topic_subscription.subscriber"),
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
        # SQS012 reads maxReceiveCount: undecided where SQS003 is
        ("SQS012", UNK, E, 'aws_sqs_queue.q["by_alias"]'),
        ("SQS012", UNK, E, 'aws_sqs_queue.q["by_arn"]'),
        ("SQS012", UNK, E, 'aws_sqs_queue.q["by_id"]'),
        ("SQS012", UNK, E, "module.audit.aws_sqs_queue.this"),
        ("SQS012", UNK, E, "module.leaky.aws_sqs_queue.this"),
        ("SQS012", UNK, E, "module.ledger.aws_sqs_queue.this"),
        ("SQS012", UNK, E, "module.plain.aws_sqs_queue.this"),
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
        # SQS012 reads maxReceiveCount: undecided where SQS003 is
        ("SQS012", UNK, E, "aws_sqs_queue.batch[0]"),
        ("SQS012", UNK, E, "aws_sqs_queue.batch[1]"),
        ("SQS012", UNK, E, "aws_sqs_queue.orders"),
        ("SQS012", UNK, E, "aws_sqs_queue.payments"),
        ("SQS012", UNK, E, 'aws_sqs_queue.work["billing"]'),
        ("SQS012", UNK, E, 'aws_sqs_queue.work["shipping"]'),
        ("SQS012", UNK, E, "module.audit.aws_sqs_queue.this"),
    },
    # settings kept in files (yamldecode, jsondecode, fileset, templatefile): the redrive and
    # queue policies embed ARNs of new queues, so without the source all are unknown
    # (tests/policies/test_file_functions.py decides them from the files)
    "config:file-functions": {
        *{(rule, UNK, E, f'aws_sqs_queue.{kind}["{q}"]') for rule in ("SQS009", "SQS010") for kind in ("queue", "dlq")
          for q in ("invoices", "orders", "payments", "team-billing", "team-shipping")},
        *{("SQS003", UNK, E, f'aws_sqs_queue.queue["{q}"]')
          for q in ("invoices", "orders", "payments", "team-billing", "team-shipping")},
        *{("SQS011", UNK, W, f'aws_sqs_queue.dlq["{q}"]')
          for q in ("invoices", "orders", "payments", "team-billing", "team-shipping")},
        *{("IAM001", UNK, E, f'aws_sqs_queue_policy.{kind}["{q}"]') for kind in ("queue", "dlq")
          for q in ("invoices", "orders", "payments", "team-billing", "team-shipping")},
        # SQS012 reads maxReceiveCount: undecided where SQS003 is
        ("SQS012", UNK, E, 'aws_sqs_queue.queue["invoices"]'),
        ("SQS012", UNK, E, 'aws_sqs_queue.queue["orders"]'),
        ("SQS012", UNK, E, 'aws_sqs_queue.queue["payments"]'),
        ("SQS012", UNK, E, 'aws_sqs_queue.queue["team-billing"]'),
        ("SQS012", UNK, E, 'aws_sqs_queue.queue["team-shipping"]'),
    },
    "config:source-bad": {
        # mistakes hidden in values unknown until apply: without the source most are unknown
        ("CW001", FAIL, W, "aws_sqs_queue.audit_dlq"),
        ("CW001", FAIL, W, "aws_sqs_queue.orders_dlq"),
        ("CW001", FAIL, W, 'aws_sqs_queue.work_dlq["billing"]'),
        ("CW001", FAIL, W, 'aws_sqs_queue.work_dlq["shipping"]'),
        ("CW001", FAIL, W, "module.legacy.aws_sqs_queue.dlq"),
        # refunds names it by its id (URL): still the DLQ it means, judged as a DLQ (no SQS002
        # or CW002 of its own; a depth alarm and a byQueue redrive-allow policy expected)
        ("CW001", FAIL, W, "aws_sqs_queue.refunds_dlq"),
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
        # deadLetterTargetArn = aws_sqs_queue.refunds_dlq.id: the plan's references name the
        # attribute, the URL, so SQS002 fails it without the source too, as with the source
        # (refunds_dlq is still the DLQ refunds means: see CW001 and SQS011 on it)
        ("SQS002", FAIL, E, "aws_sqs_queue.refunds"),
        ("SQS002", FAIL, E, "aws_sqs_queue.payments_dlq"),
        ("SQS002", UNK, E, "aws_sqs_queue.payments"),
        ("SQS003", UNK, E, "aws_sqs_queue.audit"),
        ("SQS003", UNK, E, "aws_sqs_queue.orders"),
        ("SQS003", UNK, E, "aws_sqs_queue.payments"),
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
        ("SQS011", FAIL, W, "module.legacy.aws_sqs_queue.dlq"),
        ("SQS011", FAIL, W, "aws_sqs_queue.refunds_dlq"),
        ("SQS011", UNK, W, 'aws_sqs_queue.work_dlq["billing"]'),
        ("SQS011", UNK, W, 'aws_sqs_queue.work_dlq["shipping"]'),
        # SQS012 reads maxReceiveCount: undecided where SQS003 is
        ("SQS012", UNK, E, "aws_sqs_queue.audit"),
        ("SQS012", UNK, E, "aws_sqs_queue.orders"),
        ("SQS012", UNK, E, "aws_sqs_queue.payments"),
        ("SQS012", UNK, E, 'aws_sqs_queue.work["billing"]'),
        ("SQS012", UNK, E, 'aws_sqs_queue.work["shipping"]'),
        ("SQS012", UNK, E, "module.legacy.aws_sqs_queue.this"),
    },
    # issue 33 §3: a KMS key policy is not judged by IAM001/IAM002, a system-of-record bucket
    # that notifies its queue is not a claim-check store (S3004), alarms per region
    "config:judged-scope": {
        ("CW001", FAIL, W, 'aws_sqs_queue.eu_dlq["orders"]'),
        ("CW002", FAIL, W, 'aws_sqs_queue.eu["orders"]'),
        ("IAM001", UNK, E, "aws_iam_role_policy.reader"),
        # its name is generated; the Deny naming it by reference is decided with the source
        ("S3003", UNK, E, "aws_s3_bucket.generated"),
    },
    # issue 33 §1: every producer path as it must be
    "config:producers-good": set(),
    # ... and broken the way teams break it
    "config:producers-bad": {
        # the queue policy still names the topic this one replaced; no subscription DLQ;
        # the queue on alias/aws/sqs
        ("PRD001", FAIL, E, "aws_sns_topic_subscription.payments"),
        ("PRD003", FAIL, E, "aws_sns_topic_subscription.payments"),
        ("PRD008", FAIL, E, "aws_sns_topic_subscription.payments"),
        # any topic may send (no aws:SourceArn), which SQS010 also says; a DLQ without the topic
        ("PRD001", FAIL, E, "aws_sns_topic_subscription.audit"),
        ("SQS010", FAIL, E, "module.audit.aws_sqs_queue.this"),
        ("PRD003", FAIL, E, "aws_sns_topic_subscription.audit"),
        # a standard topic subscribing a FIFO queue (whose DLQ does not admit it either)
        ("PRD002", FAIL, E, "aws_sns_topic_subscription.ledger"),
        ("PRD003", FAIL, E, "aws_sns_topic_subscription.ledger"),
        # EventBridge: no statement for it, no DLQ, a key with the default key policy
        ("PRD004", FAIL, E, "aws_cloudwatch_event_target.reports"),
        ("PRD006", FAIL, E, "aws_cloudwatch_event_target.reports"),
        ("PRD008", FAIL, E, "aws_cloudwatch_event_target.reports"),
        # a FIFO target with no message group, and no retry policy
        ("PRD005", FAIL, E, "aws_cloudwatch_event_target.ordered"),
        ("PRD006", FAIL, W, "aws_cloudwatch_event_target.ordered"),
        # S3: an aws:SourceArn wildcard; the queue's key is outside the plan
        ("PRD007", FAIL, E, "aws_s3_bucket_notification.scans"),
        ("PRD008", UNK, E, "aws_s3_bucket_notification.scans"),
        # the alarm topic on alias/aws/sns
        ("PRD009", FAIL, E, "aws_sns_topic.oncall"),
        # the function's role may only write logs; the schedule's role may send to another queue
        ("PRD010", FAIL, E, "aws_lambda_function_event_invoke_config.worker"),
        ("PRD010", FAIL, E, "aws_scheduler_schedule.reports"),
        # schedules: no dead_letter_config; a FIFO target without a message group whose DLQ the
        # role may not send to (nor to the queue)
        ("PRD006", FAIL, E, "aws_scheduler_schedule.reports"),
        ("PRD005", FAIL, E, "aws_scheduler_schedule.ordered"),
        ("PRD006", FAIL, E, "aws_scheduler_schedule.ordered"),
        ("PRD010", FAIL, E, "aws_scheduler_schedule.ordered"),
        # an HTTP API whose role may only receive from the queue it sends to
        ("PRD010", FAIL, E, "aws_apigatewayv2_integration.ingest"),
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
