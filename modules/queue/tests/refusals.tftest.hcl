# Every refused input of modules/queue fails the plan. The messages are
# asserted by tests/modules/test_refusals.py; this file proves each refusal
# happens at plan time, natively.

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "offline-plan"
  secret_key                  = "offline-plan"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
}

variables {
  name       = "orders"
  account_id = "123456789012"
}

run "name_with_invalid_characters" {
  command = plan

  variables {
    name = "orders/v1"
  }

  expect_failures = [var.name]
}

run "name_too_long_with_suffixes" {
  command = plan

  variables {
    name = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    fifo = true
  }

  expect_failures = [aws_sqs_queue.dlq]
}

run "fifo_suffix_on_standard_queue" {
  command = plan

  variables {
    name = "orders.fifo"
  }

  expect_failures = [aws_sqs_queue.this]
}

run "dlq_name_with_invalid_characters" {
  command = plan

  variables {
    dlq_name = "orders dlq"
  }

  expect_failures = [var.name]
}

run "visibility_above_12_hours" {
  command = plan

  variables {
    visibility_timeout_seconds = 43201
  }

  expect_failures = [var.name]
}

run "visibility_below_consumer_bound" {
  command = plan

  variables {
    consumer                   = { timeout_seconds = 30 }
    visibility_timeout_seconds = 179
  }

  expect_failures = [aws_sqs_queue.this]
}

run "consumer_timeout_above_lambda_max" {
  command = plan

  variables {
    consumer = { timeout_seconds = 901 }
  }

  expect_failures = [var.name]
}

run "consumer_window_above_300" {
  command = plan

  variables {
    consumer = { timeout_seconds = 30, maximum_batching_window_seconds = 301 }
  }

  expect_failures = [var.name]
}

run "retention_below_one_day" {
  command = plan

  variables {
    message_retention_seconds = 86399
  }

  expect_failures = [var.name]
}

run "retention_above_14_days" {
  command = plan

  variables {
    message_retention_seconds = 1209601
  }

  expect_failures = [var.name]
}

run "dlq_retention_equal_to_source" {
  command = plan

  variables {
    message_retention_seconds     = 1209600
    dlq_message_retention_seconds = 1209600
  }

  expect_failures = [aws_sqs_queue.this]
}

run "dlq_retention_below_source" {
  command = plan

  variables {
    message_retention_seconds     = 604800
    dlq_message_retention_seconds = 345600
  }

  expect_failures = [aws_sqs_queue.this]
}

run "dlq_retention_above_14_days" {
  command = plan

  variables {
    dlq_message_retention_seconds = 1209601
  }

  expect_failures = [var.name]
}

run "max_receive_count_one" {
  command = plan

  variables {
    max_receive_count = 1
  }

  expect_failures = [var.name]
}

run "max_receive_count_fractional" {
  command = plan

  variables {
    max_receive_count = 2.5
  }

  expect_failures = [var.name]
}

run "short_polling_without_opt_out" {
  command = plan

  variables {
    receive_wait_time_seconds = 0
  }

  expect_failures = [aws_sqs_queue.this]
}

run "receive_wait_above_20" {
  command = plan

  variables {
    receive_wait_time_seconds = 21
  }

  expect_failures = [var.name]
}

run "delay_above_15_minutes" {
  command = plan

  variables {
    delay_seconds = 901
  }

  expect_failures = [var.name]
}

run "max_message_size_below_1024" {
  command = plan

  variables {
    max_message_size = 512
  }

  expect_failures = [var.name]
}

run "empty_kms_key" {
  command = plan

  variables {
    kms_master_key_id = ""
  }

  expect_failures = [var.name]
}

run "kms_reuse_below_60" {
  command = plan

  variables {
    kms_data_key_reuse_period_seconds = 59
  }

  expect_failures = [var.name]
}

run "unknown_deduplication_scope" {
  command = plan

  variables {
    fifo                = true
    deduplication_scope = "group"
  }

  expect_failures = [var.name]
}

run "unknown_throughput_limit" {
  command = plan

  variables {
    fifo                  = true
    fifo_throughput_limit = "perGroup"
  }

  expect_failures = [var.name]
}

run "per_group_throughput_needs_group_scope" {
  command = plan

  variables {
    fifo                  = true
    fifo_throughput_limit = "perMessageGroupId"
    deduplication_scope   = "queue"
  }

  expect_failures = [aws_sqs_queue.this]
}

