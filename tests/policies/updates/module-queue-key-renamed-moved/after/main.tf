module "messaging" {
  source = "../../../.."

  queues = {
    orders_v2 = { name = "${var.name_prefix}-orders" }
  }
  alarms = { enabled = false }
}

moved {
  from = module.messaging.module.queue["orders"]
  to   = module.messaging.module.queue["orders_v2"]
}
