output "sns_topic_arn" {
  description = "Topic the alarms notify (created or given), or null when they notify nothing."
  value       = local.topic_arn
}

output "sns_topic_created" {
  description = "Whether the module created the topic."
  value       = local.create_topic
}

output "kms_key_arn" {
  description = "ARN of the KMS key the module created for the topic, or null."
  value       = one(aws_kms_key.alarms[*].arn)
}

output "alarm_names" {
  description = "Alarm names per queue key: dlq_depth, dlq_influx, dlq_stale, age_warning, age_critical, backlog; null for a kind not in `kinds` (and for the DLQ alarms where `dlq_alarms` is false)."
  value = {
    for k in keys(var.queues) : k => {
      dlq_depth    = try(aws_cloudwatch_metric_alarm.dlq_depth[k].alarm_name, null)
      dlq_influx   = try(aws_cloudwatch_metric_alarm.dlq_influx[k].alarm_name, null)
      dlq_stale    = try(aws_cloudwatch_metric_alarm.dlq_stale[k].alarm_name, null)
      age_warning  = try(aws_cloudwatch_metric_alarm.age_warning[k].alarm_name, null)
      age_critical = try(aws_cloudwatch_metric_alarm.age_critical[k].alarm_name, null)
      backlog      = try(aws_cloudwatch_metric_alarm.backlog[k].alarm_name, null)
    }
  }
}

output "alarm_arns" {
  description = "Alarm ARNs per queue key, same shape as alarm_names."
  value = {
    for k in keys(var.queues) : k => {
      dlq_depth    = try(aws_cloudwatch_metric_alarm.dlq_depth[k].arn, null)
      dlq_influx   = try(aws_cloudwatch_metric_alarm.dlq_influx[k].arn, null)
      dlq_stale    = try(aws_cloudwatch_metric_alarm.dlq_stale[k].arn, null)
      age_warning  = try(aws_cloudwatch_metric_alarm.age_warning[k].arn, null)
      age_critical = try(aws_cloudwatch_metric_alarm.age_critical[k].arn, null)
      backlog      = try(aws_cloudwatch_metric_alarm.backlog[k].arn, null)
    }
  }
}

output "thresholds" {
  description = "Effective thresholds per queue key (module-wide values merged with the queue's overrides)."
  value       = local.thresholds
}
