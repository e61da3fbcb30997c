# Producers into queues, each path broken the way teams break it (issue 33 §1); every
# delivery below loses messages (or lets anyone write) and a PRD rule says which and why.
locals {
  account = "123456789012"
  prefix  = "arn:aws:sqs:us-east-1:123456789012"
}

# the alarm topic on the AWS managed key: CloudWatch cannot publish to it (PRD009)
resource "aws_sns_topic" "oncall" {
  name              = "oncall"
  kms_master_key_id = "alias/aws/sns"
}

# a queue policy: deny plain HTTP, and allow what `allow` lists
data "aws_iam_policy_document" "tls" {
  for_each = toset(["payments", "audit", "audit-undelivered", "reports", "scans", "async-failures"])
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
}

# --- SNS: the queue policy still names the topic this one replaced (PRD001), no subscription
# DLQ (PRD003), the queue on alias/aws/sqs (PRD008) ----------------------------------------
resource "aws_sns_topic" "payments_v1" {
  name = "payments-events-v1"
}

resource "aws_sns_topic" "payments" {
  name = "payments-events"
}

module "payments" {
  source          = "./pair"
  name            = "payments"
  kms             = true
  kms_key_arn     = "alias/aws/sqs"
  alarm_topic_arn = aws_sns_topic.oncall.arn
}

data "aws_iam_policy_document" "payments" {
  source_policy_documents = [data.aws_iam_policy_document.tls["payments"].json]
  statement {
    sid       = "AllowPaymentsTopic"
    actions   = ["sqs:SendMessage"]
    resources = ["${local.prefix}:payments"]
    principals {
      type        = "Service"
      identifiers = ["sns.amazonaws.com"]
    }
    condition {
      test     = "ArnEquals"
      variable = "aws:SourceArn"
      values   = [aws_sns_topic.payments_v1.arn]
    }
  }
}

resource "aws_sqs_queue_policy" "payments" {
  queue_url = module.payments.url
  policy    = data.aws_iam_policy_document.payments.json
}

resource "aws_sns_topic_subscription" "payments" {
  topic_arn = aws_sns_topic.payments.arn
  protocol  = "sqs"
  endpoint  = module.payments.arn
}

# --- SNS: any topic may send (no aws:SourceArn: PRD001), and the subscription DLQ does not
# admit the topic (PRD003) ----------------------------------------------------------------
resource "aws_sns_topic" "audit" {
  name = "audit-events"
}

module "audit" {
  source          = "./pair"
  name            = "audit"
  alarm_topic_arn = aws_sns_topic.oncall.arn
}

data "aws_iam_policy_document" "audit" {
  source_policy_documents = [data.aws_iam_policy_document.tls["audit"].json]
  statement {
    sid       = "AllowAnyTopic"
    actions   = ["sqs:SendMessage"]
    resources = ["${local.prefix}:audit"]
    principals {
      type        = "Service"
      identifiers = ["sns.amazonaws.com"]
    }
  }
}

resource "aws_sqs_queue_policy" "audit" {
  queue_url = module.audit.url
  policy    = data.aws_iam_policy_document.audit.json
}

resource "aws_sqs_queue" "audit_undelivered" {
  name                      = "audit-undelivered"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = data.aws_iam_policy_document.tls["audit-undelivered"].json
}

resource "aws_cloudwatch_metric_alarm" "audit_undelivered" {
  alarm_name          = "audit-undelivered-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = "audit-undelivered" }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  alarm_actions       = [aws_sns_topic.oncall.arn]
}

resource "aws_sns_topic_subscription" "audit" {
  topic_arn      = aws_sns_topic.audit.arn
  protocol       = "sqs"
  endpoint       = module.audit.arn
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.audit_undelivered.arn })
}

# --- SNS: a standard topic subscribing a FIFO queue (PRD002) ------------------------------
resource "aws_sns_topic" "ledger" {
  name = "ledger-events"
}

module "ledger" {
  source          = "./pair"
  name            = "ledger"
  fifo            = true
  alarm_topic_arn = aws_sns_topic.oncall.arn
}

