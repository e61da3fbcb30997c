# Every refused input of modules/dlq-redrive fails the plan.

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "offline-plan"
  secret_key                  = "offline-plan"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
}

variables {
  name         = "orders-dlq-redrive"
  dlq          = { url = "https://sqs.us-east-1.amazonaws.com/123456789012/orders-dlq", arn = "arn:aws:sqs:us-east-1:123456789012:orders-dlq" }
  source_queue = { url = "https://sqs.us-east-1.amazonaws.com/123456789012/orders", arn = "arn:aws:sqs:us-east-1:123456789012:orders" }
  archive      = { type = "s3", bucket_name = "orders-payloads" }
  # an errors alarm without notifications, on purpose (the plan would warn otherwise)
  alarm_actions = []
}

run "name_too_long" {
  command = plan

  variables {
    name = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
  }

  expect_failures = [var.name]
}

run "dlq_not_an_sqs_arn" {
  command = plan

  variables {
    dlq = { url = "https://sqs.us-east-1.amazonaws.com/1/x", arn = "arn:aws:sns:us-east-1:123456789012:x" }
  }

  expect_failures = [var.dlq]
}

run "source_not_an_sqs_arn" {
  command = plan

  variables {
    source_queue = { url = "sqs/orders", arn = "orders" }
  }

  expect_failures = [var.source_queue]
}

run "bad_schedule" {
  command = plan

  variables {
    schedule_expression = "every 5 minutes"
  }

  expect_failures = [var.schedule_expression]
}

run "rate_zero" {
  command = plan

  variables {
    max_messages_per_second = 0
  }

  expect_failures = [var.max_messages_per_second]
}

run "per_run_zero" {
  command = plan

  variables {
    max_messages_per_run = 0
  }

  expect_failures = [var.max_messages_per_run]
}

run "redrive_count_zero" {
  command = plan

  variables {
    max_redrive_count = 0
  }

  expect_failures = [var.max_redrive_count]
}

run "age_beyond_14_days" {
  command = plan

  variables {
    max_message_age_seconds = 1209601
  }

  expect_failures = [var.max_message_age_seconds]
}

run "reserved_attribute_name" {
  command = plan

  variables {
    failure_reason_attribute = "AWS.reason"
  }

  expect_failures = [var.failure_reason_attribute]
}

run "archive_unknown_type" {
  command = plan

  variables {
    archive = { type = "dynamodb" }
  }

  expect_failures = [var.archive]
}

run "archive_s3_without_bucket" {
  command = plan

  variables {
    archive = { type = "s3" }
  }

  expect_failures = [var.archive]
}

run "archive_queue_without_arn" {
  command = plan

  variables {
    archive = { type = "queue", queue_url = "https://sqs.us-east-1.amazonaws.com/123456789012/p" }
  }

  expect_failures = [var.archive]
}

run "archive_prefix_without_slash" {
  command = plan

  variables {
    archive = { type = "s3", bucket_name = "b", prefix = "archive" }
  }

  expect_failures = [var.archive]
}

run "archive_prefix_empty" {
  command = plan

  variables {
    archive = { type = "s3", bucket_name = "b", prefix = "" }
  }

  expect_failures = [var.archive]
}

run "alarm_action_not_an_arn" {
  command = plan

  variables {
    alarm_actions = ["oncall"]
  }

  expect_failures = [var.alarm_actions]
}

run "timeout_too_short" {
  command = plan

  variables {
    timeout_seconds = 5
  }

  expect_failures = [var.timeout_seconds]
}

run "memory_too_small" {
  command = plan

  variables {
    memory_size = 64
  }

  expect_failures = [var.memory_size]
}

run "not_python" {
  command = plan

  variables {
    runtime = "nodejs20.x"
  }

  expect_failures = [var.runtime]
}

run "log_retention_not_allowed" {
  command = plan

  variables {
    log_retention_days = 10
  }

  expect_failures = [var.log_retention_days]
}

run "kms_alias_not_arn" {
  command = plan

  variables {
    kms_key_arns = ["alias/orders"]
  }

  expect_failures = [var.kms_key_arns]
}

run "claim_check_bucket_prefix_without_slash" {
  command = plan

  variables {
    claim_check_bucket = { name = "orders-payloads", payload_prefix = "payloads" }
  }

  expect_failures = [var.claim_check_bucket]
}

run "reserved_concurrency_zero" {
  command = plan

  variables {
    reserved_concurrent_executions = 0
  }

  expect_failures = [var.reserved_concurrent_executions]
}
