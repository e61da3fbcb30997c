variable "topic_suffix" {
  type    = string
  default = "orders"
}

resource "aws_sns_topic" "oncall" {
  name = "${var.name_prefix}-sqs-alarms-${var.topic_suffix}"
}

# notified by no alarm: renaming it loses nothing the alarms need
resource "aws_sns_topic" "audit" {
  name = "${var.name_prefix}-audit-${var.topic_suffix}"
}

resource "aws_sqs_queue" "orders_dlq" {
  name                      = "${var.name_prefix}-orders-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_cloudwatch_metric_alarm" "orders_dlq_depth" {
  alarm_name          = "${var.name_prefix}-orders-dlq-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = aws_sqs_queue.orders_dlq.name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  alarm_actions       = [aws_sns_topic.oncall.arn]
  ok_actions          = [aws_sns_topic.oncall.arn]
}
