# One source queue and its dead-letter queue.
#
# Why inline attributes and not the separate aws_sqs_queue_redrive_policy /
# aws_sqs_queue_redrive_allow_policy / aws_sqs_queue_policy resources:
#
# * The DLQ's redrive-allow policy must name the source queue, and the source
#   queue's redrive policy must name the DLQ. Referencing each other's `arn`
#   inline is a cycle. Here both name the other by its ARN *built* from
#   partition, region, account and name (identical to the real one, and known
#   at plan time): no cycle, no extra resource. The source's `depends_on` on
#   the DLQ keeps the order SQS needs (it checks that the DLQ exists when the
#   redrive policy is set). Because the redrive policy is known at plan time,
#   a plan shows its maxReceiveCount and DLQ, so plan checks can decide them.
# * The separate redrive-allow resource is what other modules use to break the
#   cycle, but it is one more API call and propagation wait per pair, and its
#   destroy hangs against LocalStack (measured: killed after 400 s), which would
#   make the integration tier unusable.
# * Queue policies are inline for the same reason: they need only the built
#   ARN, and each separate aws_sqs_queue_policy costs another ~25 s wait.

# * With `dlq_arn` the pair uses an existing DLQ (shared, or owned elsewhere):
#   no DLQ resource, its policies are its owner's.

# Looked up only when not given: the root module looks them up once and passes
# them, so N queues do not cost N lookups (each data source read is a provider
# call and a plan-graph node).
data "aws_partition" "current" {
  count = var.partition == null ? 1 : 0
}

data "aws_region" "current" {
  count = var.region == null ? 1 : 0
}

data "aws_caller_identity" "current" { # account_id is null, so it is looked up with STS: that needs AWS access. Planning without credentials? Set account_id.
  count = var.account_id == null ? 1 : 0
}

locals {
  # How refusal messages name each input: local.n (attributes.tf, generated).

  # the names, by the one rule (internal/names) the root module names its queues with
  suffix     = module.names.names.pair.suffix
  base_name  = module.names.names.pair.base
  queue_name = module.names.names.pair.queue_name
  # create_dlq, when given, decides alone: a dlq_arn known only after apply (a queue
  # created elsewhere in the stack) cannot decide at plan whether the DLQ exists
  create_dlq = module.names.names.pair.create_dlq
  dlq_name   = module.names.names.pair.dlq_name

  account_id = var.account_id != null ? var.account_id : one(data.aws_caller_identity.current[*].account_id)
  partition  = var.partition != null ? var.partition : one(data.aws_partition.current[*].partition)
  region     = var.region != null ? var.region : one(data.aws_region.current[*].id)
  # for the URL of an existing DLQ, built from its ARN
  dns_suffix       = lookup({ aws-cn = "amazonaws.com.cn", aws-iso = "c2s.ic.gov", aws-iso-b = "sc2s.sgov.gov" }, local.partition, "amazonaws.com")
  arn_prefix       = "arn:${local.partition}:sqs:${local.region}:${local.account_id}"
  queue_arn_static = "${local.arn_prefix}:${local.queue_name}"
  dlq_arn_static   = local.create_dlq ? "${local.arn_prefix}:${local.dlq_name}" : var.dlq_arn
  # an existing DLQ: [arn, partition, sqs, region, account, name]
  dlq_arn_parts = split(":", local.dlq_arn_static)

  # Visibility must outlast every retry of a batch by the consumer: AWS
  # recommends 6 x the function timeout, plus the batching window during which
  # messages are already in flight before the function starts.
  consumer_visibility = var.consumer == null ? null : local.visibility_timeout_multiplier * var.consumer.timeout_seconds + var.consumer.maximum_batching_window_seconds
  visibility_timeout  = coalesce(var.visibility_timeout_seconds, local.consumer_visibility, 30)
  visibility_from     = var.visibility_timeout_seconds != null ? local.n.visibility_timeout_seconds : local.consumer_visibility != null ? "derived from ${local.n.consumer}: ${local.visibility_timeout_multiplier} x timeout + batching window" : "the default"
  # the earliest a message that fails every receive can move to the DLQ
  redrive_lead_time = var.delay_seconds + var.max_receive_count * local.visibility_timeout

  sse_sqs       = var.kms_master_key_id == null
  dlq_kms       = var.dlq_kms_master_key_id != null ? var.dlq_kms_master_key_id : var.kms_master_key_id
  dlq_sse_sqs   = local.dlq_kms == null
  dlq_kms_reuse = coalesce(var.dlq_kms_data_key_reuse_period_seconds, var.kms_data_key_reuse_period_seconds)

  # What SQS takes as a KMS key: a key ID, a key ARN, an alias or an alias ARN (not
  # checked here: whether the key exists, which only the apply can tell)
  kms_key_pattern = "^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|mrk-[0-9a-f]{32}|alias/[A-Za-z0-9/_-]{1,250}|arn:[a-z-]+:kms:[a-z0-9-]+:[0-9]{12}:(key/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|mrk-[0-9a-f]{32})|alias/[A-Za-z0-9/_-]{1,250}))$"
  # why a value is not a key, when that can be told
  kms_why = { for which, v in { queue = var.kms_master_key_id, dlq = var.dlq_kms_master_key_id } : which => (
    v == null ? "" :
    contains(["true", "false"], lower(v)) ? " but a flag: encryption is always on (SSE-SQS when no key is given), there is nothing to switch" :
    trimspace(v) != v ? " (it has leading or trailing whitespace: copied with a space or a newline?)" :
    can(regex("^arn:[a-z-]+:([a-z0-9-]+):", v)) && !can(regex("^arn:[a-z-]+:kms:", v)) ? " but an ARN of ${upper(regex("^arn:[a-z-]+:([a-z0-9-]+):", v)[0])}, not of KMS (the ARN of another output?)" :
    ""
  ) }

  # FIFO-only settings given: local.fifo_options_given (attributes.tf, generated)
  fifo_options_set = length(local.fifo_options_given) > 0

  redrive_allow = (try(var.dlq_redrive_allow_policy.redrivePermission, "byQueue") == "allowAll"
    ? jsonencode({ redrivePermission = "allowAll" })
    : jsonencode({
      redrivePermission = "byQueue"
      sourceQueueArns   = distinct(concat([local.queue_arn_static], try(var.dlq_redrive_allow_policy.sourceQueueArns, [])))
    })
  )
  # settings of a DLQ the module creates given with an existing DLQ: local.dlq_settings_given (attributes.tf, generated)
}

