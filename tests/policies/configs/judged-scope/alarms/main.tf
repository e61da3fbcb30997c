# One alarms module per region: a depth alarm per DLQ and an age alarm per source queue,
# watched by name in the region of the provider the module is given.
variable "dlqs" {
  type = set(string)
}

variable "sources" {
  type = set(string)
}

variable "topic_arn" {
  type = string
}

resource "aws_cloudwatch_metric_alarm" "depth" {
  for_each            = var.dlqs
  alarm_name          = "${each.key}-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = each.key }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  alarm_actions       = [var.topic_arn]
}

resource "aws_cloudwatch_metric_alarm" "age" {
  for_each            = var.sources
  alarm_name          = "${each.key}-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = each.key }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 3600
  alarm_actions       = [var.topic_arn]
}
