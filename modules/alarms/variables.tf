variable "queues" {
  description = "Queue/DLQ pairs to watch, keyed by any stable label (the root module uses its queue keys): `queue_name`, `dlq_name`, and optional per-queue `thresholds` overriding the module-wide ones. `dlq_alarms` (true) false leaves out the three DLQ alarms (a DLQ shared by several entries is watched once). `input_name`: how refusal messages name the entry's thresholds (default `queues[\"<key>\"].thresholds`). `retention_seconds` and `dlq_retention_seconds` (optional): how long the queue and the DLQ keep a message; an age threshold (`age_warning_seconds`, `age_critical_seconds`; `dlq_stale_age_seconds` for the DLQ) not below them is refused, as the oldest message is deleted at that age and the alarm could never fire (`retention_input`, `dlq_retention_input`: how refusals name them)."
  type = map(object({
    queue_name = string
    dlq_name   = string
    dlq_alarms = optional(bool, true)
    input_name = optional(string)
    # how long the queue and its DLQ keep a message (null: not known, not checked), and how
    # refusals name them: an age alarm above them could never fire
    retention_seconds     = optional(number)
    dlq_retention_seconds = optional(number)
    retention_input       = optional(string)
    dlq_retention_input   = optional(string)
    thresholds = optional(object({
      dlq_influx_messages           = optional(number)
      dlq_influx_evaluation_periods = optional(number)
      dlq_stale_age_seconds         = optional(number)
      age_warning_seconds           = optional(number)
      age_critical_seconds          = optional(number)
      backlog_messages              = optional(number)
      backlog_evaluation_periods    = optional(number)
    }), {})
  }))
  nullable = false

  validation {
    condition = alltrue([for q in values(var.queues) : alltrue([
      for n in [q.queue_name, q.dlq_name] : can(regex("^[A-Za-z0-9_-]+(\\.fifo)?$", n)) && length(n) <= 80
    ])])
    error_message = "${join("; ", flatten([for key, q in var.queues : [
      for a, n in zipmap(["queue_name", "dlq_name"], [q.queue_name, q.dlq_name]) : "queues[\"${key}\"].${a}: ${jsonencode(n)}" if !(can(regex("^[A-Za-z0-9_-]+(\\.fifo)?$", n)) && length(n) <= 80)
    ]]))}: queue_name and dlq_name must be SQS queue names (1-80 letters, digits, hyphens, underscores, optional .fifo suffix), not URLs or ARNs: the alarms use them as the QueueName dimension. Give the name, the last part of the queue's ARN or URL."
  }

  validation {
    condition = alltrue([for q in values(var.queues) : alltrue([
      for k, v in q.thresholds : v == null || try(v >= 1 && floor(v) == v, false)
    ])])
    error_message = "${join(", ", flatten([for key, q in var.queues : [
      for k, v in q.thresholds : "${coalesce(q.input_name, "queues[\"${key}\"].thresholds")}.${k} = ${v}" if !(v == null || try(v >= 1 && floor(v) == v, false))
    ]]))}: every override must be a whole number of at least 1 (messages, seconds or periods), or unset to take the module-wide value."
  }

  # the same bounds as the module-wide thresholds
  validation {
    condition = alltrue([for q in values(var.queues) : alltrue([
      for k, v in q.thresholds : v == null || try(!endswith(k, "_seconds") || v >= 60, false) && try(!endswith(k, "_periods") || v <= 1440, false)
    ])])
    error_message = "${join("; ", flatten([for key, q in var.queues : [
      for k, v in q.thresholds : "${coalesce(q.input_name, "queues[\"${key}\"].thresholds")}.${k} = ${v} must be ${endswith(k, "_seconds") ? "at least 60 (SQS publishes its metrics once a minute, so a shorter age is never seen)" : "at most 1440 one-minute periods (one day, CloudWatch's limit)"}" if !(v == null || try(!endswith(k, "_seconds") || v >= 60, false) && try(!endswith(k, "_periods") || v <= 1440, false))
    ]]))}."
  }
}

