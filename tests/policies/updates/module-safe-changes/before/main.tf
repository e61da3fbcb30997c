module "messaging" {
  source = "../../../.."

  queues = {
    orders = { name = "${var.name_prefix}-orders", consumer = { timeout_seconds = 10 } }
  }
  claim_check_bucket = { enabled = true, name = "${var.name_prefix}-payloads" }
}
