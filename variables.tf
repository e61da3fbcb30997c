variable "queues" {
  description = "Queue/DLQ pairs to create, keyed by queue name (the key is the source queue's name unless `name` is given). Every attribute is optional and falls back to `queue_defaults`, then to the safe module defaults. See modules/queue for the meaning and bounds of each attribute."
  type = map(object({
    name                       = optional(string)
    dlq_name                   = optional(string)
    fifo                       = optional(bool)
    visibility_timeout_seconds = optional(number)
    consumer = optional(object({
      timeout_seconds                 = number
      maximum_batching_window_seconds = optional(number, 0)
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
    tags = optional(map(string), {})
  }))
  default  = {}
  nullable = false

  validation {
    condition     = alltrue([for k in keys(var.queues) : can(regex("^[A-Za-z0-9_-]{1,75}(\\.fifo)?$", k))])
    error_message = "queues: every key must be a queue name of 1-75 letters, digits, hyphens or underscores (optionally ending in .fifo)."
  }
}

variable "queue_defaults" {
  description = "Defaults shared by every entry of `queues`; an attribute set on a queue wins. Attributes left unset here take the module defaults (SSE-SQS, 4-day retention, 14-day DLQ retention, maxReceiveCount 5, 20 s long polling)."
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
