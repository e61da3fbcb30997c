# The root module's inputs, as the user wrote them. Terraform's object types
# drop attributes they do not declare, silently: a typo would plan green with
# the default. So every input that holds objects arrives here twice: `raw`
# (type any, every attribute kept) is checked for attributes the module does
# not know; the typed copy gives the switch objects their defaults. Queue
# settings are passed on raw: each is converted by the submodule variable that
# takes it, whose errors name the queue (module.queue["<key>"].var.<name>).

variable "queues" {
  description = "The root module's `queues`, as given."
  type        = any
  default     = {}
  nullable    = false
}

variable "queue_defaults_raw" {
  description = "The root module's `queue_defaults`, as given."
  type        = any
  default     = {}
  nullable    = false
}

variable "queue_defaults" {
  description = "The root module's `queue_defaults`, typed."
  type = object({
    fifo                                  = optional(bool)
    dlq_arn                               = optional(string)
    create_dlq                            = optional(bool)
    visibility_timeout_seconds            = optional(number)
    message_retention_seconds             = optional(number)
    dlq_message_retention_seconds         = optional(number)
    max_receive_count                     = optional(number)
    receive_wait_time_seconds             = optional(number)
    allow_short_polling                   = optional(bool)
    delay_seconds                         = optional(number)
    max_message_size                      = optional(number)
    kms_master_key_id                     = optional(string)
    kms_data_key_reuse_period_seconds     = optional(number)
    sqs_managed_sse_enabled               = optional(bool)
    content_based_deduplication           = optional(bool)
    deduplication_scope                   = optional(string)
    fifo_throughput_limit                 = optional(string)
    dlq_visibility_timeout_seconds        = optional(number)
    dlq_delay_seconds                     = optional(number)
    dlq_receive_wait_time_seconds         = optional(number)
    dlq_kms_master_key_id                 = optional(string)
    dlq_kms_data_key_reuse_period_seconds = optional(number)
    dlq_sqs_managed_sse_enabled           = optional(bool)
    dlq_content_based_deduplication       = optional(bool)
    dlq_deduplication_scope               = optional(string)
    dlq_fifo_throughput_limit             = optional(string)
    prevent_destroy                       = optional(bool)
  })
  default  = {}
  nullable = false
}

variable "consumer_functions_raw" {
  description = "The root module's `consumer_functions`, as given."
  type        = any
  default     = {}
  nullable    = false
}

variable "consumer_functions" {
  description = "The root module's `consumer_functions`, typed."
  type = map(object({
    function_name   = string
    timeout_seconds = optional(number)
  }))
  default  = {}
  nullable = false
}

variable "switches_raw" {
  description = "The root module's switch objects as given: claim_check_bucket, idempotency_table, alarms, iam, dlq_redrive."
  type        = any
  default     = {}
  nullable    = false
}

variable "claim_check_bucket" {
  description = "The root module's `claim_check_bucket`, typed."
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
}

variable "idempotency_table" {
  description = "The root module's `idempotency_table`, typed."
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
}

variable "alarms" {
  description = "The root module's `alarms`, typed."
  type = object({
    enabled               = optional(bool, true)
    sns_topic_arn         = optional(string)
    create_sns_topic      = optional(bool)
    sns_topic_name        = optional(string)
    sns_kms_master_key_id = optional(string)
    notify_on_ok          = optional(bool, true)
    alarm_name_prefix     = optional(string, "")
    kinds                 = optional(set(string))
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
  description = "The root module's `iam`, typed."
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
  description = "The root module's `dlq_redrive`, typed."
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

variable "name_prefix" {
  description = "Prefix of every queue and DLQ name."
  type        = string
  default     = ""
  nullable    = false
}

variable "arn_prefix" {
  description = "`arn:<partition>:sqs:<region>:<account>`: the queues' ARNs are built from it, to find a `dlq_arn` that names a queue of this module call."
  type        = string
}
