# Checks the root module's inputs before anything is built from them, and
# puts them in the shape the submodules take. See variables.tf for why.
#
# Every object a user writes is walked: an attribute the module does not know
# is refused with the closest valid name (or, for names users bring from
# terraform-aws-modules/sqs or aws_iam_policy_document, what to write
# instead). The checks read only attribute names, never values, so they are
# decided at plan time even when values are unknown until apply, and each
# object costs one set difference.

locals {
  # --- the attributes of every object the user writes -------------------------------

  thresholds = [
    "dlq_influx_messages", "dlq_influx_evaluation_periods", "dlq_stale_age_seconds", "age_warning_seconds",
    "age_critical_seconds", "backlog_messages", "backlog_evaluation_periods",
  ]
  attributes = {
    queue          = local.queue_attributes
    queue_defaults = local.queue_settings
    consumer = [
      "timeout_seconds", "maximum_batching_window_seconds", "function_name", "batch_size", "maximum_concurrency",
      "filter_patterns", "report_batch_item_failures", "enabled", "provisioned_poller_config",
    ]
    poller            = ["minimum_pollers", "maximum_pollers"]
    consumer_function = ["function_name", "timeout_seconds"]
    thresholds        = local.thresholds
    redrive_allow     = ["redrivePermission", "sourceQueueArns"]
    statement = [
      "sid", "effect", "actions", "not_actions", "principals", "not_principals", "conditions", "condition",
      "resources", "not_resources",
    ]
    principal = ["type", "identifiers"]
    condition = ["test", "variable", "values"]
    claim_check_bucket = [
      "enabled", "name", "queues", "payload_prefix", "expiration_days", "kms_key_arn", "versioning_enabled",
      "force_destroy", "abort_incomplete_multipart_upload_days", "access_log_bucket", "prevent_destroy", "tags",
    ]
    idempotency_table = ["enabled", "name", "sort_key_attr", "kms_key_arn", "deletion_protection_enabled", "prevent_destroy", "tags"]
    alarms = [
      "enabled", "sns_topic_arn", "create_sns_topic", "sns_topic_name", "sns_kms_master_key_id", "notify_on_ok",
      "alarm_name_prefix", "kinds", "thresholds",
    ]
    iam = ["create_managed_policies", "name_prefix", "path", "kms_key_arns"]
    dlq_redrive = [
      "enabled", "queues", "schedule_expression", "schedule_enabled", "max_messages_per_second", "max_messages_per_run",
      "max_redrive_count", "max_message_age_seconds", "permanent_failure_reasons", "failure_reason_attribute",
      "archive_bucket_name", "archive_prefix", "timeout_seconds", "reserved_concurrent_executions",
      "log_retention_days", "alarm_actions", "tags",
    ]
  }
  # what a required attribute given null must be
  required_what = {
    "consumer/timeout_seconds" = ": the consumer function's timeout, 1-900 s, from which the queue's visibility timeout is derived (6 x timeout + batching window); there is no default, as a guess below the function's real timeout would redeliver messages still in flight"
    "principal/identifiers"    = ": a list of the principals, such as [\"sns.amazonaws.com\"] or [\"arn:aws:iam::123456789012:role/producer\"]"
    "principal/type"           = ": AWS, Service, Federated, CanonicalUser or *"
    "condition/values"         = ": the values the condition key must match (for aws:SourceArn, the ARN of your topic, bucket or rule)"
  }
  required = {
    consumer          = ["timeout_seconds"]
    consumer_function = ["function_name"]
    principal         = ["type", "identifiers"]
    condition         = ["test", "variable", "values"]
  }
  # Names users bring from terraform-aws-modules/sqs and aws_iam_policy_document
  # that this module spells or does differently.
  foreign = {
    fifo_queue                      = "write fifo"
    create                          = "every entry of queues creates its queue; remove the entry instead"
    redrive_policy                  = "write max_receive_count (and dlq_arn to use an existing DLQ); the module writes the redrive policy"
    redrive_allow_policy            = "the DLQ's redrive-allow policy is dlq_redrive_allow_policy"
    create_dlq_redrive_allow_policy = "the DLQ always gets a redrive-allow policy naming this queue; extend it with dlq_redrive_allow_policy"
    use_name_prefix                 = "queue names are fixed, so their ARNs are known at plan; for a fixed prefix use the module's name_prefix input"
    create_queue_policy             = "the queue policy is always created (it holds the TLS-only deny); add to it with queue_policy_statements or source_queue_policy_documents"
    create_dlq_queue_policy         = "the DLQ policy is always created (it holds the TLS-only deny); add to it with dlq_policy_statements or source_dlq_queue_policy_documents"
    dlq_queue_policy_statements     = "write dlq_policy_statements"
    source_policy_documents         = "write source_queue_policy_documents (or source_dlq_queue_policy_documents)"
    override_policy_documents       = "write override_queue_policy_documents (or override_dlq_queue_policy_documents)"
    function_response_types         = "write report_batch_item_failures = true (the default)"
    scaling_config                  = "write maximum_concurrency"
    filter_criteria                 = "write filter_patterns (a list of JSON patterns)"
    principal                       = "write principals, a list of { type, identifiers }"
    action                          = "write actions"
    resource                        = "the resource is always the queue itself; remove it"
    # names whose closest spelling would mislead: say what holds instead
    expiry_attr = "the TTL attribute is fixed at \"expiration\": Powertools' DynamoDBPersistenceLayer writes and reads it by that name and the table's TTL is set on it (idempotency_table.sort_key_attr is a key of the table, not the expiry: changing it replaces the table). Remove expiry_attr"
    ttl_attr    = "the TTL attribute is fixed at \"expiration\" (Powertools' DynamoDBPersistenceLayer reads it by that name). Remove ttl_attr"
    consumer    = "consumers are per queue (each has its own function and event source mapping): set consumer on each entry of queues"
  }
  # character pairs of every valid name, to find the closest one to a typo
  bigrams = {
    for kind, names in local.attributes : kind => {
      for n in names : n => toset([for i in range(max(length(n) - 1, 1)) : substr(n, i, 2)])
    }
  }

  # --- every object to check: { path, value, kind } ------------------------------------

  q_paths = { for k, q in var.queues : k => "queues[\"${k}\"]" }
  # queues entries and what sits inside them
  q_objects = [for k, q in var.queues : { path = local.q_paths[k], value = q, kind = "queue" } if can(keys(q))]
  q_nested = flatten([
    for k, q in local.q_entries : concat([
      for attr, kind in { consumer = "consumer", alarm_thresholds = "thresholds", dlq_redrive_allow_policy = "redrive_allow" } :
      { path = "${local.q_paths[k]}.${attr}", value = q[attr], kind = kind } if can(keys(q[attr]))
      ], [
      for c in [try(q.consumer.provisioned_poller_config, null)] :
      { path = "${local.q_paths[k]}.consumer.provisioned_poller_config", value = c, kind = "poller" } if can(keys(c))
    ])
  ])
  # Lists are told by slice(x, 0, 0), which stays known when a value inside is not;
  # try() and can() of a value with an unknown part are wholly unknown.
  statements = flatten([
    for k, q in local.q_entries : [
      for attr in ["queue_policy_statements", "dlq_policy_statements"] : [
        for i, s in q[attr] : {
          path  = "${local.q_paths[k]}.${attr}[${can(keys(q[attr])) ? "\"${i}\"" : i}]"
          value = s
          kind  = "statement"
        }
      ] if can(slice(q[attr], 0, 0)) || can(keys(q[attr]))
    ]
  ])
  statement_parts = flatten([
    for s in local.statements : [
      for attr, kind in { principals = "principal", not_principals = "principal", conditions = "condition", condition = "condition" } : [
        for i, p in s.value[attr] : { path = "${s.path}.${attr}[${i}]", value = p, kind = kind }
      ] if can(keys(s.value)) && can(slice(s.value[attr], 0, 0))
    ]
  ])
  q_entries = { for k, q in var.queues : k => { for a in local.attributes.queue : a => lookup(q, a, null) } if can(keys(q)) }

  queue_objects = concat(
    local.q_objects, local.q_nested, local.statements, local.statement_parts,
    [{ path = "queue_defaults", value = var.queue_defaults_raw, kind = "queue_defaults" }],
  )
  switch_objects = {
    for name in ["claim_check_bucket", "idempotency_table", "alarms", "iam", "dlq_redrive"] : name => concat(
      [{ path = name, value = var.switches_raw[name], kind = name }],
      name == "alarms" && can(keys(var.switches_raw.alarms.thresholds)) ? [{ path = "alarms.thresholds", value = var.switches_raw.alarms.thresholds, kind = "thresholds" }] : [],
    )
  }
  consumer_function_objects = [
    for k, f in var.consumer_functions_raw : { path = "consumer_functions[\"${k}\"]", value = f, kind = "consumer_function" } if can(keys(f))
  ]

  # --- what is wrong with them ---------------------------------------------------------

  # wrong shapes: an entry or nested value that must be an object (or a list of objects)
  shape_problems = concat(
    [for k, q in var.queues : "${local.q_paths[k]}: must be an object of queue settings such as { fifo = true }; an empty object {} takes every default." if !can(keys(q))],
    flatten([for k, q in local.q_entries : [
      for attr in ["consumer", "alarm_thresholds", "dlq_redrive_allow_policy", "dlq_tags", "tags"] :
      "${local.q_paths[k]}.${attr}: must be an object (attribute = value), not ${can(tolist(q[attr])) ? "a list" : "a single value"}." if q[attr] != null && !can(keys(q[attr]))
    ]]),
    flatten([for k, q in local.q_entries : [
      for attr in ["queue_policy_statements", "dlq_policy_statements"] :
      "${local.q_paths[k]}.${attr}: must be a list of statements (or a map of them keyed by name, as terraform-aws-modules/sqs takes them)." if q[attr] != null && !can([for s in q[attr] : keys(s)])
    ]]),
    flatten([for s in local.statements : [
      for attr in ["principals", "not_principals", "conditions", "condition"] :
      "${s.path}.${attr}: must be a list of objects (${attr == "principals" || attr == "not_principals" ? "{ type, identifiers }" : "{ test, variable, values }"})." if can(keys(s.value)) && try(lookup(s.value, attr, null) != null, false) && (can(keys(s.value[attr])) || !can([for p in s.value[attr] : keys(p)]))
    ]]),
  )

  # attributes the module does not know, and required ones that are missing
  unknown_attributes = {
    for group, objects in merge({ queues = local.queue_objects }, local.switch_objects) : group => flatten([
      for o in objects : [
        for a in sort(setsubtract(keys(o.value), local.attributes[o.kind])) : { path = o.path, attr = a, kind = o.kind }
      ] if can(keys(o.value))
    ])
  }
  # what to write instead: the module's own spelling of a name from another module,
  # else the closest valid name (the share of the typo's character pairs found in
  # it, plus the Dice coefficient of the two sets, so the shorter match wins a tie)
  hints = {
    for u in flatten(values(local.unknown_attributes)) : "${u.kind}/${u.attr}" => (
      contains(keys(local.foreign), u.attr) ? format("%s.", local.foreign[u.attr]) : [
        for ab in [toset([for i in range(max(length(u.attr) - 1, 1)) : substr(u.attr, i, 2)])] : [
          for scores in [{
            for n, nb in local.bigrams[u.kind] : n => length(setintersection(ab, nb)) / length(ab) + 2 * length(setintersection(ab, nb)) / (length(ab) + length(nb))
            }] : (
            max(values(scores)...) >= 0.6
            ? format("did you mean %q?", [for n, score in scores : n if score == max(values(scores)...)][0])
            : format("valid attributes here: %s.", join(", ", local.attributes[u.kind]))
          )
        ][0]
      ][0]
    )...
  }
  attribute_problems = {
    for group, objects in merge({ queues = local.queue_objects }, local.switch_objects) : group => concat(
      [for u in local.unknown_attributes[group] : format("%s: unknown attribute %q; %s", u.path, u.attr, local.hints["${u.kind}/${u.attr}"][0])],
      flatten([for o in objects : [
        for a in lookup(local.required, o.kind, []) : (
          !contains(keys(o.value), a) ? format("%s: %q is required.", o.path, a)
          : format("%s.%s: null, but it is required%s (a lookup that found nothing, or a variable left unset?).", o.path, a, lookup(local.required_what, "${o.kind}/${a}", ""))
        ) if !contains(keys(o.value), a) || try(o.value[a] == null, false)
      ] if can(keys(o.value))]),
    )
  }
  # said once under the list: why an unknown attribute is an error, not a warning
  unknown_attribute_note = "(An attribute the module does not know is refused: Terraform would drop it without a word and plan the default instead.)"
  attribute_messages = {
    for group, problems in local.attribute_problems : group => join("\n", concat(
      problems, anytrue([for p in problems : strcontains(p, "unknown attribute")]) ? [local.unknown_attribute_note] : [],
    ))
  }
}

