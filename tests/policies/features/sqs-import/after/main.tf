data "aws_sqs_queue" "existing" {
  for_each = toset(["jobs", "dlq"])
  name     = "${var.name_prefix}-${each.key}"
}

import {
  to = aws_sqs_queue.jobs
  id = data.aws_sqs_queue.existing["jobs"].url
}

import {
  to = aws_sqs_queue.dlq
  id = data.aws_sqs_queue.existing["dlq"].url
}

resource "aws_sqs_queue" "dlq" {
  name                      = "${var.name_prefix}-dlq"
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "jobs" {
  name                    = "${var.name_prefix}-jobs"
  sqs_managed_sse_enabled = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = 5
  })
}
