# Producers into queues, each path as it must be (issue 33 §1): the queue policy admits the
# producer by its ARN, FIFO to FIFO, the subscription and the EventBridge target have a DLQ
# that admits them too (and a retry policy), the queue's key lets the producing service use
# it, and the alarm topic's key lets CloudWatch publish.
locals {
  account = "123456789012"
  prefix  = "arn:aws:sqs:us-east-1:123456789012"
}

data "aws_iam_policy_document" "queue_key" {
  statement {
    sid       = "EnableRootPermissions"
    actions   = ["kms:*"]
    resources = ["*"]
    principals {
      type        = "AWS"
      identifiers = ["arn:aws:iam::${local.account}:root"]
    }
  }
  statement {
    sid       = "AllowProducers"
    actions   = ["kms:GenerateDataKey*", "kms:Decrypt"]
    resources = ["*"]
    principals {
      type        = "Service"
      identifiers = ["sns.amazonaws.com", "events.amazonaws.com", "s3.amazonaws.com"]
    }
  }
}

resource "aws_kms_key" "queues" {
  description         = "queues fed by SNS, EventBridge and S3"
  enable_key_rotation = true
  policy              = data.aws_iam_policy_document.queue_key.json
}

resource "aws_kms_key" "alarms" {
  description         = "alarm topic"
  enable_key_rotation = true
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        Sid       = "EnableRootPermissions"
        Effect    = "Allow"
        Principal = { AWS = "arn:aws:iam::${local.account}:root" }
        Action    = "kms:*"
        Resource  = "*"
      },
      {
        Sid       = "AllowCloudWatch"
        Effect    = "Allow"
        Principal = { Service = "cloudwatch.amazonaws.com" }
        Action    = ["kms:GenerateDataKey*", "kms:Decrypt"]
        Resource  = "*"
      },
    ]
  })
}

resource "aws_sns_topic" "oncall" {
  name              = "oncall"
  kms_master_key_id = aws_kms_key.alarms.arn
}