# --- the queues, resolved ------------------------------------------------------------
#
# Precedence of a setting: the queue's own value, then (for the visibility
# timeout) the value its consumer derives, then queue_defaults, then the
# module default (modules/queue, which takes null as "not given"). Values are
# picked from a tuple, not a conditional, so a wrongly typed one reaches the
# submodule variable that names it instead of failing here without a name.

locals {
  defaults = var.queue_defaults

  picked = {
    for k, q in local.q_entries : k => merge(
      { for a in local.queue_settings : a => try([for v in [q[a], local.defaults[a]] : v if v != null][0], null) },
      { visibility_timeout_seconds = try([for v in [q.visibility_timeout_seconds, q.consumer == null ? local.defaults.visibility_timeout_seconds : null] : v if v != null][0], null) },
    )
  }

  # create_dlq as given (queue, then defaults): read from the inputs, not from `picked`,
  # whose merge() is wholly unknown when a setting is unknown
  create_dlq = { for k, q in local.q_entries : k => [for v in [q.create_dlq, local.defaults.create_dlq] : v if v != null] }

  # the names, by the rule modules/queue names its pair with (internal/names)
  names = {
    for k, q in local.q_entries : k => {
      given = "${var.name_prefix}${q.name != null ? q.name : k}"
      # no dlq_arn (null or ""), unless create_dlq decides: it must when the ARN is
      # known only after apply, so that which resources exist is known at plan
      own = module.names.names[k].create_dlq
    }
  }
  queue_name = { for k, x in module.names.names : k => x.queue_name }
  dlq_name   = { for k, x in module.names.names : k => x.dlq_name } # an existing DLQ: the last part of its ARN ("" without one: refused by modules/queue)
  queue_arn  = { for k, n in local.queue_name : k => "${var.arn_prefix}:${n}" }
  dlq_arn    = { for k, x in local.names : k => x.own ? "${var.arn_prefix}:${local.dlq_name[k]}" : local.picked[k].dlq_arn }

  # A dlq_arn may name a queue of this call: another entry's DLQ (shared), or an
  # entry's source queue. Then its settings are known and checked, its
  # redrive-allow policy admits the queues that use it, and it is alarmed once.
  arn_index = { for arn, targets in merge(
    { for k, arn in local.queue_arn : arn => { key = k, role = "queue" }... },
    { for k, arn in local.dlq_arn : arn => { key = k, role = "dlq" }... if local.names[k].own },
  ) : arn => targets[0] }
  dlq_users = { for k, x in local.names : local.picked[k].dlq_arn => k... if !x.own && local.picked[k].dlq_arn != null }

  # how refusal messages name each setting of a queue: where the user wrote it
  input_names = {
    for k, q in var.queues : k => merge(
      { for a in local.attributes.queue : a => "${local.q_paths[k]}.${a}" },
      { for a in local.queue_settings : a => "queue_defaults.${a} (used by ${local.q_paths[k]})" if !contains(keys(q), a) && contains(try(keys(var.queue_defaults_raw), []), a) },
      { name = contains(keys(q), "name") ? "${local.q_paths[k]}.name" : "${local.q_paths[k]} (the key is the queue name)" },
    ) if can(keys(q))
  }

  queues = {
    for k, q in local.q_entries : k => {
      name       = local.names[k].given
      queue_name = local.queue_name[k]
      dlq_name   = q.dlq_name != null ? "${var.name_prefix}${q.dlq_name}" : null
      dlq_final  = local.dlq_name[k]
      queue_arn  = local.queue_arn[k]
      dlq_own    = local.names[k].own
      # the queue of this call that a dlq_arn names, if any: { key, role = "queue" | "dlq" }
      dlq_target = local.names[k].own ? null : try(local.arn_index[local.picked[k].dlq_arn], null)
      # an existing DLQ outside this call (create_dlq = false says so even when its ARN
      # is unknown) is watched by whoever owns it
      dlq_alarms = local.names[k].own ? true : length(local.create_dlq[k]) > 0 ? false : try(
        try(local.arn_index[local.picked[k].dlq_arn].role, "") != "dlq" && k == sort(local.dlq_users[local.picked[k].dlq_arn])[0],
      false)
      settings = local.picked[k]
      consumer = can(keys(q.consumer)) ? {
        timeout_seconds                 = try(q.consumer.timeout_seconds, null)
        maximum_batching_window_seconds = try(q.consumer.maximum_batching_window_seconds, null)
      } : null
      queue_policy_statements             = flatten([for x in [q.queue_policy_statements] : [for s in x : s] if x != null])
      dlq_policy_statements               = flatten([for x in [q.dlq_policy_statements] : [for s in x : s] if x != null])
      source_queue_policy_documents       = q.source_queue_policy_documents
      override_queue_policy_documents     = q.override_queue_policy_documents
      source_dlq_queue_policy_documents   = q.source_dlq_queue_policy_documents
      override_dlq_queue_policy_documents = q.override_dlq_queue_policy_documents
      # queues of this call that use this queue's DLQ are admitted by its redrive-allow policy
      dlq_redrive_allow_policy = try([for v in [
        local.names[k].own && contains(keys(local.dlq_users), local.dlq_arn[k]) && try(q.dlq_redrive_allow_policy.redrivePermission, "byQueue") != "allowAll" ? {
          redrivePermission = try(q.dlq_redrive_allow_policy.redrivePermission, "byQueue")
          sourceQueueArns   = concat(try(q.dlq_redrive_allow_policy.sourceQueueArns, []), [for u in local.dlq_users[local.dlq_arn[k]] : local.queue_arn[u]])
        } : null,
        q.dlq_redrive_allow_policy,
      ] : v if v != null][0], null)
      dlq_tags         = q.dlq_tags
      alarm_thresholds = try([for v in [q.alarm_thresholds, {}] : v if v != null][0], {})
      tags             = q.tags
      input_names      = local.input_names[k]
    }
  }

  # checks that read values: the names the queues get, encryption turned off
  name_uses = concat(
    [for k, n in local.queue_name : { name = n, who = local.q_paths[k] }],
    [for k, n in local.dlq_name : { name = n, who = "${local.q_paths[k]} (its DLQ)" } if local.names[k].own],
  )
  name_groups = { for u in local.name_uses : u.name => u.who... }
  value_problems = concat(
    # read from the attribute names: a dlq_arn known only after apply is still a dlq_arn
    [for k, q in var.queues : "${local.q_paths[k]}.create_dlq: true, but ${local.q_paths[k]}.dlq_arn names an existing DLQ too. Give one: create_dlq = true (or leave it out) for a DLQ of its own, or dlq_arn for an existing one." if can(keys(q)) && contains(try(keys(q), []), "dlq_arn") && try(local.create_dlq[k][0], null) == true],
    [for n, whos in local.name_groups : "queue name \"${n}\" is used by ${join(" and ", whos)}. Queue names are unique per account and region, so these would be one queue, not ${length(whos)}${anytrue([for w in whos : endswith(w, "(its DLQ)") && contains(whos, trimsuffix(w, " (its DLQ)"))]) ? " (a queue that is its own DLQ keeps failing messages forever)" : ""}. Give each queue and DLQ its own name (the key or name, dlq_name, name_prefix)." if length(whos) > 1],
    flatten([for k, p in local.picked : [
      for a in ["sqs_managed_sse_enabled", "dlq_sqs_managed_sse_enabled"] :
      "${local.input_names[k][a]}: false is refused: the queues are always encrypted (SSE-SQS, or SSE-KMS when a KMS key is given); there is no way to turn encryption off. Remove it." if p[a] == false
    ]]),
  )
}

