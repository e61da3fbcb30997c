resource "aws_sqs_queue" "orders_dlq" {
  name                      = "${var.name_prefix}-orders-dlq"
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "orders" {
  name                      = "${var.name_prefix}-orders"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn
    maxReceiveCount     = 4
  })
}

resource "aws_sqs_queue" "jobs" {
  name                    = "${var.name_prefix}-jobs"
  sqs_managed_sse_enabled = true
}

resource "aws_sqs_queue" "audit" {
  name                    = "${var.name_prefix}-audit"
  sqs_managed_sse_enabled = true
}

resource "aws_sns_topic" "orders" {
  name = "${var.name_prefix}-orders"
}

resource "aws_sns_topic" "audit" {
  name = "${var.name_prefix}-audit"
}

resource "aws_cloudwatch_event_rule" "nightly" {
  name                = "${var.name_prefix}-nightly"
  schedule_expression = "rate(1 day)"
}

resource "aws_lambda_event_source_mapping" "orders" {
  event_source_arn        = aws_sqs_queue.orders.arn
  function_name           = "${var.name_prefix}-consumer"
  batch_size              = 10
  function_response_types = ["ReportBatchItemFailures"]
  scaling_config {
    maximum_concurrency = 5
  }
}

resource "aws_sqs_queue_policy" "orders" {
  queue_url = aws_sqs_queue.orders.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "AllowOrdersTopic"
      Effect    = "Allow"
      Principal = { Service = "sns.amazonaws.com" }
      Action    = "sqs:SendMessage"
      Resource  = aws_sqs_queue.orders.arn
      Condition = { ArnEquals = { "aws:SourceArn" = aws_sns_topic.orders.arn } }
    }]
  })
}

resource "aws_sqs_queue_policy" "jobs" {
  queue_url = aws_sqs_queue.jobs.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "AllowNightlyRule"
      Effect    = "Allow"
      Principal = { Service = "events.amazonaws.com" }
      Action    = "sqs:SendMessage"
      Resource  = aws_sqs_queue.jobs.arn
      Condition = { ArnEquals = { "aws:SourceArn" = aws_cloudwatch_event_rule.nightly.arn } }
    }]
  })
}

# stays through the change; its queue's policy stops admitting the topic (after/)
resource "aws_sns_topic_subscription" "audit" {
  topic_arn = aws_sns_topic.audit.arn
  protocol  = "sqs"
  endpoint  = aws_sqs_queue.audit.arn
}

resource "aws_sqs_queue" "billing" {
  name                    = "${var.name_prefix}-billing"
  sqs_managed_sse_enabled = true
}

resource "aws_sns_topic" "billing" {
  name = "${var.name_prefix}-billing"
}

# stays; its queue's policy gains a TLS guard and still admits the topic (after/)
resource "aws_sns_topic_subscription" "billing" {
  topic_arn = aws_sns_topic.billing.arn
  protocol  = "sqs"
  endpoint  = aws_sqs_queue.billing.arn
}
