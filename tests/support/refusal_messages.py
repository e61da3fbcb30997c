"""The refusal runs of every module and of the root module, and the words each
refusal must say: the table tests/modules/test_refusals.py checks every native refusal
run against, and tests/root_module/test_consumer_stack.py reuses for modules/queue's
refusals reached through a root ``queues`` entry.

A run's inputs are written once, in its ``refusals.tftest.hcl``;
``run_variables`` reads them back as HCL text.
"""
from __future__ import annotations

import re

from resilient_sqs.testing.terraform import split_runs as _split_runs
from tests.support.helpers import FIXTURES, MODULES, REPO_ROOT

# modules/queue: {run of modules/queue/tests/refusals.tftest.hcl: fragments every one of which
# must appear in its errors}. These are also planned through a root `queues` entry
# (tests/root_module/test_consumer_stack.py), where the message must say the same after the queue's path.
QUEUE_CASES: dict[str, list[str]] = {
    'name_with_invalid_characters': ['name:', 'letters, digits, hyphens'],
    # the DLQ's name is derived from the queue's: the queue's name is blamed, not a dlq_name never set
    'name_too_long_with_suffixes': ['name: the DLQ name derived from it', '83 characters', 'at most 80', 'at most 71 characters'],
    'fifo_suffix_on_standard_queue': ['"orders.fifo" ends with .fifo but fifo = false'],
    'dlq_name_with_invalid_characters': ['dlq_name:', 'letters, digits'],
    'visibility_above_12_hours': ['visibility_timeout_seconds:', '43200'],
    'visibility_below_consumer_bound_with_window': ['visibility_timeout_seconds: 60 s', '6 x consumer timeout 30 s', 'batching window 5 s = 185 s', 'at least 185'],
    'consumer_timeout_above_lambda_max': ['consumer.timeout_seconds:', '1 to 900'],
    'consumer_window_above_300': ['maximum_batching_window_seconds:', '0 to 300'],
    'retention_below_one_day': ['message_retention_seconds:', '86400 (1 day)'],
    'retention_above_14_days': ['message_retention_seconds:', '1209600'],
    'dlq_retention_equal_to_source': ['dlq_message_retention_seconds: 1209600 s must be greater than message_retention_seconds (1209600 s)'],
    'dlq_retention_below_source': ['dlq_message_retention_seconds: 345600 s must be greater than message_retention_seconds (604800 s)', 'On a standard queue a message keeps its original enqueue time'],
    # the reason given must be true for FIFO, whose DLQ restarts a message's retention
    'dlq_retention_below_source_fifo': ['dlq_message_retention_seconds: 345600 s must be greater than message_retention_seconds (604800 s)', "On a FIFO queue a message's retention restarts when it moves to the DLQ"],
    'retention_fractional': ['message_retention_seconds: 86400.5', 'whole number'],
    'kms_reuse_fractional': ['kms_data_key_reuse_period_seconds: 300.5', 'whole number'],
    'kms_reuse_without_key': ['kms_data_key_reuse_period_seconds: 600 is set, but the queue has no KMS key'],
    'dlq_kms_reuse_without_key': ['dlq_kms_data_key_reuse_period_seconds: 600 is set, but the DLQ has no KMS key'],
    'policy_service_principal_without_source_condition': ['queue_policy_statements[0] (sid "Sns"): an Allow to service principal sns.amazonaws.com without an aws:SourceArn or aws:SourceAccount condition', 'confused deputy'],
    'document_service_principal_without_source_condition': ['source_queue_policy_documents[0]', 'service principal events.amazonaws.com without an aws:SourceArn or aws:SourceAccount Condition'],
    'policy_public_principal_with_principal_tag_only': ['queue_policy_statements[0] (sid "Tagged"): an Allow to principal "*" without a condition that pins the caller', 'aws:principaltag/team'],
    'dlq_retention_above_14_days': ['dlq_message_retention_seconds:', '1209600'],
    'max_receive_count_one': ['max_receive_count:', '2 to 1000', 'ghost receive'],
    'max_receive_count_fractional': ['max_receive_count:', 'whole number'],
    'short_polling_without_opt_out': ['receive_wait_time_seconds: 0', 'allow_short_polling = true'],
    'receive_wait_above_20': ['receive_wait_time_seconds:', '0 to 20'],
    'delay_above_15_minutes': ['delay_seconds:', '900'],
    'max_message_size_below_1024': ['max_message_size:', '1024'],
    'empty_kms_key': ['kms_master_key_id:', 'null for SSE-SQS'],
    'kms_reuse_below_60_with_key': ['kms_data_key_reuse_period_seconds:', '60 to 86400'],
    'unknown_deduplication_scope': ['deduplication_scope:', '"messageGroup"'],
    'unknown_throughput_limit': ['fifo_throughput_limit:', '"perMessageGroupId"'],
    'per_group_throughput_needs_group_scope': ['requires deduplication_scope = "messageGroup"', 'it is "queue"'],
    'per_group_throughput_scope_unset': ['requires deduplication_scope = "messageGroup"', 'unset (AWS default "queue")'],
    'fifo_options_on_standard_queue': ['content_based_deduplication = true: FIFO-only setting, but the queue is a standard queue (fifo = false)', 'set fifo = true for a FIFO pair'],
    'policy_wildcard_action': ['queue_policy_statements[0] (sid "Any"): actions: ["sqs:*"] in an Allow', 'wildcards'],
    'policy_public_principal': ['principal "*" without a condition that pins the caller', 'makes the queue public'],
    'policy_bad_effect': ['queue_policy_statements[0] (sid "Odd"): effect: "allow" must be "Allow" or "Deny"'],
    'dlq_policy_wildcard_action': ['dlq_policy_statements[0] (sid "Any"): actions: ["sqs:Receive*"] in an Allow', 'wildcards'],
    'dlq_policy_public_principal': ['makes the DLQ public'],
    'account_id_not_12_digits': ['account_id:', '12-digit'],
    # SQS's own maximum; between 262145 and 1048576 the provider in use decides (5.x refuses)
    'max_message_size_above_1_mib': ['max_message_size: 1048577 bytes', 'from 1024 to 1048576', '6.8.0 and later accept', 'claim-check bucket'],
    'dlq_name_equal_to_queue_name': ['dlq_name: "orders" is the queue\'s own name', 'its own dead-letter queue'],
    'create_dlq_with_dlq_arn': ['create_dlq: true, but dlq_arn names an existing DLQ too'],
    'create_dlq_false_without_dlq_arn': ['create_dlq: false needs dlq_arn'],
    'dlq_arn_is_the_queue_itself': ['dlq_arn:', "is this queue's own ARN"],
    'dlq_arn_standard_for_fifo_queue': ['dlq_arn:', 'is a standard queue but this queue is FIFO'],
    'dlq_arn_in_another_region': ['dlq_arn:', 'is in eu-west-1/', 'same partition, account and region'],
    'dlq_arn_in_another_partition': [
        'dlq_arn: arn:aws-cn:sqs:us-east-1:123456789012:shared-dlq is in partition aws-cn, us-east-1/123456789012, but this queue is in partition aws, us-east-1/',
    ],
    'dlq_arn_with_dlq_visibility': ['dlq_arn: the DLQ is an existing queue', 'dlq_visibility_timeout_seconds would not be applied'],
    'dlq_arn_not_an_arn': ['dlq_arn:', 'must be an SQS queue ARN'],
    'dlq_short_polling': ['dlq_receive_wait_time_seconds: 0 (short polling) is refused'],
    'dlq_visibility_above_12_hours': ['dlq_visibility_timeout_seconds: 43201', '43200'],
    'dlq_redrive_allow_deny_all': ['dlq_redrive_allow_policy.redrivePermission: "denyAll"', 'own DLQ'],
    'policy_not_actions_in_allow': ['queue_policy_statements[0] (sid "AllBut"): not_actions in an Allow grants every other action'],
    'policy_not_principals_in_allow': ['not_principals in an Allow grants every principal not listed'],
    'policy_resources_given': ['resources/not_resources: the resource of this policy is always the source queue itself', 'remove them'],
    'document_public_principal': ['source_queue_policy_documents[0] statement "Open": an Allow to principal "*" without a Condition that pins the caller', 'makes the source queue public'],
    'partition_not_a_partition': ['partition:', '"aws-cn"'],
    'region_not_a_region': ['region:', '"eu-west-1"'],
    # a message that fails every receive must reach the DLQ before the retention deletes it
    'receives_times_visibility_reach_retention': [
        'max_receive_count x visibility timeout: 3 receives x 43200 s', '= 129600 s, not below', 'message_retention_seconds 86400 s',
        'lost without a trace', 'lower the visibility timeout to at most 28799 s', 'raise message_retention_seconds above 129600',
    ],
    'receives_times_visibility_equal_to_retention': ['2 receives x 43200 s', '= 86400 s, not below', 'message_retention_seconds 86400 s'],
    'receives_times_consumer_visibility_plus_delay_reach_retention': [
        '15 receives x 5700 s (derived from', 'consumer: 6 x timeout + batching window) + delay 900 s', '= 86400 s, not below',
        'lower max_receive_count to at most 14', "shorten the consumer's timeout_seconds or maximum_batching_window_seconds",
    ],
    # what SQS refuses at apply (its policy quotas: 20 statements, 7 actions per statement; 50 tags)
    'policy_above_20_statements': [
        'queue_policy_statements + ', 'the policy of the source queue would have 21 statements (the module\'s TLS-only deny included',
        'SQS allows at most 20 in a queue policy',
    ],
    'policy_statement_with_8_actions': ['queue_policy_statements[0] (sid "Operator"): actions: 8 actions; SQS allows at most 7 per statement'],
    'policy_statement_without_actions': ['queue_policy_statements[0] (sid "Nothing"): actions: [] names no action; AWS refuses'],
    'policy_principal_without_identifiers': ['queue_policy_statements[0] (sid "Nobody"): principal "AWS" has no identifiers (identifiers = [])'],
    'policy_condition_operator_misspelled': [
        'queue_policy_statements[0] (sid "Org"): condition test "StringEqual" is not an IAM condition operator',
        'ArnNotLike and Null, each but Null optionally ending in IfExists and prefixed with ForAllValues: or ForAnyValue:',
    ],
    'dlq_document_condition_operator_misspelled': [
        'source_dlq_queue_policy_documents[0] statement "Redriver": Condition operator "ArnEqual" is not an IAM condition operator',
    ],
    'policy_deny_everything_to_everyone': [
        'queue_policy_statements[0] (sid "Lockdown"): a Deny of ["sqs:*"] to principal "*" without a condition denies every request to the source queue',
        'Add the condition that says whom to keep out',
    ],
    'document_deny_everything_to_everyone': [
        'override_queue_policy_documents[0] statement "Lockdown": a Deny of ["*"] to principal "*" without a Condition',
    ],
    'queue_tags_above_50': ['tags: the DLQ would carry 51 tags (tags and the module\'s own dlq_for); SQS allows at most 50 per queue', 'Drop 1'],
    'queue_tags_above_50_with_an_existing_dlq': ['tags: the source queue would carry 51 tags; SQS allows at most 50 per queue'],
    'dlq_tags_above_50_with_dlq_for': ['dlq_tags: the DLQ would carry 51 tags (tags, dlq_tags and the module\'s own dlq_for)', 'Drop 1'],
}

