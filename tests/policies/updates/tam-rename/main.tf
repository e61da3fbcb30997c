variable "queue" {
  type = string
}

module "orders" {
  source = "./external/sqs"

  name       = "${var.name_prefix}-${var.queue}"
  create_dlq = true
}
