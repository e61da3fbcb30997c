# Scheduled, throttled DLQ redrive with a poison-pill kill switch.
#
# The function's code is src/dlq_redrive.py; dist/dlq-redrive.zip is built from
# it deterministically by `python -m tooling.lambda_package` (no archive
# provider offline) and the test suite fails if the two disagree.

data "aws_partition" "current" {}

locals {
  package = "${path.module}/dist/dlq-redrive.zip"

  archive_to_s3 = var.archive.type == "s3"
  # objects the function may write: only under the archive prefix
  archive_object_arn = local.archive_to_s3 ? "arn:${data.aws_partition.current.partition}:s3:::${var.archive.bucket_name}/${var.archive.prefix}*" : null

  # messages received by a run stay hidden past the function's own timeout, so
  # a crashed run releases them to the next run instead of to a concurrent one
  receive_visibility_timeout = var.timeout_seconds + 60

  # the log group's ARN, built so the logs policy is known at plan time (a policy
  # checker can read it before merge): the function and its log group live in
  # its DLQ's account and region, the ones in the DLQ's ARN
  dlq_arn_parts = split(":", var.dlq.arn)
  log_group_arn = "arn:${data.aws_partition.current.partition}:logs:${local.dlq_arn_parts[3]}:${local.dlq_arn_parts[4]}:log-group:/aws/lambda/${var.name}"

  send_targets = compact([var.source_queue.arn, local.archive_to_s3 ? null : var.archive.queue_arn])

  # claim-check pointers: the function looks up (HeadObject) the payload a pointer names,
  # so a pointer whose payload is gone is archived as such instead of redriven in a loop
  claim_check          = var.claim_check_bucket
  claim_check_bucket   = local.claim_check == null ? null : "arn:${data.aws_partition.current.partition}:s3:::${local.claim_check.name}"
  claim_check_payloads = local.claim_check == null ? null : "${local.claim_check_bucket}/${local.claim_check.payload_prefix}*"

  # what src/dlq_redrive.py reads (Config.from_env)
  environment = {
    DLQ_URL                    = var.dlq.url
    SOURCE_QUEUE_URL           = var.source_queue.url
    RATE_PER_SECOND            = tostring(var.max_messages_per_second)
    MAX_MESSAGES_PER_RUN       = tostring(var.max_messages_per_run)
    MAX_REDRIVE_COUNT          = tostring(var.max_redrive_count)
    MAX_MESSAGE_AGE_SECONDS    = tostring(var.max_message_age_seconds)
    PERMANENT_FAILURE_REASONS  = jsonencode(var.permanent_failure_reasons)
    FAILURE_REASON_ATTRIBUTE   = var.failure_reason_attribute
    ARCHIVE_MODE               = var.archive.type
    ARCHIVE_BUCKET             = local.archive_to_s3 ? var.archive.bucket_name : ""
    ARCHIVE_PREFIX             = var.archive.prefix
    POISON_QUEUE_URL           = local.archive_to_s3 ? "" : var.archive.queue_url
    RECEIVE_VISIBILITY_TIMEOUT = tostring(local.receive_visibility_timeout)
    SAFETY_MARGIN_MS           = tostring(min(30000, var.timeout_seconds * 250))
  }
}

data "aws_iam_policy_document" "assume" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["lambda.amazonaws.com"]
    }
  }
}

data "aws_iam_policy_document" "function" {
  statement {
    sid       = "DrainDlq"
    actions   = ["sqs:ReceiveMessage", "sqs:DeleteMessage"]
    resources = [var.dlq.arn]
  }

  # GetQueueAttributes: each destination's MaximumMessageSize, read once per run, so a
  # message that can never fit it is archived instead of failing every run
  statement {
    sid       = "Redrive"
    actions   = ["sqs:SendMessage", "sqs:GetQueueAttributes"]
    resources = local.send_targets
  }

  dynamic "statement" {
    for_each = local.claim_check == null ? [] : [1]
    content {
      sid       = "ClaimCheckPayloads"
      actions   = ["s3:GetObject"]
      resources = [local.claim_check_payloads]
    }
  }

  # with ListBucket, HeadObject of a missing payload answers 404 (gone) rather than 403
  # (which the function cannot tell from a denial). Unconditioned: a HeadObject request
  # carries no s3:prefix, so a prefix condition would deny it and S3 would answer 403.
  # ListBucket reveals key names of this one bucket, no content.
  dynamic "statement" {
    for_each = local.claim_check == null ? [] : [1]
    content {
      sid       = "ClaimCheckPayloadKeys"
      actions   = ["s3:ListBucket"]
      resources = [local.claim_check_bucket]
    }
  }

  dynamic "statement" {
    for_each = local.archive_to_s3 ? [1] : []
    content {
      sid       = "Archive"
      actions   = ["s3:PutObject"]
      resources = [local.archive_object_arn]
    }
  }

  dynamic "statement" {
    for_each = length(var.kms_key_arns) > 0 ? [1] : []
    content {
      sid       = "Kms"
      actions   = ["kms:Decrypt", "kms:GenerateDataKey"]
      resources = var.kms_key_arns
    }
  }
}

