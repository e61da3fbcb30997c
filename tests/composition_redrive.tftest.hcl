# Root module: automated DLQ redrive composed per queue, archiving to the claim-check bucket.

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
  queues = {
    orders                                                               = {}
    payments                                                             = { fifo = true }
    "a-very-long-queue-name-that-needs-to-be-shortened-for-the-function" = {}
  }
  claim_check_bucket = { enabled = true, name = "acme-claim-check" }
}

run "off_by_default" {
  command = plan

  assert {
    condition     = length(module.dlq_redrive) == 0 && output.dlq_redrive == {}
    error_message = "automated redrive should be off unless enabled"
  }
}

run "one_function_per_dlq_archiving_to_the_bucket" {
  command = plan

  variables {
    dlq_redrive = { enabled = true, max_messages_per_second = 5, permanent_failure_reasons = ["VALIDATION_ERROR"] }
  }

  assert {
    condition     = toset(keys(module.dlq_redrive)) == toset(["orders", "payments", "a-very-long-queue-name-that-needs-to-be-shortened-for-the-function"])
    error_message = "every queue's DLQ should get a redrive function"
  }
  assert {
    condition     = module.dlq_redrive["orders"].function_name == "orders-dlq-redrive" && module.dlq_redrive["payments"].function_name == "payments-dlq-redrive"
    error_message = "function names: <queue name without .fifo>-dlq-redrive"
  }
  assert {
    condition     = length(module.dlq_redrive["a-very-long-queue-name-that-needs-to-be-shortened-for-the-function"].function_name) <= 55
    error_message = "long queue names should be shortened to a valid function name"
  }
  assert {
    condition = (
      module.dlq_redrive["orders"].environment["ARCHIVE_BUCKET"] == "acme-claim-check" &&
      module.dlq_redrive["orders"].environment["ARCHIVE_PREFIX"] == "dlq-archive/" &&
      module.dlq_redrive["orders"].environment["RATE_PER_SECOND"] == "5" &&
      module.dlq_redrive["orders"].environment["PERMANENT_FAILURE_REASONS"] == "[\"VALIDATION_ERROR\"]"
    )
    error_message = "the root settings should reach each function"
  }
  assert {
    condition = anytrue([
      for s in jsondecode(module.dlq_redrive["payments"].policy_json).Statement :
      s.Sid == "DrainDlq" && s.Resource == "arn:aws:sqs:us-east-1:123456789012:payments-dlq.fifo"
    ])
    error_message = "each function may drain only its own DLQ"
  }
  assert {
    condition = anytrue([
      for s in jsondecode(module.dlq_redrive["orders"].policy_json).Statement :
      s.Sid == "Archive" && s.Resource == "arn:aws:s3:::acme-claim-check/dlq-archive/*"
    ])
    error_message = "archive writes should be limited to the archive prefix of the claim-check bucket"
  }
}

run "selected_queues_and_own_bucket" {
  command = plan

  variables {
    claim_check_bucket = { enabled = false }
    dlq_redrive        = { enabled = true, queues = ["orders"], archive_bucket_name = "acme-dlq-archive", schedule_enabled = false }
  }

  assert {
    condition     = keys(module.dlq_redrive) == ["orders"]
    error_message = "only the listed queues should get a redrive function"
  }
  assert {
    condition     = module.dlq_redrive["orders"].environment["ARCHIVE_BUCKET"] == "acme-dlq-archive"
    error_message = "archive_bucket_name should win over the claim-check bucket"
  }
}

# whom the redrive functions' errors alarms notify (issue 23, section 4)

run "redrive_alarms_silent_on_purpose_with_the_queue_alarms" {
  command = plan

  variables {
    dlq_redrive = { enabled = true } # header: alarms.create_sns_topic = false
  }

  # no warning: a failing check would fail this run
  assert {
    condition     = alltrue([for m in module.dlq_redrive : !m.errors_alarm_actions.actions_enabled && length(coalesce(m.errors_alarm_actions.alarm_actions, toset([]))) == 0])
    error_message = "alarms.create_sns_topic = false should make the redrive alarms silent on purpose too (actions_enabled = false)"
  }
}

run "redrive_alarms_notifying_nobody_warn" {
  command = plan

  variables {
    alarms      = { enabled = false }
    dlq_redrive = { enabled = true }
  }

  assert {
    condition     = alltrue([for m in module.dlq_redrive : m.errors_alarm_actions.actions_enabled && length(coalesce(m.errors_alarm_actions.alarm_actions, toset([]))) == 0])
    error_message = "without dlq_redrive.alarm_actions or an alarms topic the redrive alarms notify nobody, actions still enabled (not on purpose)"
  }
  expect_failures = [check.redrive_alarms_notify_someone]
}

run "redrive_alarms_warn_with_the_queue_alarms_when_no_topic_is_given" {
  command = plan

  variables {
    alarms      = {}
    dlq_redrive = { enabled = true }
  }

  assert {
    condition     = module.dlq_redrive["orders"].errors_alarm_actions.actions_enabled
    error_message = "no topic and nothing said: the redrive alarms keep their actions enabled"
  }
  expect_failures = [check.alarms_notify_someone, check.redrive_alarms_notify_someone]
}

run "redrive_alarm_actions_empty_says_silence_is_intended" {
  command = plan

  variables {
    alarms      = { enabled = false }
    dlq_redrive = { enabled = true, alarm_actions = [] }
  }

  assert {
    condition     = alltrue([for m in module.dlq_redrive : !m.errors_alarm_actions.actions_enabled])
    error_message = "dlq_redrive.alarm_actions = [] should create the redrive alarms with actions_enabled = false, without a warning"
  }
}

run "redrive_alarms_notify_the_alarms_topic" {
  command = plan

  variables {
    alarms      = { sns_topic_arn = "arn:aws:sns:us-east-1:123456789012:oncall" }
    dlq_redrive = { enabled = true }
  }

  assert {
    condition     = alltrue([for m in module.dlq_redrive : m.errors_alarm_actions.actions_enabled && m.errors_alarm_actions.alarm_actions == toset(["arn:aws:sns:us-east-1:123456789012:oncall"])])
    error_message = "without dlq_redrive.alarm_actions the redrive alarms should notify alarms.sns_topic_arn"
  }
}

run "redrive_alarms_notify_the_created_topic" {
  command = plan

  variables {
    alarms      = { create_sns_topic = true, sns_topic_name = "sqs-alarms" }
    dlq_redrive = { enabled = true }
  }

  # the topic's ARN is known after apply; that there is one action is known at plan
  assert {
    condition     = alltrue([for m in module.dlq_redrive : m.errors_alarm_actions.actions_enabled])
    error_message = "the redrive alarms should notify the topic the module creates, with actions enabled"
  }
}

run "redrive_alarm_actions_override_the_topic" {
  command = plan

  variables {
    alarms      = { sns_topic_arn = "arn:aws:sns:us-east-1:123456789012:oncall" }
    dlq_redrive = { enabled = true, alarm_actions = ["arn:aws:sns:us-east-1:123456789012:redrive"] }
  }

  assert {
    condition     = module.dlq_redrive["orders"].errors_alarm_actions.alarm_actions == toset(["arn:aws:sns:us-east-1:123456789012:redrive"])
    error_message = "dlq_redrive.alarm_actions should be what the redrive alarms notify"
  }
}
