# Root module: the queues map, shared defaults and per-queue overrides.

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "offline-plan"
  secret_key                  = "offline-plan"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
}

variables {
  account_id = "123456789012"
  # alarms without a topic, on purpose (the plan would warn otherwise)
  alarms = { create_sns_topic = false }
}

run "defaults_then_overrides" {
  command = plan

  variables {
    queue_defaults = {
      max_receive_count         = 3
      message_retention_seconds = 172800
    }
    queues = {
      orders = {
        consumer = { timeout_seconds = 20 }
      }
      emails = {
        max_receive_count = 4
        tags              = { team = "mail" }
      }
    }
    tags = { owner = "platform" }
  }

  assert {
    condition     = output.queues["orders"].max_receive_count == 3 && output.queues["emails"].max_receive_count == 4
    error_message = "a per-queue value should win over queue_defaults"
  }
  assert {
    condition     = output.queues["orders"].message_retention_seconds == 172800 && output.queues["emails"].message_retention_seconds == 172800
    error_message = "queue_defaults should apply to every queue"
  }
  assert {
    condition     = output.queues["orders"].dlq_message_retention_seconds == 1209600
    error_message = "unset attributes should take the module default"
  }
  assert {
    condition     = output.queues["orders"].visibility_timeout_seconds == 120 && output.queues["emails"].visibility_timeout_seconds == 30
    error_message = "visibility: derived from the consumer (6 x 20), else 30"
  }
  assert {
    condition     = module.queue["emails"].queue.name == "emails" && module.queue["emails"].dlq.name == "emails-dlq"
    error_message = "queue names come from the map keys"
  }
  assert {
    condition     = output.queues["emails"].arn_static == "arn:aws:sqs:us-east-1:123456789012:emails"
    error_message = "static ARNs are known at plan time"
  }
}

run "fifo_from_defaults_and_name_override" {
  command = plan

  variables {
    queue_defaults = { fifo = true }
    queues = {
      payments = { name = "payments-v2", content_based_deduplication = true }
      standard = { fifo = false }
    }
  }

  assert {
    condition     = output.queues["payments"].name == "payments-v2.fifo" && output.queues["payments"].dlq_name == "payments-v2-dlq.fifo"
    error_message = "name override and FIFO default should combine"
  }
  assert {
    condition     = output.queues["standard"].fifo == false && output.queues["standard"].name == "standard"
    error_message = "an explicit fifo = false should win over the default"
  }
}

run "account_looked_up_when_not_given" {
  command = plan

  override_data {
    target = data.aws_caller_identity.current[0]
    values = { account_id = "210987654321" }
  }

  variables {
    account_id = null
    queues     = { orders = {} }
  }

  assert {
    condition     = output.queues["orders"].arn_static == "arn:aws:sqs:us-east-1:210987654321:orders"
    error_message = "without account_id the caller identity should be used"
  }
}

run "refuses_bad_queue_key" {
  command = plan

  variables {
    queues = { "orders v2" = {} }
  }

  expect_failures = [var.queues]
}

run "alarm_names_agree_with_the_queues" {
  command = plan

  variables {
    queue_defaults = { fifo = true }
    queues = {
      orders = {}
      "payments.fifo" = {
        dlq_name = "payments-failed.fifo"
      }
      emails = {
        name     = "mail-out"
        fifo     = false
        dlq_name = "mail-out-parking"
      }
      shared = { dlq_arn = "arn:aws:sqs:us-east-1:123456789012:elsewhere-dlq.fifo" }
    }
    name_prefix = "prod-"
  }

  # the alarms take the pair names from internal/inputs (local.queues), not from module.queue
  assert {
    condition = alltrue([for k, m in module.queue : alltrue([
      module.alarms[0].alarm_names[k].dlq_depth == "sqs-dlq-not-empty-${m.dlq.name}",
      module.alarms[0].alarm_names[k].age_critical == "sqs-oldest-message-critical-${m.queue.name}",
      local.queues[k].queue_name == m.queue.name, local.queues[k].dlq_final == m.dlq.name,
    ])])
    error_message = "the alarms' queue and DLQ names should be exactly the names modules/queue gives the pair"
  }
  assert {
    condition = (module.queue["orders"].dlq.name == "prod-orders-dlq.fifo" && module.queue["payments.fifo"].dlq.name == "prod-payments-failed.fifo"
    && module.queue["emails"].queue.name == "prod-mail-out" && module.queue["shared"].dlq.name == "elsewhere-dlq.fifo")
    error_message = "the cases should cover the FIFO suffix, a given DLQ name, a name override, a name prefix and an existing DLQ"
  }
}
