resource "aws_sqs_queue" "audit" {
  name                      = "${var.name_prefix}-audit"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}
