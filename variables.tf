# The object inputs are `type = any` on purpose: Terraform's object types drop
# attributes they do not declare without a word, so a typo (`visibility_timeout`
# for `visibility_timeout_seconds`) or a spelling from another module
# (`condition` for `conditions`) would plan green with the default. Here every
# attribute is kept, and internal/inputs refuses those the module does not know,
# naming the queue, the attribute and the closest valid name. The attributes
# each input takes are listed in its description (and in the README).

variable "queues" {
  # BEGIN GENERATED queues-description: `make plumbing` writes what follows from tooling/queue_settings.py; do not edit
  description = "Queue/DLQ pairs to create, keyed by queue name (the key is the source queue's name unless `name` is given; `name_prefix` is put in front). Every attribute is optional; an unknown attribute is refused. Settings resolve as: the queue's own value, then (visibility timeout only) the value its `consumer` derives, then `queue_defaults`, then the module default. Attributes (see modules/queue for the meaning and bounds of each): `name`, `dlq_name`, `dlq_arn` (use an existing DLQ instead of creating one), `create_dlq` (false with `dlq_arn` when that ARN is known only after apply, e.g. a queue of the same stack: Terraform must know at plan whether the DLQ exists), `fifo`, `visibility_timeout_seconds`, `message_retention_seconds`, `dlq_message_retention_seconds`, `max_receive_count`, `receive_wait_time_seconds`, `allow_short_polling`, `delay_seconds`, `max_message_size`, `kms_master_key_id`, `kms_data_key_reuse_period_seconds`, `sqs_managed_sse_enabled` (true only: encryption is always on), `content_based_deduplication`, `deduplication_scope`, `fifo_throughput_limit`; for the DLQ `dlq_visibility_timeout_seconds`, `dlq_delay_seconds`, `dlq_receive_wait_time_seconds`, `dlq_kms_master_key_id`, `dlq_kms_data_key_reuse_period_seconds`, `dlq_sqs_managed_sse_enabled`, `dlq_content_based_deduplication`, `dlq_deduplication_scope`, `dlq_fifo_throughput_limit`, `dlq_redrive_allow_policy`, `dlq_tags`; policies: `queue_policy_statements`, `dlq_policy_statements` (a list, or a map keyed by name; each statement `sid`, `effect`, `actions`/`not_actions`, `principals`/`not_principals`, `conditions`/`condition`), `source_queue_policy_documents`, `override_queue_policy_documents`, `source_dlq_queue_policy_documents`, `override_dlq_queue_policy_documents`; `alarm_thresholds` (overrides `alarms.thresholds`), `prevent_destroy` (default false: true makes any plan that deletes or replaces the pair, such as a new `name`, `dlq_name` or `fifo` or a removed or renamed key, fail at plan time; see modules/queue), `tags`. `consumer`: `timeout_seconds` (required: the consumer function's timeout) and `maximum_batching_window_seconds` (0) derive the visibility timeout (6 x timeout + window); the event source mapping's `batch_size` (10), `maximum_concurrency` (10), `filter_patterns` ([]), `report_batch_item_failures` (true), `enabled` (true), `provisioned_poller_config` (null: standard mode; `{ minimum_pollers, maximum_pollers }` for provisioned mode, bounded by `maximum_pollers` instead of `maximum_concurrency`, which is then refused); `function_name` names an existing function (a function of the same stack goes in `consumer_functions`)."
  # END GENERATED queues-description
  type     = any
  default  = {}
  nullable = false

  validation {
    condition = can(keys(var.queues)) && alltrue([for k in try(keys(var.queues), []) : can(regex("^[A-Za-z0-9_-]{1,75}(\\.fifo)?$", k))])
    error_message = (can(keys(var.queues))
      ? "queues: ${join(", ", [for k in keys(var.queues) : "\"${k}\"" if !can(regex("^[A-Za-z0-9_-]{1,75}(\\.fifo)?$", k))])}: every key must be a queue name of 1-75 letters, digits, hyphens or underscores (optionally ending in .fifo)."
      : "queues: must be a map of queue key => settings, such as { orders = {} }."
    )
  }
}

variable "queue_defaults" {
  description = "Defaults shared by every entry of `queues`; an attribute set on a queue wins, and a queue's consumer-derived visibility timeout wins over `visibility_timeout_seconds` here. Takes the settings of a `queues` entry (every attribute listed there except `name`, `dlq_name`, `consumer`, the policies, `dlq_redrive_allow_policy`, `dlq_tags`, `alarm_thresholds` and `tags`); `dlq_arn` here makes every queue use one existing DLQ. Attributes left unset take the module defaults (SSE-SQS, 4-day retention, 14-day DLQ retention, maxReceiveCount 5, 20 s long polling, prevent_destroy false)."
  type        = any
  default     = {}
  nullable    = false
}

