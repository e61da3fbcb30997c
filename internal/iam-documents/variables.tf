variable "sets" {
  description = "Per key, what one set of documents grants (the inputs of modules/iam of the same names): producer_queue_arns, consumer_queue_arns, consumer_dlq_arns, redrive (dlq_arn/source_queue_arn pairs), payload_bucket_arn and payload_prefix, idempotency_table_arn, kms_key_arns. The callers validate them."
  type = map(object({
    producer_queue_arns = list(string)
    consumer_queue_arns = list(string)
    consumer_dlq_arns   = list(string)
    redrive = list(object({
      dlq_arn          = string
      source_queue_arn = string
    }))
    payload_bucket_arn    = string
    payload_prefix        = string
    idempotency_table_arn = string
    kms_key_arns          = list(string)
  }))
  nullable = false
}
