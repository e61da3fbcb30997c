# Two outputs, each an object, rather than one output per value: Terraform's
# plan cost grows with the number of declared outputs times the number of
# module instances (the root module calls this module once per queue), and
# measured at 300 pairs each output costs about 0.9 s of plan CPU.

output "queue" {
  description = "The source queue: `name` (with .fifo for FIFO), `url`, `arn` (known after apply), `arn_static` (built from partition, region, account and name: known at plan time, for callers that would otherwise create a cycle, e.g. an SNS subscription referenced by the queue policy), `fifo`, `visibility_timeout_seconds` (derived from the consumer when not given), `message_retention_seconds`, `max_receive_count` (receives before a message moves to the DLQ) and `kms_master_key_id` (null with SSE-SQS)."
  value = {
    name                       = aws_sqs_queue.this.name
    url                        = aws_sqs_queue.this.url
    arn                        = aws_sqs_queue.this.arn
    arn_static                 = local.queue_arn_static
    fifo                       = var.fifo
    visibility_timeout_seconds = local.visibility_timeout
    message_retention_seconds  = var.message_retention_seconds
    max_receive_count          = var.max_receive_count
    kms_master_key_id          = var.kms_master_key_id
  }
}

output "dlq" {
  description = "The dead-letter queue: `name`, `url` (with `dlq_arn`: built from the ARN in the AWS form https://sqs.<region>.<dns suffix>/<account>/<name>), `arn` (known after apply when the module creates it; `dlq_arn` otherwise), `arn_static` (built at plan time), `created` (false with `dlq_arn`: an existing queue is used) and `message_retention_seconds` (null for an existing DLQ, whose retention is not managed here)."
  value = {
    name                      = local.create_dlq ? aws_sqs_queue.dlq[0].name : local.dlq_name
    url                       = local.create_dlq ? aws_sqs_queue.dlq[0].url : "https://sqs.${local.dlq_arn_parts[3]}.${local.dns_suffix}/${local.dlq_arn_parts[4]}/${local.dlq_arn_parts[5]}"
    arn                       = local.create_dlq ? aws_sqs_queue.dlq[0].arn : var.dlq_arn
    arn_static                = local.dlq_arn_static
    created                   = local.create_dlq
    message_retention_seconds = local.create_dlq ? var.dlq_message_retention_seconds : null
  }
}
