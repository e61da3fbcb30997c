# Two queues without a DLQ, waived by the comment on the module call in ../main.tf.
resource "aws_sqs_queue" "old" {
  for_each                  = toset(["a", "b"])
  name                      = "iw-legacy-${each.key}"
  sqs_managed_sse_enabled   = true
  receive_wait_time_seconds = 20
}
