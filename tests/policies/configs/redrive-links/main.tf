# Redrive links the plan shows in other ways than a known ARN: a literal ARN of
# a DLQ outside the plan, a literal ARN of a DLQ inside it, the separate
# redrive / redrive-allow / queue-policy resources, and inline redrive policies
# referencing the DLQ's real ARN (unknown until apply) in for_each resources and
# in a for_each module.
locals {
  tls_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "DenyInsecureTransport"
      Effect    = "Deny"
      Principal = "*"
      Action    = "sqs:*"
      Resource  = "*"
      Condition = { Bool = { "aws:SecureTransport" = "false" } }
    }]
  })
}

# An existing DLQ managed elsewhere, named by a literal ARN.
resource "aws_sqs_queue" "uses_existing" {
  name                      = "links-uses-existing"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_policy
  redrive_policy = jsonencode({
    deadLetterTargetArn = "arn:aws:sqs:us-east-1:123456789012:shared-dlq"
    maxReceiveCount     = 5
  })
}

# A literal ARN that names a DLQ of this plan: linked by name.
resource "aws_sqs_queue" "literal_dlq" {
  name                      = "links-literal-dlq"
  message_retention_seconds = 172800 # 2 days < the source's 4
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_policy
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = ["arn:aws:sqs:us-east-1:123456789012:links-literal"]
  })
}

resource "aws_sqs_queue" "literal" {
  name                      = "links-literal"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_policy
  redrive_policy = jsonencode({
    deadLetterTargetArn = "arn:aws:sqs:us-east-1:123456789012:links-literal-dlq"
    maxReceiveCount     = 3
  })
  depends_on = [aws_sqs_queue.literal_dlq]
}

# Separate resources: redrive, redrive-allow and queue policy.
resource "aws_sqs_queue" "sep_dlq" {
  name                      = "links-separate-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "sep" {
  name                      = "links-separate"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue_redrive_policy" "sep" {
  queue_url = aws_sqs_queue.sep.id
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.sep_dlq.arn
    maxReceiveCount     = 4
  })
}

resource "aws_sqs_queue_redrive_allow_policy" "sep_dlq" {
  queue_url = aws_sqs_queue.sep_dlq.id
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.sep.arn]
  })
}

data "aws_iam_policy_document" "sep" {
  for_each = { sep = aws_sqs_queue.sep.arn, sep_dlq = aws_sqs_queue.sep_dlq.arn }
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["sqs:*"]
    resources = [each.value]
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
  statement {
    sid       = "SnsMaySend"
    actions   = ["sqs:SendMessage"]
    resources = [each.value]
    principals {
      type        = "Service"
      identifiers = ["sns.amazonaws.com"]
    }
    condition {
      test     = "ArnEquals"
      variable = "aws:SourceArn"
      values   = ["arn:aws:sns:us-east-1:123456789012:links-topic"]
    }
  }
}

resource "aws_sqs_queue_policy" "sep" {
  for_each  = { sep = aws_sqs_queue.sep.id, sep_dlq = aws_sqs_queue.sep_dlq.id }
  queue_url = each.value
  policy    = data.aws_iam_policy_document.sep[each.key].json
}

resource "aws_cloudwatch_metric_alarm" "dlq_depth" {
  for_each            = toset(["links-literal-dlq", "links-separate-dlq", "links-keyed-a-dlq", "links-keyed-b-dlq", "links-pair-x-dlq", "links-pair-y-dlq"])
  alarm_name          = "${each.key}-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = each.key }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  # the on-call topic (an existing one): the alarm pages someone, as CW001/CW002 require
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}

resource "aws_cloudwatch_metric_alarm" "age" {
  for_each            = toset(["links-uses-existing", "links-literal", "links-separate", "links-keyed-a", "links-keyed-b", "links-pair-x", "links-pair-y"])
  alarm_name          = "${each.key}-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = each.key }
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 3600
  # the on-call topic (an existing one): the alarm pages someone, as CW001/CW002 require
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}

# for_each pairs whose redrive policies reference the DLQ of the same key:
# unknown until apply, linked through the reference and the instance key.
resource "aws_sqs_queue" "keyed_dlq" {
  for_each                  = toset(["a", "b"])
  name                      = "links-keyed-${each.key}-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_policy
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = ["arn:aws:sqs:us-east-1:123456789012:links-keyed-${each.key}"]
  })
}

resource "aws_sqs_queue" "keyed" {
  for_each                  = toset(["a", "b"])
  name                      = "links-keyed-${each.key}"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_policy
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.keyed_dlq[each.key].arn
    maxReceiveCount     = 3
  })
}

# The same inside a module instantiated with for_each.
module "pair" {
  source     = "./pair"
  for_each   = toset(["x", "y"])
  name       = "links-pair-${each.key}"
  account_id = "123456789012"
}
