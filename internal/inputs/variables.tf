# The root module's inputs, as the user wrote them. Terraform's object types
# drop attributes they do not declare, silently: a typo would plan green with
# the default. So every input that holds objects arrives here twice: `raw`
# (type any, every attribute kept) is checked for attributes the module does
# not know; the typed copy gives the switch objects their defaults. Each
# attribute of a typed copy is `any`: a value of the wrong type is refused by
# internal/inputs naming the user's input (claim_check_bucket.enabled), not by
# Terraform's conversion naming this module's variable. Queue
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

variable "consumer_functions_raw" {
  description = "The root module's `consumer_functions`, as given."
  type        = any
  default     = {}
  nullable    = false
}

variable "consumer_functions" {
  description = "The root module's `consumer_functions`, typed."
  type        = any
  default     = {}
  nullable    = false
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
    enabled                                = optional(any, false)
    name                                   = optional(any)
    queues                                 = optional(any)
    payload_prefix                         = optional(any, "payloads/")
    expiration_days                        = optional(any)
    kms_key_arn                            = optional(any)
    versioning_enabled                     = optional(any, false)
    force_destroy                          = optional(any, false)
    abort_incomplete_multipart_upload_days = optional(any, 1)
    access_log_bucket                      = optional(any)
    prevent_destroy                        = optional(any, false)
    tags                                   = optional(any, {})
  })
  default  = {}
  nullable = false
}

variable "idempotency_table" {
  description = "The root module's `idempotency_table`, typed."
  type = object({
    enabled                     = optional(any, false)
    name                        = optional(any)
    sort_key_attr               = optional(any)
    kms_key_arn                 = optional(any)
    deletion_protection_enabled = optional(any, true)
    prevent_destroy             = optional(any, false)
    tags                        = optional(any, {})
  })
  default  = {}
  nullable = false
}

variable "alarms" {
  description = "The root module's `alarms`, typed."
  type = object({
    enabled               = optional(any, true)
    sns_topic_arn         = optional(any)
    create_sns_topic      = optional(any)
    sns_topic_name        = optional(any)
    sns_kms_master_key_id = optional(any)
    notify_on_ok          = optional(any, true)
    alarm_name_prefix     = optional(any, "")
    kinds                 = optional(any)
    thresholds            = optional(any, {})
  })
  default  = {}
  nullable = false
}

variable "iam" {
  description = "The root module's `iam`, typed."
  type = object({
    create_managed_policies = optional(any, false)
    name_prefix             = optional(any, "")
    path                    = optional(any, "/")
    kms_key_arns            = optional(any, [])
  })
  default  = {}
  nullable = false
}

variable "dlq_redrive" {
  description = "The root module's `dlq_redrive`, typed."
  type = object({
    enabled                        = optional(any, false)
    queues                         = optional(any)
    schedule_expression            = optional(any, "rate(5 minutes)")
    schedule_enabled               = optional(any, true)
    max_messages_per_second        = optional(any, 10)
    max_messages_per_run           = optional(any, 1000)
    max_redrive_count              = optional(any, 3)
    max_message_age_seconds        = optional(any, 259200)
    permanent_failure_reasons      = optional(any, [])
    failure_reason_attribute       = optional(any, "x-failure-reason")
    archive_bucket_name            = optional(any)
    archive_prefix                 = optional(any, "dlq-archive/")
    timeout_seconds                = optional(any, 120)
    reserved_concurrent_executions = optional(any, 1)
    log_retention_days             = optional(any, 30)
    alarm_actions                  = optional(any)
    tags                           = optional(any, {})
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