data "aws_iam_policy_document" "ledger" {
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["sqs:*"]
    resources = ["${local.prefix}:ledger.fifo"]
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
    sid       = "AllowLedgerTopic"
    actions   = ["sqs:SendMessage"]
    resources = ["${local.prefix}:ledger.fifo"]
    principals {
      type        = "Service"
      identifiers = ["sns.amazonaws.com"]
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
  policy    = data.aws_iam_policy_document.ledger.json
}

resource "aws_sns_topic_subscription" "ledger" {
  topic_arn      = aws_sns_topic.ledger.arn
  protocol       = "sqs"
  endpoint       = module.ledger.arn
  redrive_policy = jsonencode({ deadLetterTargetArn = module.ledger.dlq_arn })
}

# --- EventBridge: the queue policy has no statement for EventBridge (PRD004), no DLQ
# (PRD006), a customer managed key with the default key policy (PRD008); a FIFO target with
# no message group (PRD005) and no retry policy (PRD006, warning) -------------------------
resource "aws_kms_key" "reports" {
  description         = "reports queue (default key policy)"
  enable_key_rotation = true
}

resource "aws_cloudwatch_event_rule" "hourly" {
  name                = "hourly-reports"
  schedule_expression = "rate(1 hour)"
}

module "reports" {
  source          = "./pair"
  name            = "reports"
  kms             = true
  kms_key_arn     = aws_kms_key.reports.arn
  alarm_topic_arn = aws_sns_topic.oncall.arn
}

resource "aws_sqs_queue_policy" "reports" {
  queue_url = module.reports.url
  policy    = data.aws_iam_policy_document.tls["reports"].json
}

resource "aws_cloudwatch_event_target" "reports" {
  rule = aws_cloudwatch_event_rule.hourly.name
  arn  = module.reports.arn
}

module "ordered" {
  source          = "./pair"
  name            = "reports-ordered"
  fifo            = true
  alarm_topic_arn = aws_sns_topic.oncall.arn
}

data "aws_iam_policy_document" "ordered" {
  for_each = toset(["reports-ordered.fifo", "reports-ordered-dlq.fifo"])
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
  statement {
    sid       = "AllowHourlyRule"
    actions   = ["sqs:SendMessage"]
    resources = ["${local.prefix}:${each.key}"]
    principals {
      type        = "Service"
      identifiers = ["events.amazonaws.com"]
    }
    condition {
      test     = "ArnEquals"
      variable = "aws:SourceArn"
      values   = [aws_cloudwatch_event_rule.hourly.arn]
    }
  }
}

resource "aws_sqs_queue_policy" "ordered" {
  queue_url = module.ordered.url
  policy    = data.aws_iam_policy_document.ordered["reports-ordered.fifo"].json
}

resource "aws_sqs_queue" "events_undelivered" {
  name                      = "reports-undelivered"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = data.aws_iam_policy_document.undelivered.json
}

data "aws_iam_policy_document" "undelivered" {
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["sqs:*"]
    resources = ["${local.prefix}:reports-undelivered"]
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
    sid       = "AllowHourlyRule"
    actions   = ["sqs:SendMessage"]
    resources = ["${local.prefix}:reports-undelivered"]
    principals {
      type        = "Service"
      identifiers = ["events.amazonaws.com"]
    }
    condition {
      test     = "ArnEquals"
      variable = "aws:SourceArn"
      values   = [aws_cloudwatch_event_rule.hourly.arn]
    }
  }
}

resource "aws_cloudwatch_metric_alarm" "events_undelivered" {
  alarm_name          = "reports-undelivered-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = "reports-undelivered" }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  alarm_actions       = [aws_sns_topic.oncall.arn]
}

resource "aws_cloudwatch_event_target" "ordered" {
  rule = aws_cloudwatch_event_rule.hourly.name
  arn  = module.ordered.arn
  dead_letter_config {
    arn = aws_sqs_queue.events_undelivered.arn
  }
}

# --- S3: any bucket may send (an aws:SourceArn wildcard: PRD007), the queue on a key outside
# the plan (PRD008 unknown) ----------------------------------------------------------------
resource "aws_s3_bucket" "scans" {
  bucket = "scans-landing"
}

