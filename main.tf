# Root module: composes the submodules under modules/.
#
# internal/inputs checks every input before anything is built (an attribute the
# module does not know is refused, naming the queue) and resolves each queue's
# settings: the queue's own value, then the visibility timeout its consumer
# derives, then `queue_defaults`, then the submodule's own safe default.

data "aws_caller_identity" "current" { # account_id is null, so it is looked up with STS: that needs AWS access. Planning without credentials? Set account_id.
  count = var.account_id == null && length(var.queues) > 0 ? 1 : 0
}

data "aws_partition" "current" {}
data "aws_region" "current" {}

locals {
  # format(): a value known not to be null even while the lookup is unknown (read only at
  # apply when the module call has depends_on), so that submodules can decide at plan that
  # they need not look it up themselves (count = var.account_id == null)
  account_id = var.account_id != null ? var.account_id : length(var.queues) > 0 ? format("%s", one(data.aws_caller_identity.current[*].account_id)) : null
}

module "inputs" {
  source = "./internal/inputs"

  queues                 = var.queues
  queue_defaults_raw     = var.queue_defaults
  queue_defaults         = var.queue_defaults
  consumer_functions_raw = var.consumer_functions
  consumer_functions     = var.consumer_functions
  switches_raw = {
    claim_check_bucket = var.claim_check_bucket
    idempotency_table  = var.idempotency_table
    alarms             = var.alarms
    iam                = var.iam
    dlq_redrive        = var.dlq_redrive
  }
  claim_check_bucket = var.claim_check_bucket
  idempotency_table  = var.idempotency_table
  alarms             = var.alarms
  iam                = var.iam
  dlq_redrive        = var.dlq_redrive
  name_prefix        = var.name_prefix
  arn_prefix         = "arn:${data.aws_partition.current.partition}:sqs:${data.aws_region.current.id}:${coalesce(local.account_id, "000000000000")}"
}

locals {
  queues = module.inputs.queues
  # for membership tests inside loops: keys(local.queues) there would walk every
  # queue's settings once per iteration (N x N)
  q_keys = keys(local.queues)
}

module "queue" {
  source   = "./modules/queue"
  for_each = local.queues

  account_id = local.account_id
  # In templates: a template's value is known not to be null even while the data source
  # is unknown (read only at apply when the module call has depends_on), so modules/queue
  # can decide at plan that it need not look them up itself (count = var.partition == null)
  partition   = format("%s", data.aws_partition.current.partition)
  region      = format("%s", data.aws_region.current.id)
  input_names = each.value.input_names

  # BEGIN GENERATED queue-arguments: `make plumbing` writes what follows from tooling/queue_settings.py; do not edit
  name                              = each.value.name
  dlq_name                          = each.value.dlq_name
  dlq_arn                           = each.value.settings.dlq_arn
  create_dlq                        = each.value.dlq_own
  fifo                              = each.value.settings.fifo
  visibility_timeout_seconds        = each.value.settings.visibility_timeout_seconds
  consumer                          = each.value.consumer
  message_retention_seconds         = each.value.settings.message_retention_seconds
  dlq_message_retention_seconds     = each.value.settings.dlq_message_retention_seconds
  max_receive_count                 = each.value.settings.max_receive_count
  receive_wait_time_seconds         = each.value.settings.receive_wait_time_seconds
  allow_short_polling               = each.value.settings.allow_short_polling
  delay_seconds                     = each.value.settings.delay_seconds
  max_message_size                  = each.value.settings.max_message_size
  kms_master_key_id                 = each.value.settings.kms_master_key_id
  kms_data_key_reuse_period_seconds = each.value.settings.kms_data_key_reuse_period_seconds
  content_based_deduplication       = each.value.settings.content_based_deduplication
  deduplication_scope               = each.value.settings.deduplication_scope
  fifo_throughput_limit             = each.value.settings.fifo_throughput_limit

  dlq_visibility_timeout_seconds        = each.value.settings.dlq_visibility_timeout_seconds
  dlq_delay_seconds                     = each.value.settings.dlq_delay_seconds
  dlq_receive_wait_time_seconds         = each.value.settings.dlq_receive_wait_time_seconds
  dlq_kms_master_key_id                 = each.value.settings.dlq_kms_master_key_id
  dlq_kms_data_key_reuse_period_seconds = each.value.settings.dlq_kms_data_key_reuse_period_seconds
  dlq_content_based_deduplication       = each.value.settings.dlq_content_based_deduplication
  dlq_deduplication_scope               = each.value.settings.dlq_deduplication_scope
  dlq_fifo_throughput_limit             = each.value.settings.dlq_fifo_throughput_limit
  dlq_redrive_allow_policy              = each.value.dlq_redrive_allow_policy
  dlq_tags                              = each.value.dlq_tags

