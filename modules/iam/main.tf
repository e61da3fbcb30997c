# Least-privilege policy documents for the three roles around a queue:
# producer, consumer and redrive operator. Every action is named (no
# wildcards) and every resource is a named ARN taken from the inputs; the
# only pattern is the claim-check object prefix (`<bucket>/<prefix>*`).

locals {
  payload_objects = var.payload_bucket_arn == null ? null : "${var.payload_bucket_arn}/${var.payload_prefix}*"

  has_producer = length(var.producer_queue_arns) > 0 || var.payload_bucket_arn != null
  has_consumer = length(var.consumer_queue_arns) > 0 || length(var.consumer_dlq_arns) > 0 || var.payload_bucket_arn != null || var.idempotency_table_arn != null
  has_redrive  = length(var.redrive) > 0

  redrive_dlqs    = distinct([for p in var.redrive : p.dlq_arn])
  redrive_targets = distinct([for p in var.redrive : p.source_queue_arn])

  roles = {
    producer         = local.has_producer
    consumer         = local.has_consumer
    redrive-operator = local.has_redrive
  }

  # Written with jsonencode, not aws_iam_policy_document data sources: the root
  # module makes one set per queue, and a data source per document is a provider
  # call and ~2 KB of plan JSON each (measured at 300 pairs: see
  # docs/performance.md). The documents are known at plan either way, so a plan
  # check judges them where they are attached (a role policy, aws_iam_policy).
  statements = {
    producer = concat(
      length(var.producer_queue_arns) == 0 ? [] : [{
        Sid      = "SendToQueues"
        Effect   = "Allow"
        Action   = ["sqs:SendMessage"]
        Resource = distinct(var.producer_queue_arns)
      }],
      local.payload_objects == null ? [] : [{
        Sid      = "PutClaimCheckPayloads"
        Effect   = "Allow"
        Action   = ["s3:PutObject"]
        Resource = [local.payload_objects]
      }],
      length(var.kms_key_arns) == 0 ? [] : [{
        Sid      = "EncryptWithKmsKeys"
        Effect   = "Allow"
        Action   = ["kms:GenerateDataKey", "kms:Decrypt"]
        Resource = distinct(var.kms_key_arns)
      }],
    )
    consumer = concat(
      length(var.consumer_queue_arns) == 0 ? [] : [{
        Sid    = "ConsumeQueues"
        Effect = "Allow"
        Action = [
          "sqs:ReceiveMessage",
          "sqs:DeleteMessage",
          "sqs:ChangeMessageVisibility",
          "sqs:GetQueueAttributes",
        ]
        Resource = distinct(var.consumer_queue_arns)
      }],
      length(var.consumer_dlq_arns) == 0 ? [] : [{
        Sid      = "DeadLetterPermanentFailures"
        Effect   = "Allow"
        Action   = ["sqs:SendMessage"]
        Resource = distinct(var.consumer_dlq_arns)
      }],
      local.payload_objects == null ? [] : [{
        Sid      = "GetClaimCheckPayloads"
        Effect   = "Allow"
        Action   = ["s3:GetObject"]
        Resource = [local.payload_objects]
      }],
      var.idempotency_table_arn == null ? [] : [{
        Sid    = "IdempotencyRecords"
        Effect = "Allow"
        Action = [
          "dynamodb:GetItem",
          "dynamodb:PutItem",
          "dynamodb:UpdateItem",
          "dynamodb:DeleteItem",
        ]
        Resource = [var.idempotency_table_arn]
      }],
      length(var.kms_key_arns) == 0 ? [] : [{
        Sid    = "DecryptWithKmsKeys"
        Effect = "Allow"
        # GenerateDataKey: to send a permanent failure to an SSE-KMS DLQ
        Action   = length(var.consumer_dlq_arns) > 0 ? ["kms:Decrypt", "kms:GenerateDataKey"] : ["kms:Decrypt"]
        Resource = distinct(var.kms_key_arns)
      }],
    )
    redrive-operator = concat(
      length(local.redrive_dlqs) == 0 ? [] : [{
        Sid    = "MoveMessagesOutOfDlqs"
        Effect = "Allow"
        Action = [
          "sqs:StartMessageMoveTask",
          "sqs:ListMessageMoveTasks",
          "sqs:CancelMessageMoveTask",
          "sqs:ReceiveMessage",
          "sqs:DeleteMessage",
          "sqs:GetQueueAttributes",
          "sqs:ListDeadLetterSourceQueues",
        ]
        Resource = local.redrive_dlqs
      }],
      length(local.redrive_targets) == 0 ? [] : [{
        Sid      = "SendRedrivenMessagesToSources"
        Effect   = "Allow"
        Action   = ["sqs:SendMessage", "sqs:GetQueueAttributes"]
        Resource = local.redrive_targets
      }],
      length(var.kms_key_arns) == 0 ? [] : [{
        Sid      = "ReencryptWithKmsKeys"
        Effect   = "Allow"
        Action   = ["kms:Decrypt", "kms:GenerateDataKey"]
        Resource = distinct(var.kms_key_arns)
      }],
    )
  }

  documents = {
    for role, present in local.roles : role => present ? jsonencode({ Version = "2012-10-17", Statement = local.statements[role] }) : null
  }
}

resource "aws_iam_policy" "this" {
  for_each = var.create_managed_policies ? { for k, present in local.roles : k => local.documents[k] if present } : {}

  name        = "${coalesce(var.name, "unnamed")}-${each.key}"
  path        = var.path
  description = "Least-privilege ${each.key} access for ${coalesce(var.name, "unnamed")} (resilient-sqs)."
  policy      = each.value
  tags        = var.tags

  lifecycle {
    precondition {
      condition     = var.name != null
      error_message = "name: create_managed_policies = true needs a base name for the policies (<name>-producer, <name>-consumer, <name>-redrive-operator). Set name, or set create_managed_policies = false to get only the JSON documents."
    }
  }
}
