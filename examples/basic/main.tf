# One queue/DLQ pair consumed by a Lambda function with a 30 s timeout.
# Everything else takes the module's safe defaults: SSE-SQS, 4-day retention,
# 14-day DLQ retention, maxReceiveCount 5, 20 s long polling, TLS-only policies.
module "messaging" {
  source = "../../"

  account_id = var.account_id

  queues = {
    "${var.name_prefix}-orders" = {
      consumer = { timeout_seconds = 30 }
    }
  }

  # The alarms (on by default) notify this topic. Without one no topic is
  # created and the plan warns that the alarms notify nobody.
  alarms = { sns_topic_arn = var.alarm_topic_arn }

  tags = { example = "basic" }
}
