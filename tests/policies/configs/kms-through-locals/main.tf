# SSE-KMS with keys created by the same apply, reached through locals, coalesce(), try()
# and conditions: the plan leaves kms_master_key_id and sqs_managed_sse_enabled unknown and
# records only `local.*` references, so encryption (SQS001, SQS006) is unknown without the
# source and decided from it (--source-dir). One DLQ is left unencrypted (SQS001, SQS006).
resource "aws_kms_key" "queues" {
  description         = "kms-locals queues"
  enable_key_rotation = true
}

resource "aws_kms_alias" "queues" {
  name          = "alias/kms-locals-queues"
  target_key_id = aws_kms_key.queues.key_id
}

locals {
  keys = {
    by_arn   = aws_kms_key.queues.arn
    by_id    = aws_kms_key.queues.key_id
    by_alias = aws_kms_alias.queues.name
  }
}

# for_each over a local map of keys
resource "aws_sqs_queue" "dlq" {
  for_each                  = local.keys
  name                      = "kms-locals-${replace(each.key, "_", "-")}-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  kms_master_key_id         = each.value
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Sid = "DenyInsecureTransport", Effect = "Deny", Principal = "*", Action = "sqs:*", Resource = "*", Condition = { Bool = { "aws:SecureTransport" = "false" } } }]
  })
}

resource "aws_sqs_queue" "q" {
  for_each                  = local.keys
  name                      = "kms-locals-${replace(each.key, "_", "-")}"
  receive_wait_time_seconds = 20
  kms_master_key_id         = each.value
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Sid = "DenyInsecureTransport", Effect = "Deny", Principal = "*", Action = "sqs:*", Resource = "*", Condition = { Bool = { "aws:SecureTransport" = "false" } } }]
  })
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq[each.key].arn, maxReceiveCount = 4 })
}

resource "aws_sqs_queue_redrive_allow_policy" "dlq" {
  for_each             = aws_sqs_queue.dlq
  queue_url            = each.value.id
  redrive_allow_policy = jsonencode({ redrivePermission = "byQueue", sourceQueueArns = [aws_sqs_queue.q[each.key].arn] })
}

# the DLQ follows the queue's key (coalesce over the key's ARN)
module "ledger" {
  source            = "./pair"
  name              = "kms-locals-ledger"
  kms_master_key_id = aws_kms_key.queues.arn
}

# the DLQ gets its own key: the alias
module "audit" {
  source                = "./pair"
  name                  = "kms-locals-audit"
  kms_master_key_id     = aws_kms_key.queues.arn
  dlq_kms_master_key_id = aws_kms_alias.queues.arn
}

# SSE-SQS on both (no key)
module "plain" {
  source = "./pair"
  name   = "kms-locals-plain"
}

# a KMS-encrypted queue whose DLQ is left unencrypted: SQS001 on the DLQ, SQS006 on the queue
# (no key for the DLQ, and its SSE-SQS switched off)
module "leaky" {
  source                      = "./pair"
  name                        = "kms-locals-leaky"
  dlq_sqs_managed_sse_enabled = false
}
