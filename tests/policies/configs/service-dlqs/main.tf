# Queues that only serve as another service's dead-letter queue: of an SNS
# subscription, of a Lambda function (dead_letter_config), as a Lambda on-failure
# destination, and of an EventBridge target. Each is a DLQ: it needs no DLQ of its
# own and no age alarm, but it needs a depth alarm (only the SNS one has it).
locals {
  arn_prefix = "arn:aws:sqs:us-east-1:123456789012"
  dlqs       = toset(["svc-sns-dlq", "svc-fn-dlq", "svc-async-failures", "svc-events-dlq"])
}

data "aws_iam_policy_document" "tls_only" {
  for_each = local.dlqs
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
  for_each                  = local.dlqs
  name                      = each.key
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = data.aws_iam_policy_document.tls_only[each.key].json
}

resource "aws_sns_topic" "events" {
  name = "svc-events"
}

resource "aws_sns_topic_subscription" "hook" {
  topic_arn = aws_sns_topic.events.arn
  protocol  = "https"
  endpoint  = "https://hooks.example.com/events"
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq["svc-sns-dlq"].arn
  })
}

resource "aws_cloudwatch_metric_alarm" "sns_dlq_depth" {
  alarm_name          = "svc-sns-dlq-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = aws_sqs_queue.dlq["svc-sns-dlq"].name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  # the on-call topic (an existing one): the alarm pages someone, as CW001/CW002 require
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}

resource "aws_lambda_function" "worker" {
  function_name = "svc-worker"
  role          = "arn:aws:iam::123456789012:role/svc-worker"
  handler       = "app.handler"
  runtime       = "python3.12"
  filename      = "${path.module}/app.zip"
  dead_letter_config {
    target_arn = aws_sqs_queue.dlq["svc-fn-dlq"].arn
  }
}

resource "aws_lambda_function_event_invoke_config" "worker" {
  function_name = aws_lambda_function.worker.function_name
  destination_config {
    on_failure {
      destination = aws_sqs_queue.dlq["svc-async-failures"].arn
    }
  }
}

resource "aws_cloudwatch_event_rule" "nightly" {
  name                = "svc-nightly"
  schedule_expression = "cron(0 3 * * ? *)"
}

resource "aws_cloudwatch_event_target" "nightly" {
  rule = aws_cloudwatch_event_rule.nightly.name
  arn  = aws_lambda_function.worker.arn
  dead_letter_config {
    arn = aws_sqs_queue.dlq["svc-events-dlq"].arn
  }
}
