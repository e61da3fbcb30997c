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
  partition  = data.aws_partition.current.partition
  region     = data.aws_region.current.id

  visibility_timeout_seconds = try(coalesce(each.value.visibility_timeout_seconds, local.d.visibility_timeout_seconds), null)
  consumer = each.value.consumer == null ? null : {
    timeout_seconds                 = each.value.consumer.timeout_seconds
    maximum_batching_window_seconds = each.value.consumer.maximum_batching_window_seconds
  }

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
  prevent_destroy         = coalesce(each.value.prevent_destroy, local.d.prevent_destroy, false)

  tags = merge(var.tags, each.value.tags)
}

# Every for_each module below reads its pair through local.pairs[each.key],
# never module.queue[each.key]: Terraform evaluates a reference to a module
# call as the object of all its instances, so each of N instances referencing
# module.queue[...] builds all N pairs' outputs (N^2 for the plan: 63 s of CPU
# at 300 pairs against 36 s this way, measured by tooling/bench_plan.py). The
# local is built once; indexing it is a lookup. Its dependencies are the same
# (a reference depends on the whole module call either way).
locals {
  pairs = module.queue

  # The queue and DLQ names, derived here exactly as modules/queue derives them
  # (the .fifo suffix added for FIFO pairs, "<name>-dlq" by default), for the
  # alarms: metric dimensions need only the names, and taking them from
  # module.queue would make every one of the 6 x N alarms depend on all 2 x N
  # queues, which Terraform's plan-time apply-graph check walks in N^2
  # (10.6 s -> 3.9 s of CPU at 300 pairs). tests/root.tftest.hcl checks that
  # both derivations agree.
  pair_names = {
    for k, q in var.queues : k => {
      queue_name = "${trimsuffix(coalesce(q.name, k), ".fifo")}${coalesce(q.fifo, local.d.fifo, false) ? ".fifo" : ""}"
      dlq_name   = "${q.dlq_name != null ? trimsuffix(q.dlq_name, ".fifo") : "${trimsuffix(coalesce(q.name, k), ".fifo")}-dlq"}${coalesce(q.fifo, local.d.fifo, false) ? ".fifo" : ""}"
    }
  }
}

# --- claim-check bucket, idempotency table ------------------------------------

data "aws_partition" "current" {}
data "aws_region" "current" {}

locals {
  cc = var.claim_check_bucket

  # queues whose producers offload payloads to the bucket (null: all of them)
  cc_queue_keys   = local.cc.queues == null ? keys(var.queues) : local.cc.queues
  cc_unknown_keys = [for k in local.cc_queue_keys : k if !contains(keys(var.queues), k)]
  cc_served       = [for k in local.cc_queue_keys : k if contains(keys(var.queues), k)]
}

module "claim_check_bucket" {
  source = "./modules/claim-check-bucket"
  count  = local.cc.enabled ? 1 : 0

  name           = local.cc.name
  payload_prefix = local.cc.payload_prefix
  # a message redriven from any of these DLQs must still find its payload
  dlq_retention_seconds                  = { for k in local.cc_served : module.queue[k].dlq_name => module.queue[k].dlq_message_retention_seconds }
  fifo_source_retention_seconds          = { for k in local.cc_served : module.queue[k].dlq_name => module.queue[k].message_retention_seconds if module.queue[k].fifo }
  expiration_days                        = local.cc.expiration_days
  kms_key_arn                            = local.cc.kms_key_arn
  versioning_enabled                     = local.cc.versioning_enabled
  force_destroy                          = local.cc.force_destroy
  abort_incomplete_multipart_upload_days = local.cc.abort_incomplete_multipart_upload_days
  access_log_bucket                      = local.cc.access_log_bucket
  prevent_destroy                        = local.cc.prevent_destroy

  tags = merge(var.tags, local.cc.tags)
}

module "idempotency_table" {
  source = "./modules/idempotency-table"
  count  = var.idempotency_table.enabled ? 1 : 0

  name                        = var.idempotency_table.name
  sort_key_attr               = var.idempotency_table.sort_key_attr
  kms_key_arn                 = var.idempotency_table.kms_key_arn
  deletion_protection_enabled = var.idempotency_table.deletion_protection_enabled
  prevent_destroy             = var.idempotency_table.prevent_destroy
  account_id                  = local.account_id

