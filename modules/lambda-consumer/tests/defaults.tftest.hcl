# Plan-mode checks of modules/lambda-consumer with the real AWS provider (no
# API calls: dummy credentials). The function need not exist for a plan.

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

run "safe_defaults" {
  command = plan

  assert {
    condition     = aws_lambda_event_source_mapping.this.function_name == "orders-consumer" && aws_lambda_event_source_mapping.this.event_source_arn == "arn:aws:sqs:us-east-1:123456789012:orders"
    error_message = "the mapping should connect the queue to the function"
  }
  assert {
    condition     = aws_lambda_event_source_mapping.this.function_response_types == toset(["ReportBatchItemFailures"])
    error_message = "partial batch responses (ReportBatchItemFailures) should be on by default"
  }
  assert {
    condition     = one(aws_lambda_event_source_mapping.this.scaling_config).maximum_concurrency == 10
    error_message = "concurrency should be bounded (10) by default"
  }
  assert {
    condition     = aws_lambda_event_source_mapping.this.batch_size == 10 && aws_lambda_event_source_mapping.this.maximum_batching_window_in_seconds == null
    error_message = "batch size 10 and no batching window by default"
  }
  assert {
    condition     = length(aws_lambda_event_source_mapping.this.filter_criteria) == 0 && aws_lambda_event_source_mapping.this.enabled == true
    error_message = "no filter (every message delivered) and enabled by default"
  }
  assert {
    condition     = output.minimum_visibility_timeout_seconds == 180
    error_message = "the visibility bound should be 6 x 30 s"
  }
}

run "visibility_exactly_at_bound_with_window" {
  command = plan

  variables {
    maximum_batching_window_seconds  = 20
    batch_size                       = 100
    queue_visibility_timeout_seconds = 200
  }

  assert {
    condition     = aws_lambda_event_source_mapping.this.maximum_batching_window_in_seconds == 20 && aws_lambda_event_source_mapping.this.batch_size == 100
    error_message = "a standard queue may take batches above 10 with a window"
  }
  assert {
    condition     = output.minimum_visibility_timeout_seconds == 200
    error_message = "the bound should be 6 x 30 + 20 = 200 s (accepted when the visibility equals it)"
  }
}

run "fifo_filters_and_options" {
  command = plan

  variables {
    queue_arn                  = "arn:aws:sqs:us-east-1:123456789012:payments.fifo"
    function_name              = "arn:aws:lambda:us-east-1:123456789012:function:payments-consumer:live"
    batch_size                 = 10
    maximum_concurrency        = null
    report_batch_item_failures = false
    enabled                    = false
    filter_patterns            = ["{\"body\":{\"type\":[\"payment\"]}}", "{\"attributes\":{\"MessageGroupId\":[{\"prefix\":\"eu-\"}]}}"]
  }

  assert {
    condition     = length(aws_lambda_event_source_mapping.this.scaling_config) == 0
    error_message = "maximum_concurrency = null should leave concurrency unbounded"
  }
  assert {
    condition     = length(coalesce(aws_lambda_event_source_mapping.this.function_response_types, [])) == 0
    error_message = "ReportBatchItemFailures should be off only when asked"
  }
  assert {
    condition     = toset([for f in one(aws_lambda_event_source_mapping.this.filter_criteria).filter : f.pattern]) == toset(["{\"body\":{\"type\":[\"payment\"]}}", "{\"attributes\":{\"MessageGroupId\":[{\"prefix\":\"eu-\"}]}}"])
    error_message = "every filter pattern should be passed through"
  }
  assert {
    condition     = aws_lambda_event_source_mapping.this.enabled == false
    error_message = "enabled = false should pause the mapping"
  }
}

run "explicit_fifo_flag" {
  command = plan

  variables {
    queue_arn = "arn:aws:sqs:us-east-1:123456789012:payments.fifo"
    fifo      = true
  }

  assert {
    condition     = aws_lambda_event_source_mapping.this.batch_size == 10
    error_message = "an explicit fifo = true (for an ARN unknown at plan) with batch size 10 should plan"
  }
}

run "provisioned_mode" {
  command = plan

  variables {
    maximum_concurrency       = null
    provisioned_poller_config = { minimum_pollers = 2, maximum_pollers = 20 }
  }

  assert {
    condition     = one(aws_lambda_event_source_mapping.this.provisioned_poller_config).maximum_pollers == 20 && one(aws_lambda_event_source_mapping.this.provisioned_poller_config).minimum_pollers == 2
    error_message = "provisioned_poller_config should be passed to the mapping"
  }
  assert {
    condition     = length(aws_lambda_event_source_mapping.this.scaling_config) == 0
    error_message = "provisioned mode must not set scaling_config (Lambda refuses both)"
  }
}
