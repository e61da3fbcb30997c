output "queues" {
  description = "The queue pair: names, URLs, ARNs and effective settings."
  value       = module.messaging.queues
}

output "consumer_function_name" {
  description = "The consumer function, or null when create_function is false."
  value       = one(aws_lambda_function.consumer[*].function_name)
}

output "consumers" {
  description = "The event source mapping from the queue to the function."
  value       = module.messaging.consumers
}

output "consumer_role_arn" {
  description = "The consumer function's role."
  value       = aws_iam_role.consumer.arn
}

output "producer_role_arn" {
  description = "The producer role: may send to the queue and nothing else."
  value       = aws_iam_role.producer.arn
}
