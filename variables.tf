variable "queues" {
  description = "Queue/DLQ pairs to create, keyed by queue name (the key is the source queue's name unless `name` is given). Every attribute is optional and falls back to `queue_defaults`, then to the safe module defaults. See modules/queue for the meaning and bounds of each attribute. `consumer.timeout_seconds`/`maximum_batching_window_seconds` derive the visibility timeout; with `consumer.function_name` (an existing function) an event source mapping is created too (modules/lambda-consumer: `batch_size` 10, `maximum_concurrency` 10, `report_batch_item_failures` true, `filter_patterns`, `enabled`). `alarm_thresholds` overrides `alarms.thresholds` for this queue. `prevent_destroy` (default false) makes any plan that deletes or replaces the pair (a new `name`, `dlq_name` or `fifo`, a removed or renamed key) fail at plan time (see modules/queue)."
  type = map(object({
    name                       = optional(string)
    dlq_name                   = optional(string)
    fifo                       = optional(bool)
    visibility_timeout_seconds = optional(number)
    consumer = optional(object({
      timeout_seconds                 = number
      maximum_batching_window_seconds = optional(number, 0)
      function_name                   = optional(string)
      batch_size                      = optional(number, 10)
      maximum_concurrency             = optional(number, 10)
      filter_patterns                 = optional(list(string), [])
      report_batch_item_failures      = optional(bool, true)
      enabled                         = optional(bool, true)
    }))
    message_retention_seconds         = optional(number)
    dlq_message_retention_seconds     = optional(number)
    max_receive_count                 = optional(number)
    receive_wait_time_seconds         = optional(number)
    allow_short_polling               = optional(bool)
    delay_seconds                     = optional(number)
    max_message_size                  = optional(number)
    kms_master_key_id                 = optional(string)
    kms_data_key_reuse_period_seconds = optional(number)
    content_based_deduplication       = optional(bool)
    deduplication_scope               = optional(string)
    fifo_throughput_limit             = optional(string)
    queue_policy_statements = optional(list(object({
      sid     = string
      effect  = optional(string, "Allow")
      actions = list(string)
      principals = list(object({
        type        = string
        identifiers = list(string)
      }))
      conditions = optional(list(object({
        test     = string
        variable = string
        values   = list(string)
      })), [])
    })), [])
    dlq_policy_statements = optional(list(object({
      sid     = string
      effect  = optional(string, "Allow")
      actions = list(string)
      principals = list(object({
        type        = string
        identifiers = list(string)
      }))
      conditions = optional(list(object({
        test     = string
        variable = string
        values   = list(string)
      })), [])
    })), [])
    alarm_thresholds = optional(object({
      dlq_influx_messages           = optional(number)
      dlq_influx_evaluation_periods = optional(number)
      dlq_stale_age_seconds         = optional(number)
      age_warning_seconds           = optional(number)
      age_critical_seconds          = optional(number)
      backlog_messages              = optional(number)
      backlog_evaluation_periods    = optional(number)
    }), {})
    prevent_destroy = optional(bool)
    tags            = optional(map(string), {})
  }))
  default  = {}
  nullable = false

  validation {
    condition     = alltrue([for k in keys(var.queues) : can(regex("^[A-Za-z0-9_-]{1,75}(\\.fifo)?$", k))])
    error_message = "queues: every key must be a queue name of 1-75 letters, digits, hyphens or underscores (optionally ending in .fifo)."
  }
}

variable "queue_defaults" {
  description = "Defaults shared by every entry of `queues`; an attribute set on a queue wins. Attributes left unset here take the module defaults (SSE-SQS, 4-day retention, 14-day DLQ retention, maxReceiveCount 5, 20 s long polling, prevent_destroy false)."
  type = object({
    fifo                              = optional(bool)
    visibility_timeout_seconds        = optional(number)
    message_retention_seconds         = optional(number)
    dlq_message_retention_seconds     = optional(number)
    max_receive_count                 = optional(number)
    receive_wait_time_seconds         = optional(number)
    allow_short_polling               = optional(bool)
    delay_seconds                     = optional(number)
    max_message_size                  = optional(number)
    kms_master_key_id                 = optional(string)
    kms_data_key_reuse_period_seconds = optional(number)
    content_based_deduplication       = optional(bool)
    deduplication_scope               = optional(string)
    fifo_throughput_limit             = optional(string)
    prevent_destroy                   = optional(bool)
  })
  default  = {}
  nullable = false
}

variable "account_id" {
  description = "AWS account ID, used to build queue ARNs at plan time. Null: looked up once with sts:GetCallerIdentity."
  type        = string
  default     = null

  validation {
    condition     = var.account_id == null || can(regex("^[0-9]{12}$", coalesce(var.account_id, "x")))
    error_message = "account_id: must be a 12-digit AWS account ID, or null to look it up."
  }
}

variable "tags" {
  description = "Tags for every resource the module creates; merged under each queue's own tags."
  type        = map(string)
  default     = {}
  nullable    = false
}

