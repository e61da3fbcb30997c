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

# Looked up only when not given: the root module looks them up once and passes
# them, so N queues do not cost N lookups (each data source read is a provider
# call and a plan-graph node).
data "aws_partition" "current" {
  count = var.partition == null ? 1 : 0
}

data "aws_region" "current" {
  count = var.region == null ? 1 : 0
}

data "aws_caller_identity" "current" {
  count = var.account_id == null ? 1 : 0
}

locals {
  suffix     = var.fifo ? ".fifo" : ""
  base_name  = trimsuffix(var.name, ".fifo")
  queue_name = "${local.base_name}${local.suffix}"
  dlq_name   = "${var.dlq_name != null ? trimsuffix(var.dlq_name, ".fifo") : "${local.base_name}-dlq"}${local.suffix}"

  account_id       = var.account_id != null ? var.account_id : one(data.aws_caller_identity.current[*].account_id)
  partition        = var.partition != null ? var.partition : one(data.aws_partition.current[*].partition)
  region           = var.region != null ? var.region : one(data.aws_region.current[*].id)
  arn_prefix       = "arn:${local.partition}:sqs:${local.region}:${local.account_id}"
  queue_arn_static = "${local.arn_prefix}:${local.queue_name}"
  dlq_arn_static   = "${local.arn_prefix}:${local.dlq_name}"

  # Visibility must outlast every retry of a batch by the consumer: AWS
  # recommends 6 x the function timeout, plus the batching window during which
  # messages are already in flight before the function starts.
  consumer_visibility = var.consumer == null ? null : 6 * var.consumer.timeout_seconds + var.consumer.maximum_batching_window_seconds
  visibility_timeout  = coalesce(var.visibility_timeout_seconds, local.consumer_visibility, 30)

  sse_sqs = var.kms_master_key_id == null

  fifo_options_set = var.content_based_deduplication || var.deduplication_scope != null || var.fifo_throughput_limit != null

  # Queue policies: the TLS-only deny, plus the caller's statements if any.
  # Without extra statements the document is written with jsonencode (known
  # at plan time, no data source: one aws_iam_policy_document per queue is a
  # provider call each, 600 of them cost ~7 s of plan CPU at 300 pairs); with
  # them, aws_iam_policy_document renders and checks them (duplicate sids are
  # refused). The provider normalises the policy string either way.
  custom_queue_policy = length(var.queue_policy_statements) > 0
  custom_dlq_policy   = length(var.dlq_policy_statements) > 0
  queue_policy = local.custom_queue_policy ? one(data.aws_iam_policy_document.queue[*].json) : jsonencode({
    Version   = "2012-10-17"
    Statement = [merge(local.deny_insecure_transport, { Resource = local.queue_arn_static })]
  })
  dlq_policy = local.custom_dlq_policy ? one(data.aws_iam_policy_document.dlq[*].json) : jsonencode({
    Version   = "2012-10-17"
    Statement = [merge(local.deny_insecure_transport, { Resource = local.dlq_arn_static })]
  })
  deny_insecure_transport = {
    Sid       = "DenyInsecureTransport"
    Effect    = "Deny"
    Principal = "*"
    Action    = "sqs:*"
    Condition = { Bool = { "aws:SecureTransport" = "false" } }
  }
}

