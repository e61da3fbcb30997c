output "uuid" {
  description = "UUID of the event source mapping."
  value       = aws_lambda_event_source_mapping.this.uuid
}

output "arn" {
  description = "ARN of the event source mapping."
  value       = aws_lambda_event_source_mapping.this.arn
}

output "function_name" {
  description = "The function the mapping invokes."
  value       = var.function_name
}

output "batch_size" {
  description = "Records per invocation."
  value       = var.batch_size
}

output "maximum_batching_window_seconds" {
  description = "Batching window in seconds (0 = none)."
  value       = var.maximum_batching_window_seconds
}

output "maximum_concurrency" {
  description = "Concurrency bound, or null for none."
  value       = var.maximum_concurrency
}

output "provisioned_poller_config" {
  description = "Provisioned mode's `minimum_pollers` and `maximum_pollers`, or null in standard mode."
  value       = var.provisioned_poller_config
}

output "report_batch_item_failures" {
  description = "Whether partial batch responses (ReportBatchItemFailures) are on."
  value       = var.report_batch_item_failures
}

output "minimum_visibility_timeout_seconds" {
  description = "6 x function timeout + batching window: the least visibility timeout the queue must have."
  value       = local.min_visibility
}
