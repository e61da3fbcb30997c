variable "bucket" {
  type = string
}

module "messaging" {
  source = "../../../.."

  queues = {
    orders = { name = "${var.name_prefix}-orders" }
  }
  claim_check_bucket = { enabled = true, name = "${var.name_prefix}-${var.bucket}" }
  alarms             = { enabled = false }
}
