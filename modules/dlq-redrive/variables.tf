variable "name" {
  description = "Name of the redrive function (also its role, log group, schedule and alarm). 1-55 characters: letters, digits, hyphens, underscores."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9_-]{1,55}$", var.name))
    error_message = "name: must be 1-55 letters, digits, hyphens or underscores (Lambda allows 64, but the schedule rule is named <name>-schedule and EventBridge allows 64)."
  }
}

variable "dlq" {
  description = "The dead-letter queue to drain: its `url` and `arn` (e.g. modules/queue outputs `dlq_url` and `dlq_arn`). Deploy the function in the DLQ's account and region: its log permissions name the log group there."
  type = object({
    url = string
    arn = string
  })

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:sqs:", var.dlq.arn)) && can(regex("^https?://", var.dlq.url))
    error_message = "dlq: arn must be an SQS queue ARN (arn:aws:sqs:…) and url its https:// queue URL."
  }
}

variable "source_queue" {
  description = "The queue messages are redriven to: its `url` and `arn` (modules/queue outputs `queue_url` and `queue_arn`). A FIFO source (URL ending .fifo) keeps each message's group."
  type = object({
    url = string
    arn = string
  })

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:sqs:", var.source_queue.arn)) && can(regex("^https?://", var.source_queue.url))
    error_message = "source_queue: arn must be an SQS queue ARN (arn:aws:sqs:…) and url its https:// queue URL."
  }
}

variable "schedule_expression" {
  description = "When the function runs: an EventBridge `rate(...)` or `cron(...)` expression. Default every 5 minutes."
  type        = string
  default     = "rate(5 minutes)"
  nullable    = false

  validation {
    condition     = can(regex("^(rate\\([1-9][0-9]* (minute|minutes|hour|hours|day|days)\\)|cron\\(.+\\))$", var.schedule_expression))
    error_message = "${var.input_prefix}schedule_expression: ${jsonencode(var.schedule_expression)} must be rate(N minute[s]|hour[s]|day[s]) or cron(...), e.g. \"rate(5 minutes)\"."
  }
}

variable "enabled" {
  description = "Whether the schedule is enabled. Disabling it is the kill switch for the whole redrive (messages stay in the DLQ)."
  type        = bool
  default     = true
  nullable    = false
}

variable "max_messages_per_second" {
  description = "Maximum redrive rate, messages per second, so a redrive does not overwhelm a consumer that just recovered. 0.1-3000."
  type        = number
  default     = 10
  nullable    = false

  validation {
    condition     = var.max_messages_per_second >= 0.1 && var.max_messages_per_second <= 3000
    error_message = "${var.input_prefix}max_messages_per_second: ${jsonencode(var.max_messages_per_second)} must be from 0.1 to 3000."
  }
}

variable "max_messages_per_run" {
  description = "Upper bound of messages handled by one run. The run also stops when the DLQ is empty or the function is about to time out."
  type        = number
  default     = 1000
  nullable    = false

  validation {
    condition     = var.max_messages_per_run >= 1 && var.max_messages_per_run <= 1000000 && floor(var.max_messages_per_run) == var.max_messages_per_run
    error_message = "${var.input_prefix}max_messages_per_run: ${jsonencode(var.max_messages_per_run)} must be a whole number from 1 to 1000000."
  }
}

variable "max_redrive_count" {
  description = "Kill switch: a message already redriven this many times (`x-redrive-count`) is archived instead of redriven again. 1-100."
  type        = number
  default     = 3
  nullable    = false

  validation {
    condition     = var.max_redrive_count >= local.max_redrive_count_min && var.max_redrive_count <= local.max_redrive_count_max && floor(var.max_redrive_count) == var.max_redrive_count
    error_message = "${var.input_prefix}max_redrive_count: ${jsonencode(var.max_redrive_count)} must be a whole number from ${local.max_redrive_count_min} to ${local.max_redrive_count_max} (a poison message would otherwise cycle between queue and DLQ forever)."
  }
}

variable "max_message_age_seconds" {
  description = "Archive instead of redrive a message first sent longer ago than this (seconds, 60-1209600). Default 3 days."
  type        = number
  default     = 259200
  nullable    = false

  validation {
    condition     = var.max_message_age_seconds >= 60 && var.max_message_age_seconds <= 1209600
    error_message = "${var.input_prefix}max_message_age_seconds: ${jsonencode(var.max_message_age_seconds)} must be from 60 to 1209600 (14 days, the longest a message can live in SQS)."
  }
}