module "names" {
  source = "../../internal/names"

  pairs = {
    pair = { name = var.name, fifo = var.fifo, dlq_name = var.dlq_name, create_dlq = var.create_dlq, dlq_arn = var.dlq_arn }
  }
}

# --- queue policies ------------------------------------------------------------------
#
# Each policy is the TLS-only deny, the caller's statements and the caller's
# whole documents (source under, override over the statements). A document
# statement without Resource gets the queue's ARN. The TLS deny always stays:
# with override documents it is applied last again.

locals {
  policy_arn = { queue = local.queue_arn_static, dlq = local.dlq_arn_static }
  what       = { queue = "the source queue", dlq = "the DLQ" }

  statement_inputs = {
    queue = { list = var.queue_policy_statements, input = local.n.queue_policy_statements }
    dlq   = { list = var.dlq_policy_statements, input = local.n.dlq_policy_statements }
  }
  # `condition` (aws_iam_policy_document's block name) and `conditions` are both used
  statements = {
    for which, v in local.statement_inputs : which => [for s in v.list : merge(s, {
      # null identifiers or values are refused below (statement_problems); here they are
      # read as empty, so that the refusal, not the policy document, reports them
      principals     = [for p in s.principals : merge(p, { identifiers = p.identifiers == null ? [] : p.identifiers })]
      not_principals = [for p in s.not_principals : merge(p, { identifiers = p.identifiers == null ? [] : p.identifiers })]
      conditions     = [for c in concat(s.conditions, s.condition) : merge(c, { values = c.values == null ? [] : c.values })]
      # the condition keys, lower-cased (IAM compares them without case); a condition
      # without values pins nothing, so its key does not count
      keys = [for c in concat(s.conditions, s.condition) : lower(c.variable) if try(length(c.values) > 0, false)]
    })]
  }
  # the principal types IAM knows, spelled as IAM spells them (case-sensitive)
  principal_types = ["AWS", "Service", "Federated", "CanonicalUser", "*"]
  # the Sid of the module's TLS-only deny: a statement of the caller's under it would
  # replace it or be dropped, either way without a word
  tls_sid = "DenyInsecureTransport"
  # what is wrong with a statement's principals and conditions, as written
  statement_part_problems = {
    for which, v in local.statement_inputs : which => [for s in v.list : concat(
      flatten([for attr in ["principals", "not_principals"] : [
        for j, p in s[attr] : concat(
          contains(local.principal_types, p.type) ? [] : ["${attr}[${j}].type: ${jsonencode(p.type)} is not a principal type: IAM's are AWS, Service, Federated, CanonicalUser and * (case-sensitive)${length([for t in local.principal_types : t if lower(t) == lower(try(coalesce(p.type), ""))]) > 0 ? "; did you mean \"${one([for t in local.principal_types : t if lower(t) == lower(try(coalesce(p.type), ""))])}\"?" : "."}"],
          p.identifiers != null ? [] : ["${attr}[${j}].identifiers: null; give a list such as [\"sns.amazonaws.com\"] or [\"arn:aws:iam::123456789012:role/producer\"] (a lookup that found nothing?)."],
        )
      ]]),
      flatten([for attr in ["conditions", "condition"] : [
        for j, c in s[attr] : c.values == null ? "${attr}[${j}] (${c.variable}): values is null; give the values the key must match (a lookup that found nothing?)." : "${attr}[${j}] (${c.variable}): values is empty: a condition with no values pins nothing${contains(local.source_keys, lower(c.variable)) ? ", so it does not bind the principal to your topic, bucket or rule" : ""}. Give the values it must match (for aws:SourceArn, the ARN of your topic, bucket or rule)." if c.values == null || try(length(c.values) == 0, false)
      ]]),
      s.sid == local.tls_sid ? ["sid \"${local.tls_sid}\" is the Sid of the module's TLS-only deny, which always stays: a statement under it would replace it or be dropped. Give the statement another Sid."] : [],
    )]
  }
  # Condition keys that bind a service principal to the resource acting through it
  # (the topic, bucket, rule), or any principal to an account or organisation. A
  # service principal without one lets the service act for any account: the confused
  # deputy. The same keys as sqs-policy's SQS010 (policies/iamdoc.py).
  source_keys      = ["aws:sourcearn", "aws:sourceaccount", "aws:sourceowner", "aws:sourceorgid", "aws:sourceorgpaths"]
  restricting_keys = concat(local.source_keys, ["aws:principalorgid", "aws:principalaccount", "aws:principalarn", "aws:sourcevpc", "aws:sourcevpce", "aws:principalorgpaths", "aws:userid", "aws:username", "aws:principalservicename"])
  statement_problems = {
    for which, v in local.statement_inputs : which => flatten([
      for i, s in local.statements[which] : [
        for p in [
          contains(["Allow", "Deny"], s.effect) ? "" : "effect: \"${s.effect}\" must be \"Allow\" or \"Deny\" (case-sensitive).",
          (s.actions == null) != (s.not_actions == null) ? "" : "give exactly one of actions and not_actions.",
          s.effect != "Allow" || s.not_actions == null ? "" : "not_actions in an Allow grants every other action on ${local.what[which]} (including deleting and purging its messages). Name the actions in actions, or make the statement a Deny.",
          s.effect != "Allow" || alltrue([for a in coalesce(s.actions, []) : can(regex("(?i)^sqs:[a-z]+$", a))]) ? "" : "actions: ${jsonencode(s.actions)} in an Allow: each action must be a named SQS action such as \"sqs:SendMessage\"; wildcards (\"sqs:*\", \"sqs:Send*\", \"*\") grant more than intended.",
          (length(s.principals) > 0) != (length(s.not_principals) > 0) ? "" : "give exactly one of principals and not_principals (a queue policy statement must say whom it applies to).",
          s.effect != "Allow" || length(s.not_principals) == 0 ? "" : "not_principals in an Allow grants every principal not listed, across all accounts. Name the principals in principals, or make the statement a Deny.",
          s.resources == null && s.not_resources == null ? "" : "resources/not_resources: the resource of this policy is always ${local.what[which]} itself (${local.policy_arn[which]}); remove them.",
          s.effect != "Allow" || length(setintersection(s.keys, local.restricting_keys)) > 0 || !anytrue([for p in s.principals : contains(p.identifiers, "*")]) ? "" : "an Allow to principal \"*\" without a condition that pins the caller (aws:SourceArn, aws:SourceAccount, aws:PrincipalOrgID, aws:PrincipalArn, ...) makes ${which == "queue" ? "the queue" : "the DLQ"} public${length(s.keys) > 0 ? " (${join(", ", distinct(s.keys))} can be met by a caller of any account)" : ""}. Name the principal (e.g. {type = \"Service\", identifiers = [\"sns.amazonaws.com\"]}) and add an aws:SourceArn condition (conditions or condition).",
          s.effect != "Allow" || length(setintersection(s.keys, local.source_keys)) > 0 || !anytrue([for p in s.principals : lower(p.type) == "service"]) ? "" : "an Allow to service principal ${join(", ", flatten([for p in s.principals : p.identifiers if lower(p.type) == "service"]))} without an aws:SourceArn or aws:SourceAccount condition lets that service send for any account (any topic, bucket or rule anywhere): the confused deputy. Add condition = [{ test = \"ArnEquals\", variable = \"aws:SourceArn\", values = [<the ARN of your topic, bucket or rule>] }] (or aws:SourceAccount with your account ID).",
        ] : "${v.input}[${i}]${s.sid != null ? " (sid \"${s.sid}\")" : ""}: ${p}" if p != ""
      ]
    ])
  }
  statement_problems_all = {
    for which, v in local.statement_inputs : which => concat(
      flatten([for i, parts in local.statement_part_problems[which] : [
        for p in parts : "${v.input}[${i}]${v.list[i].sid != null ? " (sid \"${v.list[i].sid}\")" : ""}: ${p}"
      ]]),
      local.statement_problems[which],
    )
  }

  documents = {
    queue_source   = { which = "queue", docs = var.source_queue_policy_documents, input = local.n.source_queue_policy_documents }
    queue_override = { which = "queue", docs = var.override_queue_policy_documents, input = local.n.override_queue_policy_documents }
    dlq_source     = { which = "dlq", docs = var.source_dlq_queue_policy_documents, input = local.n.source_dlq_queue_policy_documents }
    dlq_override   = { which = "dlq", docs = var.override_dlq_queue_policy_documents, input = local.n.override_dlq_queue_policy_documents }
  }
  # each document's statements as a list (JSON allows a lone statement object)
  document_statements = {
    for k, v in local.documents : k => [
      for d in v.docs : try(flatten([jsondecode(d).Statement]), [])
    ]
  }
  documents_filled = {
    for k, v in local.documents : k => [
      for i, d in v.docs : try(jsonencode(merge(jsondecode(d), { Statement = [
        for s in local.document_statements[k][i] : merge(s, { for a, r in { Resource = local.policy_arn[v.which] } : a => r if !can(s.Resource) && !can(s.NotResource) })
      ] })), d)
    ]
  }
  # each statement's condition keys, lower-cased; a key with no values pins nothing and does not count
  document_keys = {
    for k, v in local.documents : k => [
      for statements in local.document_statements[k] : [
        for s in statements : [for c in flatten([for op, m in try(s.Condition, {}) : [for key, val in try(m, {}) : key if try(length(flatten([val])) > 0, false)]]) : lower(c)]
      ]
    ]
  }
  document_problems = {
    for k, v in local.documents : k => flatten([
      for i, statements in local.document_statements[k] : [
        for j, s in statements : [
          for p in [
            try(s.Sid, null) != local.tls_sid ? "" : "Sid \"${local.tls_sid}\" is the Sid of the module's TLS-only deny, which always stays: ${endswith(k, "override") ? "the module applies it over the override documents again, so this statement would be dropped" : "the module's statement wins over the source documents, so this statement would be dropped"}. Give the statement another Sid.",
            try(s.Effect, "Allow") != "Allow" || !can(s.NotAction) ? "" : "NotAction in an Allow grants every other action on ${local.what[v.which]}.",
            try(s.Effect, "Allow") != "Allow" || !can(s.NotPrincipal) ? "" : "NotPrincipal in an Allow grants every principal not listed.",
            try(s.Effect, "Allow") != "Allow" || alltrue([for a in flatten([try(s.Action, [])]) : can(regex("(?i)^sqs:[a-z]+$", a))]) ? "" : "Action ${jsonencode(try(s.Action, null))} in an Allow: name each SQS action; wildcards grant more than intended.",
            try(s.Effect, "Allow") != "Allow" || length(setintersection(local.document_keys[k][i][j], local.restricting_keys)) > 0 || !(try(s.Principal == "*", false) || contains(flatten([try(s.Principal.AWS, [])]), "*")) ? "" : "an Allow to principal \"*\" without a Condition that pins the caller (aws:SourceArn, aws:SourceAccount, aws:PrincipalOrgID, aws:PrincipalArn, ...) makes ${local.what[v.which]} public.",
            try(s.Effect, "Allow") != "Allow" || length(setintersection(local.document_keys[k][i][j], local.source_keys)) > 0 || length(flatten([try(s.Principal.Service, [])])) == 0 ? "" : "an Allow to service principal ${join(", ", flatten([try(s.Principal.Service, [])]))} without an aws:SourceArn or aws:SourceAccount Condition lets that service act for any account (any topic, bucket or rule anywhere): the confused deputy. Add a Condition on aws:SourceArn (the ARN of your topic, bucket or rule) or aws:SourceAccount.",
          ] : "${v.input}[${i}] statement ${try(jsonencode(s.Sid), j)}: ${p}" if p != ""
        ]
      ]
    ])
  }

  tls_only = {
    for which, arn in local.policy_arn : which => jsonencode({
      Version = "2012-10-17"
      Statement = [{
        Sid       = "DenyInsecureTransport"
        Effect    = "Deny"
        Principal = "*"
        Action    = "sqs:*"
        Resource  = arn
        Condition = { Bool = { "aws:SecureTransport" = "false" } }
      }]
    })
  }
  policy_problems = {
    for which in ["queue", "dlq"] : which => concat(
      local.statement_problems_all[which], local.document_problems["${which}_source"], local.document_problems["${which}_override"],
      local.limit_problems[which], # limits.tf
    )
  }

  # Without statements or documents of the caller, a policy is the TLS-only deny
  # written with jsonencode (known at plan time, no data source: one
  # aws_iam_policy_document per queue is a provider call each, ~7 s of plan CPU
  # at 300 pairs); with them, aws_iam_policy_document merges and renders them
  # (duplicate sids are refused). The provider normalises the string either way.
  custom_policy = {
    queue = length(var.queue_policy_statements) + length(var.source_queue_policy_documents) + length(var.override_queue_policy_documents) > 0
    dlq   = length(var.dlq_policy_statements) + length(var.source_dlq_queue_policy_documents) + length(var.override_dlq_queue_policy_documents) > 0
  }
  queue_policy = local.custom_policy.queue ? one(data.aws_iam_policy_document.queue[*].json) : local.tls_only.queue
  dlq_policy   = local.custom_policy.dlq ? one(data.aws_iam_policy_document.dlq[*].json) : local.tls_only.dlq
}

