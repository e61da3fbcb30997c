variable "name" {
  description = "Name of the source queue. For a FIFO queue the `.fifo` suffix is added for you (giving it is accepted). 1-75 characters: letters, digits, hyphens and underscores."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9_-]{1,75}$", trimsuffix(var.name, ".fifo")))
    error_message = "name: must be 1-75 characters of letters, digits, hyphens or underscores (the .fifo suffix and the -dlq suffix are added by the module, and SQS caps a name at 80 characters)."
  }
}

variable "dlq_name" {
  description = "Name of the dead-letter queue. Default: `<name>-dlq` (plus `.fifo` for a FIFO pair)."
  type        = string
  default     = null

  validation {
    condition     = var.dlq_name == null || can(regex("^[A-Za-z0-9_-]{1,75}$", trimsuffix(coalesce(var.dlq_name, "x"), ".fifo")))
    error_message = "dlq_name: must be 1-75 characters of letters, digits, hyphens or underscores (the .fifo suffix is added by the module)."
  }
}

variable "fifo" {
  description = "Create a FIFO pair. The DLQ is FIFO exactly when the source is (SQS requires it)."
  type        = bool
  default     = false
  nullable    = false
}

variable "visibility_timeout_seconds" {
  description = "Visibility timeout of the source queue, 0-43200 s. Default: 6 x consumer timeout + batching window when `consumer` is set, else 30 s. An explicit value below that consumer bound is refused."
  type        = number
  default     = null

  validation {
    condition     = var.visibility_timeout_seconds == null || (try(var.visibility_timeout_seconds >= 0 && var.visibility_timeout_seconds <= 43200 && floor(var.visibility_timeout_seconds) == var.visibility_timeout_seconds, false))
    error_message = "visibility_timeout_seconds: must be a whole number of seconds from 0 to 43200 (12 hours), the range SQS accepts."
  }
}

variable "consumer" {
  description = "The Lambda consumer of the source queue, if any: `timeout_seconds` (the function timeout, 1-900 s) and `maximum_batching_window_seconds` (0-300 s). Used to derive the visibility timeout: 6 x timeout + window (AWS guidance, so a batch can be retried before a message is redelivered)."
  type = object({
    timeout_seconds                 = number
    maximum_batching_window_seconds = optional(number, 0)
  })
  default = null

  validation {
    condition     = var.consumer == null || try(var.consumer.timeout_seconds >= 1 && var.consumer.timeout_seconds <= 900, false)
    error_message = "consumer.timeout_seconds: must be the consumer Lambda's timeout, 1-900 seconds (Lambda's own range)."
  }

  validation {
    condition     = var.consumer == null || try(var.consumer.maximum_batching_window_seconds >= 0 && var.consumer.maximum_batching_window_seconds <= 300, false)
    error_message = "consumer.maximum_batching_window_seconds: must be 0-300 seconds (the event source mapping's range)."
  }
}

variable "message_retention_seconds" {
  description = "How long the source queue keeps a message, 86400-1209600 s. Default 4 days (345600, the AWS default). Less than 1 day is refused: an outage over a weekend night would silently delete work."
  type        = number
  default     = 345600
  nullable    = false

  validation {
    condition     = var.message_retention_seconds >= 86400 && var.message_retention_seconds <= 1209600
    error_message = "message_retention_seconds: must be from 86400 (1 day) to 1209600 (14 days). Below 1 day messages expire before a typical incident is even noticed; 14 days is the SQS maximum."
  }
}

variable "dlq_message_retention_seconds" {
  description = "How long the DLQ keeps a message, 60-1209600 s, and strictly more than `message_retention_seconds`. Default 14 days (the SQS maximum). On a standard queue a message keeps its original enqueue time when it moves to the DLQ, so a DLQ retention not above the source's deletes failed messages before anyone can look at them."
  type        = number
  default     = 1209600
  nullable    = false

  validation {
    condition     = var.dlq_message_retention_seconds >= 60 && var.dlq_message_retention_seconds <= 1209600
    error_message = "dlq_message_retention_seconds: must be from 60 to 1209600 (14 days, the SQS maximum)."
  }
}

variable "max_receive_count" {
  description = "Receives before a message moves to the DLQ (the redrive policy's maxReceiveCount), 2-1000. Default 5. 1 is refused: a single timeout or a console peek would send a good message to the DLQ."
  type        = number
  default     = 5
  nullable    = false

  validation {
    condition     = var.max_receive_count >= 2 && var.max_receive_count <= 1000 && floor(var.max_receive_count) == var.max_receive_count
    error_message = "max_receive_count: must be a whole number from 2 to 1000 (3-5 recommended). With 1, one slow consumer or a console peek (a \"ghost receive\") moves a healthy message to the DLQ."
  }
}

