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

  documents = {
    producer         = local.has_producer ? data.aws_iam_policy_document.producer.json : null
    consumer         = local.has_consumer ? data.aws_iam_policy_document.consumer.json : null
    redrive-operator = local.has_redrive ? data.aws_iam_policy_document.redrive_operator.json : null
  }
}

data "aws_iam_policy_document" "producer" {
  dynamic "statement" {
    for_each = length(var.producer_queue_arns) > 0 ? [1] : []
    content {
      sid       = "SendToQueues"
      actions   = ["sqs:SendMessage"]
      resources = distinct(var.producer_queue_arns)
    }
  }

  dynamic "statement" {
    for_each = local.payload_objects == null ? [] : [local.payload_objects]
    content {
      sid       = "PutClaimCheckPayloads"
      actions   = ["s3:PutObject"]
      resources = [statement.value]
    }
  }

  dynamic "statement" {
    for_each = length(var.kms_key_arns) > 0 ? [1] : []
    content {
      sid       = "EncryptWithKmsKeys"
      actions   = ["kms:GenerateDataKey", "kms:Decrypt"]
      resources = distinct(var.kms_key_arns)
    }
  }
}

data "aws_iam_policy_document" "consumer" {
  dynamic "statement" {
    for_each = length(var.consumer_queue_arns) > 0 ? [1] : []
    content {
      sid = "ConsumeQueues"
      actions = [
        "sqs:ReceiveMessage",
        "sqs:DeleteMessage",
        "sqs:ChangeMessageVisibility",
        "sqs:GetQueueAttributes",
      ]
      resources = distinct(var.consumer_queue_arns)
    }
  }

  dynamic "statement" {
    for_each = length(var.consumer_dlq_arns) > 0 ? [1] : []
    content {
      sid       = "DeadLetterPermanentFailures"
      actions   = ["sqs:SendMessage"]
      resources = distinct(var.consumer_dlq_arns)
    }
  }

  dynamic "statement" {
    for_each = local.payload_objects == null ? [] : [local.payload_objects]
    content {
      sid       = "GetClaimCheckPayloads"
      actions   = ["s3:GetObject"]
      resources = [statement.value]
    }
  }

  dynamic "statement" {
    for_each = var.idempotency_table_arn == null ? [] : [var.idempotency_table_arn]
    content {
      sid = "IdempotencyRecords"
      actions = [
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:DeleteItem",
      ]
      resources = [statement.value]
    }
  }

  dynamic "statement" {
    for_each = length(var.kms_key_arns) > 0 ? [1] : []
    content {
      sid = "DecryptWithKmsKeys"
      # GenerateDataKey: to send a permanent failure to an SSE-KMS DLQ
      actions   = length(var.consumer_dlq_arns) > 0 ? ["kms:Decrypt", "kms:GenerateDataKey"] : ["kms:Decrypt"]
      resources = distinct(var.kms_key_arns)
    }
  }
}

data "aws_iam_policy_document" "redrive_operator" {
  dynamic "statement" {
    for_each = length(local.redrive_dlqs) > 0 ? [1] : []
    content {
      sid = "MoveMessagesOutOfDlqs"
      actions = [
        "sqs:StartMessageMoveTask",
        "sqs:ListMessageMoveTasks",
        "sqs:CancelMessageMoveTask",
        "sqs:ReceiveMessage",
        "sqs:DeleteMessage",
        "sqs:GetQueueAttributes",
        "sqs:ListDeadLetterSourceQueues",
      ]
      resources = local.redrive_dlqs
    }
  }

  dynamic "statement" {
    for_each = length(local.redrive_targets) > 0 ? [1] : []
    content {
      sid       = "SendRedrivenMessagesToSources"
      actions   = ["sqs:SendMessage", "sqs:GetQueueAttributes"]
      resources = local.redrive_targets
    }
  }

  dynamic "statement" {
    for_each = length(var.kms_key_arns) > 0 ? [1] : []
    content {
      sid       = "ReencryptWithKmsKeys"
      actions   = ["kms:Decrypt", "kms:GenerateDataKey"]
      resources = distinct(var.kms_key_arns)
    }
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
