variable "name" {
  description = "Name of the source queue. For a FIFO queue the `.fifo` suffix is added for you (giving it is accepted). 1-75 characters: letters, digits, hyphens and underscores."
  type        = string

  # Every input's bounds are validated here, on `name`: Terraform (>= 1.9) lets
  # a validation read other variables, but requires each condition to name
  # var.name (`var.name == var.name` is always true). Terraform records each
  # validated variable of each module instance in the plan, and the root module
  # calls this module once per queue: 30 validated variables were ~6 KB of plan
  # JSON per pair, one is ~0.2 KB. Each message names the input it is about.
  validation { # name
    condition     = can(regex("^[A-Za-z0-9_-]{1,75}$", trimsuffix(var.name, ".fifo")))
    error_message = "${local.n.name}: \"${var.name}\" must be 1-75 characters of letters, digits, hyphens or underscores (the .fifo suffix and the -dlq suffix are added by the module, and SQS caps a name at 80 characters)."
  }

  validation { # dlq_name
    condition     = var.name == var.name && (var.dlq_name == null || can(regex("^[A-Za-z0-9_-]{1,75}$", trimsuffix(coalesce(var.dlq_name, "x"), ".fifo"))))
    error_message = "${local.n.dlq_name}: \"${coalesce(var.dlq_name, "-")}\" must be 1-75 characters of letters, digits, hyphens or underscores (the .fifo suffix is added by the module)."
  }

  validation { # dlq_name
    condition     = var.name == var.name && (var.fifo || var.dlq_name == null || !endswith(coalesce(var.dlq_name, "x"), ".fifo"))
    error_message = "${local.n.dlq_name}: \"${coalesce(var.dlq_name, "-")}\" ends with .fifo but the pair is standard (${local.n.fifo} = false): SQS refuses .fifo on a standard queue, and the module would strip it. Drop the suffix, or set ${local.n.fifo} = true for a FIFO pair."
  }

  validation { # dlq_arn
    condition     = var.name == var.name && (var.dlq_arn == "" || can(regex("^arn:[a-z-]+:sqs:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,80}(\\.fifo)?$", var.dlq_arn)))
    error_message = "${local.n.dlq_arn}: \"${var.dlq_arn}\" must be an SQS queue ARN (arn:aws:sqs:<region>:<account>:<name>), not a URL or a name."
  }

  validation { # create_dlq
    condition     = var.name == var.name && (var.create_dlq != true || var.dlq_arn == "")
    error_message = "${local.n.create_dlq}: true, but ${local.n.dlq_arn} names an existing DLQ too. Give one: create_dlq = true (or leave it out) for a DLQ of its own, or dlq_arn for an existing one."
  }

  validation { # create_dlq
    condition     = var.name == var.name && (var.create_dlq != false || var.dlq_arn != "")
    error_message = "${local.n.create_dlq}: false needs ${local.n.dlq_arn}, the ARN of the existing queue to use as the DLQ (every queue has a DLQ here: without one, a message that keeps failing is retried until its retention ends and then lost)."
  }

  validation { # visibility_timeout_seconds
    condition     = var.name == var.name && (var.visibility_timeout_seconds == null || (try(var.visibility_timeout_seconds >= 0 && var.visibility_timeout_seconds <= 43200 && floor(var.visibility_timeout_seconds) == var.visibility_timeout_seconds, false)))
    error_message = "${local.n.visibility_timeout_seconds}: ${coalesce(var.visibility_timeout_seconds, -1)} must be a whole number of seconds from 0 to 43200 (12 hours), the range SQS accepts."
  }

  validation { # consumer
    condition     = var.name == var.name && (var.consumer == null || try(var.consumer.timeout_seconds >= 1 && var.consumer.timeout_seconds <= 900 && floor(var.consumer.timeout_seconds) == var.consumer.timeout_seconds, false))
    error_message = "${local.n.consumer}.timeout_seconds: ${try(var.consumer.timeout_seconds, "-")} must be the consumer Lambda's timeout, a whole number of seconds from 1 to 900 (Lambda's own range)."
  }

  validation { # consumer
    condition     = var.name == var.name && (var.consumer == null || try(var.consumer.maximum_batching_window_seconds >= 0 && var.consumer.maximum_batching_window_seconds <= 300 && floor(var.consumer.maximum_batching_window_seconds) == var.consumer.maximum_batching_window_seconds, false))
    error_message = "${local.n.consumer}.maximum_batching_window_seconds: ${try(var.consumer.maximum_batching_window_seconds, "-")} must be a whole number of seconds from 0 to 300 (the event source mapping's range)."
  }

  validation { # message_retention_seconds
    condition     = var.name == var.name && (var.message_retention_seconds >= 86400 && var.message_retention_seconds <= 1209600 && floor(var.message_retention_seconds) == var.message_retention_seconds)
    error_message = "${local.n.message_retention_seconds}: ${var.message_retention_seconds} must be a whole number of seconds from 86400 (1 day) to 1209600 (14 days). Below 1 day messages expire before a typical incident is even noticed; 14 days is the SQS maximum."
  }

  validation { # dlq_message_retention_seconds
    condition     = var.name == var.name && (var.dlq_message_retention_seconds >= 60 && var.dlq_message_retention_seconds <= 1209600 && floor(var.dlq_message_retention_seconds) == var.dlq_message_retention_seconds)
    error_message = "${local.n.dlq_message_retention_seconds}: ${var.dlq_message_retention_seconds} must be a whole number of seconds from 60 to 1209600 (14 days, the SQS maximum)."
  }

  validation { # max_receive_count
    condition     = var.name == var.name && (var.max_receive_count >= local.max_receive_count_min && var.max_receive_count <= local.max_receive_count_max && floor(var.max_receive_count) == var.max_receive_count)
    error_message = "${local.n.max_receive_count}: ${var.max_receive_count} must be a whole number from ${local.max_receive_count_min} to ${local.max_receive_count_max} (${local.max_receive_count_recommended_min}-${local.max_receive_count_recommended_max} recommended). With 1, one slow consumer or a console peek (a \"ghost receive\") moves a healthy message to the DLQ."
  }

  validation { # receive_wait_time_seconds
    condition     = var.name == var.name && (var.receive_wait_time_seconds >= 0 && var.receive_wait_time_seconds <= 20 && floor(var.receive_wait_time_seconds) == var.receive_wait_time_seconds)
    error_message = "${local.n.receive_wait_time_seconds}: ${var.receive_wait_time_seconds} must be a whole number from 0 to 20 seconds (20 recommended)."
  }

  validation { # delay_seconds
    condition     = var.name == var.name && (var.delay_seconds >= 0 && var.delay_seconds <= 900 && floor(var.delay_seconds) == var.delay_seconds)
    error_message = "${local.n.delay_seconds}: ${var.delay_seconds} must be a whole number from 0 to 900 (15 minutes)."
  }

  validation { # max_message_size
    condition     = var.name == var.name && (var.max_message_size == null || try(var.max_message_size >= 1024 && var.max_message_size <= 1048576 && floor(var.max_message_size) == var.max_message_size, false))
    error_message = "${local.n.max_message_size}: ${coalesce(var.max_message_size, -1)} bytes must be a whole number from 1024 to 1048576 (1 MiB, SQS's maximum since August 2025). Above 262144 the AWS provider in use decides: 6.8.0 and later accept up to 1048576; 5.x and 6.0-6.7 refuse above 262144 with their own error (expected max_message_size to be in the range (1024 - 262144)). Larger payloads belong in the claim-check bucket (claim_check_bucket.enabled), with a pointer in the message."
  }

  validation { # kms_master_key_id
    condition     = var.name == var.name && (var.kms_master_key_id == null || try(length(trimspace(var.kms_master_key_id)) > 0, false))
    error_message = "${local.n.kms_master_key_id}: must be a KMS key ID, ARN or alias, or null for SSE-SQS. An empty string would not turn encryption off; it is refused so the intent is clear."
  }

  validation { # kms_master_key_id
    condition     = var.name == var.name && (var.kms_master_key_id == null || trimspace(coalesce(var.kms_master_key_id, "x")) == "" || can(regex(local.kms_key_pattern, coalesce(var.kms_master_key_id, "x"))))
    error_message = "${local.n.kms_master_key_id}: ${jsonencode(var.kms_master_key_id)} is not a KMS key${local.kms_why.queue}. Give a key ID (1234abcd-12ab-34cd-56ef-1234567890ab, or mrk-... for a multi-Region key), a key ARN (arn:aws:kms:<region>:<account>:key/<id>), an alias (alias/<name>) or an alias ARN; or leave it null for SSE-SQS (encryption is always on)."
  }

  validation { # kms_data_key_reuse_period_seconds
    condition     = var.name == var.name && (var.kms_data_key_reuse_period_seconds >= 60 && var.kms_data_key_reuse_period_seconds <= 86400 && floor(var.kms_data_key_reuse_period_seconds) == var.kms_data_key_reuse_period_seconds)
    error_message = "${local.n.kms_data_key_reuse_period_seconds}: ${var.kms_data_key_reuse_period_seconds} must be a whole number of seconds from 60 to 86400."
  }

  validation { # kms_data_key_reuse_period_seconds
    condition     = var.name == var.name && (var.kms_data_key_reuse_period_seconds == 300 || var.kms_master_key_id != null)
    error_message = "${local.n.kms_data_key_reuse_period_seconds}: ${var.kms_data_key_reuse_period_seconds} is set, but the queue has no KMS key (${local.n.kms_master_key_id} is not set): it is encrypted with SSE-SQS, whose keys SQS manages, and the reuse period would do nothing. Remove it, or set ${local.n.kms_master_key_id} to the key it is for."
  }

  validation { # deduplication_scope
    condition     = var.name == var.name && (var.deduplication_scope == null || contains(["queue", "messageGroup"], coalesce(var.deduplication_scope, "queue")))
    error_message = "${local.n.deduplication_scope}: \"${coalesce(var.deduplication_scope, "-")}\" must be \"queue\" or \"messageGroup\" (case-sensitive)."
  }

  validation { # fifo_throughput_limit
    condition     = var.name == var.name && (var.fifo_throughput_limit == null || contains(["perQueue", "perMessageGroupId"], coalesce(var.fifo_throughput_limit, "perQueue")))
    error_message = "${local.n.fifo_throughput_limit}: \"${coalesce(var.fifo_throughput_limit, "-")}\" must be \"perQueue\" or \"perMessageGroupId\" (case-sensitive)."
  }

  validation { # dlq_visibility_timeout_seconds
    condition     = var.name == var.name && (var.dlq_visibility_timeout_seconds == null || try(var.dlq_visibility_timeout_seconds >= 0 && var.dlq_visibility_timeout_seconds <= 43200 && floor(var.dlq_visibility_timeout_seconds) == var.dlq_visibility_timeout_seconds, false))
    error_message = "${local.n.dlq_visibility_timeout_seconds}: ${coalesce(var.dlq_visibility_timeout_seconds, -1)} must be a whole number of seconds from 0 to 43200 (12 hours)."
  }

  validation { # dlq_delay_seconds
    condition     = var.name == var.name && (var.dlq_delay_seconds == null || try(var.dlq_delay_seconds >= 0 && var.dlq_delay_seconds <= 900 && floor(var.dlq_delay_seconds) == var.dlq_delay_seconds, false))
    error_message = "${local.n.dlq_delay_seconds}: ${coalesce(var.dlq_delay_seconds, -1)} must be a whole number from 0 to 900 (15 minutes)."
  }

  validation { # dlq_receive_wait_time_seconds
    condition     = var.name == var.name && (var.dlq_receive_wait_time_seconds >= 0 && var.dlq_receive_wait_time_seconds <= 20 && floor(var.dlq_receive_wait_time_seconds) == var.dlq_receive_wait_time_seconds)
    error_message = "${local.n.dlq_receive_wait_time_seconds}: ${var.dlq_receive_wait_time_seconds} must be a whole number from 0 to 20 seconds (20 recommended)."
  }

  validation { # dlq_kms_master_key_id
    condition     = var.name == var.name && (var.dlq_kms_master_key_id == null || try(length(trimspace(var.dlq_kms_master_key_id)) > 0, false))
    error_message = "${local.n.dlq_kms_master_key_id}: must be a KMS key ID, ARN or alias, or null for the source queue's encryption. An empty string would not turn encryption off."
  }

  validation { # dlq_kms_master_key_id
    condition     = var.name == var.name && (var.dlq_kms_master_key_id == null || trimspace(coalesce(var.dlq_kms_master_key_id, "x")) == "" || can(regex(local.kms_key_pattern, coalesce(var.dlq_kms_master_key_id, "x"))))
    error_message = "${local.n.dlq_kms_master_key_id}: ${jsonencode(var.dlq_kms_master_key_id)} is not a KMS key${local.kms_why.dlq}. Give a key ID, a key ARN (arn:aws:kms:<region>:<account>:key/<id>), an alias (alias/<name>) or an alias ARN; or leave it null for the source queue's encryption."
  }

  validation { # dlq_kms_data_key_reuse_period_seconds
    condition     = var.name == var.name && (var.dlq_kms_data_key_reuse_period_seconds == null || try(var.dlq_kms_data_key_reuse_period_seconds >= 60 && var.dlq_kms_data_key_reuse_period_seconds <= 86400 && floor(var.dlq_kms_data_key_reuse_period_seconds) == var.dlq_kms_data_key_reuse_period_seconds, false))
    error_message = "${local.n.dlq_kms_data_key_reuse_period_seconds}: ${coalesce(var.dlq_kms_data_key_reuse_period_seconds, -1)} must be a whole number of seconds from 60 to 86400."
  }

  validation { # dlq_kms_data_key_reuse_period_seconds
    condition     = var.name == var.name && (var.dlq_kms_data_key_reuse_period_seconds == null || var.dlq_kms_master_key_id != null || var.kms_master_key_id != null)
    error_message = "${local.n.dlq_kms_data_key_reuse_period_seconds}: ${coalesce(var.dlq_kms_data_key_reuse_period_seconds, -1)} is set, but the DLQ has no KMS key (neither ${local.n.dlq_kms_master_key_id} nor ${local.n.kms_master_key_id} is set): it is encrypted with SSE-SQS and the reuse period would do nothing. Remove it, or give the DLQ's KMS key."
  }

  validation { # dlq_deduplication_scope
    condition     = var.name == var.name && (var.dlq_deduplication_scope == null || contains(["queue", "messageGroup"], coalesce(var.dlq_deduplication_scope, "queue")))
    error_message = "${local.n.dlq_deduplication_scope}: \"${coalesce(var.dlq_deduplication_scope, "-")}\" must be \"queue\" or \"messageGroup\" (case-sensitive)."
  }

  validation { # dlq_fifo_throughput_limit
    condition     = var.name == var.name && (var.dlq_fifo_throughput_limit == null || contains(["perQueue", "perMessageGroupId"], coalesce(var.dlq_fifo_throughput_limit, "perQueue")))
    error_message = "${local.n.dlq_fifo_throughput_limit}: \"${coalesce(var.dlq_fifo_throughput_limit, "-")}\" must be \"perQueue\" or \"perMessageGroupId\" (case-sensitive)."
  }

  validation { # dlq_redrive_allow_policy
    condition     = var.name == var.name && (var.dlq_redrive_allow_policy == null || contains(["byQueue", "allowAll"], try(var.dlq_redrive_allow_policy.redrivePermission, "x")))
    error_message = "${local.n.dlq_redrive_allow_policy}.redrivePermission: \"${try(var.dlq_redrive_allow_policy.redrivePermission, "-")}\" must be \"byQueue\" or \"allowAll\". \"denyAll\" would stop this queue from moving failed messages to its own DLQ."
  }

  validation { # dlq_redrive_allow_policy
    condition = var.name == var.name && (var.dlq_redrive_allow_policy == null || try(
      alltrue([for a in var.dlq_redrive_allow_policy.sourceQueueArns : can(regex("^arn:[a-z-]+:sqs:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,80}(\\.fifo)?$", a))])
      && length(var.dlq_redrive_allow_policy.sourceQueueArns) <= 9
      && (var.dlq_redrive_allow_policy.redrivePermission == "byQueue" || length(var.dlq_redrive_allow_policy.sourceQueueArns) == 0),
    false))
    error_message = "${local.n.dlq_redrive_allow_policy}.sourceQueueArns: must be SQS queue ARNs, at most 9 besides this queue (SQS allows 10 source queues per DLQ), and only with redrivePermission = \"byQueue\" (allowAll admits every queue of the account)."
  }

  validation { # source_queue_policy_documents
    condition     = var.name == var.name && (alltrue([for d in var.source_queue_policy_documents : can(jsondecode(d).Statement)]))
    error_message = "${local.n.source_queue_policy_documents}: every entry must be a JSON policy document with a Statement (for example data.aws_iam_policy_document.x.json)."
  }

  validation { # override_queue_policy_documents
    condition     = var.name == var.name && (alltrue([for d in var.override_queue_policy_documents : can(jsondecode(d).Statement)]))
    error_message = "${local.n.override_queue_policy_documents}: every entry must be a JSON policy document with a Statement (for example data.aws_iam_policy_document.x.json)."
  }

  validation { # source_dlq_queue_policy_documents
    condition     = var.name == var.name && (alltrue([for d in var.source_dlq_queue_policy_documents : can(jsondecode(d).Statement)]))
    error_message = "${local.n.source_dlq_queue_policy_documents}: every entry must be a JSON policy document with a Statement (for example data.aws_iam_policy_document.x.json)."
  }

  validation { # override_dlq_queue_policy_documents
    condition     = var.name == var.name && (alltrue([for d in var.override_dlq_queue_policy_documents : can(jsondecode(d).Statement)]))
    error_message = "${local.n.override_dlq_queue_policy_documents}: every entry must be a JSON policy document with a Statement (for example data.aws_iam_policy_document.x.json)."
  }

  validation { # account_id
    condition     = var.name == var.name && (var.account_id == null || can(regex("^[0-9]{12}$", coalesce(var.account_id, "x"))))
    error_message = "account_id: \"${coalesce(var.account_id, "-")}\" must be a 12-digit AWS account ID, or null to look it up."
  }

  validation { # partition
    condition     = var.name == var.name && (var.partition == null || can(regex("^aws(-[a-z]+)*$", coalesce(var.partition, "x"))))
    error_message = "partition: must be an AWS partition such as \"aws\", \"aws-cn\" or \"aws-us-gov\", or null to look it up."
  }

  validation { # region
    condition     = var.name == var.name && (var.region == null || can(regex("^[a-z]{2}(-[a-z]+)+-[0-9]+$", coalesce(var.region, "x"))))
    error_message = "region: must be an AWS region name such as \"eu-west-1\", or null to use the provider's."
  }
}