  tags = merge(var.tags, var.idempotency_table.tags)
}

# --- IAM policy documents, one set per queue ------------------------------------

locals {
  kms_key_arn_pattern = "^arn:[a-z-]+:kms:[a-z0-9-]+:[0-9]{12}:key/[A-Za-z0-9-]+$"
  kms_key_id_pattern  = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$|^mrk-[0-9a-f]{32}$"
  kms_arn_prefix      = "arn:${data.aws_partition.current.partition}:kms:${data.aws_region.current.id}:${coalesce(local.account_id, "000000000000")}:key/"

  # Customer-managed keys the roles must be allowed to use, per queue: a key
  # ARN is used as is, a bare key ID is turned into its ARN, AWS-managed
  # aliases (alias/aws/...) need no grant, and any other alias cannot be
  # resolved at plan time (it must be listed in iam.kms_key_arns).
  queue_kms = {
    for k, q in var.queues : k => try(coalesce(q.kms_master_key_id, local.d.kms_master_key_id), null)
  }
  kms_ids = merge(
    { for k, id in local.queue_kms : "queues.${k}.kms_master_key_id" => id if id != null },
    local.cc.enabled && local.cc.kms_key_arn != null ? { "claim_check_bucket.kms_key_arn" = local.cc.kms_key_arn } : {},
  )
  kms_resolved = {
    for src, id in local.kms_ids : src => (
      can(regex(local.kms_key_arn_pattern, id)) ? id :
      can(regex(local.kms_key_id_pattern, id)) ? "${local.kms_arn_prefix}${id}" :
      null
    )
  }
  kms_aws_managed = { for src, id in local.kms_ids : src => can(regex("(^|:)alias/aws/", id)) }
  kms_unresolved  = [for src, id in local.kms_ids : "${src} = \"${id}\"" if local.kms_resolved[src] == null && !local.kms_aws_managed[src]]

  bucket_kms_arn = try(local.kms_resolved["claim_check_bucket.kms_key_arn"], null)
  iam_kms = {
    for k in keys(var.queues) : k => distinct(compact(concat(
      [try(local.kms_resolved["queues.${k}.kms_master_key_id"], null)],
      contains(local.cc_served, k) ? [local.bucket_kms_arn] : [],
      var.iam.kms_key_arns,
    )))
  }
}

module "iam" {
  source   = "./modules/iam"
  for_each = var.queues

  producer_queue_arns = [local.pairs[each.key].queue_arn_static]
  consumer_queue_arns = [local.pairs[each.key].queue_arn_static]
  consumer_dlq_arns   = [local.pairs[each.key].dlq_arn_static]
  redrive = [{
    dlq_arn          = local.pairs[each.key].dlq_arn_static
    source_queue_arn = local.pairs[each.key].queue_arn_static
  }]
  payload_bucket_arn    = local.cc.enabled && contains(local.cc_served, each.key) ? module.claim_check_bucket[0].arn_static : null
  payload_prefix        = local.cc.payload_prefix
  idempotency_table_arn = var.idempotency_table.enabled ? module.idempotency_table[0].arn_static : null
  kms_key_arns          = local.iam_kms[each.key]

  create_managed_policies = var.iam.create_managed_policies
  name                    = "${var.iam.name_prefix}${replace(local.pairs[each.key].queue_name, ".fifo", "-fifo")}"
  path                    = var.iam.path

  tags = merge(var.tags, each.value.tags)
}

# --- alarms ----------------------------------------------------------------------

module "alarms" {
  source = "./modules/alarms"
  count  = var.alarms.enabled && length(var.queues) > 0 ? 1 : 0

  queues = {
    for k, n in local.pair_names : k => {
      queue_name = n.queue_name
      dlq_name   = n.dlq_name
      thresholds = var.queues[k].alarm_thresholds
    }
  }
  thresholds            = var.alarms.thresholds
  sns_topic_arn         = var.alarms.sns_topic_arn
  create_sns_topic      = var.alarms.create_sns_topic
  sns_topic_name        = var.alarms.sns_topic_name
  sns_kms_master_key_id = var.alarms.sns_kms_master_key_id
  notify_on_ok          = var.alarms.notify_on_ok
  alarm_name_prefix     = var.alarms.alarm_name_prefix
  account_id            = local.account_id

