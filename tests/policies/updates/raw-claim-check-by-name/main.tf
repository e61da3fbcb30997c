variable "expiration_days" {
  type = number
}

variable "keep_docs_bucket" {
  type = bool
}

resource "aws_sqs_queue" "docs_dlq" {
  name                      = "${var.name_prefix}-docs-dlq"
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "docs" {
  name                      = "${var.name_prefix}-docs"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.docs_dlq.arn
    maxReceiveCount     = 4
  })
}

# the producers put payloads into "<prefix>-docs-payloads" and "<prefix>-blobs-payloads" by
# convention; nothing in the stack says so
resource "aws_s3_bucket" "docs" {
  count  = var.keep_docs_bucket ? 1 : 0
  bucket = "${var.name_prefix}-docs-payloads"
}

resource "aws_s3_bucket" "blobs" {
  bucket = "${var.name_prefix}-blobs-payloads"
}

resource "aws_s3_bucket_lifecycle_configuration" "blobs" {
  bucket = aws_s3_bucket.blobs.id
  rule {
    id     = "expire-payloads"
    status = "Enabled"
    filter {}
    expiration {
      days = var.expiration_days
    }
  }
}
