# A queue pair written the common way: the source's inline redrive policy
# references the DLQ's real ARN, so the whole policy is unknown at plan time
# and the link is found through the configuration's references (through the
# module call and its for_each instance).
variable "name" {
  type = string
}

variable "account_id" {
  type = string
}

locals {
  tls_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "DenyInsecureTransport"
      Effect    = "Deny"
      Principal = "*"
      Action    = "sqs:*"
      Resource  = "*"
      Condition = { Bool = { "aws:SecureTransport" = "false" } }
    }]
  })
}

resource "aws_sqs_queue" "dlq" {
  name                      = "${var.name}-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_policy
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = ["arn:aws:sqs:us-east-1:${var.account_id}:${var.name}"]
  })
}

resource "aws_sqs_queue" "this" {
  name                      = var.name
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_policy
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = 4
  })
}

output "queue_name" {
  value = aws_sqs_queue.this.name
}
