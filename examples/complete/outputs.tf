output "queues" {
  description = "Every queue pair: names, URLs, ARNs and effective settings."
  value       = module.messaging.queues
}

output "claim_check_bucket" {
  description = "The claim-check bucket: name, ARN, payload prefix and expiry."
  value       = module.messaging.claim_check_bucket
}

output "idempotency_table" {
  description = "The idempotency table and its Powertools settings."
  value       = module.messaging.idempotency_table
}

output "iam_policies" {
  description = "Per queue: producer, consumer and redrive-operator policy documents and managed policy ARNs."
  value       = module.messaging.iam_policies
}

output "alarms" {
  description = "The alarm topic, its key, and the alarm names and ARNs per queue."
  value       = module.messaging.alarms
}

output "consumers" {
  description = "The event source mappings (empty unless consumer_function_name is set)."
  value       = module.messaging.consumers
}

output "dlq_redrive" {
  description = "The redrive function of each DLQ: name, role, log group, schedule, error alarm, archive location (empty when dlq_redrive_enabled is false)."
  value       = module.messaging.dlq_redrive
}