  queue_policy_statements             = each.value.queue_policy_statements
  dlq_policy_statements               = each.value.dlq_policy_statements
  source_queue_policy_documents       = each.value.source_queue_policy_documents
  override_queue_policy_documents     = each.value.override_queue_policy_documents
  source_dlq_queue_policy_documents   = each.value.source_dlq_queue_policy_documents
  override_dlq_queue_policy_documents = each.value.override_dlq_queue_policy_documents

  prevent_destroy = each.value.settings.prevent_destroy
  tags            = merge(var.tags, each.value.tags)
  # END GENERATED queue-arguments
}

# Every for_each module below reads its pair through local.pairs[each.key],
# never module.queue[each.key]: Terraform evaluates a reference to a module
# call as the object of all its instances, so each of N instances referencing
# module.queue[...] builds all N pairs' outputs (N^2 for the plan). The local
# is built once; indexing it is a lookup. Names that need no queue (the
# alarms' dimensions) come from local.queues, which internal/inputs derives exactly
# as modules/queue does, so the alarms do not depend on the queues at all.
locals {
  pairs = module.queue
}

# --- claim-check bucket, idempotency table ------------------------------------

locals {
  claim_check = module.inputs.claim_check_bucket

  # queues whose producers offload payloads to the bucket (null: all of them)
  cc_queue_keys   = local.claim_check.queues == null ? keys(local.queues) : local.claim_check.queues
  cc_unknown_keys = [for k in local.cc_queue_keys : k if !contains(local.q_keys, k)]
  cc_served       = [for k in local.cc_queue_keys : k if contains(local.q_keys, k)]

  # how long each queue's DLQ keeps a message: its own setting, the setting of the
  # queue of this call that its dlq_arn names, or for any other existing DLQ the
  # SQS maximum (its retention is not known here; a payload must not expire first)
  dlq_retention = {
    for k, x in local.queues : k => (
      x.dlq_own ? local.pairs[k].dlq.message_retention_seconds :
      x.dlq_target == null ? 1209600 :
      x.dlq_target.role == "queue" ? local.pairs[x.dlq_target.key].queue.message_retention_seconds : local.pairs[x.dlq_target.key].dlq.message_retention_seconds
    )
  }
}

module "claim_check_bucket" {
  source = "./modules/claim-check-bucket"
  count  = local.claim_check.enabled ? 1 : 0

  name           = local.claim_check.name
  payload_prefix = local.claim_check.payload_prefix
  # a message redriven from any of these DLQs must still find its payload (a DLQ
  # shared by several queues counts once, with the longest)
  dlq_retention_seconds = {
    for name, r in { for k in local.cc_served : local.queues[k].dlq_final => local.dlq_retention[k]... } : name => max(r...)
  }
  fifo_source_retention_seconds = {
    for name, r in { for k in local.cc_served : local.queues[k].dlq_final => local.pairs[k].queue.message_retention_seconds... if local.pairs[k].queue.fifo } : name => max(r...)
  }
  expiration_days                        = local.claim_check.expiration_days
  kms_key_arn                            = local.claim_check.kms_key_arn
  versioning_enabled                     = local.claim_check.versioning_enabled
  force_destroy                          = local.claim_check.force_destroy
  abort_incomplete_multipart_upload_days = local.claim_check.abort_incomplete_multipart_upload_days
  access_log_bucket                      = local.claim_check.access_log_bucket
  prevent_destroy                        = local.claim_check.prevent_destroy

  input_prefix = "claim_check_bucket."
  tags         = merge(var.tags, local.claim_check.tags)
}

module "idempotency_table" {
  source = "./modules/idempotency-table"
  count  = module.inputs.idempotency_table.enabled ? 1 : 0

