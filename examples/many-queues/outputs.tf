output "queues" {
  description = "Every queue pair: names, URLs, ARNs and effective settings."
  value       = module.messaging.queues
}
