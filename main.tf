# Root module: composes the submodules under modules/.
#
# Queue settings resolve in three layers: an attribute set on the queue wins,
# then `queue_defaults`, then the submodule's own safe default.

data "aws_caller_identity" "current" {
  count = var.account_id == null && length(var.queues) > 0 ? 1 : 0
}

locals {
  account_id = var.account_id != null ? var.account_id : one(data.aws_caller_identity.current[*].account_id)
  d          = var.queue_defaults
}

module "queue" {
  source   = "./modules/queue"
  for_each = var.queues

  name       = coalesce(each.value.name, each.key)
  dlq_name   = each.value.dlq_name
  fifo       = coalesce(each.value.fifo, local.d.fifo, false)
  account_id = local.account_id

  visibility_timeout_seconds = try(coalesce(each.value.visibility_timeout_seconds, local.d.visibility_timeout_seconds), null)
  consumer                   = each.value.consumer

  message_retention_seconds     = coalesce(each.value.message_retention_seconds, local.d.message_retention_seconds, 345600)
  dlq_message_retention_seconds = coalesce(each.value.dlq_message_retention_seconds, local.d.dlq_message_retention_seconds, 1209600)
  max_receive_count             = coalesce(each.value.max_receive_count, local.d.max_receive_count, 5)
  receive_wait_time_seconds     = coalesce(each.value.receive_wait_time_seconds, local.d.receive_wait_time_seconds, 20)
  allow_short_polling           = coalesce(each.value.allow_short_polling, local.d.allow_short_polling, false)
  delay_seconds                 = coalesce(each.value.delay_seconds, local.d.delay_seconds, 0)
  max_message_size              = try(coalesce(each.value.max_message_size, local.d.max_message_size), null)

  kms_master_key_id                 = try(coalesce(each.value.kms_master_key_id, local.d.kms_master_key_id), null)
  kms_data_key_reuse_period_seconds = coalesce(each.value.kms_data_key_reuse_period_seconds, local.d.kms_data_key_reuse_period_seconds, 300)

  content_based_deduplication = coalesce(each.value.content_based_deduplication, local.d.content_based_deduplication, false)
  deduplication_scope         = try(coalesce(each.value.deduplication_scope, local.d.deduplication_scope), null)
  fifo_throughput_limit       = try(coalesce(each.value.fifo_throughput_limit, local.d.fifo_throughput_limit), null)

  queue_policy_statements = each.value.queue_policy_statements
  dlq_policy_statements   = each.value.dlq_policy_statements

  tags = merge(var.tags, each.value.tags)
}