data "aws_iam_policy_document" "queue" {
  count = local.custom_queue_policy ? 1 : 0

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
    for_each = var.queue_policy_statements
    content {
      sid       = statement.value.sid
      effect    = statement.value.effect
      actions   = statement.value.actions
      resources = [local.queue_arn_static]

      dynamic "principals" {
        for_each = statement.value.principals
        content {
          type        = principals.value.type
          identifiers = principals.value.identifiers
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
}

data "aws_iam_policy_document" "dlq" {
  count = local.custom_dlq_policy ? 1 : 0

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
    for_each = var.dlq_policy_statements
    content {
      sid       = statement.value.sid
      effect    = statement.value.effect
      actions   = statement.value.actions
      resources = [local.dlq_arn_static]

      dynamic "principals" {
        for_each = statement.value.principals
        content {
          type        = principals.value.type
          identifiers = principals.value.identifiers
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
}

resource "aws_sqs_queue" "dlq" {
  name       = local.dlq_name
  fifo_queue = var.fifo

  message_retention_seconds = var.dlq_message_retention_seconds
  receive_wait_time_seconds = 20

  sqs_managed_sse_enabled           = local.sse_sqs ? true : null
  kms_master_key_id                 = var.kms_master_key_id
  kms_data_key_reuse_period_seconds = local.sse_sqs ? null : var.kms_data_key_reuse_period_seconds

  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [local.queue_arn_static]
  })

  policy = local.dlq_policy

  tags = merge(var.tags, { dlq_for = local.queue_name })

  lifecycle {
    precondition {
      condition     = length(local.dlq_name) <= 80
      error_message = "dlq_name: the DLQ name \"${local.dlq_name}\" is ${length(local.dlq_name)} characters; SQS allows at most 80 (including .fifo). Shorten name or set dlq_name."
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

  # The DLQ's ARN built at plan time (equal to aws_sqs_queue.dlq.arn), so the
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
      condition     = var.dlq_message_retention_seconds > var.message_retention_seconds
      error_message = "dlq_message_retention_seconds: ${var.dlq_message_retention_seconds} s must be greater than message_retention_seconds (${var.message_retention_seconds} s). A message keeps its original enqueue time when it moves to the DLQ, so a DLQ that keeps messages no longer than the source deletes failures before anyone can inspect or redrive them. Raise dlq_message_retention_seconds (max 1209600) or lower message_retention_seconds."
    }

    precondition {
      condition     = var.visibility_timeout_seconds == null || local.consumer_visibility == null || try(var.visibility_timeout_seconds >= local.consumer_visibility, true)
      error_message = "visibility_timeout_seconds: ${coalesce(var.visibility_timeout_seconds, -1)} s is below 6 x consumer timeout ${try(var.consumer.timeout_seconds, 0)} s + batching window ${try(var.consumer.maximum_batching_window_seconds, 0)} s = ${coalesce(local.consumer_visibility, -1)} s. Rule: visibility timeout >= 6 x Lambda timeout + maximum batching window, or messages are redelivered while still being processed (duplicates). Remove visibility_timeout_seconds to derive it, or set it to at least ${coalesce(local.consumer_visibility, -1)}."
    }

    precondition {
      condition     = var.receive_wait_time_seconds > 0 || var.allow_short_polling
      error_message = "receive_wait_time_seconds: 0 (short polling) is refused: receives sample a subset of servers, return empty while messages wait, and every empty receive is billed. Use 1-20 (20 recommended), or set allow_short_polling = true if the consumer must never block."
    }

    precondition {
      condition     = var.fifo || !local.fifo_options_set
      error_message = "content_based_deduplication / deduplication_scope / fifo_throughput_limit: these are FIFO-only settings but fifo = false. Set fifo = true or remove them."
    }

    precondition {
      condition     = var.fifo || !endswith(var.name, ".fifo")
      error_message = "name: \"${var.name}\" ends with .fifo but fifo = false. Set fifo = true for a FIFO pair, or drop the suffix."
    }

    precondition {
      condition     = var.fifo_throughput_limit != "perMessageGroupId" || var.deduplication_scope == "messageGroup"
      error_message = "fifo_throughput_limit: \"perMessageGroupId\" (high-throughput FIFO) requires deduplication_scope = \"messageGroup\"; it is ${var.deduplication_scope == null ? "unset (AWS default \"queue\")" : "\"${coalesce(var.deduplication_scope, "queue")}\""}. SQS rejects the combination."
    }

    precondition {
      condition     = length(local.queue_name) <= 80
      error_message = "name: the queue name \"${local.queue_name}\" is ${length(local.queue_name)} characters; SQS allows at most 80 (including .fifo)."
    }
  }
}

# Terraform's lifecycle.prevent_destroy must be a literal, so it cannot follow an
# input on the queues themselves. The switch adds a guard that has it: the guard is
# replaced whenever either queue is (their IDs change only when they are replaced)
# and removed with them, so a plan that would delete the queues' messages fails.
resource "terraform_data" "prevent_destroy" {
  count = var.prevent_destroy ? 1 : 0

  input = "guards SQS queues ${local.queue_name} and ${local.dlq_name} against deletion and replacement"

  lifecycle {
    prevent_destroy      = true
    replace_triggered_by = [aws_sqs_queue.this.id, aws_sqs_queue.dlq.id]
  }
}
