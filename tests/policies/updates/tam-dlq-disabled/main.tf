variable "create_dlq" {
  type = bool
}

module "orders" {
  source = "./external/sqs"

  name       = "${var.name_prefix}-orders"
  create_dlq = var.create_dlq
}