run "fifo_options_on_standard_queue" {
  command = plan

  variables {
    content_based_deduplication = true
  }

  expect_failures = [aws_sqs_queue.this]
}

run "policy_wildcard_action" {
  command = plan

  variables {
    queue_policy_statements = [{ sid = "Any", actions = ["sqs:*"], principals = [{ type = "AWS", identifiers = ["arn:aws:iam::123456789012:root"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "policy_public_principal" {
  command = plan

  variables {
    queue_policy_statements = [{ sid = "Public", actions = ["sqs:SendMessage"], principals = [{ type = "AWS", identifiers = ["*"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "policy_bad_effect" {
  command = plan

  variables {
    queue_policy_statements = [{ sid = "Odd", effect = "allow", actions = ["sqs:SendMessage"], principals = [{ type = "Service", identifiers = ["sns.amazonaws.com"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "dlq_policy_wildcard_action" {
  command = plan

  variables {
    dlq_policy_statements = [{ sid = "Any", actions = ["sqs:Receive*"], principals = [{ type = "AWS", identifiers = ["arn:aws:iam::123456789012:root"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.dlq]
}

run "dlq_policy_public_principal" {
  command = plan

  variables {
    dlq_policy_statements = [{ sid = "Public", actions = ["sqs:ReceiveMessage"], principals = [{ type = "AWS", identifiers = ["*"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.dlq]
}

run "dlq_policy_bad_effect" {
  command = plan

  variables {
    dlq_policy_statements = [{ sid = "Odd", effect = "Permit", actions = ["sqs:ReceiveMessage"], principals = [{ type = "Service", identifiers = ["sns.amazonaws.com"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.dlq]
}

run "account_id_not_12_digits" {
  command = plan

  variables {
    account_id = "12345"
  }

  expect_failures = [var.name]
}

run "max_message_size_above_1_mib" {
  command = plan

  variables {
    max_message_size = 1048577
  }

  expect_failures = [var.name]
}

run "dlq_name_equal_to_queue_name" {
  command = plan

  variables {
    dlq_name = "orders"
  }

  expect_failures = [aws_sqs_queue.this]
}

run "create_dlq_with_dlq_arn" {
  command = plan

  variables {
    create_dlq = true
    dlq_arn    = "arn:aws:sqs:us-east-1:123456789012:shared-dlq"
  }

  expect_failures = [var.name]
}

run "create_dlq_false_without_dlq_arn" {
  command = plan

  variables {
    create_dlq = false
  }

  expect_failures = [var.name]
}

run "dlq_arn_is_the_queue_itself" {
  command = plan

  variables {
    dlq_arn = "arn:aws:sqs:us-east-1:123456789012:orders"
  }

  expect_failures = [aws_sqs_queue.this]
}

run "dlq_arn_standard_for_fifo_queue" {
  command = plan

  variables {
    fifo    = true
    dlq_arn = "arn:aws:sqs:us-east-1:123456789012:shared-dlq"
  }

  expect_failures = [aws_sqs_queue.this]
}

run "dlq_arn_in_another_region" {
  command = plan

  variables {
    dlq_arn = "arn:aws:sqs:eu-west-1:123456789012:shared-dlq"
  }

  expect_failures = [aws_sqs_queue.this]
}

run "dlq_arn_with_settings_of_a_created_dlq" {
  command = plan

  variables {
    dlq_arn                       = "arn:aws:sqs:us-east-1:123456789012:shared-dlq"
    dlq_message_retention_seconds = 604800
  }

  expect_failures = [aws_sqs_queue.this]
}

run "dlq_arn_not_an_arn" {
  command = plan

  variables {
    dlq_arn = "https://sqs.us-east-1.amazonaws.com/123456789012/shared-dlq"
  }

  expect_failures = [var.name]
}

run "dlq_short_polling" {
  command = plan

  variables {
    dlq_receive_wait_time_seconds = 0
  }

  expect_failures = [aws_sqs_queue.dlq]
}

run "dlq_receive_wait_above_20" {
  command = plan

  variables {
    dlq_receive_wait_time_seconds = 25
  }

  expect_failures = [var.name]
}

run "dlq_per_group_throughput_needs_group_scope" {
  command = plan

  variables {
    fifo                      = true
    dlq_fifo_throughput_limit = "perMessageGroupId"
  }

  expect_failures = [aws_sqs_queue.dlq]
}

run "dlq_fifo_options_on_standard_queue" {
  command = plan

  variables {
    dlq_deduplication_scope = "queue"
  }

  expect_failures = [aws_sqs_queue.this]
}

run "dlq_visibility_above_12_hours" {
  command = plan

  variables {
    dlq_visibility_timeout_seconds = 43201
  }

  expect_failures = [var.name]
}

run "dlq_delay_above_15_minutes" {
  command = plan

  variables {
    dlq_delay_seconds = 1000
  }

  expect_failures = [var.name]
}

run "dlq_empty_kms_key" {
  command = plan

  variables {
    dlq_kms_master_key_id = " "
  }

  expect_failures = [var.name]
}

run "dlq_kms_reuse_below_60" {
  command = plan

  variables {
    dlq_kms_data_key_reuse_period_seconds = 10
  }

  expect_failures = [var.name]
}

run "dlq_unknown_deduplication_scope" {
  command = plan

  variables {
    fifo                    = true
    dlq_deduplication_scope = "group"
  }

  expect_failures = [var.name]
}

run "dlq_unknown_throughput_limit" {
  command = plan

  variables {
    fifo                      = true
    dlq_fifo_throughput_limit = "perGroup"
  }

  expect_failures = [var.name]
}

run "dlq_redrive_allow_deny_all" {
  command = plan

  variables {
    dlq_redrive_allow_policy = { redrivePermission = "denyAll" }
  }

  expect_failures = [var.name]
}

run "dlq_redrive_allow_sources_with_allow_all" {
  command = plan

  variables {
    dlq_redrive_allow_policy = { redrivePermission = "allowAll", sourceQueueArns = ["arn:aws:sqs:us-east-1:123456789012:other"] }
  }

  expect_failures = [var.name]
}

run "policy_not_actions_in_allow" {
  command = plan

  variables {
    queue_policy_statements = [{ sid = "AllBut", not_actions = ["sqs:DeleteQueue"], principals = [{ type = "AWS", identifiers = ["arn:aws:iam::123456789012:root"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "policy_not_principals_in_allow" {
  command = plan

  variables {
    queue_policy_statements = [{ sid = "AllButOne", actions = ["sqs:SendMessage"], not_principals = [{ type = "AWS", identifiers = ["arn:aws:iam::123456789012:root"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "policy_resources_given" {
  command = plan

  variables {
    queue_policy_statements = [{ sid = "Sns", actions = ["sqs:SendMessage"], resources = ["*"], principals = [{ type = "Service", identifiers = ["sns.amazonaws.com"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "policy_without_actions" {
  command = plan

  variables {
    queue_policy_statements = [{ sid = "Nothing", principals = [{ type = "Service", identifiers = ["sns.amazonaws.com"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "policy_public_principal_with_condition_singular_is_not_public" {
  command = plan

  variables {
    # `condition` (aws_iam_policy_document's spelling) counts: this is not public, but the
    # second statement is
    queue_policy_statements = [
      {
        sid        = "Sns"
        actions    = ["sqs:SendMessage"]
        principals = [{ type = "AWS", identifiers = ["*"] }]
        condition  = [{ test = "ArnEquals", variable = "aws:SourceArn", values = ["arn:aws:sns:us-east-1:123456789012:orders"] }]
      },
      { sid = "Open", actions = ["sqs:SendMessage"], principals = [{ type = "AWS", identifiers = ["*"] }] },
    ]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "document_public_principal" {
  command = plan

  variables {
    source_queue_policy_documents = [jsonencode({
      Version   = "2012-10-17"
      Statement = [{ Sid = "Open", Effect = "Allow", Principal = { AWS = "*" }, Action = "sqs:SendMessage" }]
    })]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "document_wildcard_action" {
  command = plan

  variables {
    override_queue_policy_documents = [jsonencode({
      Version   = "2012-10-17"
      Statement = { Sid = "Admin", Effect = "Allow", Principal = { AWS = "arn:aws:iam::123456789012:root" }, Action = ["sqs:*"] }
    })]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "dlq_document_not_action_allow" {
  command = plan

  variables {
    source_dlq_queue_policy_documents = [jsonencode({
      Version   = "2012-10-17"
      Statement = [{ Sid = "AllBut", Effect = "Allow", Principal = { AWS = "arn:aws:iam::123456789012:root" }, NotAction = "sqs:DeleteQueue" }]
    })]
  }

  expect_failures = [data.aws_iam_policy_document.dlq]
}

run "source_document_not_json" {
  command = plan

  variables {
    source_queue_policy_documents = ["allow sns"]
  }

  expect_failures = [var.name]
}

run "override_document_without_statement" {
  command = plan

  variables {
    override_queue_policy_documents = [jsonencode({ Version = "2012-10-17" })]
  }

  expect_failures = [var.name]
}

run "dlq_source_document_not_json" {
  command = plan

  variables {
    source_dlq_queue_policy_documents = ["{"]
  }

  expect_failures = [var.name]
}

run "dlq_override_document_not_json" {
  command = plan

  variables {
    override_dlq_queue_policy_documents = ["[]"]
  }

  expect_failures = [var.name]
}

run "partition_not_a_partition" {
  command = plan

  variables {
    partition = "amazon"
  }

  expect_failures = [var.name]
}

run "region_not_a_region" {
  command = plan

  variables {
    region = "EU West 1"
  }

  expect_failures = [var.name]
}

# the inputs of the message cases of tests/modules/test_refusals.py that no run above had
run "visibility_below_consumer_bound_with_window" {
  command = plan

  variables {
    consumer                   = { "timeout_seconds" : 30, "maximum_batching_window_seconds" : 5 }
    visibility_timeout_seconds = 60
  }

  expect_failures = [aws_sqs_queue.this]
}

run "dlq_retention_below_source_fifo" {
  command = plan

  variables {
    fifo                          = true
    message_retention_seconds     = 604800
    dlq_message_retention_seconds = 345600
  }

  expect_failures = [aws_sqs_queue.this]
}

run "retention_fractional" {
  command = plan

  variables {
    message_retention_seconds = 86400.5
  }

  expect_failures = [var.name]
}

run "kms_reuse_fractional" {
  command = plan

  variables {
    kms_master_key_id                 = "11111111-2222-3333-4444-555555555555"
    kms_data_key_reuse_period_seconds = 300.5
  }

  expect_failures = [var.name]
}

run "kms_reuse_without_key" {
  command = plan

  variables {
    kms_data_key_reuse_period_seconds = 600
  }

  expect_failures = [var.name]
}

run "dlq_kms_reuse_without_key" {
  command = plan

  variables {
    dlq_kms_data_key_reuse_period_seconds = 600
  }

  expect_failures = [var.name]
}

run "policy_service_principal_without_source_condition" {
  command = plan

  variables {
    queue_policy_statements = [{ "sid" : "Sns", "actions" : ["sqs:SendMessage"], "principals" : [{ "type" : "Service", "identifiers" : ["sns.amazonaws.com"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "document_service_principal_without_source_condition" {
  command = plan

  variables {
    source_queue_policy_documents = ["{\"Version\": \"2012-10-17\", \"Statement\": [{\"Effect\": \"Allow\", \"Principal\": {\"Service\": \"events.amazonaws.com\"}, \"Action\": \"sqs:SendMessage\"}]}"]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "policy_public_principal_with_principal_tag_only" {
  command = plan

  variables {
    queue_policy_statements = [{ "sid" : "Tagged", "actions" : ["sqs:SendMessage"], "principals" : [{ "type" : "AWS", "identifiers" : ["*"] }], "conditions" : [{ "test" : "StringEquals", "variable" : "aws:PrincipalTag/team", "values" : ["orders"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "per_group_throughput_scope_unset" {
  command = plan

  variables {
    fifo                  = true
    fifo_throughput_limit = "perMessageGroupId"
  }

  expect_failures = [aws_sqs_queue.this]
}

run "dlq_arn_with_dlq_visibility" {
  command = plan

  variables {
    dlq_arn                        = "arn:aws:sqs:us-east-1:123456789012:shared-dlq"
    dlq_visibility_timeout_seconds = 60
  }

  expect_failures = [aws_sqs_queue.this]
}

run "kms_reuse_below_60_with_key" {
  command = plan

  variables {
    kms_master_key_id                 = "11111111-2222-3333-4444-555555555555"
    kms_data_key_reuse_period_seconds = 30
  }

  expect_failures = [var.name]
}

# --- issue #34: guards that were bypassed, settings that were dropped -----------------

run "policy_service_principal_type_lower_case" {
  command = plan

  variables {
    queue_policy_statements = [{ "sid" : "FromRule", "actions" : ["sqs:SendMessage"], "principals" : [{ "type" : "service", "identifiers" : ["events.amazonaws.com"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "policy_source_arn_condition_without_values" {
  command = plan

  variables {
    queue_policy_statements = [{ "sid" : "Sns", "actions" : ["sqs:SendMessage"], "principals" : [{ "type" : "Service", "identifiers" : ["sns.amazonaws.com"] }], "condition" : [{ "test" : "ArnEquals", "variable" : "aws:SourceArn", "values" : [] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "policy_null_identifiers_and_values" {
  command = plan

  variables {
    dlq_policy_statements = [{ "sid" : "Team", "actions" : ["sqs:ReceiveMessage"], "principals" : [{ "type" : "AWS", "identifiers" : null }], "conditions" : [{ "test" : "StringEquals", "variable" : "aws:PrincipalOrgID", "values" : null }] }]
  }

  expect_failures = [data.aws_iam_policy_document.dlq]
}

run "document_source_arn_condition_without_values" {
  command = plan

  variables {
    source_queue_policy_documents = ["{\"Version\": \"2012-10-17\", \"Statement\": [{\"Sid\": \"Uploads\", \"Effect\": \"Allow\", \"Principal\": {\"Service\": \"s3.amazonaws.com\"}, \"Action\": \"sqs:SendMessage\", \"Condition\": {\"ArnLike\": {\"aws:SourceArn\": []}}}]}"]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "policy_statement_reuses_tls_sid" {
  command = plan

  variables {
    queue_policy_statements = [{ "sid" : "DenyInsecureTransport", "effect" : "Deny", "actions" : ["sqs:*"], "principals" : [{ "type" : "*", "identifiers" : ["*"] }], "conditions" : [{ "test" : "NumericLessThan", "variable" : "s3:TlsVersion", "values" : ["1.2"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "override_document_reuses_tls_sid" {
  command = plan

  variables {
    override_dlq_queue_policy_documents = ["{\"Version\": \"2012-10-17\", \"Statement\": [{\"Sid\": \"DenyInsecureTransport\", \"Effect\": \"Deny\", \"Principal\": \"*\", \"Action\": \"sqs:*\", \"Condition\": {\"NumericLessThan\": {\"s3:TlsVersion\": \"1.2\"}}}]}"]
  }

  expect_failures = [data.aws_iam_policy_document.dlq]
}

run "kms_key_is_a_topic_arn" {
  command = plan

  variables {
    kms_master_key_id = "arn:aws:sns:us-east-1:123456789012:orders-alerts"
  }

  expect_failures = [var.name]
}

run "kms_key_with_trailing_space" {
  command = plan

  variables {
    kms_master_key_id = "arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555 "
  }

  expect_failures = [var.name]
}

run "kms_key_is_a_flag" {
  command = plan

  variables {
    kms_master_key_id = "false"
  }

  expect_failures = [var.name]
}

run "dlq_kms_key_is_a_queue_arn" {
  command = plan

  variables {
    dlq_kms_master_key_id = "arn:aws:sqs:us-east-1:123456789012:orders-dlq"
  }

  expect_failures = [var.name]
}

run "dlq_name_with_fifo_suffix_on_standard_pair" {
  command = plan

  variables {
    dlq_name = "orders-failed.fifo"
  }

  expect_failures = [var.name]
}

# --- issue #34 §2/§3: lifecycle and apply-time limits --------------------------------

run "dlq_arn_in_another_partition" {
  command = plan

  variables {
    dlq_arn = "arn:aws-cn:sqs:us-east-1:123456789012:shared-dlq"
  }

  expect_failures = [aws_sqs_queue.this]
}

run "receives_times_visibility_reach_retention" {
  command = plan

  variables {
    max_receive_count          = 3
    visibility_timeout_seconds = 43200
    message_retention_seconds  = 86400
  }

  expect_failures = [aws_sqs_queue.this]
}

# the boundary: 2 x 43200 s = 86400 s is the retention itself, so the message is gone
# when its third receive would move it (one second less plans: defaults.tftest.hcl)
run "receives_times_visibility_equal_to_retention" {
  command = plan

  variables {
    max_receive_count          = 2
    visibility_timeout_seconds = 43200
    message_retention_seconds  = 86400
  }

  expect_failures = [aws_sqs_queue.this]
}

run "receives_times_consumer_visibility_plus_delay_reach_retention" {
  command = plan

  variables {
    max_receive_count         = 15
    delay_seconds             = 900
    message_retention_seconds = 86400
    consumer                  = { timeout_seconds = 900, maximum_batching_window_seconds = 300 }
  }

  expect_failures = [aws_sqs_queue.this]
}

run "policy_above_20_statements" {
  command = plan

  variables {
    queue_policy_statements = [for i in range(20) : { sid = "Producer${i}", actions = ["sqs:SendMessage"], principals = [{ type = "AWS", identifiers = ["arn:aws:iam::123456789012:role/producer-${i}"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "policy_statement_with_8_actions" {
  command = plan

  variables {
    queue_policy_statements = [{
      sid        = "Operator"
      actions    = ["sqs:SendMessage", "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:ListDeadLetterSourceQueues", "sqs:ListQueueTags"]
      principals = [{ type = "AWS", identifiers = ["arn:aws:iam::123456789012:role/operator"] }]
    }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "policy_statement_without_actions" {
  command = plan

  variables {
    queue_policy_statements = [{ sid = "Nothing", actions = [], principals = [{ type = "AWS", identifiers = ["arn:aws:iam::123456789012:role/producer"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "policy_principal_without_identifiers" {
  command = plan

  variables {
    queue_policy_statements = [{ sid = "Nobody", actions = ["sqs:SendMessage"], principals = [{ type = "AWS", identifiers = [] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "policy_condition_operator_misspelled" {
  command = plan

  variables {
    queue_policy_statements = [{
      sid        = "Org"
      actions    = ["sqs:SendMessage"]
      principals = [{ type = "AWS", identifiers = ["*"] }]
      condition  = [{ test = "StringEqual", variable = "aws:PrincipalOrgID", values = ["o-abc123"] }]
    }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "dlq_document_condition_operator_misspelled" {
  command = plan

  variables {
    source_dlq_queue_policy_documents = [jsonencode({
      Version   = "2012-10-17"
      Statement = [{ Sid = "Redriver", Effect = "Allow", Action = "sqs:ReceiveMessage", Principal = { AWS = "arn:aws:iam::123456789012:role/redrive" }, Condition = { ArnEqual = { "aws:PrincipalArn" = "arn:aws:iam::123456789012:role/redrive" } } }]
    })]
  }

  expect_failures = [data.aws_iam_policy_document.dlq]
}

run "policy_deny_everything_to_everyone" {
  command = plan

  variables {
    queue_policy_statements = [{ sid = "Lockdown", effect = "Deny", actions = ["sqs:*"], principals = [{ type = "*", identifiers = ["*"] }] }]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

run "document_deny_everything_to_everyone" {
  command = plan

  variables {
    override_queue_policy_documents = [jsonencode({
      Version   = "2012-10-17"
      Statement = [{ Sid = "Lockdown", Effect = "Deny", Action = "*", Principal = { AWS = "*" } }]
    })]
  }

  expect_failures = [data.aws_iam_policy_document.queue]
}

# with a DLQ of its own, the DLQ (the same tags and dlq_for) is refused first
run "queue_tags_above_50" {
  command = plan

  variables {
    tags = { for i in range(50) : "team-tag-${i}" => "x" }
  }

  expect_failures = [aws_sqs_queue.dlq]
}

run "queue_tags_above_50_with_an_existing_dlq" {
  command = plan

  variables {
    dlq_arn = "arn:aws:sqs:us-east-1:123456789012:shared-dlq"
    tags    = { for i in range(51) : "team-tag-${i}" => "x" }
  }

  expect_failures = [aws_sqs_queue.this]
}

run "dlq_tags_above_50_with_dlq_for" {
  command = plan

  variables {
    tags     = { for i in range(30) : "team-tag-${i}" => "x" }
    dlq_tags = { for i in range(20) : "dlq-tag-${i}" => "x" }
  }

  expect_failures = [aws_sqs_queue.dlq]
}
