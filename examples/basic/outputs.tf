output "queues" {
  description = "Every queue pair: names, URLs, ARNs and effective settings."
  value       = module.messaging.queues
}

output "iam_policies" {
  description = "Per queue: the producer, consumer and redrive-operator policy documents (JSON) to attach to whoever plays each role."
  value       = module.messaging.iam_policies
}
