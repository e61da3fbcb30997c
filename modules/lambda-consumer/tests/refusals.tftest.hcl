# Every refused input of modules/lambda-consumer fails the plan. Messages are
# asserted by tests/modules/test_refusals.py.

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "offline-plan"
  secret_key                  = "offline-plan"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
}

variables {
  function_name                    = "orders-consumer"
  queue_arn                        = "arn:aws:sqs:us-east-1:123456789012:orders"
  function_timeout_seconds         = 30
  queue_visibility_timeout_seconds = 180
}

run "function_name_with_space" {
  command = plan
  variables {
    function_name = "orders consumer"
  }
  expect_failures = [var.function_name]
}

run "queue_url_instead_of_arn" {
  command = plan
  variables {
    queue_arn = "https://sqs.us-east-1.amazonaws.com/123456789012/orders"
  }
  expect_failures = [var.queue_arn]
}

run "visibility_above_12_hours" {
  command = plan
  variables {
    queue_visibility_timeout_seconds = 43201
  }
  expect_failures = [var.queue_visibility_timeout_seconds]
}

run "function_timeout_above_15_minutes" {
  command = plan
  variables {
    function_timeout_seconds = 901
  }
  expect_failures = [var.function_timeout_seconds]
}

run "batch_size_zero" {
  command = plan
  variables {
    batch_size = 0
  }
  expect_failures = [var.batch_size]
}

run "window_above_300" {
  command = plan
  variables {
    maximum_batching_window_seconds  = 301
    queue_visibility_timeout_seconds = 1000
  }
  expect_failures = [var.maximum_batching_window_seconds]
}

run "concurrency_below_2" {
  command = plan
  variables {
    maximum_concurrency = 1
  }
  expect_failures = [var.maximum_concurrency]
}

run "filter_pattern_not_json" {
  command = plan
  variables {
    filter_patterns = ["body.type = order"]
  }
  expect_failures = [var.filter_patterns]
}

run "too_many_filter_patterns" {
  command = plan
  variables {
    filter_patterns = [for i in range(11) : "{\"body\":{\"n\":[${i}]}}"]
  }
  expect_failures = [var.filter_patterns]
}

run "visibility_below_six_times_timeout_plus_window" {
  command = plan
  variables {
    maximum_batching_window_seconds  = 5
    queue_visibility_timeout_seconds = 184
  }
  expect_failures = [aws_lambda_event_source_mapping.this]
}

run "fifo_batch_above_10" {
  command = plan
  variables {
    queue_arn  = "arn:aws:sqs:us-east-1:123456789012:payments.fifo"
    batch_size = 11
  }
  expect_failures = [aws_lambda_event_source_mapping.this]
}

run "fifo_with_batching_window" {
  command = plan
  variables {
    queue_arn                        = "arn:aws:sqs:us-east-1:123456789012:payments.fifo"
    maximum_batching_window_seconds  = 1
    queue_visibility_timeout_seconds = 181
  }
  expect_failures = [aws_lambda_event_source_mapping.this]
}

run "standard_large_batch_without_window" {
  command = plan
  variables {
    batch_size = 11
  }
  expect_failures = [aws_lambda_event_source_mapping.this]
}

run "explicit_fifo_flag_batch_above_10" {
  command = plan
  variables {
    fifo       = true
    batch_size = 20
  }
  expect_failures = [aws_lambda_event_source_mapping.this]
}

run "provisioned_mode_with_maximum_concurrency" {
  command = plan
  variables {
    maximum_concurrency       = 20
    provisioned_poller_config = { minimum_pollers = 2, maximum_pollers = 10 }
  }
  expect_failures = [aws_lambda_event_source_mapping.this]
}

run "provisioned_mode_minimum_above_maximum" {
  command = plan
  variables {
    maximum_concurrency       = null
    provisioned_poller_config = { minimum_pollers = 20, maximum_pollers = 10 }
  }
  expect_failures = [var.provisioned_poller_config]
}

run "provisioned_mode_without_maximum_pollers" {
  command = plan
  variables {
    maximum_concurrency       = null
    provisioned_poller_config = { minimum_pollers = 2 }
  }
  expect_failures = [var.provisioned_poller_config]
}
