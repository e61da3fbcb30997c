# A claim-check bucket expiring payloads before the DLQ expires its messages,
# an insecure second bucket, a mis-keyed idempotency table, over-broad IAM and
# alarms that fire too late.
module "jobs" {
  source     = "../../../../modules/queue"
  name       = "cc-jobs"
  account_id = "123456789012"
  # DLQ retention: the module default, 14 days
}

resource "aws_s3_bucket" "payloads" {
  bucket = "cc-payloads"
}

resource "aws_s3_bucket_server_side_encryption_configuration" "payloads" {
  bucket = aws_s3_bucket.payloads.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_public_access_block" "payloads" {
  bucket                  = aws_s3_bucket.payloads.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_policy" "payloads" {
  bucket = aws_s3_bucket.payloads.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "DenyInsecureTransport"
      Effect    = "Deny"
      Principal = "*"
      Action    = "s3:*"
      Resource  = ["arn:aws:s3:::cc-payloads", "arn:aws:s3:::cc-payloads/*"]
      Condition = { Bool = { "aws:SecureTransport" = "false" } }
    }]
  })
}

# 7 days < the 14 days a failed message may wait in the DLQ before a redrive
resource "aws_s3_bucket_lifecycle_configuration" "payloads" {
  bucket = aws_s3_bucket.payloads.id
  rule {
    id     = "expire-payloads"
    status = "Enabled"
    filter {
      prefix = "payloads/"
    }
    expiration {
      days = 7
    }
  }
}

# The consumer's policy links the bucket to the queue (and is itself fine).
data "aws_iam_policy_document" "consumer" {
  statement {
    actions   = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueAttributes"]
    resources = [module.jobs.queue.arn]
  }
  statement {
    actions   = ["s3:GetObject"]
    resources = ["${aws_s3_bucket.payloads.arn}/payloads/*"]
  }
}

resource "aws_iam_policy" "consumer" {
  name   = "cc-consumer"
  policy = data.aws_iam_policy_document.consumer.json
}

# Service-wide wildcard on every resource.
resource "aws_iam_policy" "producer" {
  name = "cc-producer"
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      { Sid = "Everything", Effect = "Allow", Action = "sqs:*", Resource = "*" },
      { Sid = "DenyDelete", Effect = "Deny", Action = "sqs:*", Resource = "*", Condition = { Bool = { "aws:MultiFactorAuthPresent" = "false" } } },
    ]
  })
}

# A named action on every bucket.
resource "aws_iam_role_policy" "reader" {
  name = "cc-reader"
  role = "cc-reader"
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Sid = "AnyBucket", Effect = "Allow", Action = ["s3:GetObject"], Resource = "arn:aws:s3:::*/payloads/*" }]
  })
}

# A document no resource uses (e.g. exported by a module): checked on its own.
data "aws_iam_policy_document" "table_admin" {
  statement {
    sid       = "TableAdmin"
    actions   = ["dynamodb:*"]
    resources = ["arn:aws:dynamodb:us-east-1:123456789012:table/cc-idempotency"]
  }
}

resource "aws_s3_bucket" "logs" {
  bucket = "cc-logs"
}

resource "aws_s3_bucket_public_access_block" "logs" {
  bucket                  = aws_s3_bucket.logs.id
  block_public_acls       = true
  block_public_policy     = false
  ignore_public_acls      = true
  restrict_public_buckets = false
}

resource "aws_dynamodb_table" "idempotency" {
  name         = "cc-idempotency"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  attribute {
    name = "pk"
    type = "S"
  }
  ttl {
    attribute_name = "expires_at"
    enabled        = true
  }
}

# Not an idempotency table: not checked by the idempotency rules.
resource "aws_dynamodb_table" "orders" {
  name         = "cc-orders"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "order_id"
  attribute {
    name = "order_id"
    type = "S"
  }
}

resource "aws_cloudwatch_metric_alarm" "dlq_depth" {
  alarm_name          = "cc-jobs-dlq-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = module.jobs.dlq.name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 10
}

resource "aws_cloudwatch_metric_alarm" "age" {
  alarm_name          = "cc-jobs-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = module.jobs.queue.name }
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 345600
}
