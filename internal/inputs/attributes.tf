# Generated from tooling/queue_settings.py by `make plumbing` (python -m tooling.plumbing). Do not edit:
# change the declaration there and regenerate (tests/tooling/test_plumbing.py fails while this is stale).

# Each attribute of the typed copy is `any`: a value of the wrong type is refused by
# attribute_types naming the user's input, not by Terraform's conversion naming this
# module's variable. An attribute not given is null.
variable "queue_defaults" {
  description = "The root module's `queue_defaults`, typed."
  type = object({
    dlq_arn                               = optional(any)
    create_dlq                            = optional(any)
    fifo                                  = optional(any)
    visibility_timeout_seconds            = optional(any)
    message_retention_seconds             = optional(any)
    dlq_message_retention_seconds         = optional(any)
    max_receive_count                     = optional(any)
    receive_wait_time_seconds             = optional(any)
    allow_short_polling                   = optional(any)
    delay_seconds                         = optional(any)
    max_message_size                      = optional(any)
    kms_master_key_id                     = optional(any)
    kms_data_key_reuse_period_seconds     = optional(any)
    sqs_managed_sse_enabled               = optional(any)
    content_based_deduplication           = optional(any)
    deduplication_scope                   = optional(any)
    fifo_throughput_limit                 = optional(any)
    dlq_visibility_timeout_seconds        = optional(any)
    dlq_delay_seconds                     = optional(any)
    dlq_receive_wait_time_seconds         = optional(any)
    dlq_kms_master_key_id                 = optional(any)
    dlq_kms_data_key_reuse_period_seconds = optional(any)
    dlq_sqs_managed_sse_enabled           = optional(any)
    dlq_content_based_deduplication       = optional(any)
    dlq_deduplication_scope               = optional(any)
    dlq_fifo_throughput_limit             = optional(any)
    prevent_destroy                       = optional(any)
  })
  default  = {}
  nullable = false
}

locals {
  # the settings a queue takes from `queue_defaults` when it does not give them itself
  queue_settings = [
    "dlq_arn",
    "create_dlq",
    "fifo",
    "visibility_timeout_seconds",
    "message_retention_seconds",
    "dlq_message_retention_seconds",
    "max_receive_count",
    "receive_wait_time_seconds",
    "allow_short_polling",
    "delay_seconds",
    "max_message_size",
    "kms_master_key_id",
    "kms_data_key_reuse_period_seconds",
    "sqs_managed_sse_enabled",
    "content_based_deduplication",
    "deduplication_scope",
    "fifo_throughput_limit",
    "dlq_visibility_timeout_seconds",
    "dlq_delay_seconds",
    "dlq_receive_wait_time_seconds",
    "dlq_kms_master_key_id",
    "dlq_kms_data_key_reuse_period_seconds",
    "dlq_sqs_managed_sse_enabled",
    "dlq_content_based_deduplication",
    "dlq_deduplication_scope",
    "dlq_fifo_throughput_limit",
    "prevent_destroy",
  ]
  # every attribute of a `queues` entry (any other is refused as unknown)
  queue_attributes = concat(local.queue_settings, [
    "name",
    "dlq_name",
    "consumer",
    "dlq_redrive_allow_policy",
    "dlq_tags",
    "queue_policy_statements",
    "dlq_policy_statements",
    "source_queue_policy_documents",
    "override_queue_policy_documents",
    "source_dlq_queue_policy_documents",
    "override_dlq_queue_policy_documents",
    "alarm_thresholds",
    "tags",
  ])
  # the type each is checked against (the rest are objects and lists checked apart)
  queue_attribute_types = {
    name                                  = "string"
    dlq_name                              = "string"
    dlq_arn                               = "string"
    create_dlq                            = "bool"
    fifo                                  = "bool"
    visibility_timeout_seconds            = "number"
    message_retention_seconds             = "number"
    dlq_message_retention_seconds         = "number"
    max_receive_count                     = "number"
    receive_wait_time_seconds             = "number"
    allow_short_polling                   = "bool"
    delay_seconds                         = "number"
    max_message_size                      = "number"
    kms_master_key_id                     = "string"
    kms_data_key_reuse_period_seconds     = "number"
    sqs_managed_sse_enabled               = "bool"
    content_based_deduplication           = "bool"
    deduplication_scope                   = "string"
    fifo_throughput_limit                 = "string"
    dlq_visibility_timeout_seconds        = "number"
    dlq_delay_seconds                     = "number"
    dlq_receive_wait_time_seconds         = "number"
    dlq_kms_master_key_id                 = "string"
    dlq_kms_data_key_reuse_period_seconds = "number"
    dlq_sqs_managed_sse_enabled           = "bool"
    dlq_content_based_deduplication       = "bool"
    dlq_deduplication_scope               = "string"
    dlq_fifo_throughput_limit             = "string"
    dlq_tags                              = "map"
    source_queue_policy_documents         = "list"
    override_queue_policy_documents       = "list"
    source_dlq_queue_policy_documents     = "list"
    override_dlq_queue_policy_documents   = "list"
    prevent_destroy                       = "bool"
    tags                                  = "map"
  }
}
