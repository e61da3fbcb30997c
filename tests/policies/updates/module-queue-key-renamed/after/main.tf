module "messaging" {
  source = "../../../.."

  queues = {
    orders_v2 = { name = "${var.name_prefix}-orders" }
  }
  alarms = { enabled = false }
}
