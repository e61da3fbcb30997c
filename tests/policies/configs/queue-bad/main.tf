# Queue pairs from a for_each map, each breaking exactly one queue rule, and
# standalone queues for the settings that are left out. Redrive policies name
# the DLQ by its built ARN (known at plan time), so maxReceiveCount is readable.
variable "pairs" {
  description = "Per pair: what to break."
  default = {
    ok         = { sse = true, mrc = 4, dlq_retention = 1209600, dlq_sse = true, wait = 20, retention = 345600, public = false, allow = "byQueue", fifo = false }
    nosse      = { sse = false, mrc = 4, dlq_retention = 1209600, dlq_sse = true, wait = 20, retention = 345600, public = false, allow = "byQueue", fifo = false }
    mrc1       = { sse = true, mrc = 1, dlq_retention = 1209600, dlq_sse = true, wait = 20, retention = 345600, public = false, allow = "byQueue", fifo = false }
    mrc10      = { sse = true, mrc = 10, dlq_retention = 1209600, dlq_sse = true, wait = 20, retention = 345600, public = false, allow = "byQueue", fifo = false }
    shortdlq   = { sse = true, mrc = 4, dlq_retention = 345600, dlq_sse = true, wait = 20, retention = 345600, public = false, allow = "byQueue", fifo = false }
    plaindlq   = { sse = true, mrc = 4, dlq_retention = 1209600, dlq_sse = false, wait = 20, retention = 345600, public = false, allow = "byQueue", fifo = false }
    shortpoll  = { sse = true, mrc = 4, dlq_retention = 1209600, dlq_sse = true, wait = 0, retention = 345600, public = false, allow = "byQueue", fifo = false }
    shortret   = { sse = true, mrc = 4, dlq_retention = 7200, dlq_sse = true, wait = 20, retention = 3600, public = false, allow = "byQueue", fifo = false }
    public     = { sse = true, mrc = 4, dlq_retention = 1209600, dlq_sse = true, wait = 20, retention = 345600, public = true, allow = "byQueue", fifo = false }
    wrongallow = { sse = true, mrc = 4, dlq_retention = 1209600, dlq_sse = true, wait = 20, retention = 345600, public = false, allow = "other", fifo = false }
    fifomix    = { sse = true, mrc = 4, dlq_retention = 1209600, dlq_sse = true, wait = 20, retention = 345600, public = false, allow = "byQueue", fifo = true }
  }
}

locals {
  arn_prefix = "arn:aws:sqs:us-east-1:123456789012"
  src_name   = { for k, v in var.pairs : k => v.fifo ? "bad-${k}.fifo" : "bad-${k}" }
  tls = {
    Sid       = "DenyInsecureTransport"
    Effect    = "Deny"
    Principal = "*"
    Action    = "sqs:*"
    Resource  = "*"
    Condition = { Bool = { "aws:SecureTransport" = "false" } }
  }
  tls_policy = jsonencode({ Version = "2012-10-17", Statement = [local.tls] })
  public_send = {
    Sid       = "AnyoneMaySend"
    Effect    = "Allow"
    Principal = "*"
    Action    = "sqs:SendMessage"
    Resource  = "${local.arn_prefix}:bad-public"
  }
}

resource "aws_sqs_queue" "dlq" {
  for_each                  = var.pairs
  name                      = "bad-${each.key}-dlq"
  message_retention_seconds = each.value.dlq_retention
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = each.value.dlq_sse
  policy                    = local.tls_policy
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = ["${local.arn_prefix}:${each.value.allow == "other" ? "someone-else" : local.src_name[each.key]}"]
  })
}

resource "aws_sqs_queue" "src" {
  for_each                  = var.pairs
  name                      = local.src_name[each.key]
  fifo_queue                = each.value.fifo
  message_retention_seconds = each.value.retention
  receive_wait_time_seconds = each.value.wait
  sqs_managed_sse_enabled   = each.value.sse
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = concat([local.tls], each.value.public ? [local.public_send] : [])
  })
  redrive_policy = jsonencode({
    deadLetterTargetArn = "${local.arn_prefix}:bad-${each.key}-dlq"
    maxReceiveCount     = each.value.mrc
  })
  depends_on = [aws_sqs_queue.dlq]
}

# No redrive policy at all.
resource "aws_sqs_queue" "nodlq" {
  name                      = "bad-nodlq"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_policy
}

# Neither sqs_managed_sse_enabled nor kms_master_key_id, and no queue policy.
resource "aws_sqs_queue" "defaults_dlq" {
  name                      = "bad-defaults-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_policy
}

resource "aws_sqs_queue" "defaults" {
  name                      = "bad-defaults"
  receive_wait_time_seconds = 20
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.defaults_dlq.arn
    maxReceiveCount     = 5
  })
}

# A failing message moves to the DLQ no sooner than delay + maxReceiveCount x visibility
# timeout after it was sent: at or past the retention it is deleted first (SQS012). One
# DLQ for three sources: 3 x 12 h against 1 day, 900 s + 4 x 6 h = exactly 1 day + 900 s,
# and 4 x 21599 s, which reaches the DLQ with seconds to spare.
locals {
  expiring = {
    expiring     = { visibility = 43200, delay = 0, mrc = 3 }
    delayed      = { visibility = 21600, delay = 900, mrc = 4 }
    just_in_time = { visibility = 21599, delay = 0, mrc = 4 }
  }
}

resource "aws_sqs_queue" "expiring_dlq" {
  name                      = "bad-expiring-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = local.tls_policy
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [for k in keys(local.expiring) : "${local.arn_prefix}:bad-${k}"]
  })
}

resource "aws_sqs_queue" "expiring" {
  for_each                   = local.expiring
  name                       = "bad-${each.key}"
  message_retention_seconds  = 86400
  visibility_timeout_seconds = each.value.visibility
  delay_seconds              = each.value.delay
  receive_wait_time_seconds  = 20
  sqs_managed_sse_enabled    = true
  policy                     = local.tls_policy
  redrive_policy = jsonencode({
    deadLetterTargetArn = "${local.arn_prefix}:bad-expiring-dlq"
    maxReceiveCount     = each.value.mrc
  })
  depends_on = [aws_sqs_queue.expiring_dlq]
}

resource "aws_cloudwatch_metric_alarm" "dlq_depth" {
  for_each            = merge({ for k, q in aws_sqs_queue.dlq : k => q.name }, { defaults = aws_sqs_queue.defaults_dlq.name, expiring = aws_sqs_queue.expiring_dlq.name })
  alarm_name          = "${each.value}-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = each.value }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanOrEqualToThreshold"
  threshold           = 1
  # the on-call topic (an existing one): the alarm pages someone, as CW001/CW002 require
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}

resource "aws_cloudwatch_metric_alarm" "age" {
  for_each            = merge({ for k, q in aws_sqs_queue.src : k => q.name }, { nodlq = aws_sqs_queue.nodlq.name, defaults = aws_sqs_queue.defaults.name }, { for k, q in aws_sqs_queue.expiring : "expiring-${k}" => q.name })
  alarm_name          = "${each.value}-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = each.value }
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 1800
  # the on-call topic (an existing one): the alarm pages someone, as CW001/CW002 require
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}
