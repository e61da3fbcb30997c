output "queues" {
  description = "Per queue key: the names (given, final, DLQ), ARNs built at plan time, the settings resolved with their precedence, the consumer, policies, tags, alarm thresholds, how a dlq_arn relates to this call, and `input_names` (how refusals name each setting)."
  value       = local.queues

  precondition {
    condition     = length(local.type_problem_groups.queues) == 0
    error_message = join("\n", local.type_problem_groups.queues)
  }

  precondition {
    condition     = length(local.shape_problems) == 0 && length(local.attribute_problems.queues) == 0
    error_message = join("\n", concat(local.shape_problems, [local.attribute_messages.queues]))
  }

  precondition {
    condition     = length(local.value_problems) == 0
    error_message = join("\n", local.value_problems)
  }

  # apart: a wait may be known only after apply
  precondition {
    condition     = length(local.setting_noop_problems) == 0
    error_message = join("\n", local.setting_noop_problems)
  }

  precondition {
    condition     = length(local.kms_noop_problems) == 0 && length(local.tag_key_problems) == 0
    error_message = join("\n", concat(local.kms_noop_problems, local.tag_key_problems))
  }

  # apart: a tag value may be known only after apply (an ARN of the stack)
  precondition {
    condition     = length(local.tag_value_problems) == 0
    error_message = join("\n", local.tag_value_problems)
  }
}

output "consumers" {
  description = "Per queue key with a consumer function (consumer_functions, or queues.<key>.consumer.function_name): what its event source mapping takes, and `input_names`."
  # a consumer without a timeout (null given) is refused by the queues output, naming it;
  # its mapping is left out here rather than fail on the null inside lambda-consumer
  value = { for k, c in local.consumers : k => c if c.function_timeout_seconds != null }

  precondition {
    condition     = length(local.consumer_function_type_problems) == 0
    error_message = join("\n", local.consumer_function_type_problems)
  }

  precondition {
    condition     = length(local.consumer_problems) == 0 && length(local.consumer_noop_problems) == 0
    error_message = join("\n", concat(local.consumer_problems, local.consumer_noop_problems))
  }
}

output "claim_check_bucket" {
  description = "`claim_check_bucket` with its defaults."
  value       = var.claim_check_bucket

  precondition {
    condition     = length(local.type_problem_groups.claim_check_bucket) == 0
    error_message = join("\n", local.type_problem_groups.claim_check_bucket)
  }

  precondition {
    condition     = length(local.attribute_problems.claim_check_bucket) == 0
    error_message = local.attribute_messages.claim_check_bucket
  }
}

output "idempotency_table" {
  description = "`idempotency_table` with its defaults."
  value       = var.idempotency_table

  precondition {
    condition     = length(local.type_problem_groups.idempotency_table) == 0
    error_message = join("\n", local.type_problem_groups.idempotency_table)
  }

  precondition {
    condition     = length(local.attribute_problems.idempotency_table) == 0
    error_message = local.attribute_messages.idempotency_table
  }
}

output "alarms" {
  description = "`alarms` with its defaults."
  value       = var.alarms

  precondition {
    condition     = length(local.type_problem_groups.alarms) == 0
    error_message = join("\n", local.type_problem_groups.alarms)
  }

  precondition {
    condition     = length(local.attribute_problems.alarms) == 0
    error_message = local.attribute_messages.alarms
  }

  precondition {
    condition     = length(local.alarm_noop_problems) == 0 && length(local.alarm_off_problems) == 0
    error_message = join("\n", concat(local.alarm_noop_problems, local.alarm_off_problems))
  }
}

output "iam" {
  description = "`iam` with its defaults."
  value       = var.iam

  precondition {
    condition     = length(local.type_problem_groups.iam) == 0
    error_message = join("\n", local.type_problem_groups.iam)
  }

  precondition {
    condition     = length(local.attribute_problems.iam) == 0
    error_message = local.attribute_messages.iam
  }

  precondition {
    condition     = length(local.iam_noop_problems) == 0
    error_message = join("\n", local.iam_noop_problems)
  }
}

output "dlq_redrive" {
  description = "`dlq_redrive` with its defaults."
  value       = var.dlq_redrive

  precondition {
    condition     = length(local.type_problem_groups.dlq_redrive) == 0
    error_message = join("\n", local.type_problem_groups.dlq_redrive)
  }

  precondition {
    condition     = length(local.attribute_problems.dlq_redrive) == 0
    error_message = local.attribute_messages.dlq_redrive
  }
}
