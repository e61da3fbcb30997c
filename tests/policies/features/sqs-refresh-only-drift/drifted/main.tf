# the same queues changed by hand: what someone does in the console
resource "aws_sqs_queue" "dlq" {
  name                      = "${var.name_prefix}-dlq"
  sqs_managed_sse_enabled   = true
  message_retention_seconds = 345600
}

resource "aws_sqs_queue" "jobs" {
  name                       = "${var.name_prefix}-jobs"
  sqs_managed_sse_enabled    = true
  visibility_timeout_seconds = 5
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = 5
  })
}
