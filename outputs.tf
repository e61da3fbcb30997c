output "queues" {
  description = "Per queue key: name, url, arn and arn_static of the source queue; dlq_name, dlq_url, dlq_arn and dlq_arn_static of its DLQ; the effective visibility_timeout_seconds, message_retention_seconds, dlq_message_retention_seconds, max_receive_count and fifo."
  value = {
    for k, m in module.queue : k => {
      name                          = m.queue_name
      url                           = m.queue_url
      arn                           = m.queue_arn
      arn_static                    = m.queue_arn_static
      dlq_name                      = m.dlq_name
      dlq_url                       = m.dlq_url
      dlq_arn                       = m.dlq_arn
      dlq_arn_static                = m.dlq_arn_static
      fifo                          = m.fifo
      visibility_timeout_seconds    = m.visibility_timeout_seconds
      message_retention_seconds     = m.message_retention_seconds
      dlq_message_retention_seconds = m.dlq_message_retention_seconds
      max_receive_count             = m.max_receive_count
    }
  }
}

output "queue_urls" {
  description = "Map of queue key to source queue URL."
  value       = { for k, m in module.queue : k => m.queue_url }
}

output "queue_arns" {
  description = "Map of queue key to source queue ARN."
  value       = { for k, m in module.queue : k => m.queue_arn }
}

output "dlq_urls" {
  description = "Map of queue key to DLQ URL."
  value       = { for k, m in module.queue : k => m.dlq_url }
}

output "dlq_arns" {
  description = "Map of queue key to DLQ ARN."
  value       = { for k, m in module.queue : k => m.dlq_arn }
}
