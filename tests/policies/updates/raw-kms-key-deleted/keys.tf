variable "orders_key" {
  type    = bool
  default = true
}

variable "billing_key_enabled" {
  type    = bool
  default = true
}

resource "aws_kms_key" "orders" {
  count                   = var.orders_key ? 1 : 0
  description             = "${var.name_prefix} orders queue"
  deletion_window_in_days = 7
}

resource "aws_kms_key" "billing" {
  description             = "${var.name_prefix} billing queue"
  deletion_window_in_days = 7
  is_enabled              = var.billing_key_enabled
}

resource "aws_sqs_queue" "orders" {
  name                      = "${var.name_prefix}-orders"
  receive_wait_time_seconds = 20
  kms_master_key_id         = var.orders_key ? aws_kms_key.orders[0].arn : null
  sqs_managed_sse_enabled   = var.orders_key ? null : true
}

resource "aws_sqs_queue" "billing" {
  name                      = "${var.name_prefix}-billing"
  receive_wait_time_seconds = 20
  kms_master_key_id         = aws_kms_key.billing.arn
}
