# Every refused input of modules/alarms fails the plan. Messages are asserted
# by tests/modules/test_refusals.py.

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "offline-plan"
  secret_key                  = "offline-plan"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
}

variables {
  account_id     = "123456789012"
  sns_topic_name = "orders-alarms"
  queues = {
    orders = { queue_name = "orders", dlq_name = "orders-dlq" }
  }
}

run "queue_url_instead_of_name" {
  command = plan
  variables {
    queues = { orders = { queue_name = "https://sqs.us-east-1.amazonaws.com/123456789012/orders", dlq_name = "orders-dlq" } }
  }
  expect_failures = [var.queues]
}

run "per_queue_threshold_zero" {
  command = plan
  variables {
    queues = { orders = { queue_name = "orders", dlq_name = "orders-dlq", thresholds = { backlog_messages = 0 } } }
  }
  expect_failures = [var.queues]
}

run "threshold_fractional" {
  command = plan
  variables {
    thresholds = { dlq_influx_messages = 2.5 }
  }
  expect_failures = [var.thresholds]
}

run "age_threshold_below_metric_period" {
  command = plan
  variables {
    thresholds = { age_warning_seconds = 30 }
  }
  expect_failures = [var.thresholds]
}

run "evaluation_periods_above_one_day" {
  command = plan
  variables {
    thresholds = { backlog_evaluation_periods = 1441 }
  }
  expect_failures = [var.thresholds]
}

run "critical_age_not_above_warning" {
  command = plan
  variables {
    kinds      = ["age_warning", "age_critical"]
    thresholds = { age_warning_seconds = 1800, age_critical_seconds = 900 }
  }
  expect_failures = [var.kinds]
}

run "unknown_alarm_kind" {
  command = plan
  variables {
    kinds = ["dlq_depth", "age"]
  }
  expect_failures = [var.kinds]
}

run "fifo_topic_arn" {
  command = plan
  variables {
    sns_topic_arn = "arn:aws:sns:us-east-1:123456789012:oncall.fifo"
  }
  expect_failures = [var.sns_topic_arn]
}

run "topic_given_and_create_requested" {
  command = plan
  variables {
    sns_topic_arn    = "arn:aws:sns:us-east-1:123456789012:oncall"
    create_sns_topic = true
  }
  expect_failures = [aws_sns_topic.alarms]
}

run "topic_name_with_dot" {
  command = plan
  variables {
    sns_topic_name = "queue.alarms"
  }
  expect_failures = [var.sns_topic_name]
}

run "aws_managed_sns_key" {
  command = plan
  variables {
    sns_kms_master_key_id = "alias/aws/sns"
  }
  expect_failures = [var.sns_kms_master_key_id]
}

run "prefix_with_space" {
  command = plan
  variables {
    alarm_name_prefix = "prod "
  }
  expect_failures = [var.alarm_name_prefix]
}

run "account_id_not_12_digits" {
  command = plan
  variables {
    account_id = "12345678901"
  }
  expect_failures = [var.account_id]
}

run "per_queue_age_threshold_below_metric_period" {
  command = plan
  variables {
    queues = { orders = { queue_name = "orders", dlq_name = "orders-dlq", thresholds = { age_critical_seconds = 30 } } }
  }
  expect_failures = [var.queues]
}

run "created_topic_without_name" {
  command = plan
  variables {
    sns_topic_name   = null
    create_sns_topic = true
  }
  expect_failures = [var.sns_topic_name]
}

# --- alarms that could never fire ----------------------------------------------------

run "no_kinds" {
  command = plan
  variables {
    kinds = []
  }
  expect_failures = [var.kinds]
}

run "age_threshold_at_queue_retention" {
  command = plan
  variables {
    queues     = { orders = { queue_name = "orders", dlq_name = "orders-dlq", retention_seconds = 86400 } }
    thresholds = { age_critical_seconds = 86400 }
  }
  expect_failures = [var.kinds]
}

run "per_queue_stale_threshold_above_dlq_retention" {
  command = plan
  variables {
    kinds = ["dlq_depth", "dlq_stale"]
    queues = {
      orders = {
        queue_name = "orders", dlq_name = "orders-dlq", retention_seconds = 86400, dlq_retention_seconds = 172800
        thresholds = { dlq_stale_age_seconds = 259200 }
      }
    }
  }
  expect_failures = [var.kinds]
}