variable "consumer_functions" {
  description = "Lambda functions defined in the same stack that consume queues, keyed by queue key: `function_name` (required; e.g. aws_lambda_function.x.function_name) and `timeout_seconds` (optional; e.g. aws_lambda_function.x.timeout, checked against the queue's visibility timeout at plan). The event source mapping is created after the function. Kept apart from `queues` so that the queues, their URLs and policy documents do not depend on the function, whose environment and role read them: no cycle. The queue's `consumer` must still give `timeout_seconds` (as a literal or a local shared with the function) and holds the mapping's settings."
  type        = any
  default     = {}
  nullable    = false
}

variable "name_prefix" {
  description = "Put in front of every queue and DLQ name (`<name_prefix><key>`, `<name_prefix><key>-dlq`), e.g. `prod-`. The keys of `queues` and outputs stay unprefixed. Names stay fixed (unlike terraform-aws-modules/sqs's `use_name_prefix`, which adds a random suffix), so every ARN is known at plan."
  type        = string
  default     = ""
  nullable    = false

  validation {
    condition     = can(regex("^[A-Za-z0-9_-]{0,40}$", var.name_prefix))
    error_message = "name_prefix: \"${var.name_prefix}\" must be at most 40 letters, digits, hyphens or underscores (it is part of every queue name, which SQS caps at 80 characters)."
  }
}

variable "account_id" {
  description = "AWS account ID, used to build queue ARNs at plan time. Null: looked up once with sts:GetCallerIdentity, which needs AWS access. Set it for plans made without credentials (CI plan checks, offline plans): otherwise the plan fails on the STS call."
  type        = string
  default     = null

  validation {
    condition     = var.account_id == null || can(regex("^[0-9]{12}$", coalesce(var.account_id, "x")))
    error_message = "account_id: \"${coalesce(var.account_id, "-")}\" must be a 12-digit AWS account ID, or null to look it up."
  }
}

variable "tags" {
  description = "Tags for every resource the module creates; merged under each queue's own tags. AWS's rules are checked at plan: keys of 1-128 and values of at most 256 letters, digits, spaces or `_ . : / = + - @`, no `aws:` prefix."
  type        = map(string)
  default     = {}
  nullable    = false

  validation {
    condition     = alltrue([for t in keys(var.tags) : !startswith(lower(t), "aws:") && can(regex("^[\\p{L}\\p{Z}\\p{N}_.:/=+@-]{1,128}$", t))])
    error_message = "tags: ${join(", ", [for t in keys(var.tags) : "\"${t}\"" if startswith(lower(t), "aws:") || !can(regex("^[\\p{L}\\p{Z}\\p{N}_.:/=+@-]{1,128}$", t))])}: AWS refuses these tag keys (a key is 1-128 letters, digits, spaces or _ . : / = + - @, and the aws: prefix is reserved for AWS's own tags). Rename them."
  }

  # apart from the keys: a value may be known only after apply (an ARN of the stack)
  validation {
    condition = alltrue([for t, v in var.tags : v != null && can(regex("^[\\p{L}\\p{Z}\\p{N}_.:/=+@-]{0,256}$", v))])
    error_message = join("\n", [for t, v in var.tags : (v == null
      ? "tags: the value of tag \"${t}\" is null: a tag value must be a string (\"\" for an empty one). Give its value, or remove the tag (a lookup that found nothing, or a variable left unset?)."
      : "tags: the value of tag \"${t}\" is refused by AWS: a value is at most 256 letters, digits, spaces or _ . : / = + - @ (it has ${length(v)} characters${can(regex("^[\\p{L}\\p{Z}\\p{N}_.:/=+@-]*$", v)) ? "" : ", some outside that set"}). Shorten it or replace those characters."
    ) if v == null || !can(regex("^[\\p{L}\\p{Z}\\p{N}_.:/=+@-]{0,256}$", v))])
  }
}

