variable "key" {
  type = string
}

module "queues" {
  source   = "./external/sqs"
  for_each = { (var.key) = "${var.name_prefix}-orders" }

  name       = each.value
  create_dlq = true
}
