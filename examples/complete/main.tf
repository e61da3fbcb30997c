# Everything on: two queue/DLQ pairs (one standard, one FIFO) with Lambda
# consumers, a claim-check bucket for large payloads, an idempotency table,
# least-privilege IAM policies per queue, alarms notifying an encrypted SNS
# topic, and a scheduled redrive function per DLQ.
module "messaging" {
  source = "../../"

  account_id = var.account_id

  queues = {
    "${var.name_prefix}-orders" = {
      # the mapping settings only where there is a mapping: without a function
      # (consumer_function_name = null) the module refuses them as doing nothing
      consumer = {
        timeout_seconds                 = 30
        maximum_batching_window_seconds = 5
        function_name                   = var.consumer_function_name
        batch_size                      = var.consumer_function_name == null ? null : 20
        maximum_concurrency             = var.consumer_function_name == null ? null : 5
      }
    }
    "${var.name_prefix}-payments" = {
      fifo                        = true
      content_based_deduplication = true
      consumer = {
        timeout_seconds = 20
        function_name   = var.consumer_function_name
      }
    }
  }

  claim_check_bucket = {
    enabled       = true
    name          = "${var.name_prefix}-claim-check"
    force_destroy = var.force_destroy
  }

  idempotency_table = {
    enabled                     = true
    name                        = "${var.name_prefix}-idempotency"
    deletion_protection_enabled = var.deletion_protection
  }

  # alarms are on by default (DLQ depth and critical age per queue pair); here
  # all six kinds, notifying an SNS topic the module creates, encrypted with a
  # key CloudWatch may use
  alarms = {
    create_sns_topic = true
    sns_topic_name   = "sqs-alarms-${var.name_prefix}-orders"
    kinds            = ["dlq_depth", "dlq_influx", "dlq_stale", "age_warning", "age_critical", "backlog"]
  }

  # automated, throttled redrive of both DLQs; messages redriven 3 times, too
  # old, or failed for good are archived under dlq-archive/ in the bucket
  dlq_redrive = {
    enabled                   = var.dlq_redrive_enabled
    max_messages_per_second   = 5
    permanent_failure_reasons = ["VALIDATION_ERROR"]
  }

  iam = {
    create_managed_policies = true
    path                    = "/${var.name_prefix}/"
  }

  tags = { example = "complete" }
}