# the DLQs other services send what they could not deliver to: they deny plain HTTP and admit
# only their producer
resource "aws_sqs_queue" "undelivered" {
  for_each                  = toset(["orders-fanout-undelivered", "jobs-undelivered", "async-failures"])
  name                      = each.key
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "ledger_undelivered" {
  name                      = "ledger-undelivered.fifo"
  fifo_queue                = true
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_cloudwatch_metric_alarm" "undelivered" {
  for_each            = toset(["orders-fanout-undelivered", "jobs-undelivered", "ledger-undelivered.fifo", "async-failures"])
  alarm_name          = "${each.key}-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = each.key }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  alarm_actions       = [aws_sns_topic.oncall.arn]
}

# --- SNS fan-out, standard --------------------------------------------------------------
resource "aws_sns_topic" "orders" {
  name = "orders-events"
}

module "fanout" {
  source          = "./pair"
  name            = "orders-fanout"
  kms             = true
  kms_key_arn     = aws_kms_key.queues.arn
  alarm_topic_arn = aws_sns_topic.oncall.arn
}

data "aws_iam_policy_document" "fanout" {
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["sqs:*"]
    resources = ["${local.prefix}:orders-fanout"]
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
  statement {
    sid       = "AllowOrdersTopic"
    actions   = ["sqs:SendMessage"]
    resources = [module.fanout.arn]
    principals {
      type        = "Service"
      identifiers = ["sns.amazonaws.com"]
    }
    condition {
      test     = "ArnEquals"
      variable = "aws:SourceArn"
      values   = [aws_sns_topic.orders.arn]
    }
  }
}

resource "aws_sqs_queue_policy" "fanout" {
  queue_url = module.fanout.url
  policy    = data.aws_iam_policy_document.fanout.json
}

data "aws_iam_policy_document" "fanout_undelivered" {
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["sqs:*"]
    resources = ["${local.prefix}:orders-fanout-undelivered"]
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
  statement {
    sid       = "AllowOrdersTopic"
    actions   = ["sqs:SendMessage"]
    resources = ["${local.prefix}:orders-fanout-undelivered"]
    principals {
      type        = "Service"
      identifiers = ["sns.amazonaws.com"]
    }
    condition {
      test     = "ArnEquals"
      variable = "aws:SourceArn"
      values   = [aws_sns_topic.orders.arn]
    }
  }
}

resource "aws_sqs_queue_policy" "fanout_undelivered" {
  queue_url = aws_sqs_queue.undelivered["orders-fanout-undelivered"].url
  policy    = data.aws_iam_policy_document.fanout_undelivered.json
}

resource "aws_sns_topic_subscription" "fanout" {
  topic_arn            = aws_sns_topic.orders.arn
  protocol             = "sqs"
  endpoint             = module.fanout.arn
  raw_message_delivery = true
  redrive_policy       = jsonencode({ deadLetterTargetArn = aws_sqs_queue.undelivered["orders-fanout-undelivered"].arn })
}

# --- SNS, FIFO topic to a FIFO queue ------------------------------------------------------
resource "aws_sns_topic" "ledger" {
  name                        = "ledger.fifo"
  fifo_topic                  = true
  content_based_deduplication = true
}

module "ledger" {
  source          = "./pair"
  name            = "ledger"
  fifo            = true
  alarm_topic_arn = aws_sns_topic.oncall.arn
}

data "aws_iam_policy_document" "ledger" {
  for_each = toset(["ledger.fifo", "ledger-undelivered.fifo"])
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["sqs:*"]
    resources = ["${local.prefix}:${each.key}"]
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
  # the topic's account as the principal (with the topic's ARN as aws:SourceArn)
  statement {
    sid       = "AllowLedgerTopic"
    actions   = ["sqs:SendMessage"]
    resources = ["${local.prefix}:${each.key}"]
    principals {
      type        = "AWS"
      identifiers = ["arn:aws:iam::${local.account}:root"]
    }
    condition {
      test     = "ArnEquals"
      variable = "aws:SourceArn"
      values   = [aws_sns_topic.ledger.arn]
    }
  }
}

resource "aws_sqs_queue_policy" "ledger" {
  queue_url = module.ledger.url
  policy    = data.aws_iam_policy_document.ledger["ledger.fifo"].json
}

resource "aws_sqs_queue_policy" "ledger_undelivered" {
  queue_url = aws_sqs_queue.ledger_undelivered.url
  policy    = data.aws_iam_policy_document.ledger["ledger-undelivered.fifo"].json
}

resource "aws_sns_topic_subscription" "ledger" {
  topic_arn            = aws_sns_topic.ledger.arn
  protocol             = "sqs"
  endpoint             = module.ledger.arn
  raw_message_delivery = true
  redrive_policy       = jsonencode({ deadLetterTargetArn = aws_sqs_queue.ledger_undelivered.arn })
}

# --- EventBridge: a standard and a FIFO queue target --------------------------------------
resource "aws_cloudwatch_event_rule" "nightly" {
  name                = "nightly-jobs"
  schedule_expression = "rate(1 day)"
}

module "jobs" {
  source          = "./pair"
  name            = "jobs"
  kms             = true
  kms_key_arn     = aws_kms_key.queues.arn
  alarm_topic_arn = aws_sns_topic.oncall.arn
}

module "ordered" {
  source          = "./pair"
  name            = "jobs-ordered"
  fifo            = true
  alarm_topic_arn = aws_sns_topic.oncall.arn
}

data "aws_iam_policy_document" "from_rule" {
  for_each = { jobs = "jobs", ordered = "jobs-ordered.fifo", undelivered = "jobs-undelivered" }
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["sqs:*"]
    resources = ["${local.prefix}:${each.value}"]
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
  statement {
    sid       = "AllowNightlyRule"
    actions   = ["sqs:SendMessage"]
    resources = ["${local.prefix}:${each.value}"]
    principals {
      type        = "Service"
      identifiers = ["events.amazonaws.com"]
    }
    condition {
      test     = "ArnEquals"
      variable = "aws:SourceArn"
      values   = [aws_cloudwatch_event_rule.nightly.arn]
    }
  }
}

resource "aws_sqs_queue_policy" "jobs" {
  queue_url = module.jobs.url
  policy    = data.aws_iam_policy_document.from_rule["jobs"].json
}

resource "aws_sqs_queue_policy" "ordered" {
  queue_url = module.ordered.url
  policy    = data.aws_iam_policy_document.from_rule["ordered"].json
}

resource "aws_sqs_queue_policy" "jobs_undelivered" {
  queue_url = aws_sqs_queue.undelivered["jobs-undelivered"].url
  policy    = data.aws_iam_policy_document.from_rule["undelivered"].json
}

resource "aws_cloudwatch_event_target" "jobs" {
  rule = aws_cloudwatch_event_rule.nightly.name
  arn  = module.jobs.arn
  dead_letter_config {
    arn = aws_sqs_queue.undelivered["jobs-undelivered"].arn
  }
  retry_policy {
    maximum_event_age_in_seconds = 3600
    maximum_retry_attempts       = 10
  }
}

resource "aws_cloudwatch_event_target" "ordered" {
  rule = aws_cloudwatch_event_rule.nightly.name
  arn  = module.ordered.arn
  sqs_target {
    message_group_id = "nightly"
  }
  dead_letter_config {
    arn = aws_sqs_queue.undelivered["jobs-undelivered"].arn
  }
  retry_policy {
    maximum_event_age_in_seconds = 3600
    maximum_retry_attempts       = 10
  }
}

# --- S3 notifications ---------------------------------------------------------------------
resource "aws_s3_bucket" "uploads" {
  bucket = "uploads-landing"
}

resource "aws_s3_bucket_server_side_encryption_configuration" "uploads" {
  bucket = aws_s3_bucket.uploads.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_public_access_block" "uploads" {
  bucket                  = aws_s3_bucket.uploads.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_policy" "uploads" {
  bucket = aws_s3_bucket.uploads.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "DenyInsecureTransport"
      Effect    = "Deny"
      Principal = "*"
      Action    = "s3:*"
      Resource  = ["arn:aws:s3:::uploads-landing", "arn:aws:s3:::uploads-landing/*"]
      Condition = { Bool = { "aws:SecureTransport" = "false" } }
    }]
  })
}

