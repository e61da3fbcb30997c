module "messaging" {
  source = "../../../.."

  queues = {
    orders = { name = "${var.name_prefix}-orders", consumer = { timeout_seconds = 10 } }
  }
  alarms             = { create_sns_topic = true, sns_topic_name = "sqs-alarms-${var.name_prefix}-orders" } # the alarm topic and its KMS key stay
  claim_check_bucket = { enabled = true, name = "${var.name_prefix}-payloads" }
}
