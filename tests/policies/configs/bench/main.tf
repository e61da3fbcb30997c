# The benchmark's template (tooling/bench_policy.py): N queue pairs from the root
# module with its defaults and an alarm topic (per pair: queue + DLQ with their policies,
# the module's alarms; one alarm topic and its key), each pair consumed by its own
# Lambda function through an event source mapping, whose role gets the module's
# consumer policy document. Every rule passes.
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
  # the alarm topic (and its key) the root module created by default before 0.1.0
  alarms = { create_sns_topic = true, sns_topic_name = "sqs-alarms-bench-0000" }
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

# the consumer document the module writes for the queue, on the function's role
resource "aws_iam_role_policy" "consumer" {
  for_each = toset(local.keys)
  name     = "consume-${each.key}"
  role     = each.key
  policy   = module.messaging.iam_policies[each.key].consumer_policy_json
}
