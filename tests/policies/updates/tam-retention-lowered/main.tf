variable "dlq_retention" {
  type = number
}

module "orders" {
  source = "./external/sqs"

  name                          = "${var.name_prefix}-orders"
  create_dlq                    = true
  dlq_message_retention_seconds = var.dlq_retention
}
