module "messaging" {
  source = "../../../.."

  queues = {
    orders = {
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
