# A compliant stack written in the styles most stacks use, where the plan of a
# first apply leaves the redrive, redrive-allow and access policies unknown
# (they embed ARNs of queues created by the same apply). The checker decides
# them from this source (--source-dir): 0 unknown findings.
variable "account_id" {
  type    = string
  default = "123456789012"
}

# for_each over a map of queues: redrive policies use each.value
variable "queues" {
  type = map(object({ max_receive = number, visibility = number }))
  default = {
    billing  = { max_receive = 3, visibility = 60 }
    shipping = { max_receive = 5, visibility = 120 }
  }
}

locals {
  max_receive_count = 4
  tls_statement = {
    Sid       = "DenyInsecureTransport"
    Effect    = "Deny"
    Principal = "*"
    Action    = "sqs:*"
    Resource  = "*"
    Condition = { Bool = { "aws:SecureTransport" = "false" } }
  }
  # jsonencode through a local
  payments_redrive = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.payments_dlq.arn
    maxReceiveCount     = local.max_receive_count
  })
  batch   = { for i, q in aws_sqs_queue.batch : "batch${i}" => q }
  sources = merge({ orders = aws_sqs_queue.orders, payments = aws_sqs_queue.payments }, aws_sqs_queue.work, local.batch)
  dlqs = merge({ orders = aws_sqs_queue.orders_dlq, payments = aws_sqs_queue.payments_dlq }, aws_sqs_queue.work_dlq,
  { for i, q in aws_sqs_queue.batch_dlq : "batch${i}" => q })
}

resource "aws_sns_topic" "events" {
  name = "src-good-events"
}

# -- jsonencode with .arn references, inline ---------------------------------------
resource "aws_sqs_queue" "orders_dlq" {
  name                      = "src-good-orders-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "orders" {
  name                      = "src-good-orders"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue_redrive_allow_policy" "orders_dlq" {
  queue_url = aws_sqs_queue.orders_dlq.id
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.orders.arn]
  })
}

resource "aws_sqs_queue_policy" "orders" {
  queue_url = aws_sqs_queue.orders.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      merge(local.tls_statement, { Resource = aws_sqs_queue.orders.arn }),
      {
        Sid       = "TopicMaySend"
        Effect    = "Allow"
        Principal = { Service = "sns.amazonaws.com" }
        Action    = "sqs:SendMessage"
        Resource  = aws_sqs_queue.orders.arn
        Condition = { ArnEquals = { "aws:SourceArn" = aws_sns_topic.events.arn } }
      },
    ]
  })
}

# -- jsonencode through locals, heredoc JSON with ${...} ------------------------------
resource "aws_sqs_queue" "payments_dlq" {
  name                      = "src-good-payments-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "payments" {
  name                      = "src-good-payments"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  redrive_policy            = local.payments_redrive
}

resource "aws_sqs_queue_redrive_allow_policy" "payments_dlq" {
  queue_url            = aws_sqs_queue.payments_dlq.id
  redrive_allow_policy = <<-EOT
    {
      "redrivePermission": "byQueue",
      "sourceQueueArns": ["${aws_sqs_queue.payments.arn}"]
    }
  EOT
}

resource "aws_sqs_queue_policy" "payments" {
  queue_url = aws_sqs_queue.payments.id
  policy    = <<EOF
{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Sid": "DenyInsecureTransport",
      "Effect": "Deny",
      "Principal": "*",
      "Action": "sqs:*",
      "Resource": "${aws_sqs_queue.payments.arn}",
      "Condition": {"Bool": {"aws:SecureTransport": "false"}}
    }
  ]
}
EOF
}

# -- for_each over a map of queues -----------------------------------------------------
resource "aws_sqs_queue" "work_dlq" {
  for_each                  = var.queues
  name                      = "src-good-${each.key}-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "work" {
  for_each                   = var.queues
  name                       = "src-good-${each.key}"
  visibility_timeout_seconds = each.value.visibility
  receive_wait_time_seconds  = 20
  sqs_managed_sse_enabled    = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.work_dlq[each.key].arn
    maxReceiveCount     = each.value.max_receive
  })
}

