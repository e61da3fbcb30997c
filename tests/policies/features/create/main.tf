resource "aws_sqs_queue" "dlq" {
  name                    = "features-create-dlq"
  sqs_managed_sse_enabled = true
}

resource "aws_sqs_queue" "jobs" {
  name                    = "features-create"
  sqs_managed_sse_enabled = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue_redrive_allow_policy" "dlq" {
  queue_url = aws_sqs_queue.dlq.id
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.jobs.arn]
  })
}

locals {
  topic_arn = provider::aws::arn_build("aws", "sns", "us-east-1", "123456789012", "jobs")
}

resource "aws_sqs_queue_policy" "jobs" {
  queue_url = aws_sqs_queue.jobs.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "FromTopic"
      Effect    = "Allow"
      Principal = { Service = "sns.amazonaws.com" }
      Action    = "sqs:SendMessage"
      Resource  = aws_sqs_queue.jobs.arn
      Condition = { ArnEquals = { "aws:SourceArn" = local.topic_arn } }
    }]
  })
}

resource "terraform_data" "release" {
  input = provider::aws::arn_parse(local.topic_arn).service
}

output "queue_url" {
  value = aws_sqs_queue.jobs.url
}

output "release" {
  value = terraform_data.release.output
}
