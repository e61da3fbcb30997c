module "messaging" {
  source = "../../../.."

  queues = {
    orders   = { name = "${var.name_prefix}-orders" }
    payments = { name = "${var.name_prefix}-payments" }
  }
}
