# Queues that are other services' dead-letter queues, named through local values (the
# plan records only `local.*`, so which queue each names is not in the plan): without the
# source, every queue without a DLQ of its own may be one of them (unknown, not a
# failure); with the source (--source-dir), each is found.
locals {
  failures = {
    async = aws_sqs_queue.dlq["svcl-async-failures"].arn
    rule  = aws_sqs_queue.dlq["svcl-rule-dlq"].arn
  }
  sns_redrive = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq["svcl-sns-dlq"].arn })
}

resource "aws_sqs_queue" "dlq" {
  for_each                  = toset(["svcl-async-failures", "svcl-rule-dlq", "svcl-sns-dlq"])
  name                      = each.key
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Sid = "DenyInsecureTransport", Effect = "Deny", Principal = "*", Action = "sqs:*", Resource = "*", Condition = { Bool = { "aws:SecureTransport" = "false" } } }]
  })
}

# a subscriber queue without a DLQ of its own: a real SQS002 failure (with the source)
resource "aws_sqs_queue" "subscriber" {
  name                      = "svcl-subscriber"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Sid = "DenyInsecureTransport", Effect = "Deny", Principal = "*", Action = "sqs:*", Resource = "*", Condition = { Bool = { "aws:SecureTransport" = "false" } } }]
  })
}

resource "aws_sns_topic" "events" {
  name = "svcl-events"
}

resource "aws_sns_topic_subscription" "subscriber" {
  topic_arn      = aws_sns_topic.events.arn
  protocol       = "sqs"
  endpoint       = aws_sqs_queue.subscriber.arn
  redrive_policy = local.sns_redrive
}

resource "aws_cloudwatch_event_rule" "orders" {
  name          = "svcl-orders"
  event_pattern = jsonencode({ source = ["svcl.orders"] })
}

resource "aws_cloudwatch_event_target" "orders" {
  rule = aws_cloudwatch_event_rule.orders.name
  arn  = aws_sns_topic.events.arn
  dead_letter_config {
    arn = lookup(local.failures, "rule")
  }
}

resource "aws_iam_role" "fn" {
  name = "svcl-fn"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "lambda.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
}

resource "aws_lambda_function" "worker" {
  function_name = "svcl-worker"
  role          = aws_iam_role.fn.arn
  handler       = "index.handler"
  runtime       = "python3.12"
  filename      = "${path.module}/app.zip"
}

resource "aws_lambda_function_event_invoke_config" "worker" {
  function_name = aws_lambda_function.worker.function_name
  destination_config {
    on_failure {
      destination = local.failures.async
    }
  }
}

# depth alarms on every DLQ and an age alarm on the subscriber queue
resource "aws_cloudwatch_metric_alarm" "depth" {
  for_each            = aws_sqs_queue.dlq
  alarm_name          = "${each.key}-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  threshold           = 0
  comparison_operator = "GreaterThanThreshold"
  dimensions          = { QueueName = each.value.name }
  # the on-call topic (an existing one): the alarm pages someone, as CW001/CW002 require
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}

resource "aws_cloudwatch_metric_alarm" "subscriber_age" {
  alarm_name          = "svcl-subscriber-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 5
  threshold           = 600
  comparison_operator = "GreaterThanThreshold"
  dimensions          = { QueueName = aws_sqs_queue.subscriber.name }
  # the on-call topic (an existing one): the alarm pages someone, as CW001/CW002 require
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}