# modules/queue runs checked in the module only: DLQ-side and policy-document twins of the
# cases above, and boundaries the root module reaches through the same validations.
QUEUE_ONLY: dict[str, list[str]] = {
    "visibility_below_consumer_bound": [
        "visibility_timeout_seconds: 179 s is below 6 x consumer timeout 30 s + batching window 0 s = 180 s", "set it to at least 180",
    ],
    "dlq_arn_with_settings_of_a_created_dlq": [
        "dlq_arn: the DLQ is an existing queue, not managed here, so dlq_message_retention_seconds would not be applied",
    ],
    "dlq_receive_wait_above_20": ["dlq_receive_wait_time_seconds: 25 must be a whole number from 0 to 20"],
    "dlq_per_group_throughput_needs_group_scope": [
        'dlq_fifo_throughput_limit: "perMessageGroupId" requires dlq_deduplication_scope = "messageGroup"', 'unset (AWS default "queue")',
    ],
    "dlq_fifo_options_on_standard_queue": ['dlq_deduplication_scope = "queue": FIFO-only setting, but the queue is a standard queue'],
    "dlq_delay_above_15_minutes": ["dlq_delay_seconds: 1000 must be a whole number from 0 to 900"],
    "dlq_empty_kms_key": ["dlq_kms_master_key_id: must be a KMS key ID, ARN or alias", "An empty string would not turn encryption off"],
    "kms_reuse_below_60": ["kms_data_key_reuse_period_seconds: 59 must be a whole number of seconds from 60 to 86400", "the queue has no KMS key"],
    "dlq_kms_reuse_below_60": ["dlq_kms_data_key_reuse_period_seconds: 10 must be a whole number of seconds from 60 to 86400"],
    "dlq_unknown_deduplication_scope": ['dlq_deduplication_scope: "group" must be "queue" or "messageGroup"'],
    "dlq_unknown_throughput_limit": ['dlq_fifo_throughput_limit: "perGroup" must be "perQueue" or "perMessageGroupId"'],
    "dlq_redrive_allow_sources_with_allow_all": ["dlq_redrive_allow_policy.sourceQueueArns:", 'only with redrivePermission = "byQueue"'],
    "dlq_policy_bad_effect": ['dlq_policy_statements[0] (sid "Odd"): effect: "Permit" must be "Allow" or "Deny"'],
    "policy_without_actions": ['queue_policy_statements[0] (sid "Nothing"): give exactly one of actions and not_actions'],
    "policy_public_principal_with_condition_singular_is_not_public": [
        'queue_policy_statements[1] (sid "Open"): an Allow to principal "*" without a condition that pins the caller',
    ],
    "document_wildcard_action": [
        'override_queue_policy_documents[0] statement "Admin": Action ["sqs:*"] in an Allow', "wildcards grant more than intended",
    ],
    "dlq_document_not_action_allow": [
        'source_dlq_queue_policy_documents[0] statement "AllBut": NotAction in an Allow grants every other action on the DLQ',
    ],
    "source_document_not_json": ["source_queue_policy_documents: every entry must be a JSON policy document with a Statement"],
    "override_document_without_statement": ["override_queue_policy_documents: every entry must be a JSON policy document with a Statement"],
    "dlq_source_document_not_json": ["source_dlq_queue_policy_documents: every entry must be a JSON policy document with a Statement"],
    "dlq_override_document_not_json": ["override_dlq_queue_policy_documents: every entry must be a JSON policy document with a Statement"],
    # issue #34: guards that were bypassed, settings that were dropped
    "policy_service_principal_type_lower_case": [
        'queue_policy_statements[0] (sid "FromRule"): principals[0].type: "service" is not a principal type', 'did you mean "Service"?',
        "an Allow to service principal events.amazonaws.com without an aws:SourceArn",
    ],
    "policy_source_arn_condition_without_values": [
        'queue_policy_statements[0] (sid "Sns"): condition[0] (aws:SourceArn): values is empty', "does not bind the principal",
        "an Allow to service principal sns.amazonaws.com without an aws:SourceArn",
    ],
    "policy_null_identifiers_and_values": [
        'dlq_policy_statements[0] (sid "Team"): principals[0].identifiers: null',
        'dlq_policy_statements[0] (sid "Team"): conditions[0] (aws:PrincipalOrgID): values is null',
    ],
    "document_source_arn_condition_without_values": [
        'source_queue_policy_documents[0] statement "Uploads": an Allow to service principal s3.amazonaws.com without an aws:SourceArn or aws:SourceAccount Condition',
    ],
    "policy_statement_reuses_tls_sid": [
        'queue_policy_statements[0] (sid "DenyInsecureTransport"): sid "DenyInsecureTransport" is the Sid of the module\'s TLS-only deny', "another Sid",
    ],
    "override_document_reuses_tls_sid": [
        'override_dlq_queue_policy_documents[0] statement "DenyInsecureTransport": Sid "DenyInsecureTransport"',
        "applies it over the override documents again, so this statement would be dropped",
    ],
    "kms_key_is_a_topic_arn": ['kms_master_key_id: "arn:aws:sns:us-east-1:123456789012:orders-alerts" is not a KMS key but an ARN of SNS', "key ARN (arn:aws:kms:"],
    "kms_key_with_trailing_space": ["is not a KMS key (it has leading or trailing whitespace"],
    "kms_key_is_a_flag": ['kms_master_key_id: "false" is not a KMS key but a flag: encryption is always on'],
    "dlq_kms_key_is_a_queue_arn": ['dlq_kms_master_key_id: "arn:aws:sqs:us-east-1:123456789012:orders-dlq" is not a KMS key but an ARN of SQS'],
    "dlq_name_with_fifo_suffix_on_standard_pair": ['dlq_name: "orders-failed.fifo" ends with .fifo but the pair is standard (fifo = false)', "Drop the suffix"],
}

