variable "claim_check" {
  type = bool
}

module "messaging" {
  source = "../../../.."

  queues = {
    orders = { name = "${var.name_prefix}-orders" }
  }
  claim_check_bucket = { enabled = var.claim_check, name = "${var.name_prefix}-payloads" }
  alarms             = { enabled = false }
}