  name                        = module.inputs.idempotency_table.name
  sort_key_attr               = module.inputs.idempotency_table.sort_key_attr
  kms_key_arn                 = module.inputs.idempotency_table.kms_key_arn
  deletion_protection_enabled = module.inputs.idempotency_table.deletion_protection_enabled
  prevent_destroy             = module.inputs.idempotency_table.prevent_destroy
  account_id                  = local.account_id

  input_prefix = "idempotency_table."
  tags         = merge(var.tags, module.inputs.idempotency_table.tags)
}

# --- IAM policy documents, one set per queue ------------------------------------

locals {
  iam_in = module.inputs.iam

  kms_key_arn_pattern = "^arn:[a-z-]+:kms:[a-z0-9-]+:[0-9]{12}:key/[A-Za-z0-9-]+$"
  kms_key_id_pattern  = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$|^mrk-[0-9a-f]{32}$"
  kms_arn_prefix      = "arn:${data.aws_partition.current.partition}:kms:${data.aws_region.current.id}:${coalesce(local.account_id, "000000000000")}:key/"

  # Customer-managed keys the roles must be allowed to use, per queue: a key
  # ARN is used as is, a bare key ID is turned into its ARN, AWS-managed
  # aliases (alias/aws/...) need no grant, and any other alias cannot be
  # resolved at plan time (it must be listed in iam.kms_key_arns).
  kms_ids = merge(
    { for k, x in local.queues : "queues.${k}.kms_master_key_id" => x.settings.kms_master_key_id if x.settings.kms_master_key_id != null },
    { for k, x in local.queues : "queues.${k}.dlq_kms_master_key_id" => x.settings.dlq_kms_master_key_id if x.settings.dlq_kms_master_key_id != null },
    local.claim_check.enabled && local.claim_check.kms_key_arn != null ? { "claim_check_bucket.kms_key_arn" = local.claim_check.kms_key_arn } : {},
  )
  kms_resolved = {
    for src, id in local.kms_ids : src => (
      can(regex(local.kms_key_arn_pattern, id)) ? id :
      can(regex(local.kms_key_id_pattern, id)) ? "${local.kms_arn_prefix}${id}" :
      null
    )
  }
  kms_aws_managed = { for src, id in local.kms_ids : src => can(regex("(^|:)alias/aws/", id)) }
  # how a refusal names each key's input: where the user wrote it
  kms_paths = merge(
    { for k, x in local.queues : "queues.${k}.kms_master_key_id" => x.input_names.kms_master_key_id },
    { for k, x in local.queues : "queues.${k}.dlq_kms_master_key_id" => x.input_names.dlq_kms_master_key_id },
    { "claim_check_bucket.kms_key_arn" = "claim_check_bucket.kms_key_arn" },
  )
  # an alias (or alias ARN): anything else that is not a key is refused by modules/queue
  # (or claim_check_bucket) as not a KMS key, not here as an alias
  kms_alias      = { for src, id in local.kms_ids : src => can(regex("^(arn:[a-z-]+:kms:[a-z0-9-]+:[0-9]{12}:)?alias/[A-Za-z0-9/_-]{1,250}$", id)) }
  kms_unresolved = [for src, id in local.kms_ids : "${local.kms_paths[src]} = \"${id}\"" if local.kms_resolved[src] == null && !local.kms_aws_managed[src] && local.kms_alias[src]]
  # customer-managed keys named by alias, each alias once
  kms_aliases = distinct([for src, id in local.kms_ids : id if local.kms_resolved[src] == null && !local.kms_aws_managed[src] && local.kms_alias[src]])
  # A KMS key serves resources of its own region only: SQS, S3 and DynamoDB
  # refuse a key of another region at apply. The region of a key or alias ARN:
  kms_region_of = { for src, id in local.kms_ids : src => try(regex("^arn:[a-z-]+:kms:([a-z0-9-]+):", id)[0], null) }
  kms_region_problems = concat(
    [for src, r in local.kms_region_of : "${local.kms_paths[src]}: \"${local.kms_ids[src]}\" is a key in ${r}, but the ${startswith(src, "claim_check_bucket") ? "bucket" : "queue"} is created in ${data.aws_region.current.id}: a KMS key serves resources of its own region only, so the apply would fail. Use a key of ${data.aws_region.current.id} (a multi-Region key's replica there has its own ARN)." if r != null && r != data.aws_region.current.id],
    [for a in local.iam_in.kms_key_arns : "iam.kms_key_arns: \"${a}\" is a key in ${regex("^arn:[a-z-]+:kms:([a-z0-9-]+):", a)[0]}, but the queues, the bucket and the table of this module are in ${data.aws_region.current.id} and cannot be encrypted with it, so granting it gives the roles nothing they need. List the ARN of the key in ${data.aws_region.current.id} behind the queues' alias." if can(regex("^arn:[a-z-]+:kms:([a-z0-9-]+):", a)) && try(regex("^arn:[a-z-]+:kms:([a-z0-9-]+):", a)[0] != data.aws_region.current.id, false)],
    # a key of another partition (aws-cn, aws-us-gov) cannot serve this one at all
    [for src, id in local.kms_ids : "${local.kms_paths[src]}: \"${id}\" is a key in partition ${regex("^arn:([a-z-]+):", id)[0]}, but this stack plans in partition ${data.aws_partition.current.partition}: ARNs do not cross partitions, so the apply would fail. Use a key of ${data.aws_partition.current.partition}." if can(regex("^arn:([a-z-]+):", id)) && try(regex("^arn:([a-z-]+):", id)[0] != data.aws_partition.current.partition, false)],
    [for a in local.iam_in.kms_key_arns : "iam.kms_key_arns: \"${a}\" is a key in partition ${regex("^arn:([a-z-]+):", a)[0]}, but this stack plans in partition ${data.aws_partition.current.partition}: a grant on it gives the roles nothing. List keys of ${data.aws_partition.current.partition}." if can(regex("^arn:([a-z-]+):", a)) && try(regex("^arn:([a-z-]+):", a)[0] != data.aws_partition.current.partition, false)],
  )

  bucket_kms_arn = try(local.kms_resolved["claim_check_bucket.kms_key_arn"], null)
  iam_kms = {
    for k in keys(local.queues) : k => distinct(compact(concat(
      [try(local.kms_resolved["queues.${k}.kms_master_key_id"], null), try(local.kms_resolved["queues.${k}.dlq_kms_master_key_id"], null)],
      contains(local.cc_served, k) ? [local.bucket_kms_arn] : [],
      local.iam_in.kms_key_arns,
    )))
  }
}

