"""Wrong inputs through the root module, each planned for real and classified
in the four verdicts of issue #23:

  named     refused, naming the user's own input (the root path)
  unnamed   refused, but naming only a submodule variable, the wrong input, no value, or the
            wrong reason (WRONG_REASON: a fragment that must not be said)
  internal  a Terraform type error naming the module's internal variables
  silent    planned green with a wrong or dropped setting

Every case is one file of ONE `terraform test` of a consumer stack in a
temporary directory that sources the checkout (or --source, e.g. an export
of an older commit, to count before a change). Prints the counts and, with
-v, every case that is not `named` with the first lines of its message.

Beside them, VALID: inputs next to the wrong ones that are valid and must
plan (each with the reason it is valid). They are counted apart; a refusal of
one is printed and makes the exit status 1.

    .venv/bin/python -m tooling.wrong_inputs [--source DIR] [-v] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from tooling.terraform import REPO_ROOT, Terraform, outcomes_of_terraform_test

ACCOUNT = "123456789012"
KEY = f"arn:aws:kms:us-east-1:{ACCOUNT}:key/11111111-2222-3333-4444-555555555555"
FN = {"function_name": "orders-consumer"}
INPUTS = ["queues", "queue_defaults", "consumer_functions", "claim_check_bucket", "idempotency_table", "alarms", "iam",
          "dlq_redrive", "tags", "name_prefix"]

STACK = '''
provider "aws" {
  region                      = "us-east-1"
  access_key                  = "offline-plan"
  secret_key                  = "offline-plan"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  max_retries                 = 1
}
%s
module "messaging" {
  source     = "{source}"
  account_id = "%s"
%s
}
''' % (
    "".join(f'variable "{v}" {{\n  type    = any\n  default = {{}}\n}}\n' for v in INPUTS if v != "name_prefix")
    + 'variable "name_prefix" {\n  type    = string\n  default = ""\n}\n',
    ACCOUNT,
    "".join(f"  {v} = var.{v}\n" for v in INPUTS),
)


def sns(conditions=None, principal=("Service", "sns.amazonaws.com")):
    s = {"sid": "Topic", "actions": ["sqs:SendMessage"], "principals": [{"type": principal[0], "identifiers": [principal[1]]}]}
    if conditions is not None:
        s["conditions"] = conditions
    return s


def doc(statement):
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


def q(**settings):
    return {"queues": {"orders": settings}}


def partner(i: int) -> dict:
    """A statement letting partner account i send (a named principal, no condition needed)."""
    return {"sid": f"Partner{i}", "actions": ["sqs:SendMessage"], "principals": [{"type": "AWS", "identifiers": [f"arn:aws:iam::{100000000000 + i}:root"]}]}


OPERATOR_ACTIONS = ["sqs:SendMessage", "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility",
                    "sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:ListDeadLetterSourceQueues", "sqs:ListQueueTags"]


# (id, variables, the root path the refusal must name)
CASES: list[tuple[str, dict, str]] = [
    # --- 1. silent accepts -------------------------------------------------------------------
    ("svc-principal-no-condition", q(queue_policy_statements=[sns()]), 'queues["orders"].queue_policy_statements'),
    ("svc-events-no-condition", q(queue_policy_statements=[sns(principal=("Service", "events.amazonaws.com"))]), 'queues["orders"].queue_policy_statements'),
    ("svc-s3-only-tls-condition", q(queue_policy_statements=[sns([{"test": "Bool", "variable": "aws:SecureTransport", "values": ["true"]}], ("Service", "s3.amazonaws.com"))]), 'queues["orders"].queue_policy_statements'),
    ("svc-dlq-statement", q(dlq_policy_statements=[sns()]), 'queues["orders"].dlq_policy_statements'),
    ("svc-in-document", q(source_queue_policy_documents=[doc({"Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"}, "Action": "sqs:SendMessage"})]), 'queues["orders"].source_queue_policy_documents'),
    ("star-principal-tag-only", q(queue_policy_statements=[sns([{"test": "StringEquals", "variable": "aws:PrincipalTag/team", "values": ["x"]}], ("AWS", "*"))]), 'queues["orders"].queue_policy_statements'),
    ("star-requested-region-only", q(queue_policy_statements=[sns([{"test": "StringEquals", "variable": "aws:RequestedRegion", "values": ["us-east-1"]}], ("*", "*"))]), 'queues["orders"].queue_policy_statements'),
    ("star-doc-current-time", q(source_queue_policy_documents=[doc({"Effect": "Allow", "Principal": "*", "Action": "sqs:SendMessage", "Condition": {"DateGreaterThan": {"aws:CurrentTime": "2020-01-01T00:00:00Z"}}})]), 'queues["orders"].source_queue_policy_documents'),
    ("kms-other-region", q(kms_master_key_id=KEY.replace("us-east-1", "eu-west-1")), 'queues["orders"].kms_master_key_id'),
    ("dlq-kms-other-region", q(dlq_kms_master_key_id=KEY.replace("us-east-1", "eu-central-1")), 'queues["orders"].dlq_kms_master_key_id'),
    ("iam-kms-other-region", {**q(), "iam": {"kms_key_arns": [KEY.replace("us-east-1", "ap-south-1")]}}, "iam.kms_key_arns"),
    ("iam-kms-two-aliases-one-key", {"queues": {"orders": {"kms_master_key_id": "alias/orders"}, "payments": {"kms_master_key_id": "alias/payments"}}, "iam": {"kms_key_arns": [KEY]}}, "iam.kms_key_arns"),
    ("consumer-batch-no-function", q(consumer={"timeout_seconds": 30, "batch_size": 50}), 'queues["orders"].consumer.batch_size'),
    ("consumer-concurrency-no-function", q(consumer={"timeout_seconds": 30, "maximum_concurrency": 5}), 'queues["orders"].consumer.maximum_concurrency'),
    ("consumer-filters-no-function", q(consumer={"timeout_seconds": 30, "filter_patterns": ['{"body":{"a":["b"]}}']}), 'queues["orders"].consumer.filter_patterns'),
    ("consumer-enabled-no-function", q(consumer={"timeout_seconds": 30, "enabled": False}), 'queues["orders"].consumer.enabled'),
    ("consumer-no-report-failures", q(consumer={"timeout_seconds": 30, "report_batch_item_failures": False, **FN}), 'queues["orders"].consumer.report_batch_item_failures'),
    ("consumer-window-batch-1", q(consumer={"timeout_seconds": 30, "batch_size": 1, "maximum_batching_window_seconds": 5, **FN}), 'queues["orders"].consumer.maximum_batching_window_seconds'),
    ("redrive-reserved-0", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check"}, "dlq_redrive": {"enabled": True, "reserved_concurrent_executions": 0}}, "dlq_redrive.reserved_concurrent_executions"),
    ("queue-age-critical-30", q(alarm_thresholds={"age_critical_seconds": 30}), 'queues["orders"].alarm_thresholds'),
    ("queue-stale-10", {**q(alarm_thresholds={"dlq_stale_age_seconds": 10}), "alarms": {"create_sns_topic": False, "kinds": ["dlq_depth", "dlq_stale"]}}, 'queues["orders"].alarm_thresholds'),
    ("backlog-threshold-kind-off", {**q(), "alarms": {"create_sns_topic": False, "thresholds": {"backlog_messages": 500}}}, "alarms.thresholds.backlog_messages"),
    ("queue-influx-threshold-kind-off", q(alarm_thresholds={"dlq_influx_messages": 5}), 'queues["orders"].alarm_thresholds.dlq_influx_messages'),
    ("kms-reuse-without-key", q(kms_data_key_reuse_period_seconds=600), 'queues["orders"].kms_data_key_reuse_period_seconds'),
    ("dlq-kms-reuse-without-key", q(dlq_kms_data_key_reuse_period_seconds=600), 'queues["orders"].dlq_kms_data_key_reuse_period_seconds'),
    ("defaults-kms-reuse-without-key", {**q(), "queue_defaults": {"kms_data_key_reuse_period_seconds": 900}}, "queue_defaults.kms_data_key_reuse_period_seconds"),
    ("root-tag-aws-prefix", {**q(), "tags": {"aws:team": "x"}}, "tags"),
    ("queue-tag-bad-chars", q(tags={"team#1": "x"}), 'queues["orders"].tags'),
    ("dlq-tag-aws-prefix", q(dlq_tags={"aws:cost": "x"}), 'queues["orders"].dlq_tags'),
    ("bucket-tag-aws-prefix", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check", "tags": {"AWS:x": "y"}}}, "claim_check_bucket.tags"),
    ("root-tag-key-too-long", {**q(), "tags": {"k" * 129: "x"}}, "tags"),
    ("root-tag-value-too-long", {**q(), "tags": {"team": "v" * 257}}, "tags"),
    ("no-queues-bucket-on", {"queues": {}, "claim_check_bucket": {"enabled": True, "name": "wi-claim-check"}}, "claim_check_bucket"),
    ("no-queues-redrive-on", {"queues": {}, "dlq_redrive": {"enabled": True, "archive_bucket_name": "archive"}}, "dlq_redrive"),
    ("alarms-off-topic-set", {**q(), "alarms": {"enabled": False, "sns_topic_arn": f"arn:aws:sns:us-east-1:{ACCOUNT}:oncall"}}, "alarms.sns_topic_arn"),
    ("alarms-off-kinds", {**q(), "alarms": {"enabled": False, "kinds": ["dlq_depth", "backlog"]}}, "alarms.kinds"),
    ("alarms-off-queue-thresholds", {**q(alarm_thresholds={"age_critical_seconds": 1800}), "alarms": {"enabled": False}}, 'queues["orders"].alarm_thresholds'),
    ("iam-path-without-managed-policies", {**q(), "iam": {"path": "/messaging/"}}, "iam.path"),
    ("queue-tag-value-too-long", q(tags={"team": "v" * 257}), 'queues["orders"].tags'),
    ("topic-arn-and-name", {**q(), "alarms": {"sns_topic_arn": f"arn:aws:sns:us-east-1:{ACCOUNT}:oncall", "sns_topic_name": "mine"}}, "alarms.sns_topic_name"),
    ("no-topic-kms-given", {**q(), "alarms": {"create_sns_topic": False, "sns_kms_master_key_id": KEY}}, "alarms.sns_kms_master_key_id"),
    # --- 2. refusals name the root input, value and bound ----------------------------------------
    ("bucket-name-upper", {**q(), "claim_check_bucket": {"enabled": True, "name": "Bad_Name"}}, "claim_check_bucket.name"),
    ("bucket-name-long", {**q(), "claim_check_bucket": {"enabled": True, "name": "b" * 70}}, "claim_check_bucket.name"),
    ("bucket-prefix-slash", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check", "payload_prefix": "/payloads"}}, "claim_check_bucket.payload_prefix"),
    ("bucket-expiry-0", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check", "expiration_days": 0}}, "claim_check_bucket.expiration_days"),
    ("bucket-kms-garbage", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check", "kms_key_arn": "my-key"}}, "claim_check_bucket.kms_key_arn"),
    ("bucket-abort-0", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check", "abort_incomplete_multipart_upload_days": 0}}, "claim_check_bucket.abort_incomplete_multipart_upload_days"),
    ("bucket-log-bucket-bad", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check", "access_log_bucket": "Logs!"}}, "claim_check_bucket.access_log_bucket"),
    ("table-name-short", {**q(), "idempotency_table": {"enabled": True, "name": "a"}}, "idempotency_table.name"),
    ("table-kms-garbage", {**q(), "idempotency_table": {"enabled": True, "name": "wi-idem", "kms_key_arn": "key"}}, "idempotency_table.kms_key_arn"),
    ("table-sort-key-expiration", {**q(), "idempotency_table": {"enabled": True, "name": "wi-idem", "sort_key_attr": "expiration"}}, "idempotency_table.sort_key_attr"),
    ("redrive-timeout-1000", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check"}, "dlq_redrive": {"enabled": True, "timeout_seconds": 1000}}, "dlq_redrive.timeout_seconds"),
    ("redrive-timeout-0", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check"}, "dlq_redrive": {"enabled": True, "timeout_seconds": 0}}, "dlq_redrive.timeout_seconds"),
    ("redrive-rate-0", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check"}, "dlq_redrive": {"enabled": True, "max_messages_per_second": 0}}, "dlq_redrive.max_messages_per_second"),
    ("redrive-schedule-bad", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check"}, "dlq_redrive": {"enabled": True, "schedule_expression": "every 5 minutes"}}, "dlq_redrive.schedule_expression"),
    ("redrive-log-retention-bad", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check"}, "dlq_redrive": {"enabled": True, "log_retention_days": 7000}}, "dlq_redrive.log_retention_days"),
    ("redrive-max-redrive-0", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check"}, "dlq_redrive": {"enabled": True, "max_redrive_count": 0}}, "dlq_redrive.max_redrive_count"),
    ("redrive-alarm-actions-bad", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check"}, "dlq_redrive": {"enabled": True, "alarm_actions": ["oncall"]}}, "dlq_redrive.alarm_actions"),
    ("redrive-archive-prefix-empty", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check"}, "dlq_redrive": {"enabled": True, "archive_prefix": ""}}, "dlq_redrive.archive_prefix"),
    ("thresholds-backlog-0", {**q(), "alarms": {"create_sns_topic": False, "kinds": ["backlog"], "thresholds": {"backlog_messages": 0}}}, "alarms.thresholds.backlog_messages"),
    ("thresholds-warning-10", {**q(), "alarms": {"create_sns_topic": False, "kinds": ["age_warning"], "thresholds": {"age_warning_seconds": 10}}}, "alarms.thresholds.age_warning_seconds"),
    ("thresholds-periods-2000", {**q(), "alarms": {"create_sns_topic": False, "kinds": ["dlq_influx"], "thresholds": {"dlq_influx_evaluation_periods": 2000}}}, "alarms.thresholds.dlq_influx_evaluation_periods"),
    ("thresholds-inverted", {**q(), "alarms": {"create_sns_topic": False, "kinds": ["age_warning", "age_critical"], "thresholds": {"age_warning_seconds": 900, "age_critical_seconds": 600}}}, "alarms.thresholds"),
    ("alarms-topic-name-bad", {**q(), "alarms": {"create_sns_topic": True, "sns_topic_name": "on call"}}, "alarms.sns_topic_name"),
    ("alarms-prefix-bad", {**q(), "alarms": {"create_sns_topic": False, "alarm_name_prefix": "prod!"}}, "alarms.alarm_name_prefix"),
    ("alarms-topic-arn-bad", {**q(), "alarms": {"sns_topic_arn": "oncall"}}, "alarms.sns_topic_arn"),
    ("alarms-kind-bad", {**q(), "alarms": {"create_sns_topic": False, "kinds": ["depth"]}}, "alarms.kinds"),
    ("alarms-kms-aws-sns", {**q(), "alarms": {"create_sns_topic": True, "sns_kms_master_key_id": "alias/aws/sns"}}, "alarms.sns_kms_master_key_id"),
    ("iam-path-bad", {**q(), "iam": {"create_managed_policies": True, "path": "policies"}}, "iam.path"),
    ("iam-prefix-bad", {**q(), "iam": {"create_managed_policies": True, "name_prefix": "team one "}}, "iam.name_prefix"),
    ("iam-kms-alias", {**q(), "iam": {"kms_key_arns": ["alias/orders"]}}, "iam.kms_key_arns"),
    ("queue-name-slash", q(name="orders/v1"), 'queues["orders"].name'),
    ("dlq-arn-garbage", q(dlq_arn="orders-dlq"), 'queues["orders"].dlq_arn'),
    ("dlq-name-space", q(dlq_name="orders dlq"), 'queues["orders"].dlq_name'),
    # fractional numbers
    ("frac-kms-reuse", q(kms_master_key_id=KEY, kms_data_key_reuse_period_seconds=300.5), 'queues["orders"].kms_data_key_reuse_period_seconds'),
    ("frac-retention", q(message_retention_seconds=86400.5), 'queues["orders"].message_retention_seconds'),
    ("frac-delay", q(delay_seconds=1.5), 'queues["orders"].delay_seconds'),
    ("frac-visibility", q(visibility_timeout_seconds=30.5), 'queues["orders"].visibility_timeout_seconds'),
    ("frac-message-size", q(max_message_size=2048.5), 'queues["orders"].max_message_size'),
    ("frac-wait", q(receive_wait_time_seconds=10.5), 'queues["orders"].receive_wait_time_seconds'),
    ("frac-dlq-retention", q(dlq_message_retention_seconds=1000000.5), 'queues["orders"].dlq_message_retention_seconds'),
    ("frac-consumer-timeout", q(consumer={"timeout_seconds": 30.5}), 'queues["orders"].consumer.timeout_seconds'),
    ("frac-batch", q(consumer={"timeout_seconds": 30, "batch_size": 10.5, **FN}), 'queues["orders"].consumer.batch_size'),
    ("frac-expiry-days", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check", "expiration_days": 20.5}}, "claim_check_bucket.expiration_days"),
    ("frac-threshold", {**q(), "alarms": {"create_sns_topic": False, "thresholds": {"age_critical_seconds": 900.5}}}, "alarms.thresholds.age_critical_seconds"),
    # --- type errors on root object inputs ---------------------------------------------------------
    ("type-bucket-enabled", {**q(), "claim_check_bucket": {"enabled": "yes", "name": "wi-claim-check"}}, "claim_check_bucket.enabled"),
    ("type-redrive-timeout", {**q(), "dlq_redrive": {"enabled": True, "archive_bucket_name": "archive", "timeout_seconds": "30s"}}, "dlq_redrive.timeout_seconds"),
    ("type-max-receive", q(max_receive_count="five"), 'queues["orders"].max_receive_count'),
    ("type-visibility", q(visibility_timeout_seconds="300s"), 'queues["orders"].visibility_timeout_seconds'),
    ("type-consumer-function-string", {**q(consumer={"timeout_seconds": 30}), "consumer_functions": {"orders": "fn"}}, 'consumer_functions["orders"]'),
    ("type-deletion-protection", {**q(), "idempotency_table": {"enabled": True, "name": "wi-idem", "deletion_protection_enabled": "no"}}, "idempotency_table.deletion_protection_enabled"),
    ("type-alarms-enabled", {**q(), "alarms": {"enabled": "on", "create_sns_topic": False}}, "alarms.enabled"),
    ("type-alarms-kinds-string", {**q(), "alarms": {"create_sns_topic": False, "kinds": "dlq_depth"}}, "alarms.kinds"),
    ("type-iam-kms-string", {**q(), "iam": {"kms_key_arns": KEY}}, "iam.kms_key_arns"),
    ("type-bucket-queues-string", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check", "queues": "orders"}}, "claim_check_bucket.queues"),
    ("type-redrive-queues-string", {**q(), "dlq_redrive": {"enabled": True, "archive_bucket_name": "archive", "queues": "orders"}}, "dlq_redrive.queues"),
    ("type-thresholds-number", {**q(), "alarms": {"create_sns_topic": False, "thresholds": 5}}, "alarms.thresholds"),
    ("type-fifo-string", q(fifo="yes"), 'queues["orders"].fifo'),
    ("type-defaults-fifo", {**q(), "queue_defaults": {"fifo": "maybe"}}, "queue_defaults.fifo"),
    ("type-queue-tag-list", q(tags={"team": ["a"]}), 'queues["orders"].tags'),
    ("type-consumer-timeout", q(consumer={"timeout_seconds": "thirty"}), 'queues["orders"].consumer.timeout_seconds'),
    ("type-table-tags-string", {**q(), "idempotency_table": {"enabled": True, "name": "wi-idem", "tags": "x"}}, "idempotency_table.tags"),
    ("type-bucket-versioning", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check", "versioning_enabled": "maybe"}}, "claim_check_bucket.versioning_enabled"),
    ("type-notify-on-ok", {**q(), "alarms": {"create_sns_topic": False, "notify_on_ok": "sometimes"}}, "alarms.notify_on_ok"),
    ("type-failure-reasons-string", {**q(), "dlq_redrive": {"enabled": True, "archive_bucket_name": "archive", "permanent_failure_reasons": "poison"}}, "dlq_redrive.permanent_failure_reasons"),
    ("type-iam-create-string", {**q(), "iam": {"create_managed_policies": "yes"}}, "iam.create_managed_policies"),
    ("type-defaults-retention", {**q(), "queue_defaults": {"message_retention_seconds": "4d"}}, "queue_defaults.message_retention_seconds"),
    # --- hints -------------------------------------------------------------------------------------
    ("hint-table-expiry-attr", {**q(), "idempotency_table": {"enabled": True, "name": "wi-idem", "expiry_attr": "ttl"}}, "idempotency_table"),
    ("hint-defaults-consumer", {**q(), "queue_defaults": {"consumer": {"timeout_seconds": 30}}}, "queue_defaults"),
    ("hint-bucket-name", {**q(), "claim_check_bucket": {"enabled": True, "bucket_name": "wi-claim-check"}}, "claim_check_bucket"),
    ("hint-alarms-topic-arn", {**q(), "alarms": {"topic_arn": f"arn:aws:sns:us-east-1:{ACCOUNT}:oncall"}}, "alarms"),
    ("hint-queue-retention", q(retention=86400), 'queues["orders"]'),
    ("hint-redrive-concurrency", {**q(), "dlq_redrive": {"concurrency": 1}}, "dlq_redrive"),
    ("hint-iam-policy-path", {**q(), "iam": {"policy_path": "/x/"}}, "iam"),
    ("hint-queue-xyz", q(xyz=1), 'queues["orders"]'),
    # --- more silent candidates ---------------------------------------------------------------------
    ("content-dedup-standard", q(content_based_deduplication=True), 'queues["orders"].content_based_deduplication'),
    ("bucket-queues-unknown-key", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check", "queues": ["payments"]}}, "claim_check_bucket.queues"),
    ("redrive-queues-empty", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check"}, "dlq_redrive": {"enabled": True, "queues": []}}, "dlq_redrive.queues"),
    ("consumer-function-empty-name", q(consumer={"timeout_seconds": 30, "function_name": ""}), 'queues["orders"].consumer.function_name'),
    ("name-prefix-too-long-name", {"queues": {"o" * 70: {}}, "name_prefix": "prod-team-"}, 'queues["' + "o" * 70 + '"]'),
    ("dlq-arn-and-create-dlq-true", q(dlq_arn=f"arn:aws:sqs:us-east-1:{ACCOUNT}:shared-dlq", create_dlq=True), 'queues["orders"].create_dlq'),
    ("throughput-on-standard", q(fifo_throughput_limit="perMessageGroupId"), 'queues["orders"].fifo_throughput_limit'),
    # --- issue 34 §2: a failing message must reach its DLQ, an alarm must be able to fire --------
    # a nightly report job holds its message 12 h and is retried 3 times on a 1-day queue
    ("lifecycle-long-job-short-retention", {"queues": {"reports": {"visibility_timeout_seconds": 43200, "max_receive_count": 3, "message_retention_seconds": 86400}}}, 'queues["reports"].max_receive_count'),
    # a 15-minute function (visibility derived: 6 x 900 s) retried 20 times before the DLQ, 1-day retention
    ("lifecycle-slow-consumer-many-retries", {"queues": {"imports": {"consumer": {"timeout_seconds": 900}, "max_receive_count": 20, "message_retention_seconds": 86400}}}, 'queues["imports"].max_receive_count'),
    # the team-wide defaults meet on a queue left at the 4-day default retention
    ("lifecycle-defaults-meet-default-retention", {"queues": {"orders": {}}, "queue_defaults": {"visibility_timeout_seconds": 7200, "max_receive_count": 50}}, 'queue_defaults.max_receive_count'),
    # "page me if anything waits a week" on a queue that keeps messages 4 days
    ("alarm-age-week-on-default-retention", {**q(), "alarms": {"create_sns_topic": False, "thresholds": {"age_critical_seconds": 604800}}}, "alarms.thresholds.age_critical_seconds"),
    # both age alarms tuned above a 2-day retention
    ("alarm-age-warning-above-retention", {"queues": {"orders": {"message_retention_seconds": 172800, "alarm_thresholds": {"age_warning_seconds": 180000, "age_critical_seconds": 190000}}}, "alarms": {"create_sns_topic": False, "kinds": ["dlq_depth", "age_warning", "age_critical"]}}, 'queues["orders"].alarm_thresholds.age_warning_seconds'),
    # a weekly triage alarm on a DLQ that keeps failures 3 days
    ("alarm-stale-week-on-3-day-dlq", {"queues": {"orders": {"message_retention_seconds": 86400, "dlq_message_retention_seconds": 259200}}, "alarms": {"create_sns_topic": False, "kinds": ["dlq_depth", "dlq_stale"], "thresholds": {"dlq_stale_age_seconds": 604800}}}, "alarms.thresholds.dlq_stale_age_seconds"),
    # alarms "configured" with a topic, but no kind of alarm
    ("alarms-topic-but-no-kinds", {**q(), "alarms": {"sns_topic_arn": f"arn:aws:sns:us-east-1:{ACCOUNT}:oncall", "kinds": []}}, "alarms.kinds"),
    # --- issue 34 §3: what AWS refuses at apply, refused at plan ---------------------------------
    # one statement per partner account: 20 partners + the module's TLS-only deny
    ("policy-one-statement-per-partner", q(queue_policy_statements=[partner(i) for i in range(20)]), 'queues["orders"].queue_policy_statements'),
    # an operator role granted everything it might need, in one statement
    ("policy-operator-eight-actions", q(queue_policy_statements=[{**partner(0), "actions": OPERATOR_ACTIONS}]), 'queues["orders"].queue_policy_statements[0]'),
    # actions filled from a lookup that came back empty
    ("policy-actions-empty-list", q(queue_policy_statements=[{**partner(0), "actions": []}]), 'queues["orders"].queue_policy_statements[0]'),
    # principals filled from a list of roles that is empty in this environment
    ("policy-principal-no-roles", q(queue_policy_statements=[{**partner(0), "principals": [{"type": "AWS", "identifiers": []}]}]), 'queues["orders"].queue_policy_statements[0]'),
    # operators typed from memory
    ("policy-condition-stringequal", q(queue_policy_statements=[{**partner(0), "principals": [{"type": "AWS", "identifiers": ["*"]}], "condition": [{"test": "StringEqual", "variable": "aws:PrincipalOrgID", "values": ["o-abc123"]}]}]), 'queues["orders"].queue_policy_statements[0]'),
    ("policy-condition-ifexist", q(queue_policy_statements=[{**partner(0), "conditions": [{"test": "ArnLikeIfExist", "variable": "aws:PrincipalArn", "values": [f"arn:aws:iam::{ACCOUNT}:role/*"]}]}]), 'queues["orders"].queue_policy_statements[0]'),
    ("policy-document-condition-foranyvalues", q(source_queue_policy_documents=[doc({"Sid": "Tagged", "Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "sqs:SendMessage", "Condition": {"ForAnyValues:StringEquals": {"aws:PrincipalTag/team": ["orders"]}}})]), 'queues["orders"].source_queue_policy_documents[0]'),
    # "nobody but us": a Deny to everyone, the exception forgotten
    ("policy-deny-all-no-exception", q(queue_policy_statements=[{"sid": "OnlyUs", "effect": "Deny", "actions": ["sqs:*"], "principals": [{"type": "*", "identifiers": ["*"]}]}]), 'queues["orders"].queue_policy_statements[0]'),
    ("policy-document-deny-all-no-exception", q(override_dlq_queue_policy_documents=[doc({"Sid": "OnlyUs", "Effect": "Deny", "Principal": "*", "Action": "sqs:*"})]), 'queues["orders"].override_dlq_queue_policy_documents[0]'),
    # cost-allocation tags of the platform and of the team add up past 50
    ("tags-platform-plus-team", {"queues": {"orders": {"tags": {f"team:{i}": "x" for i in range(6)}, "dlq_arn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:shared-dlq"}}, "tags": {f"platform:{i}": "x" for i in range(45)}}, 'queues["orders"].tags'),
    ("tags-dlq-plus-module-tag", {"queues": {"orders": {"dlq_tags": {"triage": "team-a", "pager": "yes"}}}, "tags": {f"platform:{i}": "x" for i in range(48)}}, 'queues["orders"].dlq_tags'),
    # every key of the organisation granted to every role
    ("iam-policy-too-long", {**q(kms_master_key_id=KEY), "iam": {"create_managed_policies": True, "kms_key_arns": [KEY[:-12] + f"{i:012d}" for i in range(80)]}}, "iam.kms_key_arns"),
    # two teams' queues, one in capitals
    ("iam-names-case", {"queues": {"Orders": {}, "orders": {}}, "iam": {"create_managed_policies": True}}, "iam.create_managed_policies"),
    ("iam-names-fifo-rewrite", {"queues": {"payments-fifo": {}, "payments": {"fifo": True}}, "iam": {"create_managed_policies": True}}, "iam.create_managed_policies"),
    ("redrive-names-fifo-twin", {"queues": {"payments": {}, "payments.fifo": {"fifo": True}}, "claim_check_bucket": {"enabled": True, "name": "wi-claim-check"}, "dlq_redrive": {"enabled": True}}, "dlq_redrive.queues"),
    # ARNs copied from another Region's or partition's stack
    ("alarm-topic-other-region", {**q(), "alarms": {"sns_topic_arn": f"arn:aws:sns:eu-west-1:{ACCOUNT}:oncall"}}, "alarms.sns_topic_arn"),
    ("alarm-topic-govcloud", {**q(), "alarms": {"sns_topic_arn": f"arn:aws-us-gov:sns:us-gov-west-1:{ACCOUNT}:oncall"}}, "alarms.sns_topic_arn"),
    ("redrive-alarm-other-region", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check"}, "dlq_redrive": {"enabled": True, "alarm_actions": [f"arn:aws:sns:us-west-2:{ACCOUNT}:oncall"]}}, "dlq_redrive.alarm_actions"),
    ("dlq-arn-china-partition", q(dlq_arn=f"arn:aws-cn:sqs:us-east-1:{ACCOUNT}:shared-dlq"), 'queues["orders"].dlq_arn'),
    ("consumer-function-arn-other-region", q(consumer={"timeout_seconds": 30, "function_name": f"arn:aws:lambda:eu-west-1:{ACCOUNT}:function:orders"}), 'queues["orders"].consumer.function_name'),
    ("table-kms-other-region", {**q(), "idempotency_table": {"enabled": True, "name": "wi-idem", "kms_key_arn": KEY.replace("us-east-1", "eu-west-1")}}, "idempotency_table.kms_key_arn"),
    ("bucket-kms-china-partition", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check", "kms_key_arn": KEY.replace("arn:aws:", "arn:aws-cn:")}}, "claim_check_bucket.kms_key_arn"),
    # --- 4. guards bypassed, settings dropped, nulls (issue #34) -------------------------------------
    # a platform team's EventBridge rule, written with the principal type in lower case
    ("svc-type-lower-case", q(queue_policy_statements=[{"sid": "FromRule", "actions": ["sqs:SendMessage"], "principals": [{"type": "service", "identifiers": ["events.amazonaws.com"]}]}]), 'queues["orders"].queue_policy_statements'),
    # the topic's ARN not known yet, the condition left with no values "for now"
    ("svc-source-arn-no-values", q(queue_policy_statements=[sns([{"test": "ArnEquals", "variable": "aws:SourceArn", "values": []}])]), 'queues["orders"].queue_policy_statements'),
    ("svc-doc-source-arn-no-values", q(source_queue_policy_documents=[doc({"Effect": "Allow", "Principal": {"Service": "s3.amazonaws.com"}, "Action": "sqs:SendMessage", "Condition": {"ArnLike": {"aws:SourceArn": []}}})]), 'queues["orders"].source_queue_policy_documents'),
    # the wrong ARN pasted from the neighbouring output, a flag, a copy with a trailing space
    ("kms-is-a-topic-arn", q(kms_master_key_id=f"arn:aws:sns:us-east-1:{ACCOUNT}:orders-alerts"), 'queues["orders"].kms_master_key_id'),
    ("kms-false", q(kms_master_key_id=False), 'queues["orders"].kms_master_key_id'),
    ("kms-trailing-space", q(kms_master_key_id=KEY + " "), 'queues["orders"].kms_master_key_id'),
    ("dlq-kms-is-a-queue-arn", q(dlq_kms_master_key_id=f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders-dlq"), 'queues["orders"].dlq_kms_master_key_id'),
    # settings for a topic the module does not create (create_sns_topic left unset)
    ("topic-name-no-create", {**q(), "alarms": {"sns_topic_name": "orders-oncall"}}, "alarms.sns_topic_name"),
    ("topic-kms-no-create", {**q(), "alarms": {"sns_kms_master_key_id": KEY}}, "alarms.sns_kms_master_key_id"),
    # a stricter TLS statement under the module's own Sid
    ("override-tls-sid", q(override_queue_policy_documents=[doc({"Sid": "DenyInsecureTransport", "Effect": "Deny", "Principal": "*", "Action": "sqs:*", "Condition": {"NumericLessThan": {"s3:TlsVersion": "1.2"}}})]), 'queues["orders"].override_queue_policy_documents'),
    ("statement-tls-sid", q(queue_policy_statements=[{"sid": "DenyInsecureTransport", "effect": "Deny", "actions": ["sqs:*"], "principals": [{"type": "*", "identifiers": ["*"]}], "conditions": [{"test": "NumericLessThan", "variable": "s3:TlsVersion", "values": ["1.2"]}]}]), 'queues["orders"].queue_policy_statements'),
    ("dlq-name-fifo-on-standard", q(dlq_name="orders-failed.fifo"), 'queues["orders"].dlq_name'),
    ("short-polling-opt-in-unused", q(allow_short_polling=True), 'queues["orders"].allow_short_polling'),
    ("topic-no-queues", {"queues": {}, "alarms": {"create_sns_topic": True}}, "alarms.create_sns_topic"),
    ("table-no-queues", {"queues": {}, "idempotency_table": {"enabled": True, "name": "wi-idem"}}, "idempotency_table"),
    ("dlq-name-true", q(dlq_name=True), 'queues["orders"].dlq_name'),
    ("fifo-key-75", {"queues": {"e" * 75: {"fifo": True}}}, 'queues["' + "e" * 75 + '"]'),
    # null where a value was meant (a lookup that found nothing, a variable left unset)
    ("tag-value-null", q(tags={"team": None}), 'queues["orders"].tags'),
    ("bucket-queues-null-entry", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check", "queues": ["orders", None]}}, "claim_check_bucket.queues"),
    ("principal-identifiers-null", q(queue_policy_statements=[{"sid": "Team", "actions": ["sqs:SendMessage"], "principals": [{"type": "AWS", "identifiers": None}]}]), 'queues["orders"].queue_policy_statements'),
    ("condition-values-null", q(queue_policy_statements=[sns([{"test": "ArnEquals", "variable": "aws:SourceArn", "values": None}])]), 'queues["orders"].queue_policy_statements'),
    ("iam-kms-null-entry", {**q(), "iam": {"kms_key_arns": [KEY, None]}}, "iam.kms_key_arns"),
    ("consumer-timeout-null", q(consumer={"function_name": "orders-consumer", "timeout_seconds": None}), 'queues["orders"].consumer.timeout_seconds'),
    # --- 5. providers: message size, provisioned mode ---------------------------------------------
    ("max-message-size-2mib", q(max_message_size=2097152), 'queues["orders"].max_message_size'),
    ("provisioned-and-concurrency", q(consumer={"timeout_seconds": 30, "maximum_concurrency": 20, "provisioned_poller_config": {"minimum_pollers": 2, "maximum_pollers": 10}, **FN}), 'queues["orders"].consumer.provisioned_poller_config'),
    ("provisioned-min-above-max", q(consumer={"timeout_seconds": 30, "provisioned_poller_config": {"minimum_pollers": 20, "maximum_pollers": 10}, **FN}), 'queues["orders"].consumer.provisioned_poller_config'),
    ("provisioned-no-function", q(consumer={"timeout_seconds": 30, "provisioned_poller_config": {"maximum_pollers": 10}}), 'queues["orders"].consumer.provisioned_poller_config'),
]

# Cases refused for the wrong reason: the refusal names the input, but what it says is
# not the problem (a KMS value that is no key refused as "a key by alias"; a long FIFO key
# refused as a dlq_name the user never set). {case: a fragment that must not be said}
WRONG_REASON: dict[str, str] = {
    "kms-is-a-topic-arn": "by alias",
    "kms-false": "by alias",
    "kms-trailing-space": "by alias",
    "dlq-kms-is-a-queue-arn": "by alias",
    "fifo-key-75": "dlq_name:",
}

# Valid inputs near the wrong ones, which must plan: a refusal of one is a failure (the
# tool counted them as "silent" wrong inputs before; each was checked and is valid).
# (id, variables, why it is valid)
VALID: list[tuple[str, dict, str]] = [
    # SQS's developer guide (Encryption at rest, key terms): the KMS key ID is "the alias, alias ARN,
    # key ID, or key ARN of an AWS managed KMS key or a custom KMS key, in your account or in another
    # account"; the key's policy must let the queue's users use it, which the plan cannot see.
    # A key in another region is refused (kms-other-region above): that one fails at apply.
    ("kms-other-account", q(kms_master_key_id=KEY.replace(ACCOUNT, "210987654321")),
     "SQS takes a customer-managed key of another account (by key ARN); its key policy must grant the queue's users"),
    # modules/dlq-redrive takes 0.1-3000 messages per second and the function paces at a float rate
    ("redrive-rate-fractional", {**q(), "claim_check_bucket": {"enabled": True, "name": "wi-claim-check"}, "dlq_redrive": {"enabled": True, "max_messages_per_second": 2.5}},
     "max_messages_per_second is a rate, 0.1-3000, not a count: 2.5 messages per second is a valid pace"),
    # an optional attribute given null takes its default (Terraform's optional(type, default)),
    # as every other null in the switch objects does
    ("redrive-timeout-null", {**q(), "dlq_redrive": {"enabled": True, "archive_bucket_name": "archive", "timeout_seconds": None}},
     "null means not given: the function gets the default timeout, 120 s"),
    # issue 34 §2, the valid side
    ("lifecycle-long-job-long-retention", {"queues": {"reports": {"visibility_timeout_seconds": 43200, "max_receive_count": 3, "message_retention_seconds": 172800}}},
     "3 x 12 h = 36 h < 2 days: a failing message reaches the DLQ with 12 h to spare"),
    ("alarm-age-3-days-on-default-retention", {**q(), "alarms": {"create_sns_topic": False, "thresholds": {"age_critical_seconds": 259200}}},
     "3 days < the 4-day default retention: the alarm fires a day before messages expire"),
    # issue 34 §3, the valid side
    ("policy-19-partners-plus-tls", q(queue_policy_statements=[partner(i) for i in range(19)]),
     "19 statements + the TLS-only deny = 20, SQS's maximum"),
    ("policy-seven-actions-and-set-operators", q(queue_policy_statements=[{**partner(0), "actions": OPERATOR_ACTIONS[:7], "condition": [{"test": "ForAnyValue:StringLikeIfExists", "variable": "aws:PrincipalTag/team", "values": ["orders*"]}]}]),
     "7 actions is SQS's maximum per statement; ForAnyValue: + StringLike + IfExists is an IAM operator"),
    ("policy-deny-outside-org", q(queue_policy_statements=[{"sid": "OrgOnly", "effect": "Deny", "actions": ["sqs:*"], "principals": [{"type": "*", "identifiers": ["*"]}], "condition": [{"test": "StringNotEquals", "variable": "aws:PrincipalOrgID", "values": ["o-abc123"]}]}]),
     "a Deny of sqs:* to everyone outside the organisation: the condition keeps the organisation's producers and consumers in"),
    ("queues-differ-in-case-documents-only", {"queues": {"Orders": {}, "orders": {}}},
     "SQS queue names are case-sensitive; without managed policies no IAM name is created"),
    ("alarm-stale-on-external-dlq", {**q(dlq_arn=f"arn:aws:sqs:us-east-1:{ACCOUNT}:shared-dlq"), "alarms": {"create_sns_topic": False, "kinds": ["dlq_depth", "dlq_stale"], "thresholds": {"dlq_stale_age_seconds": 1000000}}},
     "an existing DLQ outside the call: its retention is not known here, so the threshold is not judged against it (up to 14 days)"),
    # beside the issue #34 refusals: what stays valid
    ("provisioned-mode", q(consumer={"timeout_seconds": 30, "provisioned_poller_config": {"minimum_pollers": 2, "maximum_pollers": 20}, **FN}),
     "provisioned mode bounded by maximum_pollers: maximum_concurrency is not defaulted to 10 there (Lambda refuses both)"),
    ("short-polling-default-used-by-one", {"queues": {"orders": {"receive_wait_time_seconds": 0}, "emails": {}}, "queue_defaults": {"allow_short_polling": True}},
     "queue_defaults.allow_short_polling serves the queue that short-polls; the other queue long-polls as it should"),
    ("kms-alias-arn-with-key-arn", {**q(kms_master_key_id=f"arn:aws:kms:us-east-1:{ACCOUNT}:alias/orders"), "iam": {"kms_key_arns": [KEY]}},
     "an alias ARN is a KMS key as SQS takes it; the key behind it is granted through iam.kms_key_arns"),
    ("kms-multi-region-key-id", q(kms_master_key_id="mrk-" + "0123456789abcdef" * 2),
     "a multi-Region key's ID (mrk-...) is a KMS key ID"),
    ("max-message-size-256kib", q(max_message_size=262144), "262144 is accepted by every AWS provider this module allows"),
]

INTERNAL = re.compile(r'module\.(inputs|queue\[[^\]]*\]|alarms\[0\]|claim_check_bucket\[0\]|idempotency_table\[0\]|dlq_redrive\[[^\]]*\]|consumer\[[^\]]*\]|iam\[[^\]]*\])\.var\.|var\.(switches_raw|queue_defaults_raw|consumer_functions_raw)|Invalid value for input variable|Invalid value for module argument')


def _hcl(value) -> str:
    return json.dumps(value)


def classify(status: str, errors: list[str], path: str, wrong_reason: str | None = None) -> str:
    if status == "pass":
        return "silent"
    text = " ".join(errors)
    if wrong_reason and wrong_reason in text:
        return "unnamed"
    if path in text and not INTERNAL.search(text):
        return "named"
    if INTERNAL.search(text) and ("type" in text.lower() or "required" in text.lower() or "Unsuitable value" in text):
        return "internal"
    return "unnamed"


def run(source: Path, cases=CASES) -> dict[str, dict]:
    work = Path(tempfile.mkdtemp(prefix="wrong-inputs-"))
    try:
        rel = os.path.relpath(source.resolve(), work)
        (work / "main.tf").write_text(STACK.replace("{source}", rel))
        (work / "tests").mkdir()
        files = {}
        for i, (case, variables, _) in enumerate(cases):
            stem = f"c{i:03d}"
            files[stem] = case
            body = "".join(f"    {k} = {_hcl(v)}\n" for k, v in variables.items())
            if "alarms" not in variables:
                body += '    alarms = {"create_sns_topic": false}\n'
            (work / "tests" / f"{stem}.tftest.hcl").write_text(
                f'run "case" {{\n  command = plan\n  variables {{\n{body}  }}\n}}\n')
        tf = Terraform(work)
        tf.init(backend=False)
        result = tf.test()
        return {files[stem]: o for stem, o in outcomes_of_terraform_test(result.stdout).items() if stem in files}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, default=REPO_ROOT, help="the module checkout to source (default: this one)")
    ap.add_argument("--only", help="run only cases whose id contains this (several: separated by commas)")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--json", type=Path, help="write {case: {verdict, errors}} here")
    args = ap.parse_args(argv)
    only = [o for o in (args.only or "").split(",") if o]
    cases = [c for c in CASES if not only or any(o in c[0] for o in only)]
    valid = [c for c in VALID if not only or any(o in c[0] for o in only)]
    got = run(args.source, cases + valid)
    counts = {"named": 0, "unnamed": 0, "internal": 0, "silent": 0}
    out = {}
    for case, _, path in cases:
        g = got.get(case, {"status": "missing", "errors": []})
        verdict = classify(g.get("status", "missing"), g["errors"], path, WRONG_REASON.get(case))
        counts[verdict] += 1
        out[case] = {"verdict": verdict, "path": path, "errors": g["errors"]}
        if args.verbose and verdict != "named":
            first = (g["errors"][0] if g["errors"] else "")[:300]
            print(f"{verdict:8} {case}: expected {path}\n         {first}")
    refused_valid = []
    for case, _, why in valid:
        g = got.get(case, {"status": "missing", "errors": []})
        verdict = "planned" if g.get("status") == "pass" else "refused"
        out[case] = {"verdict": verdict, "valid": why, "errors": g["errors"]}
        if verdict == "refused":
            refused_valid.append(case)
            print(f"REFUSED  {case} (valid: {why})\n         {(g['errors'][0] if g['errors'] else g.get('status'))!s:.300}")
    print(f"{len(cases)} wrong inputs through the root module ({args.source}):")
    for k, v in counts.items():
        print(f"  {k:8} {v}")
    print(f"{len(valid)} valid inputs that must plan: {len(valid) - len(refused_valid)} planned, {len(refused_valid)} refused")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 1 if refused_valid else 0


if __name__ == "__main__":
    sys.exit(main())
