variable "name" {
  type = string
}

# a pair with known findings: maxReceiveCount 10 (SQS003) and a DLQ that keeps messages no
# longer than its source (SQS004, naming the DLQ)
resource "aws_sqs_queue" "this" {
  name                    = var.name
  sqs_managed_sse_enabled = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = 10
  })
}

resource "aws_sqs_queue" "dlq" {
  name                    = "${var.name}-dlq"
  sqs_managed_sse_enabled = true
}