# BEGIN GENERATED queue-variables: `make plumbing` writes what follows from tooling/queue_settings.py; do not edit
variable "dlq_name" {
  description = "Name of the dead-letter queue. Default: `<name>-dlq` (plus `.fifo` for a FIFO pair). Must differ from `name`."
  type        = string
  default     = null
}

variable "dlq_arn" {
  description = "ARN of an existing queue to use as the dead-letter queue instead of creating one (a DLQ shared by several queues, or owned by another stack). It must be in the same account and region, and FIFO exactly when this queue is (both checked at plan when the ARN is known). Its retention, policy and redrive-allow policy are not managed here: its redrive-allow policy must admit this queue. Empty (default) or null: the module creates the DLQ."
  type        = string
  default     = ""
  nullable    = false
}

variable "create_dlq" {
  description = "Whether the module creates the DLQ. Null (default): it does unless `dlq_arn` is given. Set false with `dlq_arn` when that ARN is known only after apply (a queue created elsewhere in the same stack): Terraform must know at plan whether the DLQ resource exists, and an unknown ARN cannot tell it (terraform-aws-modules/sqs asks the same with its `create_dlq`)."
  type        = bool
  default     = null
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
}

variable "consumer" {
  description = "The Lambda consumer of the source queue, if any: `timeout_seconds` (the function timeout, 1-900 s) and `maximum_batching_window_seconds` (0-300 s). Used to derive the visibility timeout: 6 x timeout + window (AWS guidance, so a batch can be retried before a message is redelivered)."
  type = object({
    timeout_seconds                 = number
    maximum_batching_window_seconds = optional(number, 0)
  })
  default = null
}