data "aws_iam_policy_document" "queue" {
  count = local.custom_policy.queue ? 1 : 0

  source_policy_documents   = local.documents_filled.queue_source
  override_policy_documents = length(local.documents_filled.queue_override) > 0 ? concat(local.documents_filled.queue_override, [local.tls_only.queue]) : []

  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["sqs:*"]
    resources = [local.queue_arn_static]

    principals {
      type        = "*"
      identifiers = ["*"]
    }

    condition {
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["false"]
    }
  }

  dynamic "statement" {
    for_each = local.statements.queue
    content {
      sid         = statement.value.sid
      effect      = statement.value.effect
      actions     = statement.value.actions
      not_actions = statement.value.not_actions
      resources   = [local.queue_arn_static]

      dynamic "principals" {
        for_each = statement.value.principals
        content {
          type        = principals.value.type
          identifiers = principals.value.identifiers
        }
      }

      dynamic "not_principals" {
        for_each = statement.value.not_principals
        content {
          type        = not_principals.value.type
          identifiers = not_principals.value.identifiers
        }
      }

      dynamic "condition" {
        for_each = statement.value.conditions
        content {
          test     = condition.value.test
          variable = condition.value.variable
          values   = condition.value.values
        }
      }
    }
  }

  lifecycle {
    precondition {
      condition     = length(local.policy_problems.queue) == 0
      error_message = join("\n", local.policy_problems.queue)
    }
  }
}

