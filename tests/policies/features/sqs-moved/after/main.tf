# a pure refactor: the module key and a resource renamed, the queues themselves untouched
module "pairs" {
  source   = "./pair"
  for_each = { "order-events" = "orders" }
  name     = "${var.name_prefix}-${each.value}"
}

moved {
  from = module.pairs["orders"]
  to   = module.pairs["order-events"]
}

resource "aws_sqs_queue" "audit_log" {
  name                    = "${var.name_prefix}-audit"
  sqs_managed_sse_enabled = true
}

moved {
  from = aws_sqs_queue.audit
  to   = aws_sqs_queue.audit_log
}
