# The benchmark's template (policies/bench.py): N queue pairs from the root
# module, each consumed by its own Lambda function through an event source
# mapping, each with a DLQ depth alarm and an age alarm. Every rule passes
# except maxReceiveCount, unknown inside the module's redrive policy.
variable "pairs" {
  description = "Number of queue pairs."
  type        = number
  default     = 2
}

locals {
  keys = [for i in range(var.pairs) : format("bench-%04d", i)]
}

module "messaging" {
  source     = "../../../../"
  account_id = "123456789012"
  queues     = { for k in local.keys : k => { consumer = { timeout_seconds = 30 } } }
}

resource "aws_lambda_function" "consumer" {
  for_each      = toset(local.keys)
  function_name = each.key
  role          = "arn:aws:iam::123456789012:role/${each.key}"
  handler       = "app.handler"
  runtime       = "python3.12"
  filename      = "${path.module}/app.zip"
  timeout       = 30
}

resource "aws_lambda_event_source_mapping" "consumer" {
  for_each                = toset(local.keys)
  event_source_arn        = module.messaging.queue_arns[each.key]
  function_name           = aws_lambda_function.consumer[each.key].arn
  batch_size              = 10
  function_response_types = ["ReportBatchItemFailures"]
  scaling_config {
    maximum_concurrency = 10
  }
}

resource "aws_cloudwatch_metric_alarm" "dlq_depth" {
  for_each            = toset(local.keys)
  alarm_name          = "${each.key}-dlq-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = module.messaging.queues[each.key].dlq_name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
}

resource "aws_cloudwatch_metric_alarm" "age" {
  for_each            = toset(local.keys)
  alarm_name          = "${each.key}-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = module.messaging.queues[each.key].name }
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 3600
}