resource "aws_s3_bucket_server_side_encryption_configuration" "scans" {
  bucket = aws_s3_bucket.scans.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_public_access_block" "scans" {
  bucket                  = aws_s3_bucket.scans.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_policy" "scans" {
  bucket = aws_s3_bucket.scans.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "DenyInsecureTransport"
      Effect    = "Deny"
      Principal = "*"
      Action    = "s3:*"
      Resource  = ["arn:aws:s3:::scans-landing", "arn:aws:s3:::scans-landing/*"]
      Condition = { Bool = { "aws:SecureTransport" = "false" } }
    }]
  })
}

module "scans" {
  source          = "./pair"
  name            = "scans"
  kms             = true
  kms_key_arn     = "arn:aws:kms:us-east-1:123456789012:key/0d5e1c2a-3b4c-4d5e-8f90-1a2b3c4d5e6f"
  alarm_topic_arn = aws_sns_topic.oncall.arn
}

data "aws_iam_policy_document" "scans" {
  source_policy_documents = [data.aws_iam_policy_document.tls["scans"].json]
  statement {
    sid       = "AllowAnyBucket"
    actions   = ["sqs:SendMessage"]
    resources = ["${local.prefix}:scans"]
    principals {
      type        = "Service"
      identifiers = ["s3.amazonaws.com"]
    }
    condition {
      test     = "ArnLike"
      variable = "aws:SourceArn"
      values   = ["arn:aws:s3:::*"]
    }
  }
}

resource "aws_sqs_queue_policy" "scans" {
  queue_url = module.scans.url
  policy    = data.aws_iam_policy_document.scans.json
}

resource "aws_s3_bucket_notification" "scans" {
  bucket = aws_s3_bucket.scans.id
  queue {
    queue_arn = module.scans.arn
    events    = ["s3:ObjectCreated:*"]
  }
}

# --- senders acting through a role: the function's role may only write logs, the
# schedule's role may send to another queue (PRD010) ---------------------------------------
resource "aws_sqs_queue" "async_failures" {
  name                      = "async-failures"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = data.aws_iam_policy_document.tls["async-failures"].json
}

resource "aws_cloudwatch_metric_alarm" "async_failures" {
  alarm_name          = "async-failures-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = "async-failures" }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  alarm_actions       = [aws_sns_topic.oncall.arn]
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
      Action   = ["logs:CreateLogStream", "logs:PutLogEvents"]
      Resource = "arn:aws:logs:us-east-1:${local.account}:log-group:/aws/lambda/async-worker:*"
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
      destination = aws_sqs_queue.async_failures.arn
    }
  }
}

resource "aws_iam_role" "scheduler" {
  name = "reports-scheduler"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "scheduler.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
  inline_policy {
    name = "send"
    policy = jsonencode({
      Version   = "2012-10-17"
      Statement = [{ Effect = "Allow", Action = "sqs:SendMessage", Resource = "${local.prefix}:payments" }]
    })
  }
}

resource "aws_scheduler_schedule" "reports" {
  name                = "reports-every-morning"
  schedule_expression = "cron(0 6 * * ? *)"
  flexible_time_window {
    mode = "OFF"
  }
  target {
    arn      = module.reports.arn
    role_arn = aws_iam_role.scheduler.arn
  }
}

# a FIFO queue target without a message group (PRD005) whose DLQ the role may not send to
# (PRD006), and the role may not send to the queue either (PRD010)
resource "aws_scheduler_schedule" "ordered" {
  name                = "reports-ordered-every-morning"
  schedule_expression = "cron(0 6 * * ? *)"
  flexible_time_window {
    mode = "OFF"
  }
  target {
    arn      = module.ordered.arn
    role_arn = aws_iam_role.scheduler.arn
    dead_letter_config {
      arn = aws_sqs_queue.events_undelivered.arn
    }
    retry_policy {
      maximum_event_age_in_seconds = 3600
      maximum_retry_attempts       = 10
    }
  }
}

# --- an HTTP API sending to a queue with a role that may only receive from it (PRD010) -----
resource "aws_iam_role" "gateway" {
  name = "ingest-gateway"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "apigateway.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
  inline_policy {
    name = "read"
    policy = jsonencode({
      Version   = "2012-10-17"
      Statement = [{ Effect = "Allow", Action = ["sqs:ReceiveMessage"], Resource = "${local.prefix}:scans" }]
    })
  }
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
    QueueUrl    = module.scans.url
    MessageBody = "$request.body"
  }
}
