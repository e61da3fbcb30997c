# Least-privilege policy documents for the three roles around a queue:
# producer, consumer and redrive operator. Every action is named (no
# wildcards) and every resource is a named ARN taken from the inputs; the
# only pattern is the claim-check object prefix (`<bucket>/<prefix>*`).

locals {
  payload_objects = var.payload_bucket_arn == null ? null : "${var.payload_bucket_arn}/${var.payload_prefix}*"

  has_producer = length(var.producer_queue_arns) > 0 || var.payload_bucket_arn != null
  has_consumer = length(var.consumer_queue_arns) > 0 || var.payload_bucket_arn != null || var.idempotency_table_arn != null
  has_redrive  = length(var.redrive) > 0

  redrive_dlqs    = distinct([for p in var.redrive : p.dlq_arn])
  redrive_targets = distinct([for p in var.redrive : p.source_queue_arn])

  roles = {
    producer         = local.has_producer
    consumer         = local.has_consumer
    redrive-operator = local.has_redrive
  }

  # Statements per role, written with jsonencode: known at plan time like the
  # aws_iam_policy_document data sources they replace, without a provider call
  # per document (three per queue; 900 of them cost ~8 s of plan CPU at 300
  # pairs). Like the data source, a single action or resource is a string,
  # several are a sorted list without duplicates.
  statements = {
    producer = concat(
      length(var.producer_queue_arns) > 0 ? [{ sid = "SendToQueues", actions = ["sqs:SendMessage"], resources = var.producer_queue_arns }] : [],
      local.payload_objects == null ? [] : [{ sid = "PutClaimCheckPayloads", actions = ["s3:PutObject"], resources = [local.payload_objects] }],
      length(var.kms_key_arns) > 0 ? [{ sid = "EncryptWithKmsKeys", actions = ["kms:GenerateDataKey", "kms:Decrypt"], resources = var.kms_key_arns }] : [],
    )
    consumer = concat(
      length(var.consumer_queue_arns) > 0 ? [{
        sid       = "ConsumeQueues"
        actions   = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueAttributes"]
        resources = var.consumer_queue_arns
      }] : [],
      local.payload_objects == null ? [] : [{ sid = "GetClaimCheckPayloads", actions = ["s3:GetObject"], resources = [local.payload_objects] }],
      var.idempotency_table_arn == null ? [] : [{
        sid       = "IdempotencyRecords"
        actions   = ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"]
        resources = [var.idempotency_table_arn]
      }],
      length(var.kms_key_arns) > 0 ? [{ sid = "DecryptWithKmsKeys", actions = ["kms:Decrypt"], resources = var.kms_key_arns }] : [],
    )
    redrive-operator = concat(
      length(local.redrive_dlqs) > 0 ? [{
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
      }] : [],
      length(local.redrive_targets) > 0 ? [{ sid = "SendRedrivenMessagesToSources", actions = ["sqs:SendMessage", "sqs:GetQueueAttributes"], resources = local.redrive_targets }] : [],
      length(var.kms_key_arns) > 0 ? [{ sid = "ReencryptWithKmsKeys", actions = ["kms:Decrypt", "kms:GenerateDataKey"], resources = var.kms_key_arns }] : [],
    )
  }

  documents = {
    for role, present in local.roles : role => present ? jsonencode({
      Version = "2012-10-17"
      Statement = [for st in local.statements[role] : {
        Sid      = st.sid
        Effect   = "Allow"
        Action   = try(one(distinct(st.actions)), sort(distinct(st.actions)))
        Resource = try(one(distinct(st.resources)), sort(distinct(st.resources)))
      }]
    }) : null
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
