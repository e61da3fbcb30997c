output "queue_name" {
  description = "Name of the source queue (with .fifo for FIFO)."
  value       = aws_sqs_queue.this.name
}

output "queue_url" {
  description = "URL of the source queue."
  value       = aws_sqs_queue.this.url
}

output "queue_arn" {
  description = "ARN of the source queue (known after apply)."
  value       = aws_sqs_queue.this.arn
}

output "queue_arn_static" {
  description = "ARN of the source queue built from partition, region, account and name: known at plan time, for callers that would otherwise create a cycle (e.g. an SNS subscription referenced by the queue policy)."
  value       = local.queue_arn_static
}

output "dlq_name" {
  description = "Name of the dead-letter queue (the existing one's, with `dlq_arn`)."
  value       = local.create_dlq ? aws_sqs_queue.dlq[0].name : local.dlq_name
}

output "dlq_url" {
  description = "URL of the dead-letter queue (with `dlq_arn`: built from the ARN in the AWS form https://sqs.<region>.<dns suffix>/<account>/<name>)."
  value       = local.create_dlq ? aws_sqs_queue.dlq[0].url : "https://sqs.${local.dlq_arn_parts[3]}.${local.dns_suffix}/${local.dlq_arn_parts[4]}/${local.dlq_arn_parts[5]}"
}

output "dlq_arn" {
  description = "ARN of the dead-letter queue (known after apply when the module creates it; `dlq_arn` otherwise)."
  value       = local.create_dlq ? aws_sqs_queue.dlq[0].arn : var.dlq_arn
}

output "dlq_arn_static" {
  description = "ARN of the dead-letter queue built at plan time (see queue_arn_static)."
  value       = local.dlq_arn_static
}

output "dlq_created" {
  description = "Whether the module created the DLQ (false with `dlq_arn`: an existing queue is used)."
  value       = local.create_dlq
}

output "fifo" {
  description = "Whether the pair is FIFO."
  value       = var.fifo
}

output "visibility_timeout_seconds" {
  description = "Visibility timeout applied to the source queue (derived from the consumer when not given)."
  value       = local.visibility_timeout
}

output "message_retention_seconds" {
  description = "Retention of the source queue in seconds."
  value       = var.message_retention_seconds
}

output "dlq_message_retention_seconds" {
  description = "Retention of the DLQ in seconds, or null for an existing DLQ (`dlq_arn`), whose retention is not managed here."
  value       = local.create_dlq ? var.dlq_message_retention_seconds : null
}

output "max_receive_count" {
  description = "Receives before a message moves to the DLQ."
  value       = var.max_receive_count
}

output "kms_master_key_id" {
  description = "KMS key used for SSE-KMS, or null when the queues use SSE-SQS."
  value       = var.kms_master_key_id
}
