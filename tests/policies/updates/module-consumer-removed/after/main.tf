module "messaging" {
  source = "../../../.."

  queues = {
    orders = {
      name     = "${var.name_prefix}-orders"
      consumer = { timeout_seconds = 10 }
    }
  }
  alarms = { enabled = false }
}