# The documents of every queue in one module instance (a module instance per
# queue evaluates each of its variables, locals and outputs per queue: about a
# tenth of the plan's CPU at 100 to 300 pairs). modules/iam, called per queue
# only when it creates managed policies, writes the same documents from the
# same internal module.
locals {
  # what each queue's documents grant: the inputs of modules/iam, per queue
  iam_sets = {
    for k, x in local.queues : k => {
      producer_queue_arns   = [local.pairs[k].queue.arn_static]
      consumer_queue_arns   = [local.pairs[k].queue.arn_static]
      consumer_dlq_arns     = [local.pairs[k].dlq.arn_static]
      redrive               = [{ dlq_arn = local.pairs[k].dlq.arn_static, source_queue_arn = local.pairs[k].queue.arn_static }]
      payload_bucket_arn    = local.claim_check.enabled && contains(local.cc_served, k) ? module.claim_check_bucket[0].arn_static : null
      payload_prefix        = local.claim_check.payload_prefix
      idempotency_table_arn = module.inputs.idempotency_table.enabled ? module.idempotency_table[0].arn_static : null
      kms_key_arns          = local.iam_kms[k]
    }
  }
}

module "iam_documents" {
  source = "./internal/iam-documents"

  sets = local.iam_sets
}

module "iam" {
  source   = "./modules/iam"
  for_each = { for k, x in local.queues : k => x if local.iam_in.create_managed_policies }

  producer_queue_arns   = local.iam_sets[each.key].producer_queue_arns
  consumer_queue_arns   = local.iam_sets[each.key].consumer_queue_arns
  consumer_dlq_arns     = local.iam_sets[each.key].consumer_dlq_arns
  redrive               = local.iam_sets[each.key].redrive
  payload_bucket_arn    = local.iam_sets[each.key].payload_bucket_arn
  payload_prefix        = local.iam_sets[each.key].payload_prefix
  idempotency_table_arn = local.iam_sets[each.key].idempotency_table_arn
  kms_key_arns          = local.iam_sets[each.key].kms_key_arns

  create_managed_policies = true
  name                    = "${local.iam_in.name_prefix}${replace(local.pairs[each.key].queue.name, ".fifo", "-fifo")}"
  path                    = local.iam_in.path

