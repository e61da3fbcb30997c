variable "visibility" {
  type = number
}

variable "retention" {
  type = number
}

variable "tags" {
  type = map(string)
}

module "orders" {
  source = "./external/sqs"

  name                          = "${var.name_prefix}-orders"
  create_dlq                    = true
  visibility_timeout_seconds    = var.visibility
  message_retention_seconds     = var.retention
  dlq_message_retention_seconds = var.retention * 2
  tags                          = var.tags
}
