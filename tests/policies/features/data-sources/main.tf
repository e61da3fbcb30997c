data "aws_partition" "current" {}

data "aws_region" "current" {}

# known at plan: read during the plan
data "aws_iam_policy_document" "static" {
  statement {
    actions   = ["sqs:SendMessage"]
    resources = ["arn:${data.aws_partition.current.partition}:sqs:${data.aws_region.current.name}:123456789012:features-data"]
  }
}

resource "aws_sqs_queue" "jobs" {
  name                    = "features-data"
  sqs_managed_sse_enabled = true
}

# an argument known only after apply: read at apply
data "aws_iam_policy_document" "send" {
  statement {
    sid       = "Send"
    actions   = ["sqs:SendMessage"]
    resources = [aws_sqs_queue.jobs.arn]
  }
}

# a pending dependency: read at apply
data "aws_iam_policy_document" "after_queue" {
  depends_on = [aws_sqs_queue.jobs]
  statement {
    actions   = ["sqs:ReceiveMessage"]
    resources = ["*"]
  }
}

data "aws_iam_policy_document" "never" {
  count = 0
}

resource "aws_sqs_queue_policy" "jobs" {
  queue_url = aws_sqs_queue.jobs.id
  policy    = data.aws_iam_policy_document.send.json
}

output "static_policy" {
  value = data.aws_iam_policy_document.static.json
}