variable "claim_check_bucket" {
  description = "Optional S3 bucket for payloads too large for a message (modules/claim-check-bucket). `enabled` (default false) needs `name`. `queues`: keys of `queues` whose producers offload to it (null = all); the payload expiry defaults to the longest a message of theirs can live before its DLQ deletes it (the DLQ retention; source + DLQ retention for FIFO, whose DLQ resets the enqueue time) in days, rounded up, and a smaller `expiration_days` is refused. Also `payload_prefix` (\"payloads/\"), `kms_key_arn` (null = SSE-S3), `versioning_enabled`, `force_destroy` (false), `abort_incomplete_multipart_upload_days` (1), `access_log_bucket`, `prevent_destroy` (false: true makes a plan that deletes or replaces the bucket fail at plan time), `tags`."
  type = object({
    enabled                                = optional(bool, false)
    name                                   = optional(string)
    queues                                 = optional(list(string))
    payload_prefix                         = optional(string, "payloads/")
    expiration_days                        = optional(number)
    kms_key_arn                            = optional(string)
    versioning_enabled                     = optional(bool, false)
    force_destroy                          = optional(bool, false)
    abort_incomplete_multipart_upload_days = optional(number, 1)
    access_log_bucket                      = optional(string)
    prevent_destroy                        = optional(bool, false)
    tags                                   = optional(map(string), {})
  })
  default  = {}
  nullable = false

  validation {
    condition     = !var.claim_check_bucket.enabled || var.claim_check_bucket.name != null
    error_message = "claim_check_bucket.name: required when claim_check_bucket.enabled = true (S3 bucket names are global; choose one such as \"<team>-<env>-claim-check\")."
  }
}

variable "idempotency_table" {
  description = "Optional DynamoDB table for Powertools-style idempotency (modules/idempotency-table). `enabled` (default false) needs `name`. Also `sort_key_attr` (null), `kms_key_arn` (null = AWS-owned key), `deletion_protection_enabled` (true), `prevent_destroy` (false: true makes a plan that deletes or replaces the table fail at plan time; deletion protection only refuses at apply), `tags`. Consumers of every queue get item access to it."
  type = object({
    enabled                     = optional(bool, false)
    name                        = optional(string)
    sort_key_attr               = optional(string)
    kms_key_arn                 = optional(string)
    deletion_protection_enabled = optional(bool, true)
    prevent_destroy             = optional(bool, false)
    tags                        = optional(map(string), {})
  })
  default  = {}
  nullable = false

  validation {
    condition     = !var.idempotency_table.enabled || var.idempotency_table.name != null
    error_message = "idempotency_table.name: required when idempotency_table.enabled = true."
  }
}

variable "alarms" {
  description = "CloudWatch alarms for every queue and DLQ (modules/alarms), on by default. Notifications go to `sns_topic_arn`, or to an encrypted topic the module creates (`create_sns_topic` null = create exactly when no topic is given; `sns_topic_name`, `sns_kms_master_key_id` null = a created key CloudWatch may use). Also `notify_on_ok` (true), `alarm_name_prefix`, and `thresholds` (see modules/alarms)."
  type = object({
    enabled               = optional(bool, true)
    sns_topic_arn         = optional(string)
    create_sns_topic      = optional(bool)
    sns_topic_name        = optional(string)
    sns_kms_master_key_id = optional(string)
    notify_on_ok          = optional(bool, true)
    alarm_name_prefix     = optional(string, "")
    thresholds = optional(object({
      dlq_influx_messages           = optional(number)
      dlq_influx_evaluation_periods = optional(number)
      dlq_stale_age_seconds         = optional(number)
      age_warning_seconds           = optional(number)
      age_critical_seconds          = optional(number)
      backlog_messages              = optional(number)
      backlog_evaluation_periods    = optional(number)
    }), {})
  })
  default  = {}
  nullable = false
}

variable "iam" {
  description = "Least-privilege policy documents per queue (modules/iam), always output: producer, consumer, redrive operator. `create_managed_policies` (false) also creates them as IAM policies named `<name_prefix><queue name>-<role>` (`.fifo` becomes `-fifo`) under `path`. `kms_key_arns`: extra key ARNs to grant; needed when a queue or the bucket uses a customer-managed key by alias, which cannot be resolved to its ARN at plan time."
  type = object({
    create_managed_policies = optional(bool, false)
    name_prefix             = optional(string, "")
    path                    = optional(string, "/")
    kms_key_arns            = optional(list(string), [])
  })
  default  = {}
  nullable = false
}

variable "dlq_redrive" {
  description = "Optional automated redrive of every DLQ (modules/dlq-redrive): a scheduled function per DLQ that sends messages back to their source at most `max_messages_per_second`, and archives those redriven `max_redrive_count` times, older than `max_message_age_seconds`, or failed for a reason in `permanent_failure_reasons` under `archive_prefix` in the claim-check bucket (which must then be enabled; `archive_bucket_name` names another bucket instead). `queues`: keys of `queues` to cover (null = all). `alarm_actions` null = the alarms topic. See modules/dlq-redrive for the rest."
  type = object({
    enabled                        = optional(bool, false)
    queues                         = optional(list(string))
    schedule_expression            = optional(string, "rate(5 minutes)")
    schedule_enabled               = optional(bool, true)
    max_messages_per_second        = optional(number, 10)
    max_messages_per_run           = optional(number, 1000)
    max_redrive_count              = optional(number, 3)
    max_message_age_seconds        = optional(number, 259200)
    permanent_failure_reasons      = optional(list(string), [])
    failure_reason_attribute       = optional(string, "x-failure-reason")
    archive_bucket_name            = optional(string)
    archive_prefix                 = optional(string, "dlq-archive/")
    timeout_seconds                = optional(number, 120)
    reserved_concurrent_executions = optional(number, 1)
    log_retention_days             = optional(number, 30)
    alarm_actions                  = optional(list(string))
    tags                           = optional(map(string), {})
  })
  default  = {}
  nullable = false
}
