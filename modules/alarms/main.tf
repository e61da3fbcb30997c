# CloudWatch alarms for queue/DLQ pairs, notifying an SNS topic.
#
# Per DLQ: depth (any visible message), rapid influx (messages added per
# minute), stale (oldest message older than an hour: failures nobody looks at).
# Per source queue: age of the oldest message (warning and critical) and
# backlog. Every alarm uses the QueueName dimension; its name says which queue
# and what is wrong, its description what to do.
#
# `kinds` picks which of them are created. By default two per pair: the DLQ's
# depth and the source queue's critical age, the two a stack needs so that no
# failed message and no stalled consumer goes unseen (the plan checker's CW001
# and CW002). Each further kind is one more alarm per queue (CloudWatch bills
# each) and one more resource per queue in every plan.

data "aws_partition" "current" {}
data "aws_region" "current" {}

data "aws_caller_identity" "current" {
  count = local.create_topic && var.account_id == null ? 1 : 0
}

locals {
  create_topic = length(var.queues) > 0 && coalesce(var.create_sns_topic, var.sns_topic_arn == null)
  create_key   = local.create_topic && var.sns_kms_master_key_id == null
  account_id   = var.account_id != null ? var.account_id : one(data.aws_caller_identity.current[*].account_id)
  partition    = data.aws_partition.current.partition
  region       = data.aws_region.current.id

  first_queue = length(var.queues) > 0 ? trimsuffix(sort([for q in values(var.queues) : q.queue_name])[0], ".fifo") : ""
  # The name of the created topic is the caller's (sns_topic_name, required then):
  # a default built from the queues (it was the first queue's name) changed when a
  # queue was added, replacing the topic and deleting its subscriptions.
  topic_name        = coalesce(var.sns_topic_name, local.former_topic_name)
  former_topic_name = "${var.alarm_name_prefix}sqs-alarms-${local.first_queue}"
  topic_arn_static  = "arn:${local.partition}:sns:${local.region}:${coalesce(local.account_id, "000000000000")}:${local.topic_name}"

  topic_arn     = local.create_topic ? aws_sns_topic.alarms[0].arn : var.sns_topic_arn
  alarm_actions = local.topic_arn == null ? null : [local.topic_arn]
  ok_actions    = var.notify_on_ok ? local.alarm_actions : null
  # no topic, and the caller said that is intended (create_sns_topic = false): the
  # alarms act on nothing, and say so (plan checks read actions_enabled = false as
  # "silent on purpose"; with actions enabled and none given, they warn)
  actions_enabled = !(var.sns_topic_arn == null && var.create_sns_topic == false)

  # module-wide thresholds, overridden per queue where given
  thresholds = {
    for k, q in var.queues : k => merge(var.thresholds, { for name, v in q.thresholds : name => v if v != null })
  }
  name_prefix = var.alarm_name_prefix

  # Age alarms whose threshold the metric can never exceed: a message is deleted at the
  # retention age (for a DLQ: its retention; a standard queue's message keeps its enqueue
  # time when it moves, so it is deleted even sooner), so the alarm stays OK while
  # messages expire unseen.
  age_alarms = {
    age_warning  = { attr = "age_warning_seconds", dlq = false }
    age_critical = { attr = "age_critical_seconds", dlq = false }
    dlq_stale    = { attr = "dlq_stale_age_seconds", dlq = true }
  }
  # by kind (not filtered by var.kinds here: its validation reads this)
  never_firing = { for kind, a in local.age_alarms : kind => [
    for k, q in var.queues : format(
      "%s = %d s is not below the message retention of %s %s, %d s (%s): SQS deletes a message at that age, so the oldest message is never older than the retention and the %s alarm could never fire while messages %s. Set %s below %d s (well below: the alarm must leave time to act), or raise the retention.",
      q.thresholds[a.attr] != null ? "${coalesce(q.input_name, "queues[\"${k}\"].thresholds")}.${a.attr}" : "${var.input_prefix}thresholds.${a.attr}",
      local.thresholds[k][a.attr],
      a.dlq ? "DLQ" : "queue", a.dlq ? q.dlq_name : q.queue_name,
      a.dlq ? q.dlq_retention_seconds : q.retention_seconds,
      coalesce(a.dlq ? q.dlq_retention_input : q.retention_input, "queues[\"${k}\"].${a.dlq ? "dlq_" : ""}retention_seconds"),
      kind, a.dlq ? "wait unattended in the DLQ until they are deleted" : "expire unprocessed",
      a.attr, a.dlq ? q.dlq_retention_seconds : q.retention_seconds,
    )
    if(a.dlq ? q.dlq_alarms && q.dlq_retention_seconds != null : q.retention_seconds != null) && try(local.thresholds[k][a.attr] >= (a.dlq ? q.dlq_retention_seconds : q.retention_seconds), false)
  ] }

  # The queues each kind of alarm is created for, as a map of key => key, not
  # of the queue objects: Terraform re-evaluates a resource's for_each for each
  # instance it plans and walks the whole value every time, so for_each over N
  # objects costs N x N object walks. A map of strings keeps that walk small (a
  # set would be sorted by value each time, which costs more). Each alarm reads
  # its queue as var.queues[each.key].
  alarmed = {
    for kind in ["dlq_depth", "dlq_influx", "dlq_stale", "age_warning", "age_critical", "backlog"] : kind => {
      for k, q in var.queues : k => k if contains(var.kinds, kind) && (q.dlq_alarms || !startswith(kind, "dlq_"))
    }
  }
}

