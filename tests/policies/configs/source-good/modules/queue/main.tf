# A queue and its DLQ in the common style: the redrive policy embeds the DLQ's
# real ARN, the redrive-allow policy the queue's, the access policy both.
variable "name" {
  type = string
}

variable "max_receive_count" {
  type    = number
  default = 5
}

locals {
  tls = {
    Sid       = "DenyInsecureTransport"
    Effect    = "Deny"
    Principal = "*"
    Action    = "sqs:*"
    Condition = { Bool = { "aws:SecureTransport" = "false" } }
  }
}

resource "aws_sqs_queue" "dlq" {
  name                      = "${var.name}-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "this" {
  name                      = var.name
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = var.max_receive_count
  })
}

resource "aws_sqs_queue_redrive_allow_policy" "dlq" {
  queue_url = aws_sqs_queue.dlq.id
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.this.arn]
  })
}

resource "aws_sqs_queue_policy" "this" {
  for_each  = { this = aws_sqs_queue.this, dlq = aws_sqs_queue.dlq }
  queue_url = each.value.id
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [merge(local.tls, { Resource = each.value.arn })]
  })
}

output "name" {
  value = aws_sqs_queue.this.name
}

output "dlq_name" {
  value = aws_sqs_queue.dlq.name
}
