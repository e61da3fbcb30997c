# What SQS and IAM refuse at apply, refused at plan: the queue policy quotas, statements
# AWS rejects (empty actions or principals, a condition operator IAM does not know), a
# Deny that locks everyone out, and more tags than a queue may carry. Each problem names
# the input (local.n), the value and the limit.

locals {
  # Amazon SQS policy quotas (SQS Developer Guide, "Amazon SQS policy quotas"): at most
  # 20 statements per policy and 7 actions per statement
  policy_max_statements = 20
  policy_max_actions    = 7
  # tags per queue (SQS, as for most AWS resources)
  max_tags = 50

  # IAM's condition operators (IAM User Guide, "IAM JSON policy elements: Condition
  # operators"); any but Null may end in IfExists, and take a ForAllValues: or
  # ForAnyValue: prefix for multivalued keys
  condition_operators = [
    "StringEquals", "StringNotEquals", "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase", "StringLike", "StringNotLike",
    "NumericEquals", "NumericNotEquals", "NumericLessThan", "NumericLessThanEquals", "NumericGreaterThan", "NumericGreaterThanEquals",
    "DateEquals", "DateNotEquals", "DateLessThan", "DateLessThanEquals", "DateGreaterThan", "DateGreaterThanEquals",
    "Bool", "BinaryEquals", "IpAddress", "NotIpAddress", "ArnEquals", "ArnLike", "ArnNotEquals", "ArnNotLike",
  ]
  condition_operator_pattern = "^(((ForAllValues|ForAnyValue):)?(${join("|", local.condition_operators)})(IfExists)?|Null)$"
  condition_operator_help    = "IAM's operators are ${join(", ", local.condition_operators)} and Null, each but Null optionally ending in IfExists and prefixed with ForAllValues: or ForAnyValue: (case-sensitive)"

  # the statements of each policy as written, read defensively (a null list is refused elsewhere)
  limit_statements = {
    for which, v in local.statement_inputs : which => [for i, s in v.list : {
      at         = "${v.input}[${i}]${s.sid != null ? " (sid \"${s.sid}\")" : ""}"
      sid        = s.sid
      effect     = s.effect
      actions    = s.actions
      not_action = s.not_actions
      principals = concat(try([for p in s.principals : p], []), try([for p in s.not_principals : p], []))
      everyone   = anytrue([for p in try(s.principals, []) : p.type == "*" || (p.type == "AWS" && contains(p.identifiers == null ? [] : p.identifiers, "*"))])
      operators  = [for c in concat(try(s.conditions, []), try(s.condition, [])) : c.test]
    }]
  }
  limit_documents = {
    for k, v in local.documents : k => flatten([
      for i, statements in local.document_statements[k] : [for j, s in statements : {
        at         = "${v.input}[${i}] statement ${try(jsonencode(s.Sid), j)}"
        which      = v.which
        sid        = try(tostring(s.Sid), null)
        effect     = try(s.Effect, "Allow")
        actions    = try(flatten([s.Action]), null)
        not_action = try(flatten([s.NotAction]), null)
        everyone   = try(s.Principal == "*", false) || contains(try(flatten([s.Principal.AWS]), []), "*")
        conditions = try(length(keys(s.Condition)), 0)
        operators  = try(keys(s.Condition), [])
      }]
    ])
  }

  limit_statement_problems = {
    for which in ["queue", "dlq"] : which => concat(
      flatten([for s in local.limit_statements[which] : [for p in [
        s.actions != null && try(length(s.actions) == 0, false) ? "actions: [] names no action; AWS refuses a statement without one. Name the actions (e.g. [\"sqs:SendMessage\"]), or remove the statement." : "",
        s.not_action != null && try(length(s.not_action) == 0, false) ? "not_actions: [] names no action; AWS refuses a statement without one." : "",
        length(coalesce(s.actions, s.not_action, [])) <= local.policy_max_actions ? "" : "${s.actions != null ? "actions" : "not_actions"}: ${length(coalesce(s.actions, s.not_action, []))} actions; SQS allows at most ${local.policy_max_actions} per statement in a queue policy and refuses the policy at apply. Split the statement in two.",
        join(" ", [for j, p in s.principals : "principal ${jsonencode(p.type)} has no identifiers (identifiers = []); AWS refuses an empty principal. Name them (e.g. [\"sns.amazonaws.com\"])." if try(length(p.identifiers) == 0, false)]),
        join(" ", [for op in distinct(s.operators) : "condition test ${jsonencode(op)} is not an IAM condition operator, and AWS refuses the policy. ${local.condition_operator_help}." if !can(regex(local.condition_operator_pattern, op))]),
        s.effect == "Deny" && s.everyone && length(s.operators) == 0 && anytrue([for a in coalesce(s.actions, []) : contains(["sqs:*", "*"], lower(a))]) ? "a Deny of ${jsonencode(s.actions)} to principal \"*\" without a condition denies every request to ${local.what[which]}: producers, consumers, the redrive and the administrators who would fix the policy (only the account root can then remove it). Add the condition that says whom to keep out (e.g. aws:PrincipalOrgID, aws:SourceVpce), or name the actions and principals to deny." : "",
      ] : "${s.at}: ${p}" if p != ""]]),
      flatten([for k in ["${which}_source", "${which}_override"] : [for s in local.limit_documents[k] : [for p in [
        s.actions != null && try(length(s.actions) == 0, false) ? "Action [] names no action; AWS refuses a statement without one." : "",
        length(coalesce(s.actions, s.not_action, [])) <= local.policy_max_actions ? "" : "${length(coalesce(s.actions, s.not_action, []))} actions; SQS allows at most ${local.policy_max_actions} per statement in a queue policy and refuses the policy at apply. Split the statement in two.",
        join(" ", [for op in s.operators : "Condition operator ${jsonencode(op)} is not an IAM condition operator, and AWS refuses the policy. ${local.condition_operator_help}." if !can(regex(local.condition_operator_pattern, op))]),
        s.effect == "Deny" && s.everyone && s.conditions == 0 && anytrue([for a in coalesce(s.actions, []) : contains(["sqs:*", "*"], lower(a))]) ? "a Deny of ${jsonencode(s.actions)} to principal \"*\" without a Condition denies every request to ${local.what[which]}: producers, consumers, the redrive and the administrators who would fix the policy. Add the Condition that says whom to keep out, or name the actions and principals to deny." : "",
      ] : "${s.at}: ${p}" if p != ""]]]),
    )
  }

  # Statements in the rendered policy: the TLS-only deny, the caller's statements and
  # those of the documents, a Sid counted once (a statement overrides one of its Sid)
  policy_sids = {
    for which in ["queue", "dlq"] : which => concat(
      [local.tls_sid_limits],
      [for s in local.limit_statements[which] : s.sid if try(length(s.sid) > 0, false)],
      flatten([for k in ["${which}_source", "${which}_override"] : [for s in local.limit_documents[k] : s.sid if try(length(s.sid) > 0, false)]]),
    )
  }
  policy_statement_count = {
    for which in ["queue", "dlq"] : which => (
      length(distinct(local.policy_sids[which]))
      + length([for s in local.limit_statements[which] : s.at if !try(length(s.sid) > 0, false)])
      + length(flatten([for k in ["${which}_source", "${which}_override"] : [for s in local.limit_documents[k] : s.at if !try(length(s.sid) > 0, false)]]))
    )
  }
  tls_sid_limits = "DenyInsecureTransport"
  policy_count_problems = {
    for which, v in { queue = ["queue_policy_statements", "source_queue_policy_documents", "override_queue_policy_documents"], dlq = ["dlq_policy_statements", "source_dlq_queue_policy_documents", "override_dlq_queue_policy_documents"] } : which => (
      local.policy_statement_count[which] <= local.policy_max_statements ? [] : ["${join(" + ", [for a in v : local.n[a]])}: the policy of ${local.what[which]} would have ${local.policy_statement_count[which]} statements (the module's TLS-only deny included, a Sid counted once); SQS allows at most ${local.policy_max_statements} in a queue policy and refuses it at apply. Merge statements that share a principal and condition (up to ${local.policy_max_actions} actions each)."]
    )
  }

  limit_problems = {
    for which in ["queue", "dlq"] : which => concat(local.limit_statement_problems[which], local.policy_count_problems[which])
  }

  # tags on each queue after the module's own (the DLQ's dlq_for); the provider's
  # default_tags come on top and are not seen here
  queue_tag_count = length(var.tags)
  dlq_tag_count   = length(merge(var.tags, var.dlq_tags, { dlq_for = "" }))
}