variable "message_retention_seconds" {
  description = "How long the source queue keeps a message, 86400-1209600 s. Default 4 days (345600, the AWS default). Less than 1 day is refused: an outage over a weekend night would silently delete work. It must be above `delay_seconds` + `max_receive_count` x the visibility timeout, or a message that fails every receive is deleted before it reaches the DLQ (refused, with the numbers)."
  type        = number
  default     = 345600
  nullable    = false
}

variable "dlq_message_retention_seconds" {
  description = "How long the DLQ keeps a message, 60-1209600 s, and strictly more than `message_retention_seconds`. Default 14 days (the SQS maximum). On a standard queue a message keeps its original enqueue time when it moves to the DLQ, so a DLQ retention not above the source's deletes failed messages before anyone can look at them. Not used with `dlq_arn`."
  type        = number
  default     = 1209600
  nullable    = false
}

variable "max_receive_count" {
  description = "Receives before a message moves to the DLQ (the redrive policy's maxReceiveCount), 2-1000. Default 5. 1 is refused: a single timeout or a console peek would send a good message to the DLQ. `delay_seconds` + max_receive_count x the visibility timeout must stay below `message_retention_seconds` (see there)."
  type        = number
  default     = 5
  nullable    = false
}

variable "receive_wait_time_seconds" {
  description = "Long-polling wait of the source queue, 1-20 s. Default 20. 0 (short polling: empty receives, cost, false-empty reads) is refused unless `allow_short_polling` is true."
  type        = number
  default     = 20
  nullable    = false
}