# {config dir: {run name: [fragments every one of which must appear in the run's errors]}}
FRAGMENTS: dict[str, dict[str, list[str]]] = {
    "modules/queue": {**QUEUE_CASES, **QUEUE_ONLY},
    "modules/claim-check-bucket": {
        "name_with_uppercase": ["name:", "lowercase letters", "Uppercase letters and underscores are refused"],
        "name_like_ip_address": ["name:", "not an IP address"],
        "prefix_without_trailing_slash": ["payload_prefix:", 'each ending in "/"', '"payloads-archive/..."'],
        "prefix_with_wildcard": ["payload_prefix:", "wildcards are not prefixes"],
        "dlq_retention_out_of_range": ["dlq_retention_seconds:", "60-1209600"],
        "expiry_zero_days": ["expiration_days:", "1 to 3650"],
        "expiry_below_longest_dlq_retention": [
            "expiration_days: 7 days is shorter than a message served by this bucket can live before its DLQ deletes it",
            "(emails-dlq: 1209600 s = 14 days, rounded up; its DLQ retention, as a standard queue's message keeps its enqueue time",
            "redriven from that DLQ",
            "to at least 14",
        ],
        "expiry_below_fifo_message_lifetime": [
            "expiration_days: 15 days is shorter than a message served by this bucket can live",
            "(payments-dlq.fifo: 1555200 s = 18 days, rounded up; FIFO: source retention 345600 s + DLQ retention 1209600 s",
            "to at least 18",
        ],
        "fifo_retention_without_dlq": ["fifo_source_retention_seconds: payments-dlq.fifo not in dlq_retention_seconds"],
        "fifo_retention_out_of_range": ["fifo_source_retention_seconds:", "60-1209600"],
        "abort_multipart_zero_days": ["abort_incomplete_multipart_upload_days:", "1 to 365"],
        "kms_alias_name_not_arn": ["kms_key_arn:", "must be a KMS key ARN", "need the ARN"],
        "noncurrent_expiry_zero_days": ["noncurrent_version_expiration_days:", "1 to 365"],
        "access_log_bucket_as_arn": ["access_log_bucket:", "name of an existing S3 bucket"],
    },
    "modules/idempotency-table": {
        "name_too_short": ["name:", "3-255 characters"],
        "sort_key_same_as_partition_key": ["sort_key_attr:", "not one Powertools already uses (id, expiration"],
        "kms_alias_instead_of_arn": ["kms_key_arn:", "does not accept aliases"],
        "account_id_not_12_digits": ["account_id:", "12-digit"],
    },
    "modules/iam": {
        "producer_queue_wildcard": ["producer_queue_arns:", "full SQS queue ARN", "wildcards and queue URLs are refused"],
        "consumer_queue_url_not_arn": ["consumer_queue_arns:", "full SQS queue ARN"],
        "consumer_dlq_wildcard": ["consumer_dlq_arns:", "full SQS queue ARN", "wildcards and queue URLs are refused"],
        "redrive_dlq_wildcard": ["redrive:", "dlq_arn and source_queue_arn must be full SQS queue ARNs"],
        "bucket_arn_with_object_wildcard": ["payload_bucket_arn:", "without a key part or wildcard"],
        "payload_prefix_wildcard": ["payload_prefix:", "wildcards are refused"],
        "table_arn_wildcard": ["idempotency_table_arn:", "without wildcards"],
        "kms_alias_instead_of_key_arn": ["kms_key_arns:", "an IAM grant on an alias does not authorize use of the key"],
        "policy_name_with_space": ['name: the policy base name "orders policy" must be 1-110 characters', "+=,.@_-"],
        "path_without_slashes": ["path:", 'begin and end with "/"'],
        "managed_policies_without_name": ["name: create_managed_policies = true needs a base name"],
        "managed_policy_above_6144_characters": [
            'the consumer policy "orders-consumer" would be 6734 characters (whitespace not counted); IAM refuses a managed policy over 6,144 at apply',
            "80 KMS keys (kms_key_arns)",
        ],
    },
    "modules/alarms": {
        "queue_url_instead_of_name": [
            'queues["orders"].queue_name: "https://sqs.us-east-1.amazonaws.com/123456789012/orders"', "not URLs or ARNs", "QueueName dimension",
        ],
        "per_queue_age_threshold_below_metric_period": [
            'queues["orders"].thresholds.age_critical_seconds = 30 must be at least 60', "once a minute",
        ],
        "created_topic_without_name": [
            "sns_topic_name: required when the module creates the alarm topic",
            'keep it: sns_topic_name = "sqs-alarms-orders"',
        ],
        "per_queue_threshold_zero": ['queues["orders"].thresholds.backlog_messages = 0: every override must be a whole number of at least 1'],
        "threshold_fractional": ["thresholds.", "whole number of at least 1"],
        "age_threshold_below_metric_period": ["thresholds.", "at least 60", "once a minute"],
        "evaluation_periods_above_one_day": ["thresholds.", "at most 1440"],
        "critical_age_not_above_warning": [
            # module-wide thresholds hold both values: blamed on thresholds, not on a queue
            'variable: thresholds: age_critical_seconds (900) must be greater than age_warning_seconds (1800)'
        ],
        "unknown_alarm_kind": ['kinds: "age"', "is not a kind of alarm", "valid kinds: dlq_depth,"],
        "fifo_topic_arn": ["sns_topic_arn:", "cannot notify FIFO topics"],
        "topic_given_and_create_requested": [
            "create_sns_topic: true together with sns_topic_arn (arn:aws:sns:us-east-1:123456789012:oncall)",
            "remove create_sns_topic to notify the existing topic",
        ],
        "topic_name_with_dot": ["sns_topic_name:", "letters, digits, hyphens or underscores"],
        "aws_managed_sns_key": ["sns_kms_master_key_id: alias/aws/sns", "every notification would be dropped"],
        "prefix_with_space": ["alarm_name_prefix:", "at most 100"],
        "account_id_not_12_digits": ["account_id:", "12-digit"],
        # alarms that could never fire
        "no_kinds": ["kinds: [] creates no alarm for any queue", "do not call this module"],
        "age_threshold_at_queue_retention": [
            "thresholds.age_critical_seconds = 86400 s is not below the message retention of queue orders, 86400 s (queues[\"orders\"].retention_seconds)",
            "the age_critical alarm could never fire", "Set age_critical_seconds below 86400 s",
        ],
        "per_queue_stale_threshold_above_dlq_retention": [
            'queues["orders"].thresholds.dlq_stale_age_seconds = 259200 s is not below the message retention of DLQ orders-dlq, 172800 s',
            "the dlq_stale alarm could never fire",
        ],
    },
    "modules/lambda-consumer": {
        "function_name_with_space": ["function_name:", "1-64 letters"],
        "queue_url_instead_of_arn": ["queue_arn:", "not a queue URL"],
        "visibility_above_12_hours": ["queue_visibility_timeout_seconds:", "0-43200"],
        "function_timeout_above_15_minutes": ["function_timeout_seconds:", "1-900"],
        "batch_size_zero": ["batch_size:", "1 to 10000"],
        "window_above_300": ["maximum_batching_window_seconds:", "0 to 300"],
        "concurrency_below_2": ["maximum_concurrency:", "2 to 1000"],
        "filter_pattern_not_json": ["filter_patterns:", "must be a JSON object", "non-matching SQS messages are deleted"],
        "too_many_filter_patterns": ["filter_patterns:", "at most 10 patterns"],
        "visibility_below_six_times_timeout_plus_window": [
            "queue_visibility_timeout_seconds: 184 s is below 6 x function timeout 30 s + batching window 5 s = 185 s",
            "at least 185 s",
        ],
        "fifo_batch_above_10": ["batch_size: 11 is above 10, the maximum for a FIFO queue (event source of orders-consumer)"],
        "fifo_with_batching_window": ["maximum_batching_window_seconds: 1 s is set for a FIFO queue", "Set it to 0"],
        "standard_large_batch_without_window": ["a batch_size of 11 (above 10) on a standard queue needs a batching window of at least 1 s"],
        "explicit_fifo_flag_batch_above_10": ["batch_size: 20 is above 10, the maximum for a FIFO queue"],
        "provisioned_mode_with_maximum_concurrency": [
            "provisioned_poller_config: provisioned mode together with maximum_concurrency = 20", "mutually exclusive", "ESM005",
        ],
        "provisioned_mode_minimum_above_maximum": ["provisioned_poller_config:", "minimum_pollers at most maximum_pollers"],
        "provisioned_mode_without_maximum_pollers": ["provisioned_poller_config:", "maximum_pollers is required"],
    },
    "modules/dlq-redrive": {
        "name_too_long": ["name:", "1-55 letters", "<name>-schedule"],
        "dlq_not_an_sqs_arn": ["dlq:", "must be an SQS queue ARN"],
        "source_not_an_sqs_arn": ["source_queue:", "must be an SQS queue ARN", "https:// queue URL"],
        "bad_schedule": ["schedule_expression:", "rate(N minute[s]|hour[s]|day[s]) or cron(...)"],
        "rate_zero": ["max_messages_per_second:", "0.1 to 3000"],
        "per_run_zero": ["max_messages_per_run:", "1 to 1000000"],
        "redrive_count_zero": ["max_redrive_count:", "1 to 100", "cycle between queue and DLQ forever"],
        "age_beyond_14_days": ["max_message_age_seconds:", "60 to 1209600"],
        "reserved_attribute_name": ["failure_reason_attribute:", "not starting with AWS. or Amazon."],
        "archive_unknown_type": ["archive.type:", '"s3" or "queue"'],
        "claim_check_bucket_prefix_without_slash": ["claim_check_bucket:", 'payload_prefix ending in "/"'],
        "archive_s3_without_bucket": ['archive: type = "s3" needs bucket_name'],
        "archive_queue_without_arn": ['archive: type = "queue" needs queue_url and queue_arn'],
        "archive_prefix_without_slash": ['archive.prefix: "archive" must be a key prefix', 'each ending in "/"'],
        "archive_prefix_empty": ['archive.prefix: "" must be a key prefix', "the bucket's root"],
        "alarm_action_not_an_arn": ['alarm_actions: ["oncall"] is not an ARN', "SNS topic", "Give the topic's ARN, or [] if an alarm without notifications is intended."],
        "timeout_too_short": ["timeout_seconds:", "10 to 900"],
        "memory_too_small": ["memory_size:", "128 to 10240"],
        "not_python": ["runtime:", "Python 3 Lambda runtime"],
        "log_retention_not_allowed": ["log_retention_days:", "must be one of 1, 3, 5"],
        "kms_alias_not_arn": ["kms_key_arns:", "aliases cannot scope an IAM policy"],
        "reserved_concurrency_zero": ["reserved_concurrent_executions: 0 must be a whole number of at least 1", "could never run"],
    },
    ".": {
        # tests/root_refusals.tftest.hcl: refusals of the root module itself
        "bucket_enabled_without_name": ["claim_check_bucket.name: required when claim_check_bucket.enabled = true"],
        "bucket_serves_unknown_queue": ['claim_check_bucket.queues: "invoices" is not a key of queues (keys: orders)'],
        "table_enabled_without_name": ["idempotency_table.name: required when idempotency_table.enabled = true"],
        "custom_kms_alias_without_key_arns": [
            'iam.kms_key_arns: queues["orders"].kms_master_key_id = "alias/messaging" names a customer-managed KMS key by alias',
            "Add the key ARN to iam.kms_key_arns",
        ],
        "account_id_not_12_digits": ["account_id:", "12-digit"],
        "redrive_unknown_queue": ['dlq_redrive.queues: "invoices" is not a key of queues (keys: orders)'],
        "redrive_without_archive_bucket": ["dlq_redrive: archived messages need a bucket", "Enable claim_check_bucket"],
        "queues_not_a_map": ["queues: must be a map of queue key => settings"],
        "name_prefix_with_a_slash": ['name_prefix: "prod/" must be at most 40 letters, digits, hyphens or underscores'],
        "shared_dlq_keeps_messages_no_longer_than_the_source": [
            'queues["orders"].dlq_arn: arn:aws:sqs:us-east-1:123456789012:errors is queues["errors"], which keeps a message 345600 s, no longer than this queue does (message_retention_seconds 1209600 s)'
        ],
        "redrive_of_an_existing_dlq": ['dlq_redrive.queues: "orders" uses an existing DLQ (dlq_arn), which may hold messages of other queues'],
        "redrive_archive_under_expiring_payload_prefix": [
            'dlq_redrive.archive_prefix: "payloads/archive/" is inside the claim-check payload prefix "payloads/"',
            "archived messages would be deleted",
        ],
        "tag_key_reserved_by_aws": ['tags: "aws:team": AWS refuses these tag keys', "the aws: prefix is reserved", "Rename them"],
        "tag_value_too_long": ['tags: the value of tag "note" is refused by AWS: a value is at most 256', "(it has 300 characters)", "Shorten it"],
        "bucket_serves_nothing": [
            "claim_check_bucket: enabled, but it serves nothing: claim_check_bucket.queues is empty",
            "set claim_check_bucket.enabled = false",
        ],
        "fewer_kms_key_arns_than_aliases": [
            "iam.kms_key_arns: 1 key ARN for 2 customer-managed keys named by alias",
            'queues["orders"].kms_master_key_id = "alias/orders"',
            'queues["payments"].kms_master_key_id = "alias/payments"',
        ],
        "kms_key_arn_of_another_region": [
            'iam.kms_key_arns: "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab" is a key in eu-west-1',
            "are in us-east-1",
        ],
        "table_without_queues": ["idempotency_table: enabled, but queues is empty", "set idempotency_table.enabled = false"],
        "tag_value_null": ['tags: the value of tag "team" is null', "Give its value, or remove the tag"],
        "redrive_covers_no_dlq": [
            "dlq_redrive: enabled, but it covers no DLQ: dlq_redrive.queues is empty", "set dlq_redrive.enabled = false",
        ],
        # ARNs of another partition or Region, which AWS refuses at apply
        "alarm_topic_in_another_region": [
            'alarms.sns_topic_arn: "arn:aws:sns:eu-west-1:123456789012:oncall" is an SNS topic in eu-west-1, but this stack plans in us-east-1: CloudWatch alarms notify topics of their own Region only',
            "Give an SNS topic of aws/us-east-1",
        ],
        "alarm_topic_in_another_partition": [
            'alarms.sns_topic_arn: "arn:aws-us-gov:sns:us-east-1:123456789012:oncall" is an SNS topic in partition aws-us-gov, but this stack plans in partition aws: ARNs do not cross partitions',
        ],
        "redrive_alarm_action_in_another_region": [
            'dlq_redrive.alarm_actions: "arn:aws:sns:us-west-2:123456789012:oncall" is an ARN in us-west-2, but this stack plans in us-east-1',
        ],
        "table_kms_key_in_another_region": [
            'idempotency_table.kms_key_arn: "arn:aws:kms:eu-central-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab" is a KMS key in eu-central-1, but this stack plans in us-east-1: a KMS key serves its own Region only',
        ],
        "consumer_function_in_another_region": [
            'queues["orders"].consumer.function_name: "arn:aws:lambda:eu-west-1:123456789012:function:orders-consumer" is a Lambda function in eu-west-1, but this stack plans in us-east-1: an event source mapping connects a queue to a function of its own Region',
        ],
        "iam_policy_names_differ_only_in_case": [
            'iam.create_managed_policies: queues["Orders"] (queue Orders) and queues["orders"] (queue orders) would name the same IAM policies, "orders-producer", "orders-consumer", "orders-redrive-operator"',
            "IAM names are unique per account whatever their case",
        ],
        "iam_policy_names_collide_after_fifo_rewrite": [
            'queues["orders"] (queue orders.fifo) and queues["orders-fifo"] (queue orders-fifo) would name the same IAM policies, "orders-fifo-producer"',
            ".fifo becomes -fifo",
        ],
        "redrive_function_names_collide": [
            'dlq_redrive.queues: queues["orders"] (queue orders) and queues["orders.fifo"] (queue orders.fifo) would get the same redrive function and IAM role, "orders-dlq-redrive" and "orders-dlq-redrive-role"',
        ],
        "queue_kms_key_in_another_partition": [
            'queues["orders"].kms_master_key_id: "arn:aws-cn:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab" is a key in partition aws-cn, but this stack plans in partition aws',
        ],
        # tests/fixtures/root-refusals.tftest.hcl: submodule refusals reached through the root
        "root_bucket_expiry_below_dlq_retention": [
            "expiration_days: 9 days is shorter than a message served by this bucket can live",
            "(orders-dlq: 777601 s = 10 days, rounded up;",
            "claim_check_bucket.expiration_days",
        ],
        # refusals from a queues entry name the queue
        "root_fifo_consumer_with_window": [
            'queues["payments.fifo"].consumer.maximum_batching_window_seconds: 5 s is set for a FIFO queue (event source of payments-consumer)'
        ],
        "root_fifo_consumer_batch_above_10": [
            'queues["payments"].consumer.batch_size: 50 is above 10, the maximum for a FIFO queue (event source of payments-consumer)'
        ],
        "root_consumer_large_batch_without_window": [
            'queues["orders"].consumer.maximum_batching_window_seconds: a batch_size of 100 (above 10) on a standard queue needs a batching window'
        ],
        "root_alarm_topic_with_aws_managed_key": ["sns_kms_master_key_id: alias/aws/sns", "every notification would be dropped"],
        "root_alarm_kind_unknown": ['kinds: "oldest_message" is not a kind of alarm', "valid kinds: dlq_depth, dlq_influx,"],
        # the conflict, not the missing topic name (no topic is wanted)
        "root_alarm_topic_and_create": [
            "alarms.create_sns_topic: true together with alarms.sns_topic_arn (arn:aws:sns:us-east-1:123456789012:oncall)"
        ],
        "root_iam_kms_alias_arn_refused": ["kms_key_arns:", "Aliases, alias ARNs and bare key IDs are refused"],
        # alarms that could never fire, failures that never reach the DLQ
        "root_alarm_kinds_empty": ["alarms.kinds: [] creates no alarm for any queue", "set alarms.enabled = false"],
        "root_age_alarm_above_default_retention": [
            'alarms.thresholds.age_critical_seconds = 432000 s is not below the message retention of queue orders, 345600 s (queues["orders"].message_retention_seconds, the default)',
            "Set age_critical_seconds below 345600 s",
        ],
        "root_stale_alarm_above_dlq_retention": [
            'queues["orders"].alarm_thresholds.dlq_stale_age_seconds = 172800 s is not below the message retention of DLQ orders-dlq, 172800 s (queues["orders"].dlq_message_retention_seconds)',
        ],
        "root_stale_alarm_above_retention_of_a_queue_used_as_dlq": [
            'alarms.thresholds.dlq_stale_age_seconds = 700000 s is not below the message retention of DLQ errors, 604800 s (the retention of queues["errors"], the DLQ queues["orders"].dlq_arn names)',
        ],
        "root_receives_times_visibility_from_defaults_reach_retention": [
            'queue_defaults.max_receive_count (used by queues["orders"]) x visibility timeout: 5 receives x 43200 s (queue_defaults.visibility_timeout_seconds (used by queues["orders"])) = 216000 s, not below queues["orders"].message_retention_seconds 172800 s',
            "lower max_receive_count to at most 3",
        ],
        # attributes the module does not know: refused with the closest valid name, never dropped
        "root_queue_attribute_typo": [
            'queues["orders"]: unknown attribute "visibility_timeout"; did you mean "visibility_timeout_seconds"?',
            "Terraform would drop it without a word and plan the default instead",
        ],
        "root_nested_attribute_typos": [
            'queues["orders"].consumer: unknown attribute "batch_sise"; did you mean "batch_size"?',
            'queues["orders"].alarm_thresholds: unknown attribute "backlog"; did you mean "backlog_messages"?',
            'queues["orders"].queue_policy_statements[0]: unknown attribute "conditon"; did you mean "condition"?',
            'queues["orders"].queue_policy_statements[0].principals[0]: unknown attribute "identifier"; did you mean "identifiers"?',
            'queues["orders"].dlq_policy_statements["reader"]: unknown attribute "Effect"; did you mean "effect"?',
        ],
        "root_create_dlq_with_dlq_arn": [
            'queues["orders"].create_dlq: true, but queues["orders"].dlq_arn names an existing DLQ too.',
        ],
        "root_create_dlq_false_without_dlq_arn": [
            'queues["orders"].create_dlq: false needs queues["orders"].dlq_arn, the ARN of the existing queue',
        ],
        "root_attributes_from_other_modules": [
            'queues["payments"]: unknown attribute "fifo_queue"; write fifo.',
            'queues["payments"]: unknown attribute "use_name_prefix"; queue names are fixed, so their ARNs are known at plan',
            'queues["payments"]: unknown attribute "redrive_policy"; write max_receive_count',
        ],
        "root_defaults_and_switch_typos": [
            'queue_defaults: unknown attribute "max_recieve_count"; did you mean "max_receive_count"?',
            'claim_check_bucket: unknown attribute "enable"; did you mean "enabled"?',
            'idempotency_table: unknown attribute "tabel_name"; did you mean "name"?',
            'alarms.thresholds: unknown attribute "age_warning"; did you mean "age_warning_seconds"?',
            'iam: unknown attribute "create_managed_policy"; did you mean "create_managed_policies"?',
            'dlq_redrive: unknown attribute "max_messages_per_sec"; did you mean "max_messages_per_second"?',
        ],
        "root_queue_entry_not_an_object": ['queues["orders"]: must be an object of queue settings'],
        "root_statement_missing_required": ['queues["orders"].queue_policy_statements[0].principals[0]: "identifiers" is required.'],
        "root_consumer_without_timeout": ['queues["orders"].consumer: "timeout_seconds" is required.'],
        # names
        "root_dlq_name_is_queue_name": [
            'queue name "orders" is used by queues["orders"] and queues["orders"] (its DLQ)', "a queue that is its own DLQ",
        ],
        "root_duplicate_names_across_keys": [
            'queue name "orders" is used by queues["orders"] and queues["orders_v2"]',
            'queue name "orders-dlq" is used by queues["audit"] (its DLQ) and queues["orders"] (its DLQ) and queues["orders_v2"] (its DLQ)',
            "unique per account and region",
        ],
        # the queue (or queue_defaults) a refusal comes from
        "root_refusal_names_the_queue": ['queues["emails"].max_receive_count: 1 must be a whole number from 2 to 1000'],
        "root_refusal_names_queue_defaults": [
            'queue_defaults.message_retention_seconds (used by queues["orders"]): 3600 must be a whole number of seconds from 86400 (1 day)'
        ],
        "root_explicit_visibility_below_consumer": [
            'queues["orders"].visibility_timeout_seconds: 60 s is below 6 x consumer timeout 30 s + batching window 0 s = 180 s (queues["orders"].consumer)'
        ],
        "root_max_message_size_above_1_mib": [
            'queues["orders"].max_message_size: 2097152 bytes must be a whole number from 1024 to 1048576', "claim-check bucket",
        ],
        "root_encryption_turned_off": ['queues["orders"].sqs_managed_sse_enabled: false is refused: the queues are always encrypted'],
        "root_statement_condition_refused_when_public": [
            'queues["orders"].queue_policy_statements[0] (sid "Open"): resources/not_resources: the resource of this policy is always the source queue itself',
            'queues["orders"].queue_policy_statements[0] (sid "Open"): an Allow to principal "*" without a condition that pins the caller (aws:SourceArn, aws:SourceAccount, aws:PrincipalOrgID',
            "makes the queue public",
        ],
        # consumer functions of the same stack
        "root_consumer_function_for_unknown_queue": ['consumer_functions["invoices"]: "invoices" is not a key of queues (keys: orders)'],
        "root_consumer_function_without_queue_consumer": [
            'consumer_functions["orders"]: unknown attribute "timout_seconds"; valid attributes here: function_name, timeout_seconds.',
            'consumer_functions["orders"]: queues["orders"].consumer is not set. Set queues["orders"].consumer = { timeout_seconds = <the function\'s timeout> }',
        ],
        "root_consumer_function_named_twice": [
            'consumer_functions["orders"]: queues["orders"].consumer.function_name names a function too. Give the function in one place'
        ],
        "root_consumer_function_timeout_above_visibility": [
            'the visibility timeout of queues["orders"]: 180 s is below 6 x function timeout 60 s + batching window 0 s = 360 s',
            'consumer_functions["orders"].timeout_seconds',
        ],
        # settings alarms.enabled = false would drop
        "root_alarms_off_with_topic": [
            'alarms.sns_topic_arn: "arn:aws:sns:us-east-1:123456789012:oncall" is set, but alarms.enabled = false',
            "nothing would ever notify the topic", "Remove alarms.sns_topic_arn, or remove alarms.enabled = false",
        ],
        "root_alarms_off_with_queue_thresholds": [
            'queues["orders"].alarm_thresholds: {"age_critical_seconds":1800} is set, but alarms.enabled = false',
            'Remove queues["orders"].alarm_thresholds',
        ],
        "root_iam_path_without_managed_policies": [
            'iam.path: "/messaging/" is set, but no IAM policy is created (iam.create_managed_policies is not true',
            "set iam.create_managed_policies = true",
        ],
        # submodule inputs the root builds from the user's, named as the user wrote them
        "root_iam_name_prefix_with_space": [
            'iam.name_prefix "team one " + the name of queues["orders"]: the policy base name "team one orders" must be 1-110 characters',
        ],
        "root_redrive_archive_prefix_empty": ['dlq_redrive.archive_prefix: "" must be a key prefix', "the bucket's root"],
        "root_redrive_alarm_action_not_an_arn": ['dlq_redrive.alarm_actions: ["oncall"] is not an ARN', "leave alarm_actions unset to notify the alarms topic", "or [] if an alarm without notifications is intended"],
        # issue #34: refused for what is wrong, by name; nothing dropped; no raw error on a null
        "root_kms_key_is_a_topic_arn": ['queues["orders"].kms_master_key_id: "arn:aws:sns:us-east-1:123456789012:orders-alerts" is not a KMS key but an ARN of SNS'],
        "root_kms_key_and_dlq_name_not_strings": [
            'queues["orders"].kms_master_key_id: false is not a string.', 'queues["orders"].dlq_name: true is not a string.',
        ],
        "root_fifo_key_too_long_for_its_dlq": [
            'queues["eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"] (the key is the queue name): the DLQ name derived from it',
            "is 84 characters", "Shorten the queue name to at most 71 characters",
        ],
        "root_alarm_topic_settings_without_create": [
            'alarms.sns_topic_name: "orders-oncall" names the topic the module creates, but none is created (alarms.create_sns_topic is not set',
            "alarms.sns_kms_master_key_id: encrypts the topic the module creates, but none is created",
        ],
        "root_alarm_topic_without_queues": ["alarms.create_sns_topic: true, but queues is empty", "no topic would be created"],
        "root_short_polling_opt_in_unused": [
            'queues["orders"].allow_short_polling: true, but neither queues["orders"].receive_wait_time_seconds nor queues["orders"].dlq_receive_wait_time_seconds is 0 (they are 10 s and 20 s',
        ],
        "root_defaults_short_polling_opt_in_unused": ["queue_defaults.allow_short_polling: true, but no queue has receive_wait_time_seconds or dlq_receive_wait_time_seconds = 0"],
        "root_null_tag_value_and_consumer_timeout": [
            'queues["orders"].tags: the value of tag "team" is null',
            'queues["orders"].consumer.timeout_seconds: null, but it is required: the consumer function\'s timeout',
        ],
        "root_null_list_entries": [
            'claim_check_bucket.queues: ["orders",null] holds null (entry 1)', "iam.kms_key_arns: [null] holds null (entry 0)",
        ],
        "root_null_principal_identifiers": ['queues["orders"].queue_policy_statements[0].principals[0].identifiers: null, but it is required'],
        "root_consumer_provisioned_with_concurrency": [
            'queues["orders"].consumer.provisioned_poller_config: provisioned mode together with queues["orders"].consumer.maximum_concurrency = 20',
        ],
        "root_consumer_provisioned_without_function": [
            'queues["orders"].consumer.provisioned_poller_config: unknown attribute "minimum_poller"; did you mean "minimum_pollers"?',
        ],
        "root_content_based_deduplication_on_standard_queue": [
            'queues["orders"].content_based_deduplication = true: FIFO-only setting, but the queue is a standard queue (queues["orders"].fifo = false)',
            'set queues["orders"].fifo = true',
        ],
    },
}

