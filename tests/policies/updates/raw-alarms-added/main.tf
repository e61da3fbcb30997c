# Alarms added to a queue pair that exists: the queues' ARNs are known (from the prior
# state), the new alarms' are not; both come from the one provider configuration, so the
# alarms watch these queues (CW001 and CW002 pass, not "its account may differ").
resource "aws_sqs_queue" "dlq" {
  name                      = "${var.name_prefix}-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "jobs" {
  name                      = "${var.name_prefix}-jobs"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  redrive_policy            = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 4 })
}