# --- notification topic ------------------------------------------------------

# CloudWatch can only publish to an encrypted topic whose key policy lets the
# cloudwatch.amazonaws.com service principal use the key; the AWS-managed
# alias/aws/sns key cannot, so the module creates a customer-managed key.
#
# A key policy, not an IAM policy: "Resource": "*" means this key. The first
# statement is AWS's default key policy (the account administers the key
# through IAM policies); without it the key could not be managed at all.
locals {
  alarm_key_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        Sid       = "EnableIamPolicies"
        Effect    = "Allow"
        Principal = { AWS = "arn:${local.partition}:iam::${coalesce(local.account_id, "000000000000")}:root" }
        Action    = "kms:*"
        Resource  = "*"
      },
      {
        Sid       = "AllowCloudWatchAlarmsToPublish"
        Effect    = "Allow"
        Principal = { Service = "cloudwatch.amazonaws.com" }
        Action    = ["kms:GenerateDataKey", "kms:Decrypt"]
        Resource  = "*"
      },
    ]
  })
}

resource "aws_kms_key" "alarms" {
  count = local.create_key ? 1 : 0

  description             = "Encrypts the SNS topic ${local.topic_name} for SQS alarm notifications"
  enable_key_rotation     = true
  deletion_window_in_days = 7
  policy                  = local.alarm_key_policy
  tags                    = var.tags
}