  tags = var.tags
}

# --- Lambda consumers ------------------------------------------------------------

module "consumer" {
  source   = "./modules/lambda-consumer"
  for_each = { for k, q in var.queues : k => q.consumer if try(q.consumer.function_name, null) != null }

  function_name = each.value.function_name
  # The real ARN (not the static one) so the mapping is created after the queue.
  # Read through module.queue, not local.pairs, so that plan checks can follow
  # the mapping's event_source_arn to its queue in the plan's configuration
  # (which records module output references, but not locals). One such
  # reference per consumer costs O(N) each; consumers are per queue opt-in.
  queue_arn                        = module.queue[each.key].queue_arn # per-instance on purpose: see above
  fifo                             = local.pairs[each.key].fifo
  queue_visibility_timeout_seconds = local.pairs[each.key].visibility_timeout_seconds
  function_timeout_seconds         = each.value.timeout_seconds
  maximum_batching_window_seconds  = each.value.maximum_batching_window_seconds
  batch_size                       = each.value.batch_size
  maximum_concurrency              = each.value.maximum_concurrency
  filter_patterns                  = each.value.filter_patterns
  report_batch_item_failures       = each.value.report_batch_item_failures
  enabled                          = each.value.enabled

  tags = merge(var.tags, var.queues[each.key].tags)
}

# --- automated DLQ redrive ---------------------------------------------------------

locals {
  rd              = var.dlq_redrive
  rd_queue_keys   = local.rd.enabled ? (local.rd.queues == null ? keys(var.queues) : local.rd.queues) : []
  rd_unknown_keys = [for k in local.rd_queue_keys : k if !contains(keys(var.queues), k)]
  rd_bucket       = local.rd.archive_bucket_name != null ? local.rd.archive_bucket_name : (local.cc.enabled ? local.cc.name : null)
  # archived messages must not sit under the payload prefix, whose objects expire
  rd_archive_expires = local.rd.archive_bucket_name == null && local.cc.enabled && startswith(local.rd.archive_prefix, local.cc.payload_prefix)

  rd_names = {
    for k in local.rd_queue_keys : k => (
      length("${trimsuffix(module.queue[k].queue_name, ".fifo")}-dlq-redrive") <= 55
      ? "${trimsuffix(module.queue[k].queue_name, ".fifo")}-dlq-redrive"
      : "${substr(trimsuffix(module.queue[k].queue_name, ".fifo"), 0, 34)}-${substr(sha1(module.queue[k].queue_name), 0, 8)}-dlq-redrive"
    ) if contains(keys(var.queues), k) && local.rd_bucket != null # without a bucket the output's precondition refuses the plan
  }
}

module "dlq_redrive" {
  source   = "./modules/dlq-redrive"
  for_each = local.rd_names

  name         = each.value
  dlq          = { url = local.pairs[each.key].dlq_url, arn = local.pairs[each.key].dlq_arn_static }
  source_queue = { url = local.pairs[each.key].queue_url, arn = local.pairs[each.key].queue_arn_static }
  archive = {
    type        = "s3"
    bucket_name = local.rd_bucket
    prefix      = local.rd.archive_prefix
  }

  schedule_expression            = local.rd.schedule_expression
  enabled                        = local.rd.schedule_enabled
  max_messages_per_second        = local.rd.max_messages_per_second
  max_messages_per_run           = local.rd.max_messages_per_run
  max_redrive_count              = local.rd.max_redrive_count
  max_message_age_seconds        = local.rd.max_message_age_seconds
  permanent_failure_reasons      = local.rd.permanent_failure_reasons
  failure_reason_attribute       = local.rd.failure_reason_attribute
  timeout_seconds                = local.rd.timeout_seconds
  reserved_concurrent_executions = local.rd.reserved_concurrent_executions
  log_retention_days             = local.rd.log_retention_days
  kms_key_arns                   = local.iam_kms[each.key]
  alarm_actions                  = local.rd.alarm_actions != null ? local.rd.alarm_actions : compact([try(module.alarms[0].sns_topic_arn, null)])

  tags = merge(var.tags, local.rd.tags)
}
