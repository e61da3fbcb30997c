# Where a queue's dead-letter queue lives: it must be the queue's own account and Region.
# A pair module called with another provider configuration keeps its pair together.
locals {
  tls_only = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Sid = "DenyInsecureTransport", Effect = "Deny", Principal = "*", Action = "sqs:*", Resource = "*", Condition = { Bool = { "aws:SecureTransport" = "false" } } }]
  })
}

# a DLQ created by the eu-west-1 provider for a us-east-1 queue
resource "aws_sqs_queue" "cross_dlq" {
  provider                  = aws.eu
  name                      = "place-cross-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
}

resource "aws_sqs_queue" "cross" {
  name                      = "place-cross"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
  redrive_policy            = jsonencode({ deadLetterTargetArn = aws_sqs_queue.cross_dlq.arn, maxReceiveCount = 4 })
}

# an existing DLQ named by a literal ARN in another Region
resource "aws_sqs_queue" "literal" {
  name                      = "place-literal"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
  redrive_policy            = jsonencode({ deadLetterTargetArn = "arn:aws:sqs:eu-west-1:123456789012:place-shared-dlq", maxReceiveCount = 4 })
}

# an existing DLQ named by a literal ARN in the queue's Region: fine (its account is the
# credentials', which the plan does not show)
resource "aws_sqs_queue" "literal_here" {
  name                      = "place-literal-here"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
  redrive_policy            = jsonencode({ deadLetterTargetArn = "arn:aws:sqs:us-east-1:123456789012:place-shared-dlq", maxReceiveCount = 4 })
}

# a DLQ from a provider configuration whose Region the plan does not show: unknown
resource "aws_sqs_queue" "maybe_dlq" {
  provider                  = aws.elsewhere
  name                      = "place-maybe-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
}

resource "aws_sqs_queue" "maybe" {
  name                      = "place-maybe"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
  redrive_policy            = jsonencode({ deadLetterTargetArn = aws_sqs_queue.maybe_dlq.arn, maxReceiveCount = 4 })
}

# a pair in eu-west-1 (both queues with the eu provider): fine
resource "aws_sqs_queue" "eu_dlq" {
  provider                  = aws.eu
  name                      = "place-eu-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
}

resource "aws_sqs_queue" "eu" {
  provider                  = aws.eu
  name                      = "place-eu"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_only
  redrive_policy            = jsonencode({ deadLetterTargetArn = aws_sqs_queue.eu_dlq.arn, maxReceiveCount = 4 })
}