data "aws_iam_policy_document" "topic" {
  count = local.create_topic ? 1 : 0

  statement {
    sid       = "AllowCloudWatchAlarmsToPublish"
    actions   = ["sns:Publish"]
    resources = [local.topic_arn_static]

    principals {
      type        = "Service"
      identifiers = ["cloudwatch.amazonaws.com"]
    }

    condition {
      test     = "StringEquals"
      variable = "aws:SourceAccount"
      values   = [local.account_id]
    }
  }

  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["sns:Publish"]
    resources = [local.topic_arn_static]

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

resource "aws_sns_topic" "alarms" {
  count = local.create_topic ? 1 : 0

  name              = local.topic_name
  kms_master_key_id = local.create_key ? aws_kms_key.alarms[0].arn : var.sns_kms_master_key_id
  policy            = data.aws_iam_policy_document.topic[0].json
  tags              = var.tags

  lifecycle {
    precondition {
      condition     = !(var.create_sns_topic == true && var.sns_topic_arn != null)
      error_message = "${var.input_prefix}create_sns_topic: true together with ${var.input_prefix}sns_topic_arn (${coalesce(var.sns_topic_arn, "-")}). Give an existing topic or ask for a new one, not both: remove ${var.input_prefix}create_sns_topic to notify the existing topic."
    }
  }
}

# --- DLQ alarms ----------------------------------------------------------------

resource "aws_cloudwatch_metric_alarm" "dlq_depth" {
  for_each = local.alarmed.dlq_depth

  alarm_name        = "${local.name_prefix}sqs-dlq-not-empty-${var.queues[each.key].dlq_name}"
  alarm_description = "Dead-letter queue ${var.queues[each.key].dlq_name} (DLQ of ${var.queues[each.key].queue_name}) has messages: each one failed processing maxReceiveCount times. To do: inspect a sample on ${var.queues[each.key].dlq_name} without deleting it, fix the cause in the consumer of ${var.queues[each.key].queue_name}, then redrive the messages to ${var.queues[each.key].queue_name} (StartMessageMoveTask, or 'Start DLQ redrive' in the console)."

  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = var.queues[each.key].dlq_name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  treat_missing_data  = "notBreaching"

  actions_enabled = local.actions_enabled
  alarm_actions   = local.alarm_actions
  ok_actions      = local.ok_actions
  tags            = var.tags
}

resource "aws_cloudwatch_metric_alarm" "dlq_influx" {
  for_each = local.alarmed.dlq_influx

  alarm_name        = "${local.name_prefix}sqs-dlq-influx-${var.queues[each.key].dlq_name}"
  alarm_description = "More than ${local.thresholds[each.key].dlq_influx_messages} messages per minute arrived in dead-letter queue ${var.queues[each.key].dlq_name} for ${local.thresholds[each.key].dlq_influx_evaluation_periods} consecutive minutes: the consumer of ${var.queues[each.key].queue_name} is failing systematically (bad deploy, downstream outage, poison batch). To do: check the consumer's errors and recent deploys, roll back or disable its event source mapping, and redrive ${var.queues[each.key].dlq_name} once fixed."

  metric_query {
    id          = "visible"
    return_data = false

    metric {
      namespace   = "AWS/SQS"
      metric_name = "ApproximateNumberOfMessagesVisible"
      dimensions  = { QueueName = var.queues[each.key].dlq_name }
      stat        = "Maximum"
      period      = 60
    }
  }

  metric_query {
    id          = "added"
    expression  = "DIFF(visible)"
    label       = "Messages added to ${var.queues[each.key].dlq_name} per minute"
    return_data = true
  }

  evaluation_periods  = local.thresholds[each.key].dlq_influx_evaluation_periods
  comparison_operator = "GreaterThanThreshold"
  threshold           = local.thresholds[each.key].dlq_influx_messages
  treat_missing_data  = "notBreaching"

  actions_enabled = local.actions_enabled
  alarm_actions   = local.alarm_actions
  ok_actions      = local.ok_actions
  tags            = var.tags
}

resource "aws_cloudwatch_metric_alarm" "dlq_stale" {
  for_each = local.alarmed.dlq_stale

  alarm_name        = "${local.name_prefix}sqs-dlq-stale-${var.queues[each.key].dlq_name}"
  alarm_description = "The oldest message in dead-letter queue ${var.queues[each.key].dlq_name} (DLQ of ${var.queues[each.key].queue_name}) is older than ${local.thresholds[each.key].dlq_stale_age_seconds} s: failed messages are waiting unattended and are deleted when the DLQ retention runs out. To do: triage them now; redrive to ${var.queues[each.key].queue_name} after the fix, or archive and delete them deliberately."

  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = var.queues[each.key].dlq_name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = local.thresholds[each.key].dlq_stale_age_seconds
  treat_missing_data  = "notBreaching"

  actions_enabled = local.actions_enabled
  alarm_actions   = local.alarm_actions
  ok_actions      = local.ok_actions
  tags            = var.tags
}

# --- source queue alarms -------------------------------------------------------

resource "aws_cloudwatch_metric_alarm" "age_warning" {
  for_each = local.alarmed.age_warning

  alarm_name        = "${local.name_prefix}sqs-oldest-message-warning-${var.queues[each.key].queue_name}"
  alarm_description = "WARNING: the oldest message in ${var.queues[each.key].queue_name} has waited more than ${local.thresholds[each.key].age_warning_seconds} s: its consumer is falling behind or failing. To do: check the consumer's errors, throttles and concurrency limit (maximum_concurrency, reserved concurrency); scale it or fix it before messages reach the DLQ or expire."

  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = var.queues[each.key].queue_name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = local.thresholds[each.key].age_warning_seconds
  treat_missing_data  = "notBreaching"

  actions_enabled = local.actions_enabled
  alarm_actions   = local.alarm_actions
  ok_actions      = local.ok_actions
  tags            = var.tags
}

resource "aws_cloudwatch_metric_alarm" "age_critical" {
  for_each = local.alarmed.age_critical

  alarm_name        = "${local.name_prefix}sqs-oldest-message-critical-${var.queues[each.key].queue_name}"
  alarm_description = "CRITICAL: the oldest message in ${var.queues[each.key].queue_name} has waited more than ${local.thresholds[each.key].age_critical_seconds} s: processing is stalled and messages will expire when the queue's retention runs out. To do now: check whether the consumer runs at all (event source mapping enabled, function errors, permissions, KMS access), fix or roll back, and scale it to drain the backlog."

  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = var.queues[each.key].queue_name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = local.thresholds[each.key].age_critical_seconds
  treat_missing_data  = "notBreaching"

  actions_enabled = local.actions_enabled
  alarm_actions   = local.alarm_actions
  ok_actions      = local.ok_actions
  tags            = var.tags
}

resource "aws_cloudwatch_metric_alarm" "backlog" {
  for_each = local.alarmed.backlog

  alarm_name        = "${local.name_prefix}sqs-backlog-${var.queues[each.key].queue_name}"
  alarm_description = "More than ${local.thresholds[each.key].backlog_messages} messages have been waiting in ${var.queues[each.key].queue_name} for ${local.thresholds[each.key].backlog_evaluation_periods} minutes: producers outpace the consumer. To do: check the consumer's throughput and errors; raise its concurrency or batch size if downstream can take it, or slow the producers."

  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = var.queues[each.key].queue_name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = local.thresholds[each.key].backlog_evaluation_periods
  comparison_operator = "GreaterThanThreshold"
  threshold           = local.thresholds[each.key].backlog_messages
  treat_missing_data  = "notBreaching"

  actions_enabled = local.actions_enabled
  alarm_actions   = local.alarm_actions
  ok_actions      = local.ok_actions
  tags            = var.tags
}
