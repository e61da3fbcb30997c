resource "aws_sqs_queue" "jobs" {
  name                      = "features-check"
  message_retention_seconds = 345600
  sqs_managed_sse_enabled   = true
}

check "retention_long_enough" {
  assert {
    condition     = aws_sqs_queue.jobs.message_retention_seconds >= 86400
    error_message = "keep messages at least a day"
  }
}

check "retention_two_weeks" {
  assert {
    condition     = aws_sqs_queue.jobs.message_retention_seconds == 1209600
    error_message = "this check fails on purpose: retention is not 14 days"
  }
}

check "url_known" {
  assert {
    condition     = can(regex("features-check$", aws_sqs_queue.jobs.url))
    error_message = "the queue URL ends with its name"
  }
}

check "policy_document" {
  data "aws_iam_policy_document" "send" {
    statement {
      actions   = ["sqs:SendMessage"]
      resources = [aws_sqs_queue.jobs.arn]
    }
  }
  assert {
    condition     = length(data.aws_iam_policy_document.send.statement) == 1
    error_message = "one statement"
  }
}
