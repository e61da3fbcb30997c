# A queue/DLQ pair switched from standard to FIFO: fifo_queue and the name
# (.fifo suffix) force a new queue, so both are replaced and lose their messages.
variable "fifo" {
  type = bool
}

locals {
  suffix = var.fifo ? ".fifo" : ""
}

resource "aws_sqs_queue" "dlq" {
  name                      = "${var.name_prefix}-jobs-dlq${local.suffix}"
  fifo_queue                = var.fifo
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "jobs" {
  name                      = "${var.name_prefix}-jobs${local.suffix}"
  fifo_queue                = var.fifo
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = 5
  })
}
