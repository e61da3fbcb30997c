# Policies on queues this stack does not create (referenced by URL): each policy
# document and redrive policy is evaluated on its own content.
locals {
  existing_url = "https://sqs.us-east-1.amazonaws.com/123456789012/existing-orders"
  existing_dlq = "arn:aws:sqs:us-east-1:123456789012:existing-orders-dlq"
}

# Anyone may send: Allow to "*" without a condition, and no TLS-only Deny.
resource "aws_sqs_queue_policy" "open" {
  queue_url = local.existing_url
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "AnyoneMaySend"
      Effect    = "Allow"
      Principal = "*"
      Action    = "sqs:SendMessage"
      Resource  = "arn:aws:sqs:us-east-1:123456789012:existing-orders"
    }]
  })
}

# One receive moves a message to the DLQ.
resource "aws_sqs_queue_redrive_policy" "one_receive" {
  queue_url = local.existing_url
  redrive_policy = jsonencode({
    deadLetterTargetArn = local.existing_dlq
    maxReceiveCount     = 1
  })
}

# Any queue of the account may use the existing DLQ.
resource "aws_sqs_queue_redrive_allow_policy" "allow_all" {
  queue_url            = "https://sqs.us-east-1.amazonaws.com/123456789012/existing-orders-dlq"
  redrive_allow_policy = jsonencode({ redrivePermission = "allowAll" })
}