  input_prefix = "iam."
  input_names  = { name = "iam.name_prefix ${jsonencode(local.iam_in.name_prefix)} + the name of queues[\"${each.key}\"]" }
  tags         = merge(var.tags, each.value.tags)
}

# --- ARNs of other services: the partition and Region of this stack ------------------
#
# What the module's resources use by ARN must be where they are: ARNs do not cross
# partitions (aws, aws-cn, aws-us-gov), CloudWatch alarms notify SNS topics of their own
# Region only, and a KMS key serves its own Region. AWS refuses the rest at apply; here
# they are refused at plan, naming the input. (Queues' and DLQs' keys: kms_region_problems.)
locals {
  here = { partition = data.aws_partition.current.partition, region = data.aws_region.current.id }
  # { input, arn, what (it is), give (what to give instead), why } of each ARN given
  placed_arns = {
    alarms = concat(
      [for a in compact([local.alarms.sns_topic_arn]) : { input = "alarms.sns_topic_arn", arn = a, what = "an SNS topic", give = "an SNS topic", why = "CloudWatch alarms notify topics of their own Region only" }],
      [for a in compact([local.alarms.sns_kms_master_key_id]) : { input = "alarms.sns_kms_master_key_id", arn = a, what = "a KMS key", give = "a KMS key", why = "a KMS key serves its own Region only" } if startswith(a, "arn:")],
    )
    dlq_redrive = [for a in coalesce(local.dlq_redrive.alarm_actions, []) : { input = "dlq_redrive.alarm_actions", arn = a, what = "an ARN", give = "an SNS topic", why = "CloudWatch alarms notify topics of their own Region only" } if can(regex("^arn:[a-z-]+:[a-z0-9-]+:[a-z0-9-]*:", a))]
    # an event source mapping joins a queue and a function of its own Region
    consumers         = [for k, c in module.inputs.consumers : { input = c.input_names.function_name, arn = c.function_name, what = "a Lambda function", give = "a function", why = "an event source mapping connects a queue to a function of its own Region" } if can(regex("^arn:", c.function_name))]
    idempotency_table = [for a in compact([module.inputs.idempotency_table.kms_key_arn]) : { input = "idempotency_table.kms_key_arn", arn = a, what = "a KMS key", give = "a KMS key", why = "a KMS key serves its own Region only" } if module.inputs.idempotency_table.enabled && startswith(a, "arn:")]
  }
  arn_place_problems = {
    for group, arns in local.placed_arns : group => [
      for x in arns : "${x.input}: \"${x.arn}\" is ${x.what} in ${split(":", x.arn)[1] != local.here.partition ? "partition ${split(":", x.arn)[1]}" : split(":", x.arn)[3]}, but this stack plans in ${split(":", x.arn)[1] != local.here.partition ? "partition ${local.here.partition}: ARNs do not cross partitions" : "${local.here.region}: ${x.why}"}, so the apply would fail. Give ${x.give} of ${local.here.partition}/${local.here.region}."
      if try(split(":", x.arn)[1] != local.here.partition || split(":", x.arn)[3] != local.here.region, false)
    ]
  }
}

# IAM names are unique per account whatever their case (IAM refuses "orders-producer"
# beside "Orders-producer"), and the module rewrites queue names into them (.fifo ->
# -fifo; a redrive function and its role: <queue name without .fifo>-dlq-redrive): two
# queues SQS keeps apart may name one IAM policy or role. Refused at plan, naming both.
locals {
  iam_policy_bases = { for k, x in local.queues : k => lower("${local.iam_in.name_prefix}${replace(x.queue_name, ".fifo", "-fifo")}") if local.iam_in.create_managed_policies }
  iam_name_groups  = { for k, n in local.iam_policy_bases : n => k... }
  iam_name_problems = [
    for n, ks in local.iam_name_groups : "iam.create_managed_policies: ${join(" and ", [for k in ks : "queues[\"${k}\"] (queue ${local.queues[k].queue_name})"])} would name the same IAM policies, ${join(", ", [for r in ["producer", "consumer", "redrive-operator"] : "\"${n}-${r}\""])} (IAM names are unique per account whatever their case, and .fifo becomes -fifo), so the apply would fail on the second. Rename one of the queues (its key or name), or set iam.create_managed_policies = false and attach the documents (output iam_policies) yourself." if length(ks) > 1
  ]
}

