variable "pairs" {
  description = "Per key, a queue/DLQ pair: `name` (the source queue's name as given, any prefix included; a `.fifo` suffix may be given or not), `fifo`, `dlq_name` (null: `<name>-dlq`), `create_dlq` (null: decided by `dlq_arn`) and `dlq_arn` (null or \"\": none)."
  type = map(object({
    name       = string
    fifo       = bool
    dlq_name   = optional(string)
    create_dlq = optional(bool)
    dlq_arn    = optional(string)
  }))
  nullable = false
}
