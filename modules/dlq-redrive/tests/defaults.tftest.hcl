# Plan-mode checks of modules/dlq-redrive with the real AWS provider (no API calls).

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "offline-plan"
  secret_key                  = "offline-plan"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
}

variables {
  name         = "orders-dlq-redrive"
  dlq          = { url = "https://sqs.us-east-1.amazonaws.com/123456789012/orders-dlq", arn = "arn:aws:sqs:us-east-1:123456789012:orders-dlq" }
  source_queue = { url = "https://sqs.us-east-1.amazonaws.com/123456789012/orders", arn = "arn:aws:sqs:us-east-1:123456789012:orders" }
  archive      = { type = "s3", bucket_name = "orders-payloads" }
  # an errors alarm without notifications, on purpose (unset, the plan warns: see
  # run "unset_alarm_actions_warn")
  alarm_actions = []
}

run "defaults" {
  command = plan

  assert {
    condition     = aws_cloudwatch_event_rule.schedule.schedule_expression == "rate(5 minutes)" && aws_cloudwatch_event_rule.schedule.state == "ENABLED"
    error_message = "the redrive should run every 5 minutes by default"
  }
  assert {
    condition     = aws_lambda_function.this.reserved_concurrent_executions == 1
    error_message = "one run at a time: overlapping runs would race on the DLQ"
  }
  assert {
    condition = (
      aws_lambda_function.this.environment[0].variables["RATE_PER_SECOND"] == "10" &&
      aws_lambda_function.this.environment[0].variables["MAX_REDRIVE_COUNT"] == "3" &&
      aws_lambda_function.this.environment[0].variables["ARCHIVE_MODE"] == "s3" &&
      aws_lambda_function.this.environment[0].variables["ARCHIVE_BUCKET"] == "orders-payloads" &&
      aws_lambda_function.this.environment[0].variables["ARCHIVE_PREFIX"] == "dlq-archive/" &&
      aws_lambda_function.this.environment[0].variables["RECEIVE_VISIBILITY_TIMEOUT"] == "180"
    )
    error_message = "the function's environment should carry the module's settings"
  }
  assert {
    condition     = aws_lambda_function.this.source_code_hash == filebase64sha256("${path.module}/dist/dlq-redrive.zip")
    error_message = "the function should deploy the committed package"
  }
  assert {
    condition     = aws_cloudwatch_log_group.this.retention_in_days == 30 && aws_cloudwatch_log_group.this.name == "/aws/lambda/orders-dlq-redrive"
    error_message = "the log group should be the function's, with 30-day retention"
  }
  assert {
    condition     = aws_cloudwatch_metric_alarm.errors.metric_name == "Errors" && aws_cloudwatch_metric_alarm.errors.threshold == 0
    error_message = "an alarm should fire on any function error"
  }
  assert {
    condition = toset(flatten([for s in jsondecode(data.aws_iam_policy_document.function.json).Statement : s.Action])) == toset([
      "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:SendMessage", "sqs:GetQueueAttributes", "s3:PutObject",
    ])
    error_message = "the role should allow exactly the actions the function uses (no claim-check bucket: no payload look-ups)"
  }
  assert {
    condition     = one([for s in jsondecode(data.aws_iam_policy_document.function.json).Statement : s.Resource if s.Sid == "Archive"]) == "arn:aws:s3:::orders-payloads/dlq-archive/*"
    error_message = "archive writes should be limited to the archive prefix"
  }
}

run "claim_check_payload_lookups" {
  command = plan

  variables {
    claim_check_bucket = { name = "orders-payloads", payload_prefix = "payloads/" }
  }

  assert {
    condition = toset([for s in jsondecode(data.aws_iam_policy_document.function.json).Statement : jsonencode([s.Sid, s.Action, s.Resource]) if startswith(s.Sid, "ClaimCheck")]) == toset([
      jsonencode(["ClaimCheckPayloads", "s3:GetObject", "arn:aws:s3:::orders-payloads/payloads/*"]),
      jsonencode(["ClaimCheckPayloadKeys", "s3:ListBucket", "arn:aws:s3:::orders-payloads"]),
    ])
    error_message = "payload look-ups: GetObject under the payload prefix, ListBucket on the bucket (404 for a missing payload)"
  }
}

