module "messaging" {
  source = "../../../.."

  queues = {
    orders = { name = "${var.name_prefix}-orders" }
  }
}
