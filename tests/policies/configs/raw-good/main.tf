# Raw resources (no module) that satisfy every rule of the catalog.
locals {
  account    = "123456789012"
  arn_prefix = "arn:aws:sqs:us-east-1:${local.account}"
  src_name   = "good-orders"
  dlq_name   = "good-orders-dlq"
}

data "aws_iam_policy_document" "tls_only" {
  for_each = toset([local.src_name, local.dlq_name, "good-events.fifo", "good-events-dlq.fifo"])
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["sqs:*"]
    resources = ["${local.arn_prefix}:${each.key}"]
    principals {
      type        = "*"
      identifiers = ["*"]
    }
    condition {
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["false"]
    }
  }
}

resource "aws_sqs_queue" "dlq" {
  name                      = local.dlq_name
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = data.aws_iam_policy_document.tls_only[local.dlq_name].json
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = ["${local.arn_prefix}:${local.src_name}"]
  })
}

# The redrive policy names the DLQ by its built ARN: known at plan time.
resource "aws_sqs_queue" "orders" {
  name                       = local.src_name
  visibility_timeout_seconds = 60
  message_retention_seconds  = 345600
  receive_wait_time_seconds  = 20
  sqs_managed_sse_enabled    = true
  policy                     = data.aws_iam_policy_document.tls_only[local.src_name].json
  redrive_policy = jsonencode({
    deadLetterTargetArn = "${local.arn_prefix}:${local.dlq_name}"
    maxReceiveCount     = 4
  })
  depends_on = [aws_sqs_queue.dlq]
}

# A FIFO pair whose redrive policy embeds the DLQ's real ARN (unknown at plan).
resource "aws_kms_key" "events" {
  description         = "events queues"
  enable_key_rotation = true
}

resource "aws_sqs_queue" "events_dlq" {
  name                      = "good-events-dlq.fifo"
  fifo_queue                = true
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  kms_master_key_id         = aws_kms_key.events.arn
  policy                    = data.aws_iam_policy_document.tls_only["good-events-dlq.fifo"].json
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = ["${local.arn_prefix}:good-events.fifo"]
  })
}

resource "aws_sqs_queue" "events" {
  name                       = "good-events.fifo"
  fifo_queue                 = true
  visibility_timeout_seconds = 180
  receive_wait_time_seconds  = 10
  kms_master_key_id          = aws_kms_key.events.arn
  policy                     = data.aws_iam_policy_document.tls_only["good-events.fifo"].json
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.events_dlq.arn
    maxReceiveCount     = 3
  })
}

resource "aws_lambda_function" "worker" {
  function_name = "good-worker"
  role          = "arn:aws:iam::123456789012:role/good-worker"
  handler       = "app.handler"
  runtime       = "python3.12"
  filename      = "${path.module}/worker.zip"
  timeout       = 10
  environment {
    variables = {
      PAYLOAD_BUCKET = aws_s3_bucket.payloads.bucket
      IDEMPOTENCY    = aws_dynamodb_table.idempotency.name
    }
  }
}

# visibility 60 s >= 6 x 10 s + 0 s
resource "aws_lambda_event_source_mapping" "orders" {
  event_source_arn        = aws_sqs_queue.orders.arn
  function_name           = aws_lambda_function.worker.arn
  batch_size              = 50
  function_response_types = ["ReportBatchItemFailures"]
  scaling_config {
    maximum_concurrency = 10
  }
}

# FIFO: batch <= 10, no window; visibility 180 >= 6 x 10 + 0
resource "aws_lambda_event_source_mapping" "events" {
  event_source_arn        = aws_sqs_queue.events.arn
  function_name           = aws_lambda_function.worker.function_name
  batch_size              = 10
  function_response_types = ["ReportBatchItemFailures"]
  scaling_config {
    maximum_concurrency = 2
  }
}

resource "aws_cloudwatch_metric_alarm" "dlq_depth" {
  for_each            = { orders = aws_sqs_queue.dlq.name, events = aws_sqs_queue.events_dlq.name }
  alarm_name          = "${each.value}-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = each.value }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  # the on-call topic (an existing one): the alarm pages someone, as CW001/CW002 require
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}

resource "aws_cloudwatch_metric_alarm" "age" {
  for_each            = { orders = aws_sqs_queue.orders.name, events = aws_sqs_queue.events.name }
  alarm_name          = "${each.value}-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = each.value }
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 3600
  # the on-call topic (an existing one): the alarm pages someone, as CW001/CW002 require
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}

resource "aws_s3_bucket" "payloads" {
  bucket = "good-claim-check-payloads"
}

resource "aws_s3_bucket_server_side_encryption_configuration" "payloads" {
  bucket = aws_s3_bucket.payloads.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "aws:kms"
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

resource "aws_s3_bucket_lifecycle_configuration" "payloads" {
  bucket = aws_s3_bucket.payloads.id
  rule {
    id     = "expire-payloads"
    status = "Enabled"
    filter {
      prefix = "payloads/"
    }
    expiration {
      days = 18 # >= 4 + 14 days: a FIFO DLQ resets the enqueue time, so events' messages live that long
    }
  }
}

data "aws_iam_policy_document" "bucket_tls" {
  statement {
    sid     = "DenyInsecureTransport"
    effect  = "Deny"
    actions = ["s3:*"]
    # built from the bucket name, so known at plan time (the bucket's arn attribute is not)
    resources = ["arn:aws:s3:::${aws_s3_bucket.payloads.bucket}", "arn:aws:s3:::${aws_s3_bucket.payloads.bucket}/*"]
    principals {
      type        = "*"
      identifiers = ["*"]
    }
    condition {
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["false"]
    }
  }
}

resource "aws_s3_bucket_policy" "payloads" {
  bucket = aws_s3_bucket.payloads.id
  policy = data.aws_iam_policy_document.bucket_tls.json
}

resource "aws_dynamodb_table" "idempotency" {
  name         = "good-idempotency"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
  ttl {
    attribute_name = "expiration"
    enabled        = true
  }
  point_in_time_recovery {
    enabled = true
  }
}

data "aws_iam_policy_document" "consumer" {
  statement {
    sid = "Consume"
    actions = [
      "sqs:ReceiveMessage",
      "sqs:DeleteMessage",
      "sqs:ChangeMessageVisibility",
      "sqs:GetQueueAttributes",
    ]
    resources = [aws_sqs_queue.orders.arn, aws_sqs_queue.events.arn]
  }
  statement {
    sid       = "Payloads"
    actions   = ["s3:GetObject"]
    resources = ["${aws_s3_bucket.payloads.arn}/payloads/*"]
  }
  statement {
    sid       = "Idempotency"
    actions   = ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"]
    resources = [aws_dynamodb_table.idempotency.arn]
  }
  statement {
    sid       = "Decrypt"
    actions   = ["kms:Decrypt"]
    resources = [aws_kms_key.events.arn]
  }
}

resource "aws_iam_policy" "consumer" {
  name   = "good-consumer"
  policy = data.aws_iam_policy_document.consumer.json
}
