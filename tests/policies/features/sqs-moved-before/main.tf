module "pairs" {
  source   = "./pair"
  for_each = { orders = "orders" }
  name     = "${var.name_prefix}-${each.value}"
}

# no DLQ (SQS002)
resource "aws_sqs_queue" "audit" {
  name                    = "${var.name_prefix}-audit"
  sqs_managed_sse_enabled = true
}