data "aws_iam_policy_document" "dlq" {
  count = local.create_dlq && local.custom_policy.dlq ? 1 : 0

  source_policy_documents   = local.documents_filled.dlq_source
  override_policy_documents = length(local.documents_filled.dlq_override) > 0 ? concat(local.documents_filled.dlq_override, [local.tls_only.dlq]) : []

  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["sqs:*"]
    resources = [local.dlq_arn_static]

    principals {
      type        = "*"
      identifiers = ["*"]
    }

    condition {
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["false"]
    }
  }

  dynamic "statement" {
    for_each = local.statements.dlq
    content {
      sid         = statement.value.sid
      effect      = statement.value.effect
      actions     = statement.value.actions
      not_actions = statement.value.not_actions
      resources   = [local.dlq_arn_static]

      dynamic "principals" {
        for_each = statement.value.principals
        content {
          type        = principals.value.type
          identifiers = principals.value.identifiers
        }
      }

      dynamic "not_principals" {
        for_each = statement.value.not_principals
        content {
          type        = not_principals.value.type
          identifiers = not_principals.value.identifiers
        }
      }

      dynamic "condition" {
        for_each = statement.value.conditions
        content {
          test     = condition.value.test
          variable = condition.value.variable
          values   = condition.value.values
        }
      }
    }
  }

  lifecycle {
    precondition {
      condition     = length(local.policy_problems.dlq) == 0
      error_message = join("\n", local.policy_problems.dlq)
    }
  }
}