SOURCES = {
    "modules/queue": [MODULES / "queue" / "tests" / "refusals.tftest.hcl"],
    "modules/claim-check-bucket": [MODULES / "claim-check-bucket" / "tests" / "refusals.tftest.hcl"],
    "modules/idempotency-table": [MODULES / "idempotency-table" / "tests" / "refusals.tftest.hcl"],
    "modules/iam": [MODULES / "iam" / "tests" / "refusals.tftest.hcl"],
    "modules/alarms": [MODULES / "alarms" / "tests" / "refusals.tftest.hcl"],
    "modules/lambda-consumer": [MODULES / "lambda-consumer" / "tests" / "refusals.tftest.hcl"],
    "modules/dlq-redrive": [MODULES / "dlq-redrive" / "tests" / "refusals.tftest.hcl"],
    ".": [REPO_ROOT / "tests" / "root_refusals.tftest.hcl", FIXTURES / "root-refusals.tftest.hcl"],
}

def split_runs(text: str) -> tuple[str, dict[str, str]]:
    """(everything before the first run block, {run name: run block text}): the shipped adapter's
    splitter (the one Terraform.test() cuts long files with), keyed by name."""
    header, runs = _split_runs(text)
    return header, dict(runs)


def _value_end(text: str, start: int, *, to_closing: bool = False) -> int:
    """Where the HCL expression from ``start`` ends: the end of its line, once every bracket
    it opens is closed (strings respected); with ``to_closing``, the bracket that closes one
    opened before ``start``."""
    depth, i, quote = 0, start, False
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == '"':
                quote = False
        elif ch == '"':
            quote = True
        elif ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
            if depth < 0:
                return i
        elif ch == "\n" and depth == 0 and not to_closing:
            return i
        i += 1
    return i


def run_variables(block: str) -> dict[str, str]:
    """{input: its value as HCL text} of a run block's `variables { ... }` (empty without one)."""
    head = re.search(r"^\s*variables\s*\{", block, re.M)
    if not head:
        return {}
    end = _value_end(block, head.end(), to_closing=True)
    body = block[head.end() : end]
    out: dict[str, str] = {}
    name = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*", re.M)
    pos = 0
    while m := name.search(body, pos):
        pos = _value_end(body, m.end())
        out[m.group(1)] = body[m.end() : pos].strip()
    return out
