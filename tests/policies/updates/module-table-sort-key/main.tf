variable "sort_key" {
  type    = string
  default = null
}

module "messaging" {
  source = "../../../.."

  queues = {
    orders = { name = "${var.name_prefix}-orders" }
  }
  idempotency_table = { enabled = true, name = "${var.name_prefix}-idempotency", sort_key_attr = var.sort_key }
  alarms            = { enabled = false }
}
