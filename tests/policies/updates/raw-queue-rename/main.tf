# One queue renamed: `name` cannot be updated in place, so the queue is
# replaced (deleted and created empty) and loses every message in it.
variable "queue_name" {
  type = string
}

resource "aws_sqs_queue" "events" {
  name                      = "${var.name_prefix}-${var.queue_name}"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}