variable "allow_short_polling" {
  description = "Opt-out that permits `receive_wait_time_seconds = 0` (and `dlq_receive_wait_time_seconds = 0`). Short polling samples a subset of SQS servers, so receives can come back empty while messages wait, and every empty receive is billed. Only for consumers that must never block."
  type        = bool
  default     = false
  nullable    = false
}

variable "delay_seconds" {
  description = "Delivery delay of the source queue, 0-900 s."
  type        = number
  default     = 0
  nullable    = false
}

variable "max_message_size" {
  description = "Maximum message size of both queues in bytes, 1024-1048576. Default null: the AWS provider's default, 262144 (256 KiB), not SQS's own default of 1 MiB: a queue created without it takes 256 KiB. SQS has accepted up to 1048576 since August 2025; the AWS provider in use decides above 262144: 6.8.0 and later accept it, 5.x and 6.0-6.7 refuse it at plan with their own error (`expected max_message_size to be in the range (1024 - 262144)`). Larger payloads belong in the claim-check bucket."
  type        = number
  default     = null
}

variable "kms_master_key_id" {
  description = "KMS key (ID, ARN or alias) for SSE-KMS on both queues. Null means SSE-SQS (SQS-managed keys). Encryption is always on; there is no way to turn it off."
  type        = string
  default     = null
}

