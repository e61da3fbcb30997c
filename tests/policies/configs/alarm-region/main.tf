# Alarms are matched to queues by name, region and account. Three DLQs (and their
# sources) in us-east-1; each DLQ's depth alarm (and each source's age alarm) is
# created by a different provider configuration.
locals {
  arn_prefix = "arn:aws:sqs:us-east-1:123456789012"
  pairs      = toset(["ar-west", "ar-same", "ar-other"])
}

data "aws_iam_policy_document" "tls_only" {
  for_each = toset(flatten([for p in local.pairs : [p, "${p}-dlq"]]))
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
  for_each                  = local.pairs
  name                      = "${each.key}-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = data.aws_iam_policy_document.tls_only["${each.key}-dlq"].json
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = ["${local.arn_prefix}:${each.key}"]
  })
}

resource "aws_sqs_queue" "src" {
  for_each                  = local.pairs
  name                      = each.key
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = data.aws_iam_policy_document.tls_only[each.key].json
  redrive_policy = jsonencode({
    deadLetterTargetArn = "${local.arn_prefix}:${each.key}-dlq"
    maxReceiveCount     = 4
  })
  depends_on = [aws_sqs_queue.dlq]
}

# us-west-2: watches a queue of the same name in another region (no DLQ there)
resource "aws_cloudwatch_metric_alarm" "west_depth" {
  provider            = aws.west
  alarm_name          = "ar-west-dlq-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = aws_sqs_queue.dlq["ar-west"].name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
}

resource "aws_cloudwatch_metric_alarm" "west_age" {
  provider            = aws.west
  alarm_name          = "ar-west-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = "ar-west" }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 3600
}

# the same region and credentials under an alias: the same queue
resource "aws_cloudwatch_metric_alarm" "same_depth" {
  provider            = aws.same
  alarm_name          = "ar-same-dlq-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = "ar-same-dlq" }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  # the on-call topic (an existing one): the alarm pages someone, as CW001/CW002 require
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}

resource "aws_cloudwatch_metric_alarm" "same_age" {
  provider            = aws.same
  alarm_name          = "ar-same-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = "ar-same" }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 3600
  # the on-call topic (an existing one): the alarm pages someone, as CW001/CW002 require
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}

# other credentials: perhaps another account, which the plan does not show
resource "aws_cloudwatch_metric_alarm" "other_depth" {
  provider            = aws.other_account
  alarm_name          = "ar-other-dlq-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = "ar-other-dlq" }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
}

resource "aws_cloudwatch_metric_alarm" "other_age" {
  provider            = aws.other_account
  alarm_name          = "ar-other-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = "ar-other" }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 3600
}