variable "receive_wait_time_seconds" {
  description = "Long-polling wait of the source queue, 1-20 s. Default 20. 0 (short polling: empty receives, cost, false-empty reads) is refused unless `allow_short_polling` is true."
  type        = number
  default     = 20
  nullable    = false

  validation {
    condition     = var.receive_wait_time_seconds >= 0 && var.receive_wait_time_seconds <= 20 && floor(var.receive_wait_time_seconds) == var.receive_wait_time_seconds
    error_message = "receive_wait_time_seconds: must be a whole number from 0 to 20 seconds (20 recommended)."
  }
}

variable "allow_short_polling" {
  description = "Opt-out that permits `receive_wait_time_seconds = 0`. Short polling samples a subset of SQS servers, so receives can come back empty while messages wait, and every empty receive is billed. Only for consumers that must never block."
  type        = bool
  default     = false
  nullable    = false
}

variable "delay_seconds" {
  description = "Delivery delay of the source queue, 0-900 s."
  type        = number
  default     = 0
  nullable    = false

  validation {
    condition     = var.delay_seconds >= 0 && var.delay_seconds <= 900 && floor(var.delay_seconds) == var.delay_seconds
    error_message = "delay_seconds: must be a whole number from 0 to 900 (15 minutes)."
  }
}

variable "max_message_size" {
  description = "Maximum message size in bytes, 1024-1048576. Default null: the AWS default (256 KiB). The AWS provider 5.x accepts at most 262144. Larger payloads belong in the claim-check bucket."
  type        = number
  default     = null

  validation {
    condition     = var.max_message_size == null || try(var.max_message_size >= 1024 && var.max_message_size <= 1048576, false)
    error_message = "max_message_size: must be from 1024 to 1048576 bytes (provider 5.x: at most 262144). Put larger payloads in the claim-check bucket instead."
  }
}

variable "kms_master_key_id" {
  description = "KMS key (ID, ARN or alias) for SSE-KMS on both queues. Null means SSE-SQS (SQS-managed keys). Encryption is always on; there is no way to turn it off."
  type        = string
  default     = null

  validation {
    condition     = var.kms_master_key_id == null || try(length(trimspace(var.kms_master_key_id)) > 0, false)
    error_message = "kms_master_key_id: must be a KMS key ID, ARN or alias, or null for SSE-SQS. An empty string would not turn encryption off; it is refused so the intent is clear."
  }
}

variable "kms_data_key_reuse_period_seconds" {
  description = "How long SQS reuses a data key before calling KMS again, 60-86400 s (SSE-KMS only). Default 300."
  type        = number
  default     = 300
  nullable    = false

  validation {
    condition     = var.kms_data_key_reuse_period_seconds >= 60 && var.kms_data_key_reuse_period_seconds <= 86400
    error_message = "kms_data_key_reuse_period_seconds: must be from 60 to 86400 seconds."
  }
}

variable "content_based_deduplication" {
  description = "FIFO only: use a SHA-256 of the body as the deduplication ID."
  type        = bool
  default     = false
  nullable    = false
}

variable "deduplication_scope" {
  description = "FIFO only: `queue` or `messageGroup`. Null leaves the AWS default (`queue`)."
  type        = string
  default     = null

  validation {
    condition     = var.deduplication_scope == null || contains(["queue", "messageGroup"], coalesce(var.deduplication_scope, "queue"))
    error_message = "deduplication_scope: must be \"queue\" or \"messageGroup\" (case-sensitive)."
  }
}

variable "fifo_throughput_limit" {
  description = "FIFO only: `perQueue` or `perMessageGroupId` (high-throughput FIFO; requires `deduplication_scope = \"messageGroup\"`). Null leaves the AWS default (`perQueue`)."
  type        = string
  default     = null

  validation {
    condition     = var.fifo_throughput_limit == null || contains(["perQueue", "perMessageGroupId"], coalesce(var.fifo_throughput_limit, "perQueue"))
    error_message = "fifo_throughput_limit: must be \"perQueue\" or \"perMessageGroupId\" (case-sensitive)."
  }
}

