# How a queue/DLQ pair is named: the one place the rule is written. The root
# module's internal/inputs names every queue with it (for the name checks, the
# ARNs of a shared DLQ and the alarms, which must not wait for the queues), and
# modules/queue names its own pair with it, so the two always agree.
#
# - the source queue: the name without a `.fifo` suffix (the base), plus `.fifo`
#   for a FIFO queue (SQS requires the suffix on FIFO queues and refuses it on
#   standard ones);
# - the DLQ the pair creates: `dlq_name` (again without `.fifo`), or
#   `<base>-dlq`, plus `.fifo` for a FIFO pair (the DLQ of a FIFO queue is FIFO);
# - an existing DLQ (`dlq_arn`): the last part of its ARN.
#
# Whether the pair creates its DLQ: `create_dlq` when given (it must be given
# when `dlq_arn` is known only after apply, so that which resources exist is
# known at plan), else when there is no `dlq_arn`.

locals {
  names = {
    for k, p in var.pairs : k => {
      base       = trimsuffix(p.name, ".fifo")
      suffix     = p.fifo ? ".fifo" : ""
      create_dlq = local.create_dlq[k]
      queue_name = "${trimsuffix(p.name, ".fifo")}${p.fifo ? ".fifo" : ""}"
      dlq_name = (local.create_dlq[k]
        ? "${p.dlq_name != null ? trimsuffix(p.dlq_name, ".fifo") : "${trimsuffix(p.name, ".fifo")}-dlq"}${p.fifo ? ".fifo" : ""}"
        : try(element(split(":", p.dlq_arn), 5), "") # no dlq_arn although create_dlq = false: refused by modules/queue
      )
    }
  }
  create_dlq = { for k, p in var.pairs : k => p.create_dlq != null ? p.create_dlq : (p.dlq_arn == null || p.dlq_arn == "") }
}
