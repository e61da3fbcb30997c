# Generated from tooling/queue_settings.py by `make plumbing` (python -m tooling.plumbing). Do not edit:
# change the declaration there and regenerate (tests/tooling/test_plumbing.py fails while this is stale).

locals {
  # How refusal messages name each input: as itself, or as the caller says
  # (the root module: queues["<key>"].<attribute>, or queue_defaults.<attribute>).
  n = { for v in [
    "name",
    "dlq_name",
    "dlq_arn",
    "create_dlq",
    "fifo",
    "visibility_timeout_seconds",
    "consumer",
    "message_retention_seconds",
    "dlq_message_retention_seconds",
    "max_receive_count",
    "receive_wait_time_seconds",
    "allow_short_polling",
    "delay_seconds",
    "max_message_size",
    "kms_master_key_id",
    "kms_data_key_reuse_period_seconds",
    "content_based_deduplication",
    "deduplication_scope",
    "fifo_throughput_limit",
    "dlq_visibility_timeout_seconds",
    "dlq_delay_seconds",
    "dlq_receive_wait_time_seconds",
    "dlq_kms_master_key_id",
    "dlq_kms_data_key_reuse_period_seconds",
    "dlq_content_based_deduplication",
    "dlq_deduplication_scope",
    "dlq_fifo_throughput_limit",
    "dlq_redrive_allow_policy",
    "dlq_tags",
    "queue_policy_statements",
    "dlq_policy_statements",
    "source_queue_policy_documents",
    "override_queue_policy_documents",
    "source_dlq_queue_policy_documents",
    "override_dlq_queue_policy_documents",
    "prevent_destroy",
    "tags",
  ] : v => lookup(var.input_names, v, v) }

  # FIFO-only settings given (each by how the caller names it, with its value)
  fifo_options_given = [for a, v in {
    content_based_deduplication     = var.content_based_deduplication == true ? true : null
    deduplication_scope             = var.deduplication_scope
    fifo_throughput_limit           = var.fifo_throughput_limit
    dlq_content_based_deduplication = var.dlq_content_based_deduplication == true ? true : null
    dlq_deduplication_scope         = var.dlq_deduplication_scope
    dlq_fifo_throughput_limit       = var.dlq_fifo_throughput_limit
  } : "${local.n[a]} = ${jsonencode(v)}" if v != null]

  # settings of a DLQ the module creates, given although the DLQ is an existing one (dlq_arn)
  dlq_settings_given = [for k, given in {
    dlq_name                              = var.dlq_name != null
    dlq_message_retention_seconds         = var.dlq_message_retention_seconds != 1209600
    dlq_visibility_timeout_seconds        = var.dlq_visibility_timeout_seconds != null
    dlq_delay_seconds                     = var.dlq_delay_seconds != null
    dlq_receive_wait_time_seconds         = var.dlq_receive_wait_time_seconds != 20
    dlq_kms_master_key_id                 = var.dlq_kms_master_key_id != null
    dlq_kms_data_key_reuse_period_seconds = var.dlq_kms_data_key_reuse_period_seconds != null
    dlq_content_based_deduplication       = var.dlq_content_based_deduplication != null
    dlq_deduplication_scope               = var.dlq_deduplication_scope != null
    dlq_fifo_throughput_limit             = var.dlq_fifo_throughput_limit != null
    dlq_redrive_allow_policy              = var.dlq_redrive_allow_policy != null
    dlq_tags                              = length(var.dlq_tags) > 0
    dlq_policy_statements                 = length(var.dlq_policy_statements) > 0
    source_dlq_queue_policy_documents     = length(var.source_dlq_queue_policy_documents) > 0
    override_dlq_queue_policy_documents   = length(var.override_dlq_queue_policy_documents) > 0
  } : local.n[k] if given]
}