variable "claim_check_bucket" {
  description = "Optional S3 bucket for payloads too large for a message (modules/claim-check-bucket). `enabled` (default false) needs `name`. `queues`: keys of `queues` whose producers offload to it (null = all); the payload expiry defaults to the longest a message of theirs can live before its DLQ deletes it (the DLQ retention; source + DLQ retention for FIFO, whose DLQ resets the enqueue time; 14 days for an existing DLQ given by `dlq_arn`, whose retention is not known) in days, rounded up, and a smaller `expiration_days` is refused. Also `payload_prefix` (\"payloads/\"), `kms_key_arn` (null = SSE-S3), `versioning_enabled`, `force_destroy` (false), `abort_incomplete_multipart_upload_days` (1), `access_log_bucket`, `prevent_destroy` (false: true makes a plan that deletes or replaces the bucket fail at plan time), `tags`. An unknown attribute is refused."
  type        = any
  default     = {}
  nullable    = false

  validation {
    condition     = try(var.claim_check_bucket.enabled, false) != true || try(var.claim_check_bucket.name, null) != null
    error_message = "claim_check_bucket.name: required when claim_check_bucket.enabled = true (S3 bucket names are global; choose one such as \"<team>-<env>-claim-check\")."
  }
}

variable "idempotency_table" {
  description = "Optional DynamoDB table for Powertools-style idempotency (modules/idempotency-table). `enabled` (default false) needs `name`. Also `sort_key_attr` (null), `kms_key_arn` (null = AWS-owned key), `deletion_protection_enabled` (true), `prevent_destroy` (false: true makes a plan that deletes or replaces the table fail at plan time; deletion protection only refuses at apply), `tags`. Consumers of every queue get item access to it. An unknown attribute is refused."
  type        = any
  default     = {}
  nullable    = false

  validation {
    condition     = try(var.idempotency_table.enabled, false) != true || try(var.idempotency_table.name, null) != null
    error_message = "idempotency_table.name: required when idempotency_table.enabled = true."
  }
}

variable "alarms" {
  description = "CloudWatch alarms for every queue and DLQ (modules/alarms), on by default (`enabled`; `enabled = false` creates no alarm and no topic, and any other `alarms` setting or a queue's `alarm_thresholds` is then refused, as it would do nothing). They notify `sns_topic_arn` (an existing topic), or a topic the module creates when `create_sns_topic = true` (encrypted with `sns_kms_master_key_id`, or with a key the module creates that CloudWatch may use: about 1 USD a month). With neither, no topic and no key are created and the alarms notify nobody: the plan warns and the `alarms` output says so (`notifies_nobody`); set `create_sns_topic = false` to say that is intended. `kinds`: which alarms each pair gets, by default `[\"dlq_depth\", \"age_critical\"]` (a message in the DLQ; the oldest message older than `age_critical_seconds`); add `dlq_influx`, `dlq_stale`, `age_warning`, `backlog` for more (see modules/alarms; each is one more CloudWatch alarm per queue). Also `sns_topic_name`, `notify_on_ok` (true), `alarm_name_prefix`, and `thresholds` (see modules/alarms). Alarms that could never fire are refused: `kinds = []` (use `enabled = false`), and an age threshold (`age_warning_seconds`, `age_critical_seconds`) at or above the queue's `message_retention_seconds`, or `dlq_stale_age_seconds` at or above the DLQ's retention (SQS deletes a message at that age). An unknown attribute is refused."
  type        = any
  default     = {}
  nullable    = false
}

variable "iam" {
  description = "Least-privilege policy documents per queue (modules/iam), always output: producer, consumer, redrive operator. `create_managed_policies` (false) also creates them as IAM policies named `<name_prefix><queue name>-<role>` (`.fifo` becomes `-fifo`) under `path` (`name_prefix` and `path` are refused without it: they would do nothing). `kms_key_arns`: extra key ARNs to grant; needed when a queue or the bucket uses a customer-managed key by alias, which cannot be resolved to its ARN at plan time. An unknown attribute is refused."
  type        = any
  default     = {}
  nullable    = false
}

variable "dlq_redrive" {
  description = "Optional automated redrive of every DLQ the module creates (modules/dlq-redrive): a scheduled function per DLQ that sends messages back to their source at most `max_messages_per_second`, and archives those redriven `max_redrive_count` times, older than `max_message_age_seconds`, or failed for a reason in `permanent_failure_reasons` under `archive_prefix` in the claim-check bucket (which must then be enabled; `archive_bucket_name` names another bucket instead). `queues`: keys of `queues` to cover (null = every queue whose DLQ the module creates; a queue using an existing DLQ via `dlq_arn` cannot be listed: that DLQ may hold other queues' messages). `alarm_actions`: what the functions' errors alarms notify; null (unset) = the alarms topic (`alarms.sns_topic_arn` or the created one). With neither, they notify nobody and the plan warns (check `redrive_alarms_notify_someone`), unless `alarm_actions = []` or `alarms.create_sns_topic = false` says that is intended: the alarms are then created with `actions_enabled = false`. See modules/dlq-redrive for the rest. An unknown attribute is refused."
  type        = any
  default     = {}
  nullable    = false
}