variable "permanent_failure_reasons" {
  description = "Values of the failure-reason message attribute that mean retrying cannot help (e.g. \"VALIDATION_ERROR\"); such messages are archived at once."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "failure_reason_attribute" {
  description = "Name of the message attribute in which consumers record why a message failed."
  type        = string
  default     = "x-failure-reason"
  nullable    = false

  validation {
    condition     = can(regex("^[A-Za-z0-9_.-]{1,256}$", var.failure_reason_attribute)) && !startswith(lower(var.failure_reason_attribute), "aws.") && !startswith(lower(var.failure_reason_attribute), "amazon.")
    error_message = "${var.input_prefix}failure_reason_attribute: ${jsonencode(var.failure_reason_attribute)} must be a valid SQS message attribute name (letters, digits, _ - .; not starting with AWS. or Amazon.)."
  }
}

variable "archive" {
  description = "Where messages that are not redriven go. `type = \"s3\"`: objects under `prefix` in `bucket_name` (e.g. the claim-check bucket); `type = \"queue\"`: a separate poison queue (`queue_url`, `queue_arn`). Nothing is ever dropped."
  type = object({
    type        = string
    bucket_name = optional(string)
    prefix      = optional(string, "dlq-archive/")
    queue_url   = optional(string)
    queue_arn   = optional(string)
  })

  validation {
    condition     = contains(["s3", "queue"], var.archive.type)
    error_message = "archive.type: must be \"s3\" or \"queue\"."
  }

  validation {
    condition     = var.archive.type != "s3" || try(length(var.archive.bucket_name) > 0, false)
    error_message = "archive: type = \"s3\" needs bucket_name (for example the claim-check bucket)."
  }

  validation {
    condition     = var.archive.type != "queue" || (try(length(var.archive.queue_url) > 0, false) && can(regex("^arn:aws[a-z-]*:sqs:", var.archive.queue_arn)))
    error_message = "archive: type = \"queue\" needs queue_url and queue_arn of the poison queue."
  }

  validation {
    condition     = can(regex("^([A-Za-z0-9!_.*'()-]+/)+$", var.archive.prefix))
    error_message = "${lookup(var.input_names, "archive.prefix", "archive.prefix")}: ${jsonencode(var.archive.prefix)} must be a key prefix of one or more segments of letters, digits or !_.*'()- each ending in \"/\", without a leading slash, e.g. \"dlq-archive/\" (\"\" would put the archive at the bucket's root, among the bucket's other objects). Set it to such a prefix."
  }
}

variable "timeout_seconds" {
  description = "Function timeout, 10-900 s. The run stops early enough to finish its last batch; messages it received are hidden for `timeout_seconds + 60` s, so a crashed run releases them to the next one."
  type        = number
  default     = 120
  nullable    = false

  validation {
    condition     = var.timeout_seconds >= 10 && var.timeout_seconds <= 900
    error_message = "${var.input_prefix}timeout_seconds: ${jsonencode(var.timeout_seconds)} must be from 10 to 900."
  }
}

variable "memory_size" {
  description = "Function memory in MB."
  type        = number
  default     = 256
  nullable    = false

  validation {
    condition     = var.memory_size >= 128 && var.memory_size <= 10240
    error_message = "memory_size: must be from 128 to 10240 MB."
  }
}

variable "claim_check_bucket" {
  description = "The claim-check bucket whose payloads the queue's pointers name (`name`, `payload_prefix`), or null. When set, the function looks up the payload of every claim-check pointer it would redrive (s3:GetObject on the payload prefix; s3:ListBucket on the bucket, so a missing payload answers 404 rather than 403) and archives a pointer whose payload is gone with reason `claim-check-payload-missing`, instead of redriving it until the redrive limit."
  type = object({
    name           = string
    payload_prefix = optional(string, "payloads/")
  })
  default = null

  validation {
    condition     = var.claim_check_bucket == null || try(length(var.claim_check_bucket.name) > 0 && can(regex("^([A-Za-z0-9!_.*'()-]+/)*$", var.claim_check_bucket.payload_prefix)), false)
    error_message = "claim_check_bucket: needs the bucket's name and a payload_prefix ending in \"/\" (module output claim_check_bucket)."
  }
}

variable "reserved_concurrent_executions" {
  description = "Reserved concurrency, 1 or more. Default 1: one run at a time, so `max_messages_per_second` holds. Null (unreserved, for accounts whose concurrency quota cannot spare one) or more than 1 REMOVES THE RATE GUARANTEE: each overlapping run paces itself at `max_messages_per_second`, so two runs send up to twice that to the source queue (measured: 98/s against 50/s), and they race on the same DLQ. 0 is refused: the function could never run."
  type        = number
  default     = 1

  validation {
    condition     = var.reserved_concurrent_executions == null || try(var.reserved_concurrent_executions >= 1 && floor(var.reserved_concurrent_executions) == var.reserved_concurrent_executions, false)
    error_message = "${var.input_prefix}reserved_concurrent_executions: ${jsonencode(var.reserved_concurrent_executions)} must be a whole number of at least 1 (1 is the default and enough: runs must not overlap), or null for unreserved concurrency. 0 reserves no concurrency at all, so the redrive function could never run and the DLQ would never be redriven."
  }
}

variable "runtime" {
  description = "Lambda runtime of the function (Python 3.9 or newer)."
  type        = string
  default     = "python3.12"
  nullable    = false

  validation {
    condition     = can(regex("^python3\\.(9|1[0-9])$", var.runtime))
    error_message = "runtime: must be a Python 3 Lambda runtime such as \"python3.12\"."
  }
}

variable "log_retention_days" {
  description = "Retention of the function's log group, in days (a CloudWatch Logs allowed value)."
  type        = number
  default     = 30
  nullable    = false

  validation {
    condition     = contains([1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653], var.log_retention_days)
    error_message = "${var.input_prefix}log_retention_days: ${jsonencode(var.log_retention_days)} must be one of 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653."
  }
}

variable "log_kms_key_arn" {
  description = "KMS key ARN to encrypt the log group. Null: CloudWatch Logs default encryption."
  type        = string
  default     = null
}

variable "kms_key_arns" {
  description = "KMS keys the function must use: those of SSE-KMS queues (kms:Decrypt to receive, kms:GenerateDataKey to send) and of an SSE-KMS archive bucket."
  type        = list(string)
  default     = []
  nullable    = false

  validation {
    condition     = alltrue([for k in var.kms_key_arns : can(regex("^arn:aws[a-z-]*:kms:", k))])
    error_message = "kms_key_arns: each must be a KMS key ARN (arn:aws:kms:…); aliases cannot scope an IAM policy."
  }
}

variable "alarm_actions" {
  description = "ARNs notified when the function reports errors (e.g. your on-call SNS topic). Null (unset): nobody is notified and the plan warns (check `errors_alarm_notifies_someone`); `[]` says an alarm without notifications is intended: the alarm is then created with `actions_enabled = false`, which plan checks read as silent on purpose."
  type        = list(string)
  default     = null

  validation {
    condition     = alltrue([for a in(var.alarm_actions == null ? [] : var.alarm_actions) : can(regex("^arn:aws[a-z-]*:[a-z0-9-]+:", a))])
    error_message = "${var.input_prefix}alarm_actions: ${jsonencode([for a in(var.alarm_actions == null ? [] : var.alarm_actions) : a if !can(regex("^arn:aws[a-z-]*:[a-z0-9-]+:", a))])} ${length([for a in(var.alarm_actions == null ? [] : var.alarm_actions) : a if !can(regex("^arn:aws[a-z-]*:[a-z0-9-]+:", a))]) > 1 ? "are not ARNs" : "is not an ARN"}: an alarm action must be the ARN of what the alarm notifies, such as an SNS topic (arn:aws:sns:<region>:<account>:<topic>); CloudWatch refuses anything else at apply. Give the topic's ARN${var.input_prefix != "" ? ", or leave alarm_actions unset to notify the alarms topic (alarms.sns_topic_arn or the topic the module creates)" : ""}, or [] if an alarm without notifications is intended."
  }
}

variable "warn_when_alarms_notify_nobody" {
  description = "Warn at plan (check `errors_alarm_notifies_someone`) when `alarm_actions` is unset. The root module passes false: its own check `redrive_alarms_notify_someone` warns once for every function, naming its inputs."
  type        = bool
  default     = true
  nullable    = false
}

variable "input_names" {
  description = "How refusal messages name inputs that the caller spells differently: a map from this module's name (\"archive.prefix\") to the caller's (the root module passes `{ \"archive.prefix\" = \"dlq_redrive.archive_prefix\" }`). Inputs not listed are named as themselves, after `input_prefix`."
  type        = map(string)
  default     = {}
  nullable    = false
}

variable "tags" {
  description = "Tags for every resource."
  type        = map(string)
  default     = {}
  nullable    = false
}

variable "input_prefix" {
  description = "Put in front of an input's name in refusal messages: the root module passes \"dlq_redrive.\" so that they name the input as the user wrote it (`dlq_redrive.<name>`)."
  type        = string
  default     = ""
  nullable    = false
}
