# This module with everything on (a standard and a FIFO pair, consumers, the
# claim-check bucket, the idempotency table, alarms), applied; the update only changes
# a tag. The update plan carries real prior state for every resource the rules read.
module "messaging" {
  source     = "../../../.."
  account_id = "000000000000"
  tags       = { stage = var.stage }

  queues = {
    orders = {
      name     = "${var.name_prefix}-orders"
      consumer = { timeout_seconds = 30, function_name = "${var.name_prefix}-consumer" }
    }
    events = {
      name     = "${var.name_prefix}-events.fifo"
      fifo     = true
      consumer = { timeout_seconds = 30, function_name = "${var.name_prefix}-consumer" }
    }
  }
  claim_check_bucket = { enabled = true, name = "${var.name_prefix}-payloads", force_destroy = true }
  idempotency_table  = { enabled = true, name = "${var.name_prefix}-idempotency", deletion_protection_enabled = false }
}
