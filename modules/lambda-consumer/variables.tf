variable "function_name" {
  description = "Name, ARN or qualified ARN (alias/version) of an existing Lambda function that consumes the queue."
  type        = string

  validation {
    condition     = can(regex("^(arn:[a-z-]+:lambda:[a-z0-9-]+:[0-9]{12}:function:)?[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9$_-]{1,128})?$", var.function_name))
    error_message = "${local.n.function_name}: must be a Lambda function name (1-64 letters, digits, hyphens, underscores), optionally qualified with :alias or :version, or the function's ARN."
  }
}

variable "queue_arn" {
  description = "ARN of the source queue the function consumes (may be unknown until apply)."
  type        = string

  validation {
    condition     = can(regex("^arn:[a-z-]+:sqs:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,80}(\\.fifo)?$", var.queue_arn))
    error_message = "${local.n.queue_arn}: must be an SQS queue ARN (arn:aws:sqs:<region>:<account>:<name>), not a queue URL."
  }
}

variable "fifo" {
  description = "Whether the queue is FIFO. Null: derived from the queue ARN (`.fifo` suffix). Give it when the ARN is unknown at plan time, so the FIFO rules are checked at plan."
  type        = bool
  default     = null
}

variable "queue_visibility_timeout_seconds" {
  description = "The queue's visibility timeout in seconds. Must be at least 6 x `function_timeout_seconds` + `maximum_batching_window_seconds` (AWS guidance), or messages are redelivered while a batch is still being processed or retried."
  type        = number

  validation {
    condition     = var.queue_visibility_timeout_seconds >= 0 && var.queue_visibility_timeout_seconds <= 43200
    error_message = "${local.n.queue_visibility_timeout_seconds}: must be 0-43200 seconds (the SQS range)."
  }
}

variable "function_timeout_seconds" {
  description = "The function's timeout in seconds, 1-900 (as configured on the function)."
  type        = number

  validation {
    condition     = var.function_timeout_seconds >= 1 && var.function_timeout_seconds <= 900
    error_message = "${local.n.function_timeout_seconds}: must be the function's timeout, 1-900 seconds (Lambda's own range)."
  }
}

variable "batch_size" {
  description = "Maximum records per invocation: 1-10 for FIFO queues, 1-10000 for standard queues (above 10 needs a batching window of at least 1 s). Default 10."
  type        = number
  default     = 10
  nullable    = false

  validation {
    condition     = var.batch_size >= 1 && var.batch_size <= 10000 && floor(var.batch_size) == var.batch_size
    error_message = "${local.n.batch_size}: must be a whole number from 1 to 10000 (at most 10 for a FIFO queue)."
  }
}

variable "maximum_batching_window_seconds" {
  description = "How long Lambda gathers records before invoking, 0-300 s (standard queues only; FIFO queues do not support a window). Default 0."
  type        = number
  default     = 0
  nullable    = false

  validation {
    condition     = var.maximum_batching_window_seconds >= 0 && var.maximum_batching_window_seconds <= 300 && floor(var.maximum_batching_window_seconds) == var.maximum_batching_window_seconds
    error_message = "${local.n.maximum_batching_window_seconds}: must be a whole number from 0 to 300 seconds."
  }
}

variable "report_batch_item_failures" {
  description = "Set `ReportBatchItemFailures`, so the function can return only the failed message IDs and the rest of the batch is deleted. On by default; without it one bad message makes the whole batch visible again (duplicates)."
  type        = bool
  default     = true
  nullable    = false
}

variable "maximum_concurrency" {
  description = "Upper bound on concurrent invocations from this queue, 2-1000 (scaling_config). Default 10: protects the function's downstream and the account's concurrency pool. Null: no bound (Lambda scales to hundreds of concurrent batches)."
  type        = number
  default     = 10

  validation {
    condition     = var.maximum_concurrency == null || try(var.maximum_concurrency >= local.maximum_concurrency_min && var.maximum_concurrency <= local.maximum_concurrency_max && floor(var.maximum_concurrency) == var.maximum_concurrency, false)
    error_message = "${local.n.maximum_concurrency}: must be a whole number from ${local.maximum_concurrency_min} to ${local.maximum_concurrency_max} (Lambda's range for SQS event sources), or null for no bound."
  }
}

variable "provisioned_poller_config" {
  description = "Provisioned mode: dedicated event pollers for the queue, between `minimum_pollers` (2-200; null: AWS's default, 2) and `maximum_pollers` (2-2000, required: it bounds the mapping's scale as `maximum_concurrency` does in standard mode; AWS's default would be 200). Null (default): standard mode. Lambda refuses a mapping in provisioned mode that also sets `maximum_concurrency` (scaling_config), so set `maximum_concurrency = null` with it. Provisioned pollers are billed while they run (event poller units)."
  type = object({
    minimum_pollers = optional(number)
    maximum_pollers = optional(number)
  })
  default = null

  validation {
    condition = var.provisioned_poller_config == null || try(
      (var.provisioned_poller_config.minimum_pollers == null || try(var.provisioned_poller_config.minimum_pollers >= 2 && var.provisioned_poller_config.minimum_pollers <= 200 && floor(var.provisioned_poller_config.minimum_pollers) == var.provisioned_poller_config.minimum_pollers, false))
      && var.provisioned_poller_config.maximum_pollers >= 2 && var.provisioned_poller_config.maximum_pollers <= 2000 && floor(var.provisioned_poller_config.maximum_pollers) == var.provisioned_poller_config.maximum_pollers
      && coalesce(var.provisioned_poller_config.minimum_pollers, 2) <= var.provisioned_poller_config.maximum_pollers,
    false)
    error_message = "${local.n.provisioned_poller_config}: ${jsonencode(var.provisioned_poller_config)}: ${try(var.provisioned_poller_config.maximum_pollers != null, false) ? "" : "maximum_pollers is required (it bounds the mapping's scale, as maximum_concurrency does in standard mode; AWS's default is 200 pollers). "}minimum_pollers must be a whole number from 2 to 200 (or null for 2), maximum_pollers a whole number from 2 to 2000, and minimum_pollers at most maximum_pollers (Lambda's ranges for an SQS event source in provisioned mode)."
  }
}

variable "filter_patterns" {
  description = "Event filter patterns (JSON objects, e.g. `{\"body\":{\"type\":[\"order\"]}}`). Caution: for SQS, Lambda DELETES messages that match no pattern, without invoking the function. Empty (default): every message is delivered."
  type        = list(string)
  default     = []
  nullable    = false

  validation {
    condition     = alltrue([for p in var.filter_patterns : can(keys(jsondecode(p)))])
    error_message = "${local.n.filter_patterns}: every entry must be a JSON object (a Lambda event filter pattern such as {\"body\":{\"type\":[\"order\"]}}). Remember that non-matching SQS messages are deleted."
  }

  validation {
    condition     = length(var.filter_patterns) <= 10
    error_message = "${local.n.filter_patterns}: at most 10 patterns per event source mapping (the default quota is 5)."
  }
}

variable "enabled" {
  description = "Whether the mapping polls the queue. Set false to pause consumption without deleting the mapping."
  type        = bool
  default     = true
  nullable    = false
}

variable "input_names" {
  description = "How refusal messages name this module's inputs: a map from variable name to the caller's name for it (the root module passes e.g. `{ batch_size = \"queues[\\\"orders\\\"].consumer.batch_size\" }`). Variables not listed are named as themselves."
  type        = map(string)
  default     = {}
  nullable    = false
}

variable "tags" {
  description = "Tags for the event source mapping."
  type        = map(string)
  default     = {}
  nullable    = false
}