resource "aws_sqs_queue_redrive_allow_policy" "work_dlq" {
  for_each  = var.queues
  queue_url = aws_sqs_queue.work_dlq[each.key].id
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.work[each.key].arn]
  })
}

# -- count: redrive policies use count.index ---------------------------------------------
resource "aws_sqs_queue" "batch_dlq" {
  count                     = 2
  name                      = "src-good-batch-${count.index}-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "batch" {
  count                     = 2
  name                      = "src-good-batch-${count.index}"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.batch_dlq[count.index].arn
    maxReceiveCount     = 3 + count.index
  })
}

resource "aws_sqs_queue_redrive_allow_policy" "batch_dlq" {
  count     = 2
  queue_url = aws_sqs_queue.batch_dlq[count.index].url
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = aws_sqs_queue.batch[*].arn
  })
}

# -- aws_iam_policy_document with unknown resources ------------------------------------
data "aws_iam_policy_document" "tls" {
  for_each = merge(aws_sqs_queue.work, local.batch, local.dlqs)
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["sqs:*"]
    resources = [each.value.arn]
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

resource "aws_sqs_queue_policy" "work" {
  for_each  = merge(aws_sqs_queue.work, local.batch)
  queue_url = each.value.id
  policy    = data.aws_iam_policy_document.tls[each.key].json
}

resource "aws_sqs_queue_policy" "dlq" {
  for_each  = local.dlqs
  queue_url = each.value.id
  policy    = data.aws_iam_policy_document.tls[each.key].json
}

data "aws_iam_policy_document" "consume_base" {
  statement {
    sid       = "Consume"
    actions   = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueAttributes"]
    resources = [for q in aws_sqs_queue.work : q.arn]
  }
}

data "aws_iam_policy_document" "consumer" {
  source_policy_documents = [data.aws_iam_policy_document.consume_base.json]
  dynamic "statement" {
    for_each = { Orders = aws_sqs_queue.orders.arn, Payments = aws_sqs_queue.payments.arn }
    content {
      sid       = "Send${statement.key}"
      actions   = ["sqs:SendMessage"]
      resources = [statement.value]
    }
  }
}

resource "aws_iam_role" "consumer" {
  name = "src-good-consumer"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = "sts:AssumeRole", Principal = { Service = "lambda.amazonaws.com" } }]
  })
}

resource "aws_iam_role_policy" "consumer" {
  role   = aws_iam_role.consumer.id
  policy = data.aws_iam_policy_document.consumer.json
}

# jsonencode identity policy with .arn references
resource "aws_iam_policy" "producer" {
  name = "src-good-producer"
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect   = "Allow"
      Action   = ["sqs:SendMessage"]
      Resource = concat([aws_sqs_queue.orders.arn], [for k in keys(var.queues) : aws_sqs_queue.work[k].arn])
    }]
  })
}

# -- a module call (resolved through .terraform/modules/modules.json after init) --------
module "audit" {
  source            = "./modules/queue"
  name              = "src-good-audit"
  max_receive_count = 3
}

# -- alarms on every queue --------------------------------------------------------------
resource "aws_cloudwatch_metric_alarm" "dlq_depth" {
  for_each            = merge({ for k, q in local.dlqs : k => q.name }, { audit = module.audit.dlq_name })
  alarm_name          = "${each.value}-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = each.value }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  # the on-call topic (an existing one): the alarm pages someone, as CW001/CW002 require
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}

resource "aws_cloudwatch_metric_alarm" "age" {
  for_each            = merge({ for k, q in local.sources : k => q.name }, { audit = module.audit.name })
  alarm_name          = "${each.value}-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = each.value }
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 3600
  # the on-call topic (an existing one): the alarm pages someone, as CW001/CW002 require
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}