variable "queue_policy_statements" {
  description = "Extra statements for the source queue's policy (for example SNS or EventBridge as sender). The resource is always the source queue. The TLS-only deny statement is always present."
  type = list(object({
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
  }))
  default  = []
  nullable = false

  validation {
    condition     = alltrue([for s in var.queue_policy_statements : contains(["Allow", "Deny"], s.effect)])
    error_message = "queue_policy_statements[*].effect: must be \"Allow\" or \"Deny\"."
  }

  validation {
    condition     = alltrue([for s in var.queue_policy_statements : alltrue([for a in s.actions : can(regex("^sqs:[A-Za-z]+$", a))])])
    error_message = "queue_policy_statements[*].actions: each action must be a named SQS action such as \"sqs:SendMessage\"; wildcards (\"sqs:*\", \"sqs:Send*\", \"*\") grant more than intended."
  }

  validation {
    condition = alltrue([for s in var.queue_policy_statements : !(
      s.effect == "Allow" && length(s.conditions) == 0 &&
      anytrue([for p in s.principals : contains(p.identifiers, "*")])
    )])
    error_message = "queue_policy_statements: an Allow to principal \"*\" without a condition makes the queue public. Name the principal (e.g. {type = \"Service\", identifiers = [\"sns.amazonaws.com\"]}) and add an aws:SourceArn condition."
  }
}

variable "dlq_policy_statements" {
  description = "Extra statements for the DLQ's policy, same shape as `queue_policy_statements`. The resource is always the DLQ."
  type = list(object({
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
  }))
  default  = []
  nullable = false

  validation {
    condition     = alltrue([for s in var.dlq_policy_statements : contains(["Allow", "Deny"], s.effect)])
    error_message = "dlq_policy_statements[*].effect: must be \"Allow\" or \"Deny\"."
  }

  validation {
    condition     = alltrue([for s in var.dlq_policy_statements : alltrue([for a in s.actions : can(regex("^sqs:[A-Za-z]+$", a))])])
    error_message = "dlq_policy_statements[*].actions: each action must be a named SQS action such as \"sqs:ReceiveMessage\"; wildcards grant more than intended."
  }

  validation {
    condition = alltrue([for s in var.dlq_policy_statements : !(
      s.effect == "Allow" && length(s.conditions) == 0 &&
      anytrue([for p in s.principals : contains(p.identifiers, "*")])
    )])
    error_message = "dlq_policy_statements: an Allow to principal \"*\" without a condition makes the DLQ public. Name the principal and add a condition."
  }
}

variable "prevent_destroy" {
  description = "Refuse, at plan time, every plan that deletes or replaces the queue or its DLQ (and so their messages): renaming either, switching `fifo`, or removing the pair fails with Terraform's \"Instance cannot be destroyed\" naming this module's `terraform_data.prevent_destroy[0]`. In-place changes plan as usual. To lift it for a planned removal: set it false and run `terraform state rm` on that guard (it holds no infrastructure), then plan again. Default false."
  type        = bool
  default     = false
  nullable    = false
}

variable "account_id" {
  description = "AWS account ID the queues live in, used to build their ARNs at plan time (the DLQ's redrive-allow policy and the queue policies need the ARN before the queue exists). Null: looked up with sts:GetCallerIdentity."
  type        = string
  default     = null

  validation {
    condition     = var.account_id == null || can(regex("^[0-9]{12}$", coalesce(var.account_id, "x")))
    error_message = "account_id: must be a 12-digit AWS account ID, or null to look it up."
  }
}

variable "partition" {
  description = "AWS partition the queues live in (`aws`, `aws-cn`, `aws-us-gov`, ...), used to build their ARNs at plan time. Null: the provider's, looked up. The root module passes the value it looked up once for all queues."
  type        = string
  default     = null

  validation {
    condition     = var.partition == null || can(regex("^aws(-[a-z]+)*$", coalesce(var.partition, "x")))
    error_message = "partition: must be an AWS partition such as \"aws\", \"aws-cn\" or \"aws-us-gov\", or null to look it up."
  }
}

variable "region" {
  description = "Region the queues live in (the provider's region), used to build their ARNs at plan time. Null: the provider's, looked up. The root module passes the value it looked up once for all queues."
  type        = string
  default     = null

  validation {
    condition     = var.region == null || can(regex("^[a-z]{2}(-[a-z]+)+-[0-9]+$", coalesce(var.region, "x")))
    error_message = "region: must be an AWS region name such as \"eu-west-1\", or null to use the provider's."
  }
}

variable "tags" {
  description = "Tags for both queues. The DLQ also gets `dlq_for = <source queue name>`."
  type        = map(string)
  default     = {}
  nullable    = false
}