module "names" {
  source = "../names"

  # values of the wrong type are refused by type_problems, naming the input; here they
  # are read as not given, so that they fail there and not in this module's variable
  pairs = {
    for k, q in local.q_entries : k => {
      name       = "${var.name_prefix}${q.name != null ? q.name : k}"
      fifo       = try(tobool(local.picked[k].fifo), false) == true
      dlq_name   = q.dlq_name != null ? "${var.name_prefix}${q.dlq_name}" : null
      create_dlq = length(local.create_dlq[k]) > 0 ? try(tobool(local.create_dlq[k][0]), false) : null
      dlq_arn    = try(tostring(local.picked[k].dlq_arn), null)
    }
  }
}

# --- the consumers: event source mappings ----------------------------------------------
#
# `consumer_functions` is kept apart from `queues`: a function defined in the
# same stack reads the queue's URL and its consumer policy from this module, so
# nothing the queues need may depend on the function. Only the mappings do.

locals {
  # entries that are not objects are refused by consumer_problems
  consumer_function_entries = { for k, f in var.consumer_functions : k => f if can(keys(f)) }
  consumer_keys = sort(distinct(concat(
    [for k in keys(local.consumer_function_entries) : k if contains(keys(local.q_entries), k) && can(keys(try(local.q_entries[k].consumer, null)))],
    [for k, q in local.q_entries : k if try(q.consumer.function_name, null) != null],
  )))
  consumers = {
    for k in local.consumer_keys : k => {
      function_name                   = contains(keys(local.consumer_function_entries), k) ? local.consumer_function_entries[k].function_name : local.q_entries[k].consumer.function_name
      function_timeout_seconds        = try([for v in [try(local.consumer_function_entries[k].timeout_seconds, null), local.q_entries[k].consumer.timeout_seconds] : v if v != null][0], null)
      maximum_batching_window_seconds = try([for v in [local.q_entries[k].consumer.maximum_batching_window_seconds, 0] : v if v != null][0], 0)
      batch_size                      = try([for v in [local.q_entries[k].consumer.batch_size, 10] : v if v != null][0], 10)
      maximum_concurrency             = try([for v in [local.q_entries[k].consumer.maximum_concurrency, 10] : v if v != null][0], 10)
      # provisioned mode is bounded by its maximum_pollers: the default above is not used
      # there (Lambda refuses both on one mapping; one given is refused by modules/lambda-consumer)
      maximum_concurrency_given  = try(local.q_entries[k].consumer.maximum_concurrency != null, false)
      provisioned_poller_config  = try(local.q_entries[k].consumer.provisioned_poller_config, null)
      filter_patterns            = try([for v in [local.q_entries[k].consumer.filter_patterns, []] : v if v != null][0], [])
      report_batch_item_failures = try([for v in [local.q_entries[k].consumer.report_batch_item_failures, true] : v if v != null][0], true)
      enabled                    = try([for v in [local.q_entries[k].consumer.enabled, true] : v if v != null][0], true)
      tags                       = local.q_entries[k].tags
      input_names = merge(
        { for a in local.attributes.consumer : a => "${local.q_paths[k]}.consumer.${a}" },
        {
          queue_visibility_timeout_seconds = "the visibility timeout of ${local.q_paths[k]}"
          queue_arn                        = local.q_paths[k]
          function_timeout_seconds         = contains(keys(local.consumer_function_entries), k) && try(local.consumer_function_entries[k].timeout_seconds, null) != null ? "consumer_functions[\"${k}\"].timeout_seconds" : "${local.q_paths[k]}.consumer.timeout_seconds"
        },
        contains(keys(local.consumer_function_entries), k) ? { function_name = "consumer_functions[\"${k}\"].function_name" } : {},
      )
    }
  }
  # (checked apart from the other inputs: the queues must not depend on these)
  consumer_problems = concat(
    flatten([for o in local.consumer_function_objects : concat(
      [for a in sort(setsubtract(keys(o.value), local.attributes.consumer_function)) : "${o.path}: unknown attribute \"${a}\"; valid attributes here: ${join(", ", local.attributes.consumer_function)}. ${local.unknown_attribute_note}"],
      [for a in local.required.consumer_function : "${o.path}: \"${a}\" is required." if !contains(keys(o.value), a)],
    )]),
    [for k, f in var.consumer_functions_raw : "consumer_functions[\"${k}\"]: must be an object { function_name, timeout_seconds }." if !can(keys(f))],
    [for k in keys(local.consumer_function_entries) : "consumer_functions[\"${k}\"]: \"${k}\" is not a key of queues (keys: ${join(", ", keys(var.queues))}). Key each function by the queue it consumes." if !contains(keys(var.queues), k)],
    [for k in keys(local.consumer_function_entries) : "consumer_functions[\"${k}\"]: ${local.q_paths[k]}.consumer is not set. Set ${local.q_paths[k]}.consumer = { timeout_seconds = <the function's timeout> } (a literal or a local shared with the function, not a reference to it): the queue's visibility timeout is derived from it, and the queue must not depend on the function." if contains(keys(local.q_entries), k) && !can(keys(try(local.q_entries[k].consumer, null)))],
    [for k in keys(local.consumer_function_entries) : "consumer_functions[\"${k}\"]: ${local.q_paths[k]}.consumer.function_name names a function too. Give the function in one place: consumer_functions for a function of the same stack, consumer.function_name for an existing one." if contains(keys(local.q_entries), k) && try(local.q_entries[k].consumer.function_name, null) != null],
  )
}

