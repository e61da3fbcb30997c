module "messaging" {
  source = "../../../.."

  queues = {
    orders = {
      name     = "${var.name_prefix}-orders"
      consumer = { timeout_seconds = 10, function_name = "${var.name_prefix}-consumer" }
    }
  }
  alarms = { enabled = false }
}
