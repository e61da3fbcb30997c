# Every refused input of modules/queue fails the plan. The messages are
# asserted by tests/test_queue_refusals.py; this file proves each refusal
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

  expect_failures = [var.dlq_name]
}

run "visibility_above_12_hours" {
  command = plan

  variables {
    visibility_timeout_seconds = 43201
  }

  expect_failures = [var.visibility_timeout_seconds]
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

  expect_failures = [var.consumer]
}

run "consumer_window_above_300" {
  command = plan

  variables {
    consumer = { timeout_seconds = 30, maximum_batching_window_seconds = 301 }
  }

  expect_failures = [var.consumer]
}

run "retention_below_one_day" {
  command = plan

  variables {
    message_retention_seconds = 86399
  }

  expect_failures = [var.message_retention_seconds]
}

run "retention_above_14_days" {
  command = plan

  variables {
    message_retention_seconds = 1209601
  }

  expect_failures = [var.message_retention_seconds]
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

  expect_failures = [var.dlq_message_retention_seconds]
}

run "max_receive_count_one" {
  command = plan

  variables {
    max_receive_count = 1
  }

  expect_failures = [var.max_receive_count]
}

run "max_receive_count_fractional" {
  command = plan

  variables {
    max_receive_count = 2.5
  }

  expect_failures = [var.max_receive_count]
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

  expect_failures = [var.receive_wait_time_seconds]
}

run "delay_above_15_minutes" {
  command = plan

  variables {
    delay_seconds = 901
  }

  expect_failures = [var.delay_seconds]
}

run "max_message_size_below_1024" {
  command = plan

  variables {
    max_message_size = 512
  }

  expect_failures = [var.max_message_size]
}

run "empty_kms_key" {
  command = plan

  variables {
    kms_master_key_id = ""
  }

  expect_failures = [var.kms_master_key_id]
}

run "kms_reuse_below_60" {
  command = plan

  variables {
    kms_data_key_reuse_period_seconds = 59
  }

  expect_failures = [var.kms_data_key_reuse_period_seconds]
}

run "unknown_deduplication_scope" {
  command = plan

  variables {
    fifo                = true
    deduplication_scope = "group"
  }

  expect_failures = [var.deduplication_scope]
}

run "unknown_throughput_limit" {
  command = plan

  variables {
    fifo                  = true
    fifo_throughput_limit = "perGroup"
  }

  expect_failures = [var.fifo_throughput_limit]
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

  expect_failures = [var.queue_policy_statements]
}

run "policy_public_principal" {
  command = plan

  variables {
    queue_policy_statements = [{ sid = "Public", actions = ["sqs:SendMessage"], principals = [{ type = "AWS", identifiers = ["*"] }] }]
  }

  expect_failures = [var.queue_policy_statements]
}

run "policy_bad_effect" {
  command = plan

  variables {
    queue_policy_statements = [{ sid = "Odd", effect = "allow", actions = ["sqs:SendMessage"], principals = [{ type = "Service", identifiers = ["sns.amazonaws.com"] }] }]
  }

  expect_failures = [var.queue_policy_statements]
}

run "dlq_policy_wildcard_action" {
  command = plan

  variables {
    dlq_policy_statements = [{ sid = "Any", actions = ["sqs:Receive*"], principals = [{ type = "AWS", identifiers = ["arn:aws:iam::123456789012:root"] }] }]
  }

  expect_failures = [var.dlq_policy_statements]
}

run "dlq_policy_public_principal" {
  command = plan

  variables {
    dlq_policy_statements = [{ sid = "Public", actions = ["sqs:ReceiveMessage"], principals = [{ type = "AWS", identifiers = ["*"] }] }]
  }

  expect_failures = [var.dlq_policy_statements]
}

run "dlq_policy_bad_effect" {
  command = plan

  variables {
    dlq_policy_statements = [{ sid = "Odd", effect = "Permit", actions = ["sqs:ReceiveMessage"], principals = [{ type = "Service", identifiers = ["sns.amazonaws.com"] }] }]
  }

  expect_failures = [var.dlq_policy_statements]
}

run "account_id_not_12_digits" {
  command = plan

  variables {
    account_id = "12345"
  }

  expect_failures = [var.account_id]
}

run "partition_not_a_partition" {
  command = plan

  variables {
    partition = "amazon"
  }

  expect_failures = [var.partition]
}

run "region_not_a_region" {
  command = plan

  variables {
    region = "EU West 1"
  }

  expect_failures = [var.region]
}