# --- alarms ----------------------------------------------------------------------
#
# On by default (the DLQ alarm is the point), but a topic (and the KMS key it
# needs) only when asked: `sns_topic_arn`, or `create_sns_topic = true`.

locals {
  alarms    = module.inputs.alarms
  alarms_on = local.alarms.enabled && length(local.queues) > 0
  # the alarms would notify nobody, and nobody said that is intended
  alarms_unheard = local.alarms_on && local.alarms.sns_topic_arn == null && local.alarms.create_sns_topic == null
}

locals {
  # modules/queue's defaults (its variables message_retention_seconds, dlq_message_retention_seconds)
  default_retention = { queue = 345600, dlq = 1209600 }
  # how long the DLQ each queue's alarms watch keeps a message, read from the settings
  # (not from module.queue: the alarms do not depend on the queues), and how to name it
  alarm_dlq_retention = {
    for k, x in local.queues : k => (
      x.dlq_own ? {
        seconds = coalesce(x.settings.dlq_message_retention_seconds, local.default_retention.dlq)
        input   = x.settings.dlq_message_retention_seconds != null ? x.input_names.dlq_message_retention_seconds : "queues[\"${k}\"].dlq_message_retention_seconds, the default"
      } :
      x.dlq_target == null ? { seconds = null, input = null } :
      x.dlq_target.role == "queue" ? {
        seconds = coalesce(local.queues[x.dlq_target.key].settings.message_retention_seconds, local.default_retention.queue)
        input   = "the retention of queues[\"${x.dlq_target.key}\"], the DLQ queues[\"${k}\"].dlq_arn names"
        } : {
        seconds = coalesce(local.queues[x.dlq_target.key].settings.dlq_message_retention_seconds, local.default_retention.dlq)
        input   = "the DLQ retention of queues[\"${x.dlq_target.key}\"], whose DLQ queues[\"${k}\"].dlq_arn names"
      }
    )
  }
}

module "alarms" {
  source = "./modules/alarms"
  count  = local.alarms_on ? 1 : 0

  queues = {
    for k, x in local.queues : k => {
      queue_name = x.queue_name
      dlq_name   = x.dlq_final
      thresholds = x.alarm_thresholds
      # a DLQ shared by several queues is watched once
      dlq_alarms = x.dlq_alarms
      input_name = "queues[\"${k}\"].alarm_thresholds"
      # how long the queue and its DLQ keep a message: an age alarm above that never fires
      # (an existing DLQ outside this call: not known, not checked)
      retention_seconds     = try(tonumber(coalesce(x.settings.message_retention_seconds, local.default_retention.queue)), null)
      retention_input       = x.settings.message_retention_seconds != null ? x.input_names.message_retention_seconds : "queues[\"${k}\"].message_retention_seconds, the default"
      dlq_retention_seconds = try(tonumber(local.alarm_dlq_retention[k].seconds), null)
      dlq_retention_input   = local.alarm_dlq_retention[k].input
    }
    # a queue whose name or dlq_arn is not valid is refused by modules/queue, naming
    # the input: the alarms leave it out rather than refuse it a second time
    # (decided at plan: a DLQ of the stack, create_dlq = false, has a name known only
    # after apply, and is not alarmed here)
    # (a name over 80 characters with .fifo is refused by modules/queue too)
    if can(regex("^[A-Za-z0-9_-]{1,80}(\\.fifo)?$", x.queue_name)) && length(x.queue_name) <= 80 && (x.dlq_alarms ? can(regex("^[A-Za-z0-9_-]{1,80}(\\.fifo)?$", x.dlq_final)) && length(x.dlq_final) <= 80 : true)
  }
  kinds                 = local.alarms.kinds
  thresholds            = local.alarms.thresholds
  sns_topic_arn         = local.alarms.sns_topic_arn
  create_sns_topic      = coalesce(local.alarms.create_sns_topic, false)
  sns_topic_name        = local.alarms.sns_topic_name
  sns_kms_master_key_id = local.alarms.sns_kms_master_key_id
  notify_on_ok          = local.alarms.notify_on_ok
  alarm_name_prefix     = local.alarms.alarm_name_prefix
  account_id            = local.account_id
  input_prefix          = "alarms."

  tags = var.tags
}

