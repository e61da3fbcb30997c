# A FIFO pair with high-throughput mode: deduplication per message group and
# throughput per message group. The DLQ is FIFO too (SQS requires it).
module "messaging" {
  source = "../../"

  account_id = var.account_id

  queues = {
    "${var.name_prefix}-payments" = {
      fifo                        = true
      content_based_deduplication = true
      deduplication_scope         = "messageGroup"
      fifo_throughput_limit       = "perMessageGroupId"
      consumer                    = { timeout_seconds = 20 }
    }
  }

  # The alarms (on by default) notify this topic. Without one no topic is
  # created and the plan warns that the alarms notify nobody.
  alarms = { sns_topic_arn = var.alarm_topic_arn }

  tags = { example = "fifo" }
}
