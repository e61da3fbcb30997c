output "function_name" {
  description = "Name of the redrive function."
  value       = aws_lambda_function.this.function_name
}

output "function_arn" {
  description = "ARN of the redrive function."
  value       = aws_lambda_function.this.arn
}

output "role_arn" {
  description = "ARN of the function's execution role."
  value       = aws_iam_role.this.arn
}

output "policy_json" {
  description = "The execution role's data-plane policy (SQS, S3, KMS): exactly the actions the function uses, on the named resources. Log writes are a second role policy on the function's log group."
  value       = data.aws_iam_policy_document.function.json
}

output "log_group_name" {
  description = "Log group holding one JSON line per redrive decision."
  value       = aws_cloudwatch_log_group.this.name
}

output "schedule_rule_name" {
  description = "EventBridge rule that runs the function."
  value       = aws_cloudwatch_event_rule.schedule.name
}

output "errors_alarm_name" {
  description = "Alarm on the function's errors."
  value       = aws_cloudwatch_metric_alarm.errors.alarm_name
}

output "errors_alarm_actions" {
  description = "Whom the errors alarm notifies: `actions_enabled` (false when `alarm_actions = []` says an alarm without notifications is intended) and `alarm_actions` (empty when it notifies nobody)."
  value = {
    actions_enabled = aws_cloudwatch_metric_alarm.errors.actions_enabled
    alarm_actions   = aws_cloudwatch_metric_alarm.errors.alarm_actions
  }
}

output "environment" {
  description = "The function's configuration as environment variables (what src/dlq_redrive.py reads)."
  value       = local.environment
}

output "archive" {
  description = "Where messages that are not redriven are archived: `type`, and `bucket_name` + `prefix` (s3) or `queue_url` + `queue_arn` (queue)."
  value       = var.archive
}