check "alarms_notify_someone" {
  assert {
    condition     = !local.alarms_unheard
    error_message = "alarms: the CloudWatch alarms of the queues notify nobody: alarms.sns_topic_arn is not set and alarms.create_sns_topic is not true, so no SNS topic is created (and no KMS key). A message in a DLQ would raise an alarm that no one hears. Set alarms.sns_topic_arn to your on-call topic, or alarms.create_sns_topic = true (an encrypted topic, with a KMS key CloudWatch may use unless alarms.sns_kms_master_key_id is given). If alarms without notifications are intended, set alarms.create_sns_topic = false."
  }
}

# --- Lambda consumers ------------------------------------------------------------
#
# For a function of the same stack (`consumer_functions`), the mapping is the
# only part that refers to it: it is created after the function, and the queues,
# their URLs and policy documents (which the function reads) do not wait for it.

module "consumer" {
  source   = "./modules/lambda-consumer"
  for_each = module.inputs.consumers

  # read from var.consumer_functions itself where given, so that plan checks can
  # follow the reference to the function
  function_name = try(var.consumer_functions[each.key].function_name, each.value.function_name)
  # The real ARN (not the static one) so the mapping is created after the queue.
  # Read through module.queue, not local.pairs, so that plan checks can follow
  # the mapping's event_source_arn to its queue in the plan's configuration
  # (which records module output references, but not locals). One such
  # reference per consumer costs O(N) each; consumers are per queue opt-in.
  queue_arn                        = module.queue[each.key].queue.arn # per-instance on purpose: see above
  fifo                             = local.pairs[each.key].queue.fifo
  queue_visibility_timeout_seconds = local.pairs[each.key].queue.visibility_timeout_seconds
  function_timeout_seconds         = each.value.function_timeout_seconds
  maximum_batching_window_seconds  = each.value.maximum_batching_window_seconds
  batch_size                       = each.value.batch_size
  maximum_concurrency              = each.value.provisioned_poller_config == null || each.value.maximum_concurrency_given ? each.value.maximum_concurrency : null
  provisioned_poller_config        = each.value.provisioned_poller_config
  filter_patterns                  = each.value.filter_patterns
  report_batch_item_failures       = each.value.report_batch_item_failures
  enabled                          = each.value.enabled

  input_names = each.value.input_names
  tags        = merge(var.tags, each.value.tags)
}

# --- automated DLQ redrive ---------------------------------------------------------

locals {
  dlq_redrive = module.inputs.dlq_redrive
  # null: every queue whose DLQ the module creates (an existing DLQ may hold other queues' messages)
  rd_queue_keys   = local.dlq_redrive.enabled ? (local.dlq_redrive.queues == null ? [for k, x in local.queues : k if x.dlq_own] : local.dlq_redrive.queues) : []
  rd_unknown_keys = [for k in local.rd_queue_keys : k if !contains(local.q_keys, k)]
  rd_foreign_dlq  = [for k in local.rd_queue_keys : k if contains(local.q_keys, k) && !try(local.queues[k].dlq_own, true)]
  rd_bucket       = local.dlq_redrive.archive_bucket_name != null ? local.dlq_redrive.archive_bucket_name : (local.claim_check.enabled ? local.claim_check.name : null)
  # archived messages must not sit under the payload prefix, whose objects expire
  rd_archive_expires = local.dlq_redrive.archive_bucket_name == null && local.claim_check.enabled && startswith(local.dlq_redrive.archive_prefix, local.claim_check.payload_prefix)

  # what the redrive functions' alarms notify: dlq_redrive.alarm_actions as given ([] says
  # notifying nobody is intended), else the alarms topic; with no topic, nobody: on purpose
  # when alarms.create_sns_topic = false ([]: the alarms say so, actions_enabled = false),
  # else null: the alarms keep their actions enabled (plan checks read them as silent by
  # mistake) and the check redrive_alarms_notify_someone warns
  rd_alarm_topic    = local.alarms_on && (local.alarms.sns_topic_arn != null || local.alarms.create_sns_topic == true)
  rd_alarms_unheard = length(local.rd_queue_keys) > 0 && local.dlq_redrive.alarm_actions == null && !local.rd_alarm_topic && local.alarms.create_sns_topic != false
  rd_alarm_actions = (
    local.dlq_redrive.alarm_actions != null ? local.dlq_redrive.alarm_actions :
    local.rd_alarm_topic ? tolist([one(module.alarms[*].sns_topic_arn)]) :
    local.alarms.create_sns_topic == false ? tolist([]) : null
  )

  rd_names = {
    for k in local.rd_queue_keys : k => (
      length("${trimsuffix(local.queues[k].queue_name, ".fifo")}-dlq-redrive") <= 55
      ? "${trimsuffix(local.queues[k].queue_name, ".fifo")}-dlq-redrive"
      : "${substr(trimsuffix(local.queues[k].queue_name, ".fifo"), 0, 34)}-${substr(sha1(local.queues[k].queue_name), 0, 8)}-dlq-redrive"
    ) if contains(local.q_keys, k) && local.rd_bucket != null && !contains(local.rd_foreign_dlq, k) # the output's preconditions refuse the rest
  }
  # a function, and its IAM role (<name>-role), per name: IAM ignores case
  rd_name_groups = { for k, n in local.rd_names : lower(n) => k... }
  rd_name_problems = [
    for n, ks in local.rd_name_groups : "dlq_redrive.queues: ${join(" and ", [for k in ks : "queues[\"${k}\"] (queue ${local.queues[k].queue_name})"])} would get the same redrive function and IAM role, \"${local.rd_names[ks[0]]}\" and \"${local.rd_names[ks[0]]}-role\" (the function is named after the queue without .fifo, and IAM names are unique whatever their case), so the apply would fail on the second. Rename one of the queues, or leave one out of dlq_redrive.queues." if length(ks) > 1
  ]
}