variable "kms_data_key_reuse_period_seconds" {
  description = "How long SQS reuses a data key before calling KMS again, 60-86400 s (SSE-KMS only). Default 300."
  type        = number
  default     = 300
  nullable    = false
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
}

variable "fifo_throughput_limit" {
  description = "FIFO only: `perQueue` or `perMessageGroupId` (high-throughput FIFO; requires `deduplication_scope = \"messageGroup\"`). Null leaves the AWS default (`perQueue`)."
  type        = string
  default     = null
}

# --- the dead-letter queue's own settings (terraform-aws-modules/sqs names) ------------

variable "dlq_visibility_timeout_seconds" {
  description = "Visibility timeout of the DLQ, 0-43200 s (how long a message taken for inspection or redrive stays hidden). Null: the AWS default (30 s)."
  type        = number
  default     = null
}

variable "dlq_delay_seconds" {
  description = "Delivery delay of the DLQ, 0-900 s. Null: the AWS default (0)."
  type        = number
  default     = null
}

variable "dlq_receive_wait_time_seconds" {
  description = "Long-polling wait of the DLQ, 1-20 s. Default 20. 0 is refused unless `allow_short_polling` is true."
  type        = number
  default     = 20
  nullable    = false
}

variable "dlq_kms_master_key_id" {
  description = "KMS key (ID, ARN or alias) for SSE-KMS on the DLQ. Null: the same as `kms_master_key_id` (SSE-SQS when that is null too)."
  type        = string
  default     = null
}

