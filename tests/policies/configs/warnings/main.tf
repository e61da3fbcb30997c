# A stack that loses no messages but costs money or weakens operations:
# warnings only, no error (the CLI exits 0 unless --fail-on warning).
locals {
  arn_prefix = "arn:aws:sqs:us-east-1:123456789012"
}

data "aws_iam_policy_document" "tls_only" {
  for_each = toset(["warn-jobs", "warn-jobs-dlq"])
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["sqs:*"]
    resources = ["${local.arn_prefix}:${each.key}"]
    principals {
      type        = "*"
      identifiers = ["*"]
    }
    condition {
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["false"]
    }
  }
}

# Short polling on the DLQ; any queue of the account may use it as its DLQ.
resource "aws_sqs_queue" "dlq" {
  name                      = "warn-jobs-dlq"
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true
  policy                    = data.aws_iam_policy_document.tls_only["warn-jobs-dlq"].json
  redrive_allow_policy      = jsonencode({ redrivePermission = "allowAll" })
}

# maxReceiveCount 2: transient failures are not retried enough. No alarms at all.
resource "aws_sqs_queue" "jobs" {
  name                      = "warn-jobs"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = data.aws_iam_policy_document.tls_only["warn-jobs"].json
  redrive_policy = jsonencode({
    deadLetterTargetArn = "${local.arn_prefix}:warn-jobs-dlq"
    maxReceiveCount     = 2
  })
  depends_on = [aws_sqs_queue.dlq]
}