module "dlq_redrive" {
  source   = "./modules/dlq-redrive"
  for_each = local.rd_names

  name         = each.value
  dlq          = { url = local.pairs[each.key].dlq.url, arn = local.pairs[each.key].dlq.arn_static }
  source_queue = { url = local.pairs[each.key].queue.url, arn = local.pairs[each.key].queue.arn_static }
  archive = {
    type        = "s3"
    bucket_name = local.rd_bucket
    prefix      = local.dlq_redrive.archive_prefix
  }
  claim_check_bucket = local.claim_check.enabled && contains(local.cc_served, each.key) ? { name = local.claim_check.name, payload_prefix = local.claim_check.payload_prefix } : null

  schedule_expression            = local.dlq_redrive.schedule_expression
  enabled                        = local.dlq_redrive.schedule_enabled
  max_messages_per_second        = local.dlq_redrive.max_messages_per_second
  max_messages_per_run           = local.dlq_redrive.max_messages_per_run
  max_redrive_count              = local.dlq_redrive.max_redrive_count
  max_message_age_seconds        = local.dlq_redrive.max_message_age_seconds
  permanent_failure_reasons      = local.dlq_redrive.permanent_failure_reasons
  failure_reason_attribute       = local.dlq_redrive.failure_reason_attribute
  timeout_seconds                = local.dlq_redrive.timeout_seconds
  reserved_concurrent_executions = local.dlq_redrive.reserved_concurrent_executions
  log_retention_days             = local.dlq_redrive.log_retention_days
  kms_key_arns                   = local.iam_kms[each.key]
  alarm_actions                  = local.rd_alarm_actions
  warn_when_alarms_notify_nobody = false # the check below warns once, naming the root's inputs

  input_prefix = "dlq_redrive."
  input_names  = { "archive.prefix" = "dlq_redrive.archive_prefix" }
  tags         = merge(var.tags, local.dlq_redrive.tags)
}

check "redrive_alarms_notify_someone" {
  assert {
    condition     = !local.rd_alarms_unheard
    error_message = "dlq_redrive.alarm_actions: the CloudWatch alarms of the DLQ redrive functions (<function>-errors, raised when a redrive run fails while its messages stay in the DLQ) notify nobody: dlq_redrive.alarm_actions is not set, and there is no alarms topic to notify (alarms.enabled = false, or neither alarms.sns_topic_arn nor alarms.create_sns_topic = true). Set dlq_redrive.alarm_actions to your on-call SNS topic's ARN, or give the alarms a topic: alarms.sns_topic_arn, or alarms.create_sns_topic = true. If alarms without notifications are intended, set dlq_redrive.alarm_actions = [] (or alarms.create_sns_topic = false, which says it for the queues' alarms too): the redrive alarms are then created with actions_enabled = false."
  }
}
