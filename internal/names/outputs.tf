output "names" {
  description = "Per key: `base` (the name without `.fifo`), `suffix` (`.fifo` or \"\"), `create_dlq` (the pair creates its DLQ), `queue_name` and `dlq_name` (the existing DLQ's name when it is not created)."
  value       = local.names
}
