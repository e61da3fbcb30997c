# A FIFO pair whose producer offloads payloads to a bucket. Moving a message to a FIFO
# DLQ resets its enqueue time, so a message can live 4 + 14 = 18 days: a 15-day payload
# expiry (longer than the DLQ's retention alone) loses the payloads of late redrives.
locals {
  arn_prefix = "arn:aws:sqs:us-east-1:123456789012"
  bucket     = "ccf-payloads"
}

resource "aws_sqs_queue" "dlq" {
  name                      = "ccf-orders-dlq.fifo"
  fifo_queue                = true
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "orders" {
  name                      = "ccf-orders.fifo"
  fifo_queue                = true
  message_retention_seconds = 345600
  sqs_managed_sse_enabled   = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = "${local.arn_prefix}:ccf-orders-dlq.fifo"
    maxReceiveCount     = 4
  })
  depends_on = [aws_sqs_queue.dlq]
}

resource "aws_s3_bucket" "payloads" {
  bucket = local.bucket
}

resource "aws_s3_bucket_lifecycle_configuration" "payloads" {
  bucket = aws_s3_bucket.payloads.id
  rule {
    id     = "expire-payloads"
    status = "Enabled"
    filter {
      prefix = "payloads/"
    }
    expiration {
      days = 15
    }
  }
}

# the producer: sends to the queue, writes payloads to the bucket
resource "aws_iam_policy" "producer" {
  name = "ccf-producer"
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      { Effect = "Allow", Action = "sqs:SendMessage", Resource = "${local.arn_prefix}:ccf-orders.fifo" },
      { Effect = "Allow", Action = "s3:PutObject", Resource = "arn:aws:s3:::${local.bucket}/payloads/*" },
    ]
  })
}
