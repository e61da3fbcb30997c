output "queues" {
  description = "Per queue key: name, url, arn and arn_static of the source queue; dlq_name, dlq_url, dlq_arn and dlq_arn_static of its DLQ, and dlq_created (false when `dlq_arn` names an existing DLQ); the effective visibility_timeout_seconds, message_retention_seconds, dlq_message_retention_seconds (null for an existing DLQ), max_receive_count and fifo."
  value = {
    for k, m in module.queue : k => {
      name                          = m.queue.name
      url                           = m.queue.url
      arn                           = m.queue.arn
      arn_static                    = m.queue.arn_static
      dlq_name                      = m.dlq.name
      dlq_url                       = m.dlq.url
      dlq_arn                       = m.dlq.arn
      dlq_arn_static                = m.dlq.arn_static
      dlq_created                   = m.dlq.created
      fifo                          = m.queue.fifo
      visibility_timeout_seconds    = m.queue.visibility_timeout_seconds
      message_retention_seconds     = m.queue.message_retention_seconds
      dlq_message_retention_seconds = m.dlq.message_retention_seconds
      max_receive_count             = m.queue.max_receive_count
    }
  }

  # a dlq_arn that names a queue of this call: its retention is known, so the rule holds
  precondition {
    condition     = length(local.shared_dlq_problems) == 0
    error_message = join("\n", local.shared_dlq_problems)
  }
}

locals {
  shared_dlq_problems = [
    for k, x in local.queues : "queues[\"${k}\"].dlq_arn: ${x.settings.dlq_arn} is ${x.dlq_target.role == "dlq" ? "the DLQ of " : ""}queues[\"${x.dlq_target.key}\"], which keeps a message ${local.dlq_retention[k]} s, no longer than this queue does (message_retention_seconds ${local.pairs[k].queue.message_retention_seconds} s). A message keeps its enqueue time when it moves to a DLQ, so it would be deleted there before anyone could inspect or redrive it. Give that queue a longer retention, or this one a shorter."
    if x.dlq_target != null && local.dlq_retention[k] <= local.pairs[k].queue.message_retention_seconds
  ]
}

output "queue_urls" {
  description = "Map of queue key to source queue URL."
  value       = { for k, m in module.queue : k => m.queue.url }
}

output "queue_arns" {
  description = "Map of queue key to source queue ARN."
  value       = { for k, m in module.queue : k => m.queue.arn }
}

output "dlq_urls" {
  description = "Map of queue key to DLQ URL."
  value       = { for k, m in module.queue : k => m.dlq.url }
}

output "dlq_arns" {
  description = "Map of queue key to DLQ ARN."
  value       = { for k, m in module.queue : k => m.dlq.arn }
}

output "claim_check_bucket" {
  description = "The claim-check bucket, or null when not enabled: name, arn, payload_prefix, payload_objects_arn, expiration_days and the queue keys it serves."
  value = local.claim_check.enabled ? {
    name                = module.claim_check_bucket[0].name
    arn                 = module.claim_check_bucket[0].arn
    payload_prefix      = module.claim_check_bucket[0].payload_prefix
    payload_objects_arn = module.claim_check_bucket[0].payload_objects_arn
    expiration_days     = module.claim_check_bucket[0].expiration_days
    queues              = local.cc_served
  } : null

  precondition {
    condition     = !local.claim_check.enabled || length(local.cc_served) > 0 || length(local.rd_names) > 0 || length(local.cc_unknown_keys) > 0
    error_message = "claim_check_bucket: enabled, but it serves nothing: ${length(local.queues) == 0 ? "queues is empty" : "claim_check_bucket.queues is empty"}, and no DLQ redrive archives into it. A bucket that no producer offloads to still costs its resources and its name. Add the queues, or set claim_check_bucket.enabled = false."
  }

  precondition {
    condition     = length(local.cc_unknown_keys) == 0
    error_message = "claim_check_bucket.queues: ${join(", ", [for k in local.cc_unknown_keys : "\"${k}\""])} ${length(local.cc_unknown_keys) == 1 ? "is not a key" : "are not keys"} of queues (keys: ${join(", ", keys(local.queues))}). List the queue keys whose producers offload payloads to the bucket, or leave it null for all."
  }
}