module "uploads" {
  source          = "./pair"
  name            = "uploads"
  kms             = true
  kms_key_arn     = aws_kms_key.queues.arn
  alarm_topic_arn = aws_sns_topic.oncall.arn
}

resource "aws_sqs_queue_policy" "uploads" {
  queue_url = module.uploads.url
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        Sid       = "DenyInsecureTransport"
        Effect    = "Deny"
        Principal = "*"
        Action    = "sqs:*"
        Resource  = "${local.prefix}:uploads"
        Condition = { Bool = { "aws:SecureTransport" = "false" } }
      },
      {
        Sid       = "AllowUploadsBucket"
        Effect    = "Allow"
        Principal = { Service = "s3.amazonaws.com" }
        Action    = "sqs:SendMessage"
        Resource  = "${local.prefix}:uploads"
        Condition = {
          ArnEquals    = { "aws:SourceArn" = "arn:aws:s3:::uploads-landing" }
          StringEquals = { "aws:SourceAccount" = local.account }
        }
      },
    ]
  })
}

resource "aws_s3_bucket_notification" "uploads" {
  bucket = aws_s3_bucket.uploads.id
  queue {
    queue_arn = module.uploads.arn
    events    = ["s3:ObjectCreated:*"]
  }
  depends_on = [aws_sqs_queue_policy.uploads]
}

# --- senders acting through a role: a Lambda function's on-failure destination and an
# EventBridge Scheduler schedule, each role allowed sqs:SendMessage on its queue ----------
data "aws_iam_policy_document" "async_failures" {
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["sqs:*"]
    resources = ["${local.prefix}:async-failures"]
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

resource "aws_sqs_queue_policy" "async_failures" {
  queue_url = aws_sqs_queue.undelivered["async-failures"].url
  policy    = data.aws_iam_policy_document.async_failures.json
}

resource "aws_iam_role" "worker" {
  name = "async-worker"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "lambda.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
}

resource "aws_iam_role_policy" "worker" {
  role = aws_iam_role.worker.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect   = "Allow"
      Action   = "sqs:SendMessage"
      Resource = "${local.prefix}:async-failures"
    }]
  })
}

