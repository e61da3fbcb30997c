# Several pairs sharing defaults, each with its own consumer. The visibility
# timeout of each queue is derived from its consumer: 6 x timeout + window.
module "messaging" {
  source = "../../"

  account_id = var.account_id

  queue_defaults = {
    message_retention_seconds     = 345600  # 4 days
    dlq_message_retention_seconds = 1209600 # 14 days
    max_receive_count             = 4
  }

  queues = {
    "${var.name_prefix}-orders" = {
      consumer = { timeout_seconds = 30, maximum_batching_window_seconds = 5 }
    }
    "${var.name_prefix}-emails" = {
      consumer          = { timeout_seconds = 10 }
      max_receive_count = 3
    }
    "${var.name_prefix}-reports" = {
      consumer                  = { timeout_seconds = 120, maximum_batching_window_seconds = 60 }
      message_retention_seconds = 604800 # 7 days
    }
    "${var.name_prefix}-audit" = {
      # no Lambda consumer: a worker fleet polls it; visibility set explicitly
      visibility_timeout_seconds = 300
    }
  }

  # The alarms (on by default) notify this topic. Without one no topic is
  # created and the plan warns that the alarms notify nobody.
  alarms = { sns_topic_arn = var.alarm_topic_arn }

  tags = { example = "many-queues" }
}
