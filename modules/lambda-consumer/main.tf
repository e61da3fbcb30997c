# Event source mapping from an SQS queue to an existing Lambda function, with
# the safe settings: partial batch responses, bounded concurrency, and a plan
# that fails when the queue's visibility timeout cannot cover the function.

locals {
  # How refusal messages name each input: as itself, or as the caller says (the
  # root module: queues["<key>"].consumer.<attribute>, consumer_functions["<key>"]...).
  n = { for v in [
    "function_name", "queue_arn", "queue_visibility_timeout_seconds", "function_timeout_seconds", "batch_size",
    "maximum_batching_window_seconds", "maximum_concurrency", "filter_patterns", "provisioned_poller_config",
  ] : v => lookup(var.input_names, v, v) }

  fifo             = var.fifo != null ? var.fifo : endswith(var.queue_arn, ".fifo")
  min_visibility   = local.visibility_timeout_multiplier * var.function_timeout_seconds + var.maximum_batching_window_seconds
  response_types   = var.report_batch_item_failures ? ["ReportBatchItemFailures"] : []
  window_or_absent = var.maximum_batching_window_seconds > 0 ? var.maximum_batching_window_seconds : null
}

resource "aws_lambda_event_source_mapping" "this" {
  function_name    = var.function_name
  event_source_arn = var.queue_arn
  enabled          = var.enabled

  batch_size                         = var.batch_size
  maximum_batching_window_in_seconds = local.window_or_absent
  function_response_types            = local.response_types

  dynamic "scaling_config" {
    for_each = var.maximum_concurrency == null ? [] : [var.maximum_concurrency]
    content {
      maximum_concurrency = scaling_config.value
    }
  }

  dynamic "provisioned_poller_config" {
    for_each = var.provisioned_poller_config == null ? [] : [var.provisioned_poller_config]
    content {
      minimum_pollers = provisioned_poller_config.value.minimum_pollers
      maximum_pollers = provisioned_poller_config.value.maximum_pollers
    }
  }

  dynamic "filter_criteria" {
    for_each = length(var.filter_patterns) > 0 ? [1] : []
    content {
      dynamic "filter" {
        for_each = var.filter_patterns
        content {
          pattern = filter.value
        }
      }
    }
  }

  tags = var.tags

  lifecycle {
    precondition {
      condition     = var.queue_visibility_timeout_seconds >= local.min_visibility
      error_message = "${local.n.queue_visibility_timeout_seconds}: ${var.queue_visibility_timeout_seconds} s is below ${local.visibility_timeout_multiplier} x function timeout ${var.function_timeout_seconds} s + batching window ${var.maximum_batching_window_seconds} s = ${local.min_visibility} s. Messages would become visible again while the function still processes or retries them (duplicates, early DLQ moves). Raise the queue's visibility timeout to at least ${local.min_visibility} s, or lower the function timeout (${local.n.function_timeout_seconds}) / batching window (${local.n.maximum_batching_window_seconds})."
    }

    # AWS refuses both at apply; the provider does not check it at plan (sqs-policy: ESM005)
    precondition {
      condition     = var.provisioned_poller_config == null || var.maximum_concurrency == null
      error_message = "${local.n.provisioned_poller_config}: provisioned mode together with ${local.n.maximum_concurrency} = ${coalesce(var.maximum_concurrency, 0)}: Lambda refuses a mapping that sets both (scaling_config and provisioned_poller_config are mutually exclusive; sqs-policy's ESM005), at apply. In provisioned mode bound the mapping with provisioned_poller_config.maximum_pollers and remove maximum_concurrency (set it to null); or remove provisioned_poller_config for standard mode."
    }

    precondition {
      condition     = !local.fifo || var.batch_size <= 10
      error_message = "${local.n.batch_size}: ${var.batch_size} is above 10, the maximum for a FIFO queue (event source of ${var.function_name}). Use 1-10."
    }

    precondition {
      condition     = !local.fifo || var.maximum_batching_window_seconds == 0
      error_message = "${local.n.maximum_batching_window_seconds}: ${var.maximum_batching_window_seconds} s is set for a FIFO queue (event source of ${var.function_name}); FIFO event sources do not support a batching window. Set it to 0."
    }

    precondition {
      condition     = local.fifo || var.batch_size <= 10 || var.maximum_batching_window_seconds >= 1
      error_message = "${local.n.maximum_batching_window_seconds}: a batch_size of ${var.batch_size} (above 10) on a standard queue needs a batching window of at least 1 s (Lambda rejects it otherwise). Set ${local.n.maximum_batching_window_seconds} to 1-300, or ${local.n.batch_size} to 10 or less."
    }
  }
}