# --- the queues ------------------------------------------------------------------------

moved {
  from = aws_sqs_queue.dlq
  to   = aws_sqs_queue.dlq[0]
}

resource "aws_sqs_queue" "dlq" {
  # `== ""` and `== false`, not null tests: checkov does not evaluate a null default as
  # null, and would leave the DLQ unscanned
  count = (var.create_dlq == true ? true : var.create_dlq == false ? false : var.dlq_arn == "") ? 1 : 0

  name       = local.dlq_name
  fifo_queue = var.fifo

  message_retention_seconds  = var.dlq_message_retention_seconds
  receive_wait_time_seconds  = var.dlq_receive_wait_time_seconds
  visibility_timeout_seconds = var.dlq_visibility_timeout_seconds
  delay_seconds              = var.dlq_delay_seconds
  max_message_size           = var.max_message_size

  sqs_managed_sse_enabled           = local.dlq_sse_sqs ? true : null
  kms_master_key_id                 = local.dlq_kms
  kms_data_key_reuse_period_seconds = local.dlq_sse_sqs ? null : local.dlq_kms_reuse

  content_based_deduplication = var.fifo ? var.dlq_content_based_deduplication : null
  deduplication_scope         = var.fifo ? var.dlq_deduplication_scope : null
  fifo_throughput_limit       = var.fifo ? var.dlq_fifo_throughput_limit : null

  redrive_allow_policy = local.redrive_allow

  policy = local.dlq_policy

  tags = merge(var.tags, var.dlq_tags, { dlq_for = local.queue_name })

  lifecycle {
    precondition {
      condition = length(local.dlq_name) <= 80
      # the name the user gave (or the key) when the DLQ's name is derived from it
      error_message = (var.dlq_name == null
        ? "${local.n.name}: the DLQ name derived from it, \"${local.dlq_name}\", is ${length(local.dlq_name)} characters; SQS allows at most 80 (including -dlq and .fifo). Shorten the queue name to at most ${80 - length(local.dlq_name) + length(local.base_name)} characters, or give the DLQ a shorter name of its own (dlq_name)."
        : "${local.n.dlq_name}: the DLQ name \"${local.dlq_name}\" is ${length(local.dlq_name)} characters; SQS allows at most 80 (including .fifo). Shorten it."
      )
    }

    precondition {
      condition     = var.dlq_receive_wait_time_seconds > 0 || var.allow_short_polling
      error_message = "${local.n.dlq_receive_wait_time_seconds}: 0 (short polling) is refused: receives sample a subset of servers and return empty while messages wait. Use 1-20 (20 recommended), or set allow_short_polling = true."
    }

    precondition {
      condition     = local.dlq_tag_count <= local.max_tags
      error_message = "${length(var.dlq_tags) > 0 ? "${local.n.tags} + ${local.n.dlq_tags}" : local.n.tags}: the DLQ would carry ${local.dlq_tag_count} tags (${length(var.dlq_tags) > 0 ? "tags, dlq_tags" : "tags"} and the module's own dlq_for); SQS allows at most ${local.max_tags} per queue and refuses the rest at apply. Drop ${local.dlq_tag_count - local.max_tags} (tags the provider's default_tags add count too)."
    }

    precondition {
      condition     = var.dlq_fifo_throughput_limit != "perMessageGroupId" || var.dlq_deduplication_scope == "messageGroup"
      error_message = "${local.n.dlq_fifo_throughput_limit}: \"perMessageGroupId\" requires ${local.n.dlq_deduplication_scope} = \"messageGroup\"; it is ${var.dlq_deduplication_scope == null ? "unset (AWS default \"queue\")" : "\"${coalesce(var.dlq_deduplication_scope, "queue")}\""}. SQS rejects the combination."
    }
  }
}

