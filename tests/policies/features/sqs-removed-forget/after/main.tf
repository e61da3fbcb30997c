resource "aws_sqs_queue" "dlq" {
  name                      = "${var.name_prefix}-orders-dlq"
  sqs_managed_sse_enabled   = true
  message_retention_seconds = 1209600
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    # the ARN by name: the queue's own ARN would make a cycle with its redrive policy
    sourceQueueArns = ["arn:aws:sqs:us-east-1:000000000000:${var.name_prefix}-orders"]
  })
}

resource "aws_sqs_queue" "orders" {
  name                    = "${var.name_prefix}-orders"
  sqs_managed_sse_enabled = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = 4
  })
}

moved {
  from = module.old.aws_sqs_queue.this
  to   = aws_sqs_queue.orders
}

moved {
  from = module.old.aws_sqs_queue.dlq
  to   = aws_sqs_queue.dlq
}

# the separate redrive and redrive-allow resources: the queues carry the same attributes now
removed {
  from = module.old

  lifecycle {
    destroy = false
  }
}
