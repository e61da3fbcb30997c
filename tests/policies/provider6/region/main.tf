# AWS provider 6.x: a resource may name its own Region with `region` (the provider's Region
# otherwise). Written as a 6.x stack writes it; tooling/provider6_plans.py derives its 6.x
# plan from a real 5.100.0 plan of its 5.x twin (provider aliases in place of `region`).
# The provider's Region is us-east-1 (tests/policies/configs/_provider/providers.tf).
locals {
  arn_prefix = "arn:aws:sqs:us-east-1:123456789012"
  tls_only = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Sid = "DenyInsecureTransport", Effect = "Deny", Principal = "*", Action = "sqs:*", Resource = "*", Condition = { Bool = { "aws:SecureTransport" = "false" } } }]
  })
}

# a DLQ placed in eu-west-1 by its own region argument, for a queue of the provider's Region:
# SQS refuses the redrive policy (SQS002)
resource "aws_sqs_queue" "cross_dlq" {
  region                    = "eu-west-1"
  name                      = "p6-cross-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
}

resource "aws_sqs_queue" "cross" {
  name                      = "p6-cross"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
  redrive_policy            = jsonencode({ deadLetterTargetArn = aws_sqs_queue.cross_dlq.arn, maxReceiveCount = 4 })
}

# a pair both placed in eu-west-1: fine
resource "aws_sqs_queue" "eu_dlq" {
  region                    = "eu-west-1"
  name                      = "p6-eu-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
}

resource "aws_sqs_queue" "eu" {
  region                    = "eu-west-1"
  name                      = "p6-eu"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
  redrive_policy            = jsonencode({ deadLetterTargetArn = aws_sqs_queue.eu_dlq.arn, maxReceiveCount = 4 })
}

# a DLQ whose region argument names the provider's own Region: fine
resource "aws_sqs_queue" "here_dlq" {
  region                    = "us-east-1"
  name                      = "p6-here-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
}

resource "aws_sqs_queue" "here" {
  name                      = "p6-here"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
  redrive_policy            = jsonencode({ deadLetterTargetArn = aws_sqs_queue.here_dlq.arn, maxReceiveCount = 4 })
}

# a queue placed in eu-west-1 whose DLQ is an existing queue of us-east-1, by literal ARN:
# the queue's own Region decides (SQS002)
resource "aws_sqs_queue" "eu_literal" {
  region                    = "eu-west-1"
  name                      = "p6-eu-literal"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
  redrive_policy            = jsonencode({ deadLetterTargetArn = "${local.arn_prefix}:p6-shared-dlq", maxReceiveCount = 4 })
}

# alarms. here_dlq's depth alarm is placed in eu-west-1: it watches a queue of that name
# there, not here_dlq (CW001); eu_dlq's depth alarm is placed with its queue: fine.
resource "aws_cloudwatch_metric_alarm" "here_dlq_depth" {
  region              = "eu-west-1"
  alarm_name          = "p6-here-dlq-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = aws_sqs_queue.here_dlq.name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  alarm_actions       = ["arn:aws:sns:eu-west-1:123456789012:on-call"]
}

resource "aws_cloudwatch_metric_alarm" "eu_dlq_depth" {
  region              = "eu-west-1"
  alarm_name          = "p6-eu-dlq-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = aws_sqs_queue.eu_dlq.name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  alarm_actions       = ["arn:aws:sns:eu-west-1:123456789012:on-call"]
}

# eu's age alarm is left in the provider's Region: it watches a queue of that name in
# us-east-1, not eu (CW002)
resource "aws_cloudwatch_metric_alarm" "eu_age" {
  alarm_name          = "p6-eu-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = aws_sqs_queue.eu.name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 3600
  alarm_actions       = ["arn:aws:sns:us-east-1:123456789012:on-call"]
}

# 1 MiB messages (provider >= 6.8.0 accepts up to 1048576), beside the same queue at 256 KiB:
# the checker judges them alike
resource "aws_sqs_queue" "big" {
  name                      = "p6-big"
  max_message_size          = 1048576
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
  redrive_policy            = jsonencode({ deadLetterTargetArn = aws_sqs_queue.here_dlq.arn, maxReceiveCount = 4 })
}

resource "aws_sqs_queue" "small" {
  name                      = "p6-small"
  max_message_size          = 262144
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
  redrive_policy            = jsonencode({ deadLetterTargetArn = aws_sqs_queue.here_dlq.arn, maxReceiveCount = 4 })
}
