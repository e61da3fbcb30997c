variable "fifo" {
  type = bool
}

module "messaging" {
  source = "../../../.."

  queues = {
    orders = { name = "${var.name_prefix}-orders", fifo = var.fifo }
  }
  alarms = { enabled = false }
}