variable "kinds" {
  description = "Which alarms to create for each pair. DLQ: `dlq_depth` (any visible message), `dlq_influx` (more than `dlq_influx_messages` added per minute), `dlq_stale` (oldest message older than `dlq_stale_age_seconds`). Source queue: `age_warning` and `age_critical` (oldest message older than `age_warning_seconds` / `age_critical_seconds`), `backlog` (more than `backlog_messages` visible). Default: `dlq_depth` and `age_critical`, the two that make a failed message and a stalled consumer visible (the plan checker's CW001 and CW002 ask for them); each further kind is one more CloudWatch alarm per queue. An empty list is refused: it creates no alarm (do not call the module instead)."
  type        = set(string)
  default     = ["dlq_depth", "age_critical"]
  nullable    = false

  validation {
    condition     = length(setsubtract(var.kinds, ["dlq_depth", "dlq_influx", "dlq_stale", "age_warning", "age_critical", "backlog"])) == 0
    error_message = "${var.input_prefix}kinds: ${join(", ", [for k in setsubtract(var.kinds, ["dlq_depth", "dlq_influx", "dlq_stale", "age_warning", "age_critical", "backlog"]) : "\"${k}\""])} is not a kind of alarm; valid kinds: dlq_depth, dlq_influx, dlq_stale, age_warning, age_critical, backlog."
  }

  # With both age alarms, the warning must come first. A validation (here, as
  # `local.thresholds` depends on var.queues), not a precondition of each alarm:
  # Terraform records a precondition's result per alarm in the plan, and a
  # validation's once for this (single) module call.
  validation {
    condition = !(contains(var.kinds, "age_warning") && contains(var.kinds, "age_critical")) || alltrue([
      for k, t in local.thresholds : t.age_critical_seconds > t.age_warning_seconds
    ])
    error_message = "${join("; ", distinct([for k, t in local.thresholds : "${var.queues[k].thresholds.age_critical_seconds != null || var.queues[k].thresholds.age_warning_seconds != null ? coalesce(var.queues[k].input_name, "queues[\"${k}\"].thresholds") : "${var.input_prefix}thresholds"}: age_critical_seconds (${t.age_critical_seconds}) must be greater than age_warning_seconds (${t.age_warning_seconds})" if t.age_critical_seconds <= t.age_warning_seconds]))}, or the warning never comes first."
  }

  # kinds = [] with alarms on: no alarm at all, which is what not calling the module says
  validation {
    condition     = length(var.kinds) > 0
    error_message = "${var.input_prefix}kinds: [] creates no alarm for any queue: a failed message in a DLQ or a stalled consumer would go unseen while the alarms look configured. List the kinds to create (the default is [\"dlq_depth\", \"age_critical\"]), or, to go without alarms, ${var.input_prefix == "alarms." ? "set alarms.enabled = false" : "do not call this module"}."
  }

  # An age alarm at or above the retention can never fire: SQS deletes a message at
  # the retention age, so ApproximateAgeOfOldestMessage never exceeds it.
  validation {
    condition     = length(flatten([for kind, m in local.never_firing : m if contains(var.kinds, kind)])) == 0
    error_message = join("\n", flatten([for kind, m in local.never_firing : m if contains(var.kinds, kind)]))
  }
}

variable "thresholds" {
  description = "Module-wide alarm thresholds (all optional). DLQ: `dlq_influx_messages` per minute for `dlq_influx_evaluation_periods` minutes (50, 2), `dlq_stale_age_seconds` (3600). Source queue: `age_warning_seconds` (300), `age_critical_seconds` (1800), `backlog_messages` visible for `backlog_evaluation_periods` minutes (1000, 5). The DLQ depth alarm (> 0 visible) has no threshold to tune."
  type = object({
    dlq_influx_messages           = optional(number, 50)
    dlq_influx_evaluation_periods = optional(number, 2)
    dlq_stale_age_seconds         = optional(number, 3600)
    age_warning_seconds           = optional(number, 300)
    age_critical_seconds          = optional(number, 1800)
    backlog_messages              = optional(number, 1000)
    backlog_evaluation_periods    = optional(number, 5)
  })
  default  = {}
  nullable = false

  validation {
    condition     = alltrue([for k, v in var.thresholds : try(v >= 1 && floor(v) == v, false)])
    error_message = "${join("; ", [for k, v in var.thresholds : "${var.input_prefix}thresholds.${k} = ${v}" if !try(v >= 1 && floor(v) == v, false)])}: must be a whole number of at least 1 (messages, seconds or periods)."
  }

  validation {
    condition     = alltrue([for k, v in var.thresholds : try(!endswith(k, "_seconds") || v >= 60, false) && try(!endswith(k, "_periods") || v <= 1440, false)])
    error_message = "${join("; ", [for k, v in var.thresholds : "${var.input_prefix}thresholds.${k} = ${v} must be ${endswith(k, "_seconds") ? "at least 60 (SQS publishes its metrics once a minute, so a shorter age is never seen)" : "at most 1440 one-minute periods (one day, CloudWatch's limit)"}" if !(try(!endswith(k, "_seconds") || v >= 60, false) && try(!endswith(k, "_periods") || v <= 1440, false))])}."
  }
}