resource "aws_lambda_function" "worker" {
  function_name = "async-worker"
  role          = aws_iam_role.worker.arn
  handler       = "index.handler"
  runtime       = "python3.12"
  filename      = "fn.zip"
  timeout       = 30
}

resource "aws_lambda_function_event_invoke_config" "worker" {
  function_name = aws_lambda_function.worker.function_name
  destination_config {
    on_failure {
      destination = aws_sqs_queue.undelivered["async-failures"].arn
    }
  }
}

resource "aws_iam_role" "scheduler" {
  name = "jobs-scheduler"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "scheduler.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
  inline_policy {
    name = "send"
    policy = jsonencode({
      Version = "2012-10-17"
      Statement = [{
        Effect   = "Allow"
        Action   = "sqs:SendMessage"
        Resource = ["${local.prefix}:jobs", "${local.prefix}:jobs-undelivered"]
      }]
    })
  }
}

resource "aws_scheduler_schedule" "jobs" {
  name                = "jobs-every-morning"
  schedule_expression = "cron(0 6 * * ? *)"
  flexible_time_window {
    mode = "OFF"
  }
  target {
    arn      = module.jobs.arn
    role_arn = aws_iam_role.scheduler.arn
    dead_letter_config {
      arn = aws_sqs_queue.undelivered["jobs-undelivered"].arn
    }
    retry_policy {
      maximum_event_age_in_seconds = 3600
      maximum_retry_attempts       = 10
    }
  }
}

# --- API Gateway: a REST API and an HTTP API sending to a queue, and a pipe between queues,
# each with a role allowed sqs:SendMessage on its queue -------------------------------------
resource "aws_iam_role" "gateway" {
  name = "ingest-gateway"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = ["apigateway.amazonaws.com", "pipes.amazonaws.com"] }
      Action    = "sts:AssumeRole"
    }]
  })
}

resource "aws_iam_role_policy" "gateway" {
  role   = aws_iam_role.gateway.name
  policy = data.aws_iam_policy_document.gateway.json
}

data "aws_iam_policy_document" "gateway" {
  statement {
    actions   = ["sqs:SendMessage"]
    resources = [module.uploads.arn]
  }
  statement {
    actions   = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"]
    resources = [module.fanout.arn]
  }
}

resource "aws_api_gateway_rest_api" "ingest" {
  name = "ingest"
}

resource "aws_api_gateway_resource" "ingest" {
  rest_api_id = aws_api_gateway_rest_api.ingest.id
  parent_id   = aws_api_gateway_rest_api.ingest.root_resource_id
  path_part   = "uploads"
}

resource "aws_api_gateway_method" "ingest" {
  rest_api_id   = aws_api_gateway_rest_api.ingest.id
  resource_id   = aws_api_gateway_resource.ingest.id
  http_method   = "POST"
  authorization = "AWS_IAM"
}

resource "aws_api_gateway_integration" "ingest" {
  rest_api_id             = aws_api_gateway_rest_api.ingest.id
  resource_id             = aws_api_gateway_resource.ingest.id
  http_method             = aws_api_gateway_method.ingest.http_method
  type                    = "AWS"
  integration_http_method = "POST"
  uri                     = "arn:aws:apigateway:us-east-1:sqs:path/${local.account}/${module.uploads.name}"
  credentials             = aws_iam_role.gateway.arn
  request_parameters      = { "integration.request.header.Content-Type" = "'application/x-www-form-urlencoded'" }
  request_templates       = { "application/json" = "Action=SendMessage&MessageBody=$input.body" }
}

resource "aws_apigatewayv2_api" "ingest" {
  name          = "ingest-http"
  protocol_type = "HTTP"
}

resource "aws_apigatewayv2_integration" "ingest" {
  api_id              = aws_apigatewayv2_api.ingest.id
  integration_type    = "AWS_PROXY"
  integration_subtype = "SQS-SendMessage"
  credentials_arn     = aws_iam_role.gateway.arn
  request_parameters = {
    QueueUrl    = module.uploads.url
    MessageBody = "$request.body"
  }
}

resource "aws_pipes_pipe" "fanout_to_uploads" {
  name     = "fanout-to-uploads"
  role_arn = aws_iam_role.gateway.arn
  source   = module.fanout.arn
  target   = module.uploads.arn
}