variable "dlq_kms_data_key_reuse_period_seconds" {
  description = "Data key reuse period of the DLQ, 60-86400 s (SSE-KMS only). Null: the same as `kms_data_key_reuse_period_seconds`."
  type        = number
  default     = null
}

variable "dlq_content_based_deduplication" {
  description = "FIFO only: content-based deduplication on the DLQ (for messages sent to it directly; moved messages keep their IDs). Null: not set (false)."
  type        = bool
  default     = null
}

variable "dlq_deduplication_scope" {
  description = "FIFO only: `queue` or `messageGroup` on the DLQ. Null: the AWS default (`queue`)."
  type        = string
  default     = null
}

variable "dlq_fifo_throughput_limit" {
  description = "FIFO only: `perQueue` or `perMessageGroupId` on the DLQ (the latter requires `dlq_deduplication_scope = \"messageGroup\"`). Null: the AWS default (`perQueue`)."
  type        = string
  default     = null
}

variable "dlq_redrive_allow_policy" {
  description = "The DLQ's redrive-allow policy, in SQS's own keys: `redrivePermission` `byQueue` (default) or `allowAll`, and `sourceQueueArns`: queues besides this one that may use the DLQ (byQueue only; this queue is always included; at most 10 in all, the SQS limit). `denyAll` is refused: this queue could not use its own DLQ. Null: byQueue naming this queue alone."
  type = object({
    redrivePermission = optional(string, "byQueue")
    sourceQueueArns   = optional(list(string), [])
  })
  default = null
}

