# IAM documents built from source_policy_documents / override_policy_documents whose
# JSON is only known after apply (a source names a queue ARN created by the same
# apply), used by managed policies and their attachments. Their statements are known
# and must be decided: "producer" adds sqs:* (fail), "consumer" stays scoped (pass).
resource "aws_sqs_queue" "jobs" {
  name = "iam-jobs"
}

data "aws_iam_policy_document" "send" {
  statement {
    sid       = "Send"
    actions   = ["sqs:SendMessage"]
    resources = [aws_sqs_queue.jobs.arn]
  }
}

data "aws_iam_policy_document" "receive" {
  statement {
    sid       = "Receive"
    actions   = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility"]
    resources = [aws_sqs_queue.jobs.arn]
  }
}

data "aws_iam_policy_document" "producer" {
  source_policy_documents = [data.aws_iam_policy_document.send.json]
  statement {
    sid       = "Admin"
    actions   = ["sqs:*"]
    resources = ["*"]
  }
}

data "aws_iam_policy_document" "consumer" {
  source_policy_documents   = [data.aws_iam_policy_document.send.json]
  override_policy_documents = [data.aws_iam_policy_document.receive.json]
  statement {
    sid       = "Send"
    actions   = ["sqs:GetQueueAttributes"]
    resources = [aws_sqs_queue.jobs.arn]
  }
}

resource "aws_iam_policy" "producer" {
  name   = "iam-producer"
  policy = data.aws_iam_policy_document.producer.json
}

resource "aws_iam_policy" "consumer" {
  name   = "iam-consumer"
  policy = data.aws_iam_policy_document.consumer.json
}

resource "aws_iam_role" "app" {
  name = "iam-app"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "lambda.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
}

resource "aws_iam_role_policy_attachment" "producer" {
  role       = aws_iam_role.app.name
  policy_arn = aws_iam_policy.producer.arn
}

resource "aws_iam_role_policy_attachment" "consumer" {
  role       = aws_iam_role.app.name
  policy_arn = aws_iam_policy.consumer.arn
}