resource "aws_sqs_queue" "this" {
  name       = local.queue_name
  fifo_queue = var.fifo

  visibility_timeout_seconds = local.visibility_timeout
  message_retention_seconds  = var.message_retention_seconds
  receive_wait_time_seconds  = var.receive_wait_time_seconds
  delay_seconds              = var.delay_seconds
  max_message_size           = var.max_message_size

  sqs_managed_sse_enabled           = local.sse_sqs ? true : null
  kms_master_key_id                 = var.kms_master_key_id
  kms_data_key_reuse_period_seconds = local.sse_sqs ? null : var.kms_data_key_reuse_period_seconds

  content_based_deduplication = var.fifo ? var.content_based_deduplication : null
  deduplication_scope         = var.fifo ? var.deduplication_scope : null
  fifo_throughput_limit       = var.fifo ? var.fifo_throughput_limit : null

  # The DLQ's ARN built at plan time (equal to aws_sqs_queue.dlq[0].arn), so the
  # whole redrive policy is known in the plan; depends_on creates the DLQ first.
  redrive_policy = jsonencode({
    deadLetterTargetArn = local.dlq_arn_static
    maxReceiveCount     = var.max_receive_count
  })

  policy = local.queue_policy

  tags = var.tags

  depends_on = [aws_sqs_queue.dlq]

  lifecycle {
    precondition {
      condition = local.dlq_arn_static != local.queue_arn_static
      error_message = (local.create_dlq
        ? "${local.n.dlq_name}: \"${local.dlq_name}\" is the queue's own name, so the queue would be its own dead-letter queue: a message that fails would never leave it and nothing would ever alarm. Give the DLQ another name, or leave dlq_name unset for \"${local.base_name}-dlq${local.suffix}\"."
        : "${local.n.dlq_arn}: ${var.dlq_arn} is this queue's own ARN, so the queue would be its own dead-letter queue. Give the ARN of another queue, or leave dlq_arn unset to create a DLQ."
      )
    }

    precondition {
      condition     = local.create_dlq || endswith(local.dlq_name, ".fifo") == var.fifo
      error_message = "${local.n.dlq_arn}: ${var.dlq_arn} is ${endswith(local.dlq_name, ".fifo") ? "a FIFO" : "a standard"} queue but this queue is ${var.fifo ? "FIFO" : "standard"}. SQS requires the DLQ of a FIFO queue to be FIFO, and of a standard queue to be standard."
    }

    precondition {
      condition     = local.create_dlq || (local.dlq_arn_parts[1] == local.partition && local.dlq_arn_parts[3] == local.region && local.dlq_arn_parts[4] == local.account_id)
      error_message = "${local.n.dlq_arn}: ${var.dlq_arn} is in ${local.dlq_arn_parts[1] != local.partition ? "partition ${local.dlq_arn_parts[1]}, " : ""}${local.dlq_arn_parts[3]}/${local.dlq_arn_parts[4]}, but this queue is in ${local.dlq_arn_parts[1] != local.partition ? "partition ${local.partition}, " : ""}${local.region}/${coalesce(local.account_id, "?")}. SQS requires the DLQ in the same partition, account and region as its source queue."
    }

    precondition {
      condition     = local.create_dlq || length(local.dlq_settings_given) == 0
      error_message = "${local.n.dlq_arn}: the DLQ is an existing queue, not managed here, so ${join(", ", local.dlq_settings_given)} would not be applied. Set those on the DLQ where it is managed, or remove dlq_arn to let the module create the DLQ."
    }

    precondition {
      condition     = !local.create_dlq || var.dlq_message_retention_seconds > var.message_retention_seconds
      error_message = "${local.n.dlq_message_retention_seconds}: ${var.dlq_message_retention_seconds} s must be greater than ${local.n.message_retention_seconds} (${var.message_retention_seconds} s). ${var.fifo ? "On a FIFO queue a message's retention restarts when it moves to the DLQ, so a failure is kept there for the DLQ retention from the moment it fails; the module still requires the DLQ to keep failures longer than the source keeps unprocessed messages, so that failures are never the first thing lost." : "On a standard queue a message keeps its original enqueue time when it moves to the DLQ, so a DLQ that keeps messages no longer than the source deletes failures before anyone can inspect or redrive them."} Raise the DLQ retention (max 1209600) or lower the source retention."
    }

    # A message that fails every receive reaches the DLQ only when a receive after its
    # maxReceiveCount-th finds it: at the earliest delay + maxReceiveCount x visibility
    # timeout after it was sent. A retention no longer than that deletes it first, and
    # the failure is lost without a trace (no DLQ message, no alarm).
    precondition {
      condition = local.redrive_lead_time < var.message_retention_seconds
      error_message = "${local.n.max_receive_count} x visibility timeout: ${var.max_receive_count} receives x ${local.visibility_timeout} s (${local.visibility_from})${var.delay_seconds > 0 ? " + delay ${var.delay_seconds} s (${local.n.delay_seconds})" : ""} = ${local.redrive_lead_time} s, not below ${local.n.message_retention_seconds} ${var.message_retention_seconds} s. A message that fails every receive is deleted by the retention before its ${var.max_receive_count} receives are spent and it moves to the DLQ: it is lost without a trace (no DLQ message, no alarm). Fix one of: ${join("; ", compact([
        floor((var.message_retention_seconds - 1 - var.delay_seconds) / max(local.visibility_timeout, 1)) >= local.max_receive_count_min ? "lower max_receive_count to at most ${floor((var.message_retention_seconds - 1 - var.delay_seconds) / max(local.visibility_timeout, 1))}" : "",
        var.visibility_timeout_seconds != null && var.message_retention_seconds > var.delay_seconds + var.max_receive_count ? "lower the visibility timeout to at most ${floor((var.message_retention_seconds - 1 - var.delay_seconds) / var.max_receive_count)} s" : "",
        local.redrive_lead_time < 1209600 ? "raise message_retention_seconds above ${local.redrive_lead_time} (at most 1209600; the DLQ's retention must stay above it)" : "",
        local.consumer_visibility != null && var.visibility_timeout_seconds == null ? "shorten the consumer's timeout_seconds or maximum_batching_window_seconds, from which the visibility timeout is derived" : "",
      ]))}."
    }

    precondition {
      condition     = var.visibility_timeout_seconds == null || local.consumer_visibility == null || try(var.visibility_timeout_seconds >= local.consumer_visibility, true)
      error_message = "${local.n.visibility_timeout_seconds}: ${coalesce(var.visibility_timeout_seconds, -1)} s is below ${local.visibility_timeout_multiplier} x consumer timeout ${try(var.consumer.timeout_seconds, 0)} s + batching window ${try(var.consumer.maximum_batching_window_seconds, 0)} s = ${coalesce(local.consumer_visibility, -1)} s (${local.n.consumer}). Rule: visibility timeout >= ${local.visibility_timeout_multiplier} x Lambda timeout + maximum batching window, or messages are redelivered while still being processed (duplicates). Remove the visibility timeout to derive it from the consumer, or set it to at least ${coalesce(local.consumer_visibility, -1)}."
    }

    precondition {
      condition     = var.receive_wait_time_seconds > 0 || var.allow_short_polling
      error_message = "${local.n.receive_wait_time_seconds}: 0 (short polling) is refused: receives sample a subset of servers, return empty while messages wait, and every empty receive is billed. Use 1-20 (20 recommended), or set allow_short_polling = true if the consumer must never block."
    }

    precondition {
      condition     = var.fifo || !local.fifo_options_set
      error_message = "${join(", ", local.fifo_options_given)}: FIFO-only ${length(local.fifo_options_given) > 1 ? "settings" : "setting"}, but the queue is a standard queue (${local.n.fifo} = false), where SQS refuses ${length(local.fifo_options_given) > 1 ? "them" : "it"} (content-based deduplication, deduplication scope and throughput limit exist only for FIFO queues). Remove ${length(local.fifo_options_given) > 1 ? "them" : "it"}, or set ${local.n.fifo} = true for a FIFO pair (the names get .fifo: a new pair of queues)."
    }

    precondition {
      condition     = var.fifo || !endswith(var.name, ".fifo")
      error_message = "${local.n.name}: \"${var.name}\" ends with .fifo but fifo = false. Set fifo = true for a FIFO pair, or drop the suffix."
    }

    precondition {
      condition     = local.queue_tag_count <= local.max_tags
      error_message = "${local.n.tags}: the source queue would carry ${local.queue_tag_count} tags; SQS allows at most ${local.max_tags} per queue and refuses the rest at apply. Drop ${local.queue_tag_count - local.max_tags} (tags the provider's default_tags add count too)."
    }

    precondition {
      condition     = var.fifo_throughput_limit != "perMessageGroupId" || var.deduplication_scope == "messageGroup"
      error_message = "${local.n.fifo_throughput_limit}: \"perMessageGroupId\" (high-throughput FIFO) requires ${local.n.deduplication_scope} = \"messageGroup\"; it is ${var.deduplication_scope == null ? "unset (AWS default \"queue\")" : "\"${coalesce(var.deduplication_scope, "queue")}\""}. SQS rejects the combination."
    }
  }
}

# Terraform's lifecycle.prevent_destroy must be a literal, so it cannot follow an
# input on the queues themselves. The switch adds a guard that has it: the guard is
# replaced whenever either queue is (their IDs change only when they are replaced)
# and removed with them, so a plan that would delete the queues' messages fails.
resource "terraform_data" "prevent_destroy" {
  count = var.prevent_destroy && local.create_dlq ? 1 : 0

  input = "guards SQS queues ${local.queue_name} and ${local.dlq_name} against deletion and replacement"

  lifecycle {
    prevent_destroy      = true
    replace_triggered_by = [aws_sqs_queue.this.id, aws_sqs_queue.dlq[0].id]
  }
}

# With an existing DLQ (`dlq_arn`) the module guards the queue alone: the DLQ is not its own.
resource "terraform_data" "prevent_destroy_queue" {
  count = var.prevent_destroy && !local.create_dlq ? 1 : 0

  input = "guards SQS queue ${local.queue_name} against deletion and replacement"

  lifecycle {
    prevent_destroy      = true
    replace_triggered_by = [aws_sqs_queue.this.id]
  }
}
