variable "dlq_retention" {
  type = number
}

module "messaging" {
  source = "../../../.."

  queues = {
    orders = { name = "${var.name_prefix}-orders", dlq_message_retention_seconds = var.dlq_retention }
  }
  claim_check_bucket = { enabled = true, name = "${var.name_prefix}-payloads" }
  idempotency_table  = { enabled = true, name = "${var.name_prefix}-idempotency" }
  alarms             = { enabled = false }
}
