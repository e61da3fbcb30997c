module "messaging" {
  source = "../../../.."

  queues = {
    orders_v2 = {
      name     = "${var.name_prefix}-orders"
      consumer = { timeout_seconds = 10, function_name = "${var.name_prefix}-consumer" }
    }
  }
  alarms = {
    create_sns_topic = false
    kinds            = ["dlq_depth", "dlq_influx", "dlq_stale", "age_warning", "age_critical", "backlog"]
  }
  iam = { create_managed_policies = true }
}

# the queue's module instance only: what docs/module.md gave before
moved {
  from = module.messaging.module.queue["orders"]
  to   = module.messaging.module.queue["orders_v2"]
}
