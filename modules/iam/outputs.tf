output "producer_policy_json" {
  description = "Producer policy document (JSON), or null when no producer queue and no bucket are given."
  value       = local.documents["producer"]
}

output "consumer_policy_json" {
  description = "Consumer policy document (JSON), or null when no consumer queue, bucket or table is given."
  value       = local.documents["consumer"]
}

output "redrive_operator_policy_json" {
  description = "Redrive-operator policy document (JSON), or null when no redrive pair is given."
  value       = local.documents["redrive-operator"]
}

output "policy_arns" {
  description = "ARNs of the managed policies created, keyed by role (producer, consumer, redrive-operator); empty unless create_managed_policies."
  value       = { for k, p in aws_iam_policy.this : k => p.arn }
}

output "policy_names" {
  description = "Names of the managed policies created, keyed by role; empty unless create_managed_policies."
  value       = { for k, p in aws_iam_policy.this : k => p.name }
}
