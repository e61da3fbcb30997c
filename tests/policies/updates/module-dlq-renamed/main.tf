variable "dlq_suffix" {
  type    = string
  default = null
}

module "messaging" {
  source = "../../../.."

  queues = {
    orders = {
      name     = "${var.name_prefix}-orders"
      dlq_name = var.dlq_suffix == null ? null : "${var.name_prefix}-${var.dlq_suffix}"
    }
  }
  alarms = { enabled = false }
}
