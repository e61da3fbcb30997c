# A queue pair whose DLQ takes the queue's key unless given its own, the way community
# modules write it: the key goes through locals, coalesce(), try() and `!= null`.
variable "name" {
  type = string
}

variable "kms_master_key_id" {
  type    = string
  default = null
}

variable "dlq_kms_master_key_id" {
  type    = string
  default = null
}

variable "dlq_sqs_managed_sse_enabled" {
  type    = bool
  default = true
}

locals {
  dlq_kms_master_key_id       = try(coalesce(var.dlq_kms_master_key_id, var.kms_master_key_id), null)
  dlq_sqs_managed_sse_enabled = local.dlq_kms_master_key_id != null ? null : var.dlq_sqs_managed_sse_enabled
  tls_only = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Sid = "DenyInsecureTransport", Effect = "Deny", Principal = "*", Action = "sqs:*", Resource = "*", Condition = { Bool = { "aws:SecureTransport" = "false" } } }]
  })
}

resource "aws_sqs_queue" "dlq" {
  name                      = "${var.name}-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  kms_master_key_id         = local.dlq_kms_master_key_id
  sqs_managed_sse_enabled   = local.dlq_sqs_managed_sse_enabled
  policy                    = local.tls_only
}

resource "aws_sqs_queue" "this" {
  name                      = var.name
  receive_wait_time_seconds = 20
  kms_master_key_id         = var.kms_master_key_id
  sqs_managed_sse_enabled   = var.kms_master_key_id != null ? null : true
  policy                    = local.tls_only
  redrive_policy            = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 4 })
}

resource "aws_sqs_queue_redrive_allow_policy" "dlq" {
  queue_url            = aws_sqs_queue.dlq.id
  redrive_allow_policy = jsonencode({ redrivePermission = "byQueue", sourceQueueArns = [aws_sqs_queue.this.arn] })
}