# --- settings that would do nothing --------------------------------------------------
#
# A setting the module would accept and then not use is refused like an unknown
# attribute: the user meant something by it. Each check reads only what is known
# at plan (attribute names, the switches); values read here that may be unknown
# until apply (tags of a resource of the stack) are checked apart, so that they
# defer only their own check.

locals {
  # which kind of alarm each threshold tunes
  threshold_kind = {
    dlq_influx_messages = "dlq_influx", dlq_influx_evaluation_periods = "dlq_influx", dlq_stale_age_seconds = "dlq_stale",
    age_warning_seconds = "age_warning", age_critical_seconds = "age_critical", backlog_messages = "backlog", backlog_evaluation_periods = "backlog",
  }
  alarm_kinds = try(toset(coalesce(var.alarms.kinds, ["dlq_depth", "age_critical"])), toset(["dlq_depth", "age_critical"]))
  alarm_threshold_inputs = concat(
    [{ path = "alarms.thresholds", value = try(var.switches_raw.alarms.thresholds, {}) }],
    [for k, q in local.q_entries : { path = "${local.q_paths[k]}.alarm_thresholds", value = q.alarm_thresholds } if can(keys(q.alarm_thresholds))],
  )
  alarm_noop_problems = !try(tobool(var.alarms.enabled), false) ? [] : concat(
    flatten([for t in local.alarm_threshold_inputs : [
      for a, v in t.value : "${t.path}.${a}: ${jsonencode(v)} tunes the ${local.threshold_kind[a]} alarm, which is not created (alarms.kinds = ${jsonencode(sort(local.alarm_kinds))}): the value would do nothing. Add \"${local.threshold_kind[a]}\" to alarms.kinds, or remove it." if v != null && contains(keys(local.threshold_kind), a) && !contains(local.alarm_kinds, lookup(local.threshold_kind, a, ""))
    ] if can(keys(t.value))]),
    var.alarms.sns_topic_name != null && (var.alarms.sns_topic_arn != null || var.alarms.create_sns_topic != true) ? ["alarms.sns_topic_name: \"${var.alarms.sns_topic_name}\" names the topic the module creates, but none is created (${local.no_topic_why}): remove it, or set alarms.create_sns_topic = true without alarms.sns_topic_arn."] : [],
    var.alarms.sns_kms_master_key_id != null && (var.alarms.sns_topic_arn != null || var.alarms.create_sns_topic != true) ? ["alarms.sns_kms_master_key_id: encrypts the topic the module creates, but none is created (${var.alarms.sns_topic_arn != null ? "alarms.sns_topic_arn names an existing one, encrypted by its owner" : local.no_topic_why}): the key would do nothing. Remove it${var.alarms.sns_topic_arn != null ? "" : ", or set alarms.create_sns_topic = true for an encrypted topic of the module's"}."] : [],
    # the alarms, and the topic with them, are created for the queues: with none, nothing is
    length(var.queues) == 0 && var.alarms.create_sns_topic == true ? ["alarms.create_sns_topic: true, but queues is empty: the module creates the alarms and their topic only with queues to watch, so no topic would be created (and its output would be null). Add the queues, or remove alarms.create_sns_topic until there are some."] : [],
  )
  no_topic_why = var.alarms.sns_topic_arn != null ? "alarms.sns_topic_arn names an existing one" : var.alarms.create_sns_topic == false ? "alarms.create_sns_topic = false" : "alarms.create_sns_topic is not set: the module creates a topic only with create_sns_topic = true"

  # alarms.enabled = false creates no alarm and no topic: every other alarms setting, and
  # a queue's alarm_thresholds, would be dropped without a word
  alarms_off = try(tobool(var.alarms.enabled), true) == false
  alarm_off_problems = !local.alarms_off ? [] : concat(
    [for a in sort(try(keys(var.switches_raw.alarms), [])) : "alarms.${a}: ${jsonencode(var.switches_raw.alarms[a])} is set, but alarms.enabled = false: no alarm and no topic are created, so ${a == "sns_topic_arn" ? "nothing would ever notify the topic" : "the setting would do nothing"}. Remove alarms.${a}, or remove alarms.enabled = false (alarms are on by default) to alarm on the queues." if a != "enabled" && try(var.switches_raw.alarms[a] != null, true)],
    [for t in local.alarm_threshold_inputs : "${t.path}: ${jsonencode(t.value)} is set, but alarms.enabled = false: no alarm is created, so the thresholds would do nothing. Remove ${t.path}, or remove alarms.enabled = false to alarm on the queues." if t.path != "alarms.thresholds" && length(t.value) > 0],
  )

  # iam.name_prefix and iam.path name the managed policies, which only
  # create_managed_policies = true creates (the documents are output either way)
  iam_noop_problems = try(tobool(var.iam.create_managed_policies), false) == true ? [] : [
    for a in ["name_prefix", "path"] : "iam.${a}: ${jsonencode(var.switches_raw.iam[a])} is set, but no IAM policy is created (iam.create_managed_policies is not true: the module outputs the policy documents only, which have no ${a == "path" ? "path" : "name"}), so it would do nothing. Remove iam.${a}, or set iam.create_managed_policies = true to create the policies." if try(var.switches_raw.iam[a] != null, false)
  ]

  # allow_short_polling opts in to a 0 s wait: given where no queue waits 0 s, it does nothing
  # (queue_defaults' may serve queues that do, so it is refused only when none does)
  short_polling = { for k, p in local.picked : k => try(p.receive_wait_time_seconds == 0, false) || (local.names[k].own && try(p.dlq_receive_wait_time_seconds == 0, false)) }
  setting_noop_problems = concat(
    [for k, q in local.q_entries : "${local.q_paths[k]}.allow_short_polling: true, but neither ${local.input_names[k].receive_wait_time_seconds} nor ${local.input_names[k].dlq_receive_wait_time_seconds} is 0 (they are ${coalesce(local.picked[k].receive_wait_time_seconds, 20)} s and ${coalesce(local.picked[k].dlq_receive_wait_time_seconds, 20)} s: long polling), so the opt-in to short polling would do nothing. Remove it, or set the wait to 0 if this consumer must never block." if q.allow_short_polling == true && !local.short_polling[k]],
    try(var.queue_defaults.allow_short_polling == true, false) && length(local.q_entries) > 0 && !anytrue(values(local.short_polling)) ? ["queue_defaults.allow_short_polling: true, but no queue has receive_wait_time_seconds or dlq_receive_wait_time_seconds = 0 (every one long-polls), so the opt-in to short polling would do nothing. Remove it, or set the wait to 0 where a consumer must never block."] : [],
  )

  # SSE-KMS settings without a KMS key: the queue uses SSE-SQS and drops them
  kms_noop_problems = flatten([for k, p in local.picked : concat(
    p.kms_data_key_reuse_period_seconds != null && p.kms_master_key_id == null ? ["${local.input_names[k].kms_data_key_reuse_period_seconds}: ${p.kms_data_key_reuse_period_seconds} is set, but the queue has no KMS key (${local.input_names[k].kms_master_key_id} is not set): it is encrypted with SSE-SQS, whose keys SQS manages, so a data key reuse period would do nothing. Remove it, or set kms_master_key_id to the key it is for."] : [],
    p.dlq_kms_data_key_reuse_period_seconds != null && p.dlq_kms_master_key_id == null && p.kms_master_key_id == null ? ["${local.input_names[k].dlq_kms_data_key_reuse_period_seconds}: ${p.dlq_kms_data_key_reuse_period_seconds} is set, but the DLQ has no KMS key (neither dlq_kms_master_key_id nor kms_master_key_id is set): it is encrypted with SSE-SQS, so the reuse period would do nothing. Remove it, or give the DLQ's KMS key."] : [],
  )])

  # Tags AWS refuses at apply: keys of 1-128 characters (values up to 256) of
  # letters, digits, spaces and _ . : / = + - @, not starting with "aws:"
  tag_maps = concat(
    [for k, q in local.q_entries : { path = "${local.q_paths[k]}.tags", value = q.tags } if can(keys(q.tags))],
    [for k, q in local.q_entries : { path = "${local.q_paths[k]}.dlq_tags", value = q.dlq_tags } if can(keys(q.dlq_tags))],
    [for s in ["claim_check_bucket", "idempotency_table", "dlq_redrive"] : { path = "${s}.tags", value = var.switches_raw[s].tags } if can(keys(var.switches_raw[s].tags))],
  )
  tag_key_problems = flatten([for m in local.tag_maps : [
    for t in keys(m.value) : "${m.path}: tag key \"${t}\" is refused by AWS: ${startswith(lower(t), "aws:") ? "the aws: prefix is reserved for AWS's own tags" : "a key must be 1-128 letters, digits, spaces or _ . : / = + - @"}. Rename it." if startswith(lower(t), "aws:") || !can(regex("^[\\p{L}\\p{Z}\\p{N}_.:/=+@-]{1,128}$", t))
  ]])
  tag_value_problems = flatten([for m in local.tag_maps : [
    for t, v in m.value : (v == null
      ? "${m.path}: the value of tag \"${t}\" is null: a tag value must be a string (\"\" for an empty one). Give its value, or remove the tag (a lookup that found nothing, or a variable left unset?)."
      : "${m.path}: the value of tag \"${t}\" is refused by AWS: a value must be at most 256 letters, digits, spaces or _ . : / = + - @ (it has ${length(v)} characters${can(regex("^[\\p{L}\\p{Z}\\p{N}_.:/=+@-]*$", v)) ? "" : ", some outside that set"}). Shorten it or replace those characters."
    ) if v == null || !can(regex("^[\\p{L}\\p{Z}\\p{N}_.:/=+@-]{0,256}$", v))
  ]])

  # consumer settings of the event source mapping, given where no mapping is created
  mapping_settings = ["batch_size", "maximum_concurrency", "filter_patterns", "report_batch_item_failures", "enabled", "provisioned_poller_config"]
  consumer_noop_problems = concat(
    flatten([for k, q in local.q_entries : [
      for a in local.mapping_settings : "${local.q_paths[k]}.consumer.${a}: ${jsonencode(q.consumer[a])} configures the event source mapping, but none is created for this queue: it has no consumer.function_name and no consumer_functions[\"${k}\"] entry. Name the function (consumer.function_name for an existing one, consumer_functions for one of this stack), or remove ${a}."
      if contains(keys(q.consumer), a) && try(q.consumer[a] != null, true)
    ] if can(keys(q.consumer)) && !contains(local.consumer_keys, k)]),
    [for k, c in local.consumers : "${local.q_paths[k]}.consumer.report_batch_item_failures: false is refused. Without it one failed message makes Lambda retry the whole batch, so messages that were processed are processed again and the failing one reaches the DLQ only with its batch; sqs-policy (ESM002) calls it an error. true costs nothing for a function that does not report failures: a raised error still retries the whole batch. Remove it, and return batchItemFailures from the function (Powertools' BatchProcessor does)." if c.report_batch_item_failures == false],
    [for k, c in local.consumers : "${local.q_paths[k]}.consumer.maximum_batching_window_seconds: ${c.maximum_batching_window_seconds} s with batch_size = 1: a batching window waits for a batch to fill, and a batch of one is full with its first message, so the window would do nothing but lengthen the queue's visibility timeout. Remove it, or raise batch_size." if try(c.batch_size == 1 && c.maximum_batching_window_seconds > 0, false)],
  )
}

# --- values of the wrong type ----------------------------------------------------------
#
# Every object input is `type = any` (see variables.tf), so Terraform does not
# convert its attributes: a wrong type would surface deep inside, naming an
# internal variable. Each attribute is checked here against the type its
# submodule takes, and refused naming the user's input. A value known only
# after apply is checked at apply.

locals {
  expected = {
    bool   = "true or false"
    number = "a number"
    string = "a string"
    list   = "a list of strings, such as [\"a\", \"b\"]"
    map    = "a map of strings, such as { team = \"orders\" }"
    object = "an object { attribute = value }"
  }
  attribute_types = {
    queue = local.queue_attribute_types
    consumer = {
      timeout_seconds           = "number", maximum_batching_window_seconds = "number", batch_size = "number", maximum_concurrency = "number",
      function_name             = "string", report_batch_item_failures = "bool", enabled = "bool", filter_patterns = "list",
      provisioned_poller_config = "object",
    }
    poller            = { minimum_pollers = "number", maximum_pollers = "number" }
    consumer_function = { function_name = "string", timeout_seconds = "number" }
    thresholds        = { for a in local.thresholds : a => "number" }
    claim_check_bucket = {
      enabled            = "bool", name = "string", queues = "list", payload_prefix = "string", expiration_days = "number", kms_key_arn = "string",
      versioning_enabled = "bool", force_destroy = "bool", abort_incomplete_multipart_upload_days = "number", access_log_bucket = "string",
      prevent_destroy    = "bool", tags = "map",
    }
    idempotency_table = {
      enabled         = "bool", name = "string", sort_key_attr = "string", kms_key_arn = "string", deletion_protection_enabled = "bool",
      prevent_destroy = "bool", tags = "map",
    }
    alarms = {
      enabled      = "bool", sns_topic_arn = "string", create_sns_topic = "bool", sns_topic_name = "string", sns_kms_master_key_id = "string",
      notify_on_ok = "bool", alarm_name_prefix = "string", kinds = "list", thresholds = "object",
    }
    iam = { create_managed_policies = "bool", name_prefix = "string", path = "string", kms_key_arns = "list" }
    dlq_redrive = {
      enabled                        = "bool", queues = "list", schedule_expression = "string", schedule_enabled = "bool", max_messages_per_second = "number",
      max_messages_per_run           = "number", max_redrive_count = "number", max_message_age_seconds = "number", permanent_failure_reasons = "list",
      failure_reason_attribute       = "string", archive_bucket_name = "string", archive_prefix = "string", timeout_seconds = "number",
      reserved_concurrent_executions = "number", log_retention_days = "number", alarm_actions = "list", tags = "map",
    }
  }
  # consumer_functions apart: nothing but the mappings may depend on them (a function of
  # the stack reads the queues and the IAM documents: a cycle otherwise)
  # (Terraform orders by whole locals: a local that also read consumer_functions would
  # make every output depend on them)
  typed_objects = concat(
    [for o in local.queue_objects : o if contains(["queue", "queue_defaults", "consumer", "thresholds", "poller"], o.kind)],
    flatten(values(local.switch_objects)),
  )
  type_problems = { for group, objects in { others = local.typed_objects } : group => flatten([for o in objects : [
    for a, v in o.value : "${o.path}.${a}: ${jsonencode(v)} is not ${local.expected[lookup(local.attribute_types[o.kind == "queue_defaults" ? "queue" : o.kind], a, "")]}."
    if v != null && !(
      lookup(local.attribute_types[o.kind == "queue_defaults" ? "queue" : o.kind], a, "") == "bool" ? can(tobool(v)) :
      lookup(local.attribute_types[o.kind == "queue_defaults" ? "queue" : o.kind], a, "") == "number" ? can(tonumber(v)) :
      lookup(local.attribute_types[o.kind == "queue_defaults" ? "queue" : o.kind], a, "") == "string" ? can(tostring(v)) && !contains(["true", "false"], jsonencode(v)) :
      lookup(local.attribute_types[o.kind == "queue_defaults" ? "queue" : o.kind], a, "") == "list" ? can([for x in tolist(v) : tostring(x)]) :
      lookup(local.attribute_types[o.kind == "queue_defaults" ? "queue" : o.kind], a, "") == "map" ? can({ for k, x in v : k => tostring(x) if can(keys(v)) }) && can(keys(v)) :
      lookup(local.attribute_types[o.kind == "queue_defaults" ? "queue" : o.kind], a, "") == "object" ? can(keys(v)) : true
    )
  ] if can(keys(o.value))]) }
  # null inside a list or a map of strings (a lookup that found nothing): the type check
  # above takes it (tostring(null) is null), and it would fail deep inside as a raw error
  null_problems = flatten([for o in local.typed_objects : [
    for a, v in o.value : "${o.path}.${a}: ${jsonencode(v)} holds null (${join(", ", can(keys(v)) ? [for i, x in v : "key \"${i}\"" if x == null] : [for i, x in tolist(v) : "entry ${i}" if x == null])}): every ${can(keys(v)) ? "value" : "entry"} must be a string (a lookup that found nothing, or a variable left unset?). Remove it or give its value."
    if v != null && !contains(["tags", "dlq_tags"], a) && contains(["list", "map"], lookup(local.attribute_types[o.kind == "queue_defaults" ? "queue" : o.kind], a, "")) && try(anytrue([for x in(can(keys(v)) ? values(v) : tolist(v)) : x == null]), false)
  ] if can(keys(o.value))])
  # by the output that carries them
  type_problem_groups = {
    for g in ["queues", "claim_check_bucket", "idempotency_table", "alarms", "iam", "dlq_redrive"] : g => [
      for p in concat(local.type_problems.others, local.null_problems) : p if startswith(p, g == "queues" ? "queue" : "${g}")
    ]
  }
  consumer_function_type_problems = flatten([for o in local.consumer_function_objects : [
    for a, v in o.value : "${o.path}.${a}: ${jsonencode(v)} is not ${a == "function_name" ? local.expected.string : local.expected.number}."
    if v != null && !(a == "function_name" ? can(tostring(v)) && !contains(["true", "false"], jsonencode(v)) : a == "timeout_seconds" ? can(tonumber(v)) : true)
  ]])
}