resource "aws_iam_role" "this" {
  name               = "${var.name}-role"
  assume_role_policy = data.aws_iam_policy_document.assume.json
  tags               = var.tags
}

resource "aws_iam_role_policy" "this" {
  name   = "${var.name}-redrive"
  role   = aws_iam_role.this.id
  policy = data.aws_iam_policy_document.function.json
}

# jsonencode rather than a policy document data source: known at plan time.
resource "aws_iam_role_policy" "logs" {
  name = "${var.name}-logs"
  role = aws_iam_role.this.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid      = "Logs"
      Effect   = "Allow"
      Action   = ["logs:CreateLogStream", "logs:PutLogEvents"]
      Resource = "${local.log_group_arn}:*"
    }]
  })
}

resource "aws_cloudwatch_log_group" "this" {
  #checkov:skip=CKV_AWS_338:retention is the caller's log_retention_days (30 d default, up to 10 years); the log is an operational trail and each archived message carries its archive reason
  name              = "/aws/lambda/${var.name}"
  retention_in_days = var.log_retention_days
  kms_key_id        = var.log_kms_key_arn
  tags              = var.tags
}

resource "aws_lambda_function" "this" {
  #checkov:skip=CKV_AWS_117:the function only calls SQS/S3/KMS/Logs public endpoints; a VPC adds NAT cost and no isolation here
  #checkov:skip=CKV_AWS_116:a scheduled run that fails is retried by the next schedule; its messages stay in the DLQ
  #checkov:skip=CKV_AWS_272:code signing needs a signing profile the caller owns; the package is built deterministically and checked in CI
  #checkov:skip=CKV_AWS_173:the environment holds only queue URLs and tuning numbers, no secrets
  function_name = var.name
  description   = "Redrives ${var.dlq.arn} to ${var.source_queue.arn} at <= ${var.max_messages_per_second} msg/s; archives after ${var.max_redrive_count} redrives"
  role          = aws_iam_role.this.arn
  runtime       = var.runtime
  handler       = "dlq_redrive.handler"
  timeout       = var.timeout_seconds
  memory_size   = var.memory_size

  filename         = local.package
  source_code_hash = filebase64sha256(local.package)

  reserved_concurrent_executions = var.reserved_concurrent_executions

  tracing_config {
    mode = "Active"
  }

  environment {
    variables = local.environment
  }

  tags = var.tags

  depends_on = [aws_cloudwatch_log_group.this, aws_iam_role_policy.this, aws_iam_role_policy.logs]
}

resource "aws_cloudwatch_event_rule" "schedule" {
  name                = "${var.name}-schedule"
  description         = "Runs the DLQ redrive of ${var.dlq.arn}"
  schedule_expression = var.schedule_expression
  state               = var.enabled ? "ENABLED" : "DISABLED"
  tags                = var.tags
}

resource "aws_cloudwatch_event_target" "schedule" {
  rule = aws_cloudwatch_event_rule.schedule.name
  arn  = aws_lambda_function.this.arn
}

resource "aws_lambda_permission" "schedule" {
  statement_id  = "AllowScheduledRedrive"
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.this.function_name
  principal     = "events.amazonaws.com"
  source_arn    = aws_cloudwatch_event_rule.schedule.arn
}

resource "aws_cloudwatch_metric_alarm" "errors" {
  alarm_name          = "${var.name}-errors"
  alarm_description   = "The DLQ redrive function ${var.name} failed. Its messages stay in ${var.dlq.arn}. Read /aws/lambda/${var.name} (one JSON line per decision) and fix before the DLQ retention expires."
  namespace           = "AWS/Lambda"
  metric_name         = "Errors"
  dimensions          = { FunctionName = aws_lambda_function.this.function_name }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 1
  threshold           = 0
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  # alarm_actions = []: silent on purpose, and the alarm says so (plan checks read
  # actions_enabled = false as intended); unset: actions stay enabled with none, which
  # they read as silent by mistake, and the check below warns
  actions_enabled = length(var.alarm_actions == null ? ["unset"] : var.alarm_actions) > 0
  alarm_actions   = var.alarm_actions == null ? [] : var.alarm_actions
  ok_actions      = var.alarm_actions == null ? [] : var.alarm_actions
  tags            = var.tags
}

check "errors_alarm_notifies_someone" {
  assert {
    condition     = var.alarm_actions != null || !var.warn_when_alarms_notify_nobody
    error_message = "${var.input_prefix}alarm_actions: the CloudWatch alarm ${var.name}-errors (raised when the redrive function fails, while its messages stay in the DLQ) notifies nobody: alarm_actions is not set. Set ${var.input_prefix}alarm_actions to your on-call SNS topic's ARN. If an alarm without notifications is intended, set ${var.input_prefix}alarm_actions = [] (the alarm is then created with actions_enabled = false)."
  }
}