variable "dlq_tags" {
  description = "Extra tags for the DLQ, merged over `tags`."
  type        = map(string)
  default     = {}
  nullable    = false
}

# --- queue policies ------------------------------------------------------------------

variable "queue_policy_statements" {
  description = "Extra statements for the source queue's policy (for example SNS or EventBridge as sender), in the shape of aws_iam_policy_document's `statement`: `sid`, `effect` (Allow), `actions` or `not_actions`, `principals` or `not_principals` (each `{ type, identifiers }`), `conditions` or `condition` (each `{ test, variable, values }`; both spellings are used). The resource is always the source queue, so `resources`/`not_resources` are refused. `not_actions` and `not_principals` are accepted in Deny statements only (in an Allow they grant everything else). Wildcard actions in an Allow are refused. The TLS-only deny statement is always present."
  type = list(object({
    sid            = optional(string)
    effect         = optional(string, "Allow")
    actions        = optional(list(string))
    not_actions    = optional(list(string))
    principals     = optional(list(object({ type = string, identifiers = list(string) })), [])
    not_principals = optional(list(object({ type = string, identifiers = list(string) })), [])
    conditions     = optional(list(object({ test = string, variable = string, values = list(string) })), [])
    condition      = optional(list(object({ test = string, variable = string, values = list(string) })), [])
    resources      = optional(list(string))
    not_resources  = optional(list(string))
  }))
  default  = []
  nullable = false
}