output "idempotency_table" {
  description = "The idempotency table, or null when not enabled: name, arn, key_attr, sort_key_attr and expiry_attr (the Powertools DynamoDBPersistenceLayer settings)."
  value = module.inputs.idempotency_table.enabled ? {
    name          = module.idempotency_table[0].name
    arn           = module.idempotency_table[0].arn
    key_attr      = module.idempotency_table[0].key_attr
    sort_key_attr = module.idempotency_table[0].sort_key_attr
    expiry_attr   = module.idempotency_table[0].expiry_attr
  } : null

  precondition {
    condition     = length(local.arn_place_problems.idempotency_table) == 0
    error_message = join("\n", local.arn_place_problems.idempotency_table)
  }

  precondition {
    condition     = !module.inputs.idempotency_table.enabled || length(local.queues) > 0
    error_message = "idempotency_table: enabled, but queues is empty: the table is for the consumers of the module's queues (each is granted item access to it), so with no queue no one could use it, yet it would cost its resources and its name. Add the queues, or set idempotency_table.enabled = false."
  }
}

output "iam_policies" {
  description = "Per queue key: producer_policy_json, consumer_policy_json and redrive_operator_policy_json (least-privilege documents naming that queue, its DLQ, the bucket's payload prefix, the table and KMS keys), and policy_arns of the managed policies when created."
  value = {
    for k, d in module.iam_documents.documents : k => {
      producer_policy_json         = d.producer
      consumer_policy_json         = d.consumer
      redrive_operator_policy_json = d["redrive-operator"]
      # not try(): try() of a value with an unknown part is wholly unknown, and the keys
      # (producer, consumer, redrive-operator) must be known at plan for a for_each over them
      policy_arns = local.iam_in.create_managed_policies ? module.iam[k].policy_arns : {}
    }
  }

  precondition {
    condition     = alltrue([for a in local.iam_in.kms_key_arns : can(regex(local.kms_key_arn_pattern, a))])
    error_message = "iam.kms_key_arns: every entry must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>); ${join(", ", [for a in local.iam_in.kms_key_arns : "\"${a}\"" if !can(regex(local.kms_key_arn_pattern, a))])} is not. Aliases, alias ARNs and bare key IDs are refused: an IAM grant on an alias does not authorize use of the key behind it."
  }

  precondition {
    condition     = length(local.kms_unresolved) == 0 || length(local.iam_in.kms_key_arns) > 0
    error_message = "iam.kms_key_arns: ${join(", ", local.kms_unresolved)} names a customer-managed KMS key by alias, which cannot be resolved to the key ARN at plan time, and an IAM grant on an alias does not cover the key. Producers and consumers would fail with KMS AccessDenied. Add the key ARN to iam.kms_key_arns, or use the key ARN in place of the alias."
  }

  # Every listed key is granted for every queue: with fewer keys than aliases, some
  # alias's key is not listed, and its queues' producers and consumers would get
  # AccessDenied at run time (which key an alias names is not known at plan).
  precondition {
    condition     = length(local.kms_unresolved) == 0 || length(local.iam_in.kms_key_arns) == 0 || length(local.kms_aliases) <= length(local.iam_in.kms_key_arns)
    error_message = "iam.kms_key_arns: ${length(local.iam_in.kms_key_arns)} key ARN${length(local.iam_in.kms_key_arns) == 1 ? "" : "s"} for ${length(local.kms_aliases)} customer-managed keys named by alias (${join(", ", local.kms_unresolved)}). An alias cannot be resolved at plan, so each queue is granted every listed key: with fewer keys than aliases, the queues of an alias whose key is not listed are granted only the others, and their producers and consumers fail with KMS AccessDenied. List the ARN of the key behind each alias; if two aliases name the same key, give that key's ARN as their kms_master_key_id instead."
  }

  precondition {
    condition     = length(local.kms_region_problems) == 0
    error_message = join("\n", local.kms_region_problems)
  }

  precondition {
    condition     = length(local.iam_name_problems) == 0
    error_message = join("\n", local.iam_name_problems)
  }
}

