# Queues from the repository's queue module (for_each, ARNs unknown at plan);
# Lambda functions and their event source mappings in another module.
variable "consumers" {
  description = "Per consumer: function timeout, batching window, visibility of its queue."
  default = {
    fast = { timeout = 10, window = 0, visibility = 60 }  # 60 >= 6 x 10 + 0
    slow = { timeout = 60, window = 5, visibility = 120 } # 120 < 6 x 60 + 5 = 365
  }
}

module "queue" {
  source   = "../../../../modules/queue"
  for_each = var.consumers

  name                       = "cons-${each.key}"
  account_id                 = "123456789012"
  visibility_timeout_seconds = each.value.visibility
  max_receive_count          = 4
}

module "consumer" {
  source   = "./consumer"
  for_each = var.consumers

  name      = "cons-${each.key}"
  timeout   = each.value.timeout
  window    = each.value.window
  queue_arn = module.queue[each.key].queue.arn
}

# A function that is not in this plan: its timeout is unknown.
resource "aws_lambda_event_source_mapping" "external" {
  event_source_arn        = module.queue["fast"].queue.arn
  function_name           = "existing-function"
  function_response_types = ["ReportBatchItemFailures"]
  scaling_config {
    maximum_concurrency = 5
  }
}

# Neither partial batch responses nor a concurrency bound.
resource "aws_lambda_event_source_mapping" "sloppy" {
  event_source_arn = module.queue["fast"].queue.arn
  function_name    = module.consumer["fast"].function_arn
}

# A FIFO pair consumed with a batch of 20 and a batching window.
module "fifo" {
  source     = "../../../../modules/queue"
  name       = "cons-ordered"
  fifo       = true
  account_id = "123456789012"
  consumer   = { timeout_seconds = 10 }
}

resource "aws_lambda_event_source_mapping" "fifo" {
  event_source_arn                   = module.fifo.queue.arn
  function_name                      = module.consumer["fast"].function_arn
  batch_size                         = 20
  maximum_batching_window_in_seconds = 5
  function_response_types            = ["ReportBatchItemFailures"]
  scaling_config {
    maximum_concurrency = 2
  }
}

# Provisioned mode (dedicated pollers): bounded by maximum_pollers, no scaling_config.
resource "aws_lambda_event_source_mapping" "provisioned" {
  event_source_arn        = module.queue["fast"].queue.arn
  function_name           = module.consumer["fast"].function_arn
  function_response_types = ["ReportBatchItemFailures"]
  provisioned_poller_config {
    minimum_pollers = 2
    maximum_pollers = 20
  }
}

# Provisioned mode with a maximum concurrency too: Lambda refuses the pair (ESM005), the
# provider's validation does not.
resource "aws_lambda_event_source_mapping" "provisioned_capped" {
  event_source_arn        = module.queue["fast"].queue.arn
  function_name           = module.consumer["fast"].function_arn
  function_response_types = ["ReportBatchItemFailures"]
  scaling_config {
    maximum_concurrency = 10
  }
  provisioned_poller_config {
    maximum_pollers = 20
  }
}

# Provisioned mode with no maximum_pollers: up to AWS's default of 200 pollers (ESM003).
resource "aws_lambda_event_source_mapping" "provisioned_unbounded" {
  event_source_arn        = module.queue["fast"].queue.arn
  function_name           = module.consumer["fast"].function_arn
  function_response_types = ["ReportBatchItemFailures"]
  provisioned_poller_config {
    minimum_pollers = 5
  }
}

resource "aws_cloudwatch_metric_alarm" "dlq_depth" {
  for_each            = merge({ for k, m in module.queue : k => m.dlq.name }, { ordered = module.fifo.dlq.name })
  alarm_name          = "${each.value}-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = each.value }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  # the on-call topic (an existing one): the alarm pages someone, as CW001/CW002 require
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}

resource "aws_cloudwatch_metric_alarm" "age" {
  for_each            = merge({ for k, m in module.queue : k => m.queue.name }, { ordered = module.fifo.queue.name })
  alarm_name          = "${each.value}-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = each.value }
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 3600
  # the on-call topic (an existing one): the alarm pages someone, as CW001/CW002 require
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}