variable "dlq_policy_statements" {
  description = "Extra statements for the DLQ's policy, same shape and rules as `queue_policy_statements`. The resource is always the DLQ."
  type = list(object({
    sid            = optional(string)
    effect         = optional(string, "Allow")
    actions        = optional(list(string))
    not_actions    = optional(list(string))
    principals     = optional(list(object({ type = string, identifiers = list(string) })), [])
    not_principals = optional(list(object({ type = string, identifiers = list(string) })), [])
    conditions     = optional(list(object({ test = string, variable = string, values = list(string) })), [])
    condition      = optional(list(object({ test = string, variable = string, values = list(string) })), [])
    resources      = optional(list(string))
    not_resources  = optional(list(string))
  }))
  default  = []
  nullable = false
}

variable "source_queue_policy_documents" {
  description = "Whole IAM policy documents (JSON, e.g. `data.aws_iam_policy_document.x.json`) merged into the source queue's policy, under the module's statements (a statement with the same `Sid` in `queue_policy_statements` wins). A statement without `Resource` gets the source queue's ARN. The same rules apply as to statements (no Allow to `*` without a condition, no wildcard or NotAction Allow, no NotPrincipal Allow), checked at plan when the documents are known."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "override_queue_policy_documents" {
  description = "Whole IAM policy documents merged over the source queue's policy: a statement whose `Sid` matches one of the module's statements replaces it, except the TLS-only deny (`DenyInsecureTransport`), which always stays. A statement without `Resource` gets the source queue's ARN. Same rules as `source_queue_policy_documents`."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "source_dlq_queue_policy_documents" {
  description = "Like `source_queue_policy_documents`, for the DLQ's policy (the default Resource is the DLQ)."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "override_dlq_queue_policy_documents" {
  description = "Like `override_queue_policy_documents`, for the DLQ's policy."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "prevent_destroy" {
  description = "Refuse, at plan time, every plan that deletes or replaces the queue or its DLQ (and so their messages): renaming either, switching `fifo`, or removing the pair fails with Terraform's \"Instance cannot be destroyed\" naming this module's `terraform_data.prevent_destroy[0]` (`terraform_data.prevent_destroy_queue[0]` with `dlq_arn`, which guards the queue alone). In-place changes plan as usual. To lift it for a planned removal: set it false and run `terraform state rm` on that guard (it holds no infrastructure), then plan again. Default false."
  type        = bool
  default     = false
  nullable    = false
}
# END GENERATED queue-variables

variable "account_id" {
  description = "AWS account ID the queues live in, used to build their ARNs at plan time (the DLQ's redrive-allow policy and the queue policies need the ARN before the queue exists). Null: looked up with sts:GetCallerIdentity, which needs AWS access: set it for plans made without credentials."
  type        = string
  default     = null
}

variable "partition" {
  description = "AWS partition the queues live in (`aws`, `aws-cn`, `aws-us-gov`, ...), used to build their ARNs at plan time. Null: the provider's, looked up. The root module passes the value it looked up once for all queues."
  type        = string
  default     = null
}

variable "region" {
  description = "Region the queues live in (the provider's region), used to build their ARNs at plan time. Null: the provider's, looked up. The root module passes the value it looked up once for all queues."
  type        = string
  default     = null
}

variable "input_names" {
  description = "How refusal messages name this module's inputs: a map from variable name to the caller's name for it (the root module passes e.g. `{ max_receive_count = \"queues[\\\"orders\\\"].max_receive_count\" }`, or `queue_defaults.max_receive_count` when the value came from there). Variables not listed are named as themselves."
  type        = map(string)
  default     = {}
  nullable    = false
}

variable "tags" {
  description = "Tags for both queues. The DLQ also gets `dlq_for = <source queue name>` and `dlq_tags`. SQS allows 50 tags per queue: more (the DLQ's counted with `dlq_tags` and `dlq_for`) is refused at plan."
  type        = map(string)
  default     = {}
  nullable    = false
}