output "alarms" {
  description = "The alarms, or null when disabled: sns_topic_arn (notified; null when they notify nobody), notifies_nobody (true without alarms.sns_topic_arn or alarms.create_sns_topic = true), kms_key_arn (created for the topic, or null), alarm_names and alarm_arns per queue key."
  value = length(module.alarms) > 0 ? {
    sns_topic_arn   = module.alarms[0].sns_topic_arn
    notifies_nobody = local.alarms.sns_topic_arn == null && local.alarms.create_sns_topic != true
    kms_key_arn     = module.alarms[0].kms_key_arn
    alarm_names     = module.alarms[0].alarm_names
    alarm_arns      = module.alarms[0].alarm_arns
  } : null

  precondition {
    condition     = length(local.arn_place_problems.alarms) == 0
    error_message = join("\n", local.arn_place_problems.alarms)
  }
}

output "consumers" {
  description = "Per queue key with a consumer function: the event source mapping's uuid, arn, function_name, batch_size, maximum_concurrency and report_batch_item_failures."
  value = {
    for k, m in module.consumer : k => {
      uuid                       = m.uuid
      arn                        = m.arn
      function_name              = m.function_name
      batch_size                 = m.batch_size
      maximum_concurrency        = m.maximum_concurrency
      report_batch_item_failures = m.report_batch_item_failures
    }
  }

  precondition {
    condition     = length(local.arn_place_problems.consumers) == 0
    error_message = join("\n", local.arn_place_problems.consumers)
  }
}

output "dlq_redrive" {
  description = "Per queue key with automated redrive: function_name, function_arn, role_arn, log_group_name (one JSON line per decision), schedule_rule_name, errors_alarm_name, archive (where messages that are not redriven go)."
  value = {
    for k, m in module.dlq_redrive : k => {
      function_name      = m.function_name
      function_arn       = m.function_arn
      role_arn           = m.role_arn
      log_group_name     = m.log_group_name
      schedule_rule_name = m.schedule_rule_name
      errors_alarm_name  = m.errors_alarm_name
      archive            = m.archive
    }
  }

  precondition {
    condition     = length(local.rd_unknown_keys) == 0
    error_message = "dlq_redrive.queues: ${join(", ", [for k in local.rd_unknown_keys : "\"${k}\""])} ${length(local.rd_unknown_keys) == 1 ? "is not a key" : "are not keys"} of queues (keys: ${join(", ", keys(local.queues))}). List the queue keys whose DLQs should be redriven, or leave it null for all."
  }

  precondition {
    condition     = length(local.rd_foreign_dlq) == 0
    error_message = "dlq_redrive.queues: ${join(", ", [for k in local.rd_foreign_dlq : "\"${k}\""])} ${length(local.rd_foreign_dlq) == 1 ? "uses" : "use"} an existing DLQ (dlq_arn), which may hold messages of other queues: a redrive function would send them all to this one. Redrive that DLQ where it is managed, and leave these keys out of dlq_redrive.queues."
  }

  precondition {
    condition     = !local.dlq_redrive.enabled || length(local.rd_queue_keys) > 0
    error_message = "dlq_redrive: enabled, but it covers no DLQ: ${length(local.queues) == 0 ? "queues is empty" : local.dlq_redrive.queues != null ? "dlq_redrive.queues is empty" : "every queue uses an existing DLQ (dlq_arn), which is redriven where it is managed"}, so no redrive function is created. List the queue keys whose DLQs to redrive, or set dlq_redrive.enabled = false."
  }

  precondition {
    condition     = length(local.rd_name_problems) == 0
    error_message = join("\n", local.rd_name_problems)
  }

  precondition {
    condition     = length(local.arn_place_problems.dlq_redrive) == 0
    error_message = join("\n", local.arn_place_problems.dlq_redrive)
  }

  precondition {
    condition     = !local.dlq_redrive.enabled || local.rd_bucket != null
    error_message = "dlq_redrive: archived messages need a bucket. Enable claim_check_bucket (they go under dlq_redrive.archive_prefix there) or set dlq_redrive.archive_bucket_name."
  }

  precondition {
    condition     = !local.dlq_redrive.enabled || !local.rd_archive_expires
    error_message = "dlq_redrive.archive_prefix: \"${local.dlq_redrive.archive_prefix}\" is inside the claim-check payload prefix \"${local.claim_check.payload_prefix}\", whose objects expire, so archived messages would be deleted. Use a prefix outside it, e.g. \"dlq-archive/\"."
  }
}