variable "sns_topic_arn" {
  description = "Existing SNS topic for alarm and OK notifications. Its encryption key (if any) must let cloudwatch.amazonaws.com use kms:GenerateDataKey and kms:Decrypt. Null: see `create_sns_topic`."
  type        = string
  default     = null

  validation {
    condition     = var.sns_topic_arn == null || can(regex("^arn:[a-z-]+:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,256}$", coalesce(var.sns_topic_arn, "x")))
    error_message = "${var.input_prefix}sns_topic_arn: ${jsonencode(var.sns_topic_arn)} must be a standard SNS topic ARN (arn:aws:sns:<region>:<account>:<name>); CloudWatch alarms cannot notify FIFO topics."
  }
}

variable "create_sns_topic" {
  description = "Create an encrypted SNS topic for the alarms. Null (default): create one exactly when `sns_topic_arn` is not given. False with no `sns_topic_arn`: alarms without notifications."
  type        = bool
  default     = null
}

variable "sns_topic_name" {
  description = "Name of the created topic; required when the module creates one. It has no default: a name built from the queues (before: `<alarm_name_prefix>sqs-alarms-<first queue name>`) changed when a queue was added, and a renamed topic is replaced, losing its subscriptions. A stack whose topic has that name keeps it by giving the name here."
  type        = string
  default     = null

  validation {
    condition     = var.sns_topic_name == null || can(regex("^[A-Za-z0-9_-]{1,256}$", coalesce(var.sns_topic_name, "x")))
    error_message = "${var.input_prefix}sns_topic_name: \"${coalesce(var.sns_topic_name, "-")}\" must be 1-256 letters, digits, hyphens or underscores."
  }

  validation {
    # (with sns_topic_arn too, the conflict is the mistake: aws_sns_topic.alarms says so)
    condition     = var.sns_topic_name != null || !local.create_topic || var.sns_topic_arn != null
    error_message = "${var.input_prefix}sns_topic_name: required when the module creates the alarm topic (${var.input_prefix}create_sns_topic = true). The name must not depend on which queues exist: the former default, named after the first queue, changed when a queue was added, which replaced the topic and deleted every subscription on it. If this stack already has the topic, keep it: sns_topic_name = \"${local.former_topic_name}\". Otherwise choose a name, such as \"<team>-<env>-sqs-alarms\"."
  }
}

variable "sns_kms_master_key_id" {
  description = "KMS key (ARN, ID or alias) encrypting the created topic; its key policy must allow cloudwatch.amazonaws.com kms:GenerateDataKey and kms:Decrypt. Null (default): the module creates such a key (with rotation). `alias/aws/sns` is refused: CloudWatch cannot use that AWS-managed key, so alarm notifications would never arrive."
  type        = string
  default     = null

  validation {
    condition     = var.sns_kms_master_key_id == null || try(length(trimspace(var.sns_kms_master_key_id)) > 0 && !endswith(var.sns_kms_master_key_id, "alias/aws/sns"), false)
    error_message = "${var.input_prefix}sns_kms_master_key_id: alias/aws/sns (or an empty string) is refused. CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed SNS key (its key policy cannot grant cloudwatch.amazonaws.com), so every notification would be dropped. Leave it null to let the module create a suitable key, or give a customer-managed key whose policy allows cloudwatch.amazonaws.com kms:GenerateDataKey and kms:Decrypt."
  }
}

variable "notify_on_ok" {
  description = "Also notify the topic when an alarm returns to OK."
  type        = bool
  default     = true
  nullable    = false
}

variable "alarm_name_prefix" {
  description = "Prefix for every alarm name, e.g. `prod-` (not of the created topic: its name is `sns_topic_name`)."
  type        = string
  default     = ""
  nullable    = false

  validation {
    condition     = can(regex("^[A-Za-z0-9_-]{0,100}$", var.alarm_name_prefix))
    error_message = "${var.input_prefix}alarm_name_prefix: ${jsonencode(var.alarm_name_prefix)} must be at most 100 letters, digits, hyphens or underscores."
  }
}

variable "input_prefix" {
  description = "Put in front of an input's name in refusal messages: the root module passes \"alarms.\" so that they name `alarms.thresholds.<name>`, as the user wrote it."
  type        = string
  default     = ""
  nullable    = false
}

variable "account_id" {
  description = "AWS account ID, used for the created topic's and key's policies. Null: looked up with sts:GetCallerIdentity (only when a topic is created)."
  type        = string
  default     = null

  validation {
    condition     = var.account_id == null || can(regex("^[0-9]{12}$", coalesce(var.account_id, "x")))
    error_message = "account_id: must be a 12-digit AWS account ID, or null to look it up."
  }
}

variable "tags" {
  description = "Tags for the alarms, the topic and the key."
  type        = map(string)
  default     = {}
  nullable    = false
}
