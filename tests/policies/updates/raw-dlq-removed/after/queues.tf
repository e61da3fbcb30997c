resource "aws_sqs_queue" "jobs" {
  name                       = "${var.name_prefix}-jobs"
  message_retention_seconds  = 345600
  visibility_timeout_seconds = 30
  receive_wait_time_seconds  = 20
  sqs_managed_sse_enabled    = true
}
