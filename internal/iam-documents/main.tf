# The least-privilege documents of modules/iam, for any number of sets in one
# module instance: modules/iam makes one set, the root module one per queue.
# Every action is named (no wildcards) and every resource is a named ARN from
# the set; the only pattern is the claim-check object prefix.
#
# Written with jsonencode in for expressions, not aws_iam_policy_document data
# sources or a module instance per queue: Terraform's cost is per evaluated
# expression and per data source (measured at 100 and 300 pairs: see
# docs/performance.md). The documents are known at plan either way.

locals {
  documents = {
    for k, s in var.sets : k => {
      for role, statements in {
        producer = concat(
          length(s.producer_queue_arns) == 0 ? [] : [{
            Sid      = "SendToQueues"
            Effect   = "Allow"
            Action   = ["sqs:SendMessage"]
            Resource = distinct(s.producer_queue_arns)
          }],
          s.payload_bucket_arn == null ? [] : [{
            Sid      = "PutClaimCheckPayloads"
            Effect   = "Allow"
            Action   = ["s3:PutObject"]
            Resource = ["${s.payload_bucket_arn}/${s.payload_prefix}*"]
          }],
          length(s.kms_key_arns) == 0 ? [] : [{
            Sid      = "EncryptWithKmsKeys"
            Effect   = "Allow"
            Action   = ["kms:GenerateDataKey", "kms:Decrypt"]
            Resource = distinct(s.kms_key_arns)
          }],
        )
        consumer = concat(
          length(s.consumer_queue_arns) == 0 ? [] : [{
            Sid    = "ConsumeQueues"
            Effect = "Allow"
            Action = [
              "sqs:ReceiveMessage",
              "sqs:DeleteMessage",
              "sqs:ChangeMessageVisibility",
              "sqs:GetQueueAttributes",
            ]
            Resource = distinct(s.consumer_queue_arns)
          }],
          length(s.consumer_dlq_arns) == 0 ? [] : [{
            Sid      = "DeadLetterPermanentFailures"
            Effect   = "Allow"
            Action   = ["sqs:SendMessage"]
            Resource = distinct(s.consumer_dlq_arns)
          }],
          s.payload_bucket_arn == null ? [] : [{
            Sid      = "GetClaimCheckPayloads"
            Effect   = "Allow"
            Action   = ["s3:GetObject"]
            Resource = ["${s.payload_bucket_arn}/${s.payload_prefix}*"]
          }],
          s.idempotency_table_arn == null ? [] : [{
            Sid    = "IdempotencyRecords"
            Effect = "Allow"
            Action = [
              "dynamodb:GetItem",
              "dynamodb:PutItem",
              "dynamodb:UpdateItem",
              "dynamodb:DeleteItem",
            ]
            Resource = [s.idempotency_table_arn]
          }],
          length(s.kms_key_arns) == 0 ? [] : [{
            Sid    = "DecryptWithKmsKeys"
            Effect = "Allow"
            # GenerateDataKey: to send a permanent failure to an SSE-KMS DLQ
            Action   = length(s.consumer_dlq_arns) > 0 ? ["kms:Decrypt", "kms:GenerateDataKey"] : ["kms:Decrypt"]
            Resource = distinct(s.kms_key_arns)
          }],
        )
        redrive-operator = concat(
          length(s.redrive) == 0 ? [] : [{
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
            Resource = distinct([for p in s.redrive : p.dlq_arn])
          }],
          length(s.redrive) == 0 ? [] : [{
            Sid      = "SendRedrivenMessagesToSources"
            Effect   = "Allow"
            Action   = ["sqs:SendMessage", "sqs:GetQueueAttributes"]
            Resource = distinct([for p in s.redrive : p.source_queue_arn])
          }],
          length(s.kms_key_arns) == 0 ? [] : [{
            Sid      = "ReencryptWithKmsKeys"
            Effect   = "Allow"
            Action   = ["kms:Decrypt", "kms:GenerateDataKey"]
            Resource = distinct(s.kms_key_arns)
          }],
        )
      } : role => local.granted[k][role] ? jsonencode({ Version = "2012-10-17", Statement = statements }) : null
    }
  }

  # a role gets a document when the set grants it more than KMS use
  granted = {
    for k, s in var.sets : k => {
      producer         = length(s.producer_queue_arns) > 0 || s.payload_bucket_arn != null
      consumer         = length(s.consumer_queue_arns) > 0 || length(s.consumer_dlq_arns) > 0 || s.payload_bucket_arn != null || s.idempotency_table_arn != null
      redrive-operator = length(s.redrive) > 0
    }
  }
}
