variable "bucket_suffix" {
  type    = string
  default = "payloads"
}

variable "expiration_days" {
  type    = number
  default = 20
}

resource "aws_s3_bucket" "payloads" {
  bucket        = "${var.name_prefix}-${var.bucket_suffix}"
  force_destroy = false
}

resource "aws_s3_bucket_server_side_encryption_configuration" "payloads" {
  bucket = aws_s3_bucket.payloads.id

  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
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
      days = var.expiration_days
    }
  }
}

data "aws_iam_policy_document" "producer" {
  statement {
    actions   = ["sqs:SendMessage"]
    resources = [aws_sqs_queue.jobs.arn]
  }

  statement {
    actions   = ["s3:PutObject"]
    resources = ["${aws_s3_bucket.payloads.arn}/payloads/*"]
  }
}

resource "aws_iam_policy" "producer" {
  name   = "${var.name_prefix}-producer"
  policy = data.aws_iam_policy_document.producer.json
}