run "poison_queue_archive_and_kms" {
  command = plan

  variables {
    archive                        = { type = "queue", queue_url = "https://sqs.us-east-1.amazonaws.com/123456789012/orders-poison", queue_arn = "arn:aws:sqs:us-east-1:123456789012:orders-poison" }
    kms_key_arns                   = ["arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555"]
    enabled                        = false
    reserved_concurrent_executions = null
    permanent_failure_reasons      = ["VALIDATION_ERROR", "UNKNOWN_CUSTOMER"]
  }

  assert {
    condition     = aws_cloudwatch_event_rule.schedule.state == "DISABLED"
    error_message = "enabled = false should disable the schedule (kill switch)"
  }
  assert {
    condition     = toset(one([for s in jsondecode(data.aws_iam_policy_document.function.json).Statement : s.Resource if s.Sid == "Redrive"])) == toset(["arn:aws:sqs:us-east-1:123456789012:orders", "arn:aws:sqs:us-east-1:123456789012:orders-poison"])
    error_message = "sends should be allowed to the source and the poison queue only"
  }
  assert {
    condition     = length([for s in jsondecode(data.aws_iam_policy_document.function.json).Statement : s if s.Sid == "Archive"]) == 0
    error_message = "no S3 permission when archiving to a queue"
  }
  assert {
    condition     = one([for s in jsondecode(data.aws_iam_policy_document.function.json).Statement : s.Resource if s.Sid == "Kms"]) == "arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555"
    error_message = "KMS access should be limited to the given keys"
  }
  assert {
    condition     = jsondecode(aws_lambda_function.this.environment[0].variables["PERMANENT_FAILURE_REASONS"]) == ["VALIDATION_ERROR", "UNKNOWN_CUSTOMER"]
    error_message = "permanent failure reasons should reach the function as a JSON list"
  }
}

run "unset_alarm_actions_warn" {
  command = plan

  variables {
    alarm_actions = null # as if not given: the default
  }

  # the alarm notifies nobody, keeps its actions enabled (not silent on purpose), and
  # the plan warns
  assert {
    condition     = output.errors_alarm_actions.actions_enabled && length(coalesce(output.errors_alarm_actions.alarm_actions, toset([]))) == 0
    error_message = "without alarm_actions the alarm should notify nobody with its actions still enabled"
  }
  expect_failures = [check.errors_alarm_notifies_someone]
}

run "alarm_notifies_the_given_topic" {
  command = plan

  variables {
    alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
  }

  assert {
    condition = (
      output.errors_alarm_actions.actions_enabled &&
      output.errors_alarm_actions.alarm_actions == toset(["arn:aws:sns:us-east-1:123456789012:oncall"]) &&
      aws_cloudwatch_metric_alarm.errors.ok_actions == toset(["arn:aws:sns:us-east-1:123456789012:oncall"])
    )
    error_message = "the errors alarm should notify alarm_actions, on alarm and on recovery"
  }
}

run "empty_alarm_actions_says_silence_is_intended" {
  command = plan

  variables {
    alarm_actions = []
  }

  # no warning (the check holds): a run that expected it would fail
  assert {
    condition     = !output.errors_alarm_actions.actions_enabled && length(coalesce(output.errors_alarm_actions.alarm_actions, toset([]))) == 0
    error_message = "alarm_actions = [] should create the alarm with actions_enabled = false: silent on purpose"
  }
}

run "warning_left_to_the_caller" {
  command = plan

  variables {
    alarm_actions                  = null
    warn_when_alarms_notify_nobody = false
  }

  assert {
    condition     = output.errors_alarm_actions.actions_enabled && length(coalesce(output.errors_alarm_actions.alarm_actions, toset([]))) == 0
    error_message = "unset alarm_actions should still leave the alarm's actions enabled (silent by mistake), the caller warning"
  }
}
