# Refusals the root module itself makes (refusals inside submodules are
# covered by each module's tests/refusals.tftest.hcl, and through the root by
# tests/modules/test_refusals.py). Messages are asserted there too.

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
  queues = { orders = {} }
}

run "bucket_enabled_without_name" {
  command = plan
  variables {
    claim_check_bucket = { enabled = true }
  }
  expect_failures = [var.claim_check_bucket]
}

run "bucket_serves_unknown_queue" {
  command = plan
  variables {
    claim_check_bucket = { enabled = true, name = "acme-claim-check", queues = ["orders", "invoices"] }
  }
  expect_failures = [output.claim_check_bucket]
}

run "table_enabled_without_name" {
  command = plan
  variables {
    idempotency_table = { enabled = true }
  }
  expect_failures = [var.idempotency_table]
}

run "root_iam_kms_alias_arn_refused" {
  command = plan
  variables {
    iam = { kms_key_arns = ["arn:aws:kms:us-east-1:123456789012:alias/messaging"] }
  }
  expect_failures = [output.iam_policies]
}

run "custom_kms_alias_without_key_arns" {
  command = plan
  variables {
    queues = { orders = { kms_master_key_id = "alias/messaging" } }
  }
  expect_failures = [output.iam_policies]
}

run "account_id_not_12_digits" {
  command = plan
  variables {
    account_id = "12345"
  }
  expect_failures = [var.account_id]
}

run "redrive_unknown_queue" {
  command = plan
  variables {
    claim_check_bucket = { enabled = true, name = "acme-claim-check" }
    dlq_redrive        = { enabled = true, queues = ["orders", "invoices"] }
  }
  expect_failures = [output.dlq_redrive]
}

run "redrive_without_archive_bucket" {
  command = plan
  variables {
    dlq_redrive = { enabled = true }
  }
  expect_failures = [output.dlq_redrive]
}

run "redrive_archive_under_expiring_payload_prefix" {
  command = plan
  variables {
    claim_check_bucket = { enabled = true, name = "acme-claim-check" }
    dlq_redrive        = { enabled = true, archive_prefix = "payloads/archive/" }
  }
  expect_failures = [output.dlq_redrive]
}

run "queues_not_a_map" {
  command = plan
  variables {
    queues = ["orders"]
  }
  expect_failures = [var.queues]
}

run "name_prefix_with_a_slash" {
  command = plan
  variables {
    name_prefix = "prod/"
  }
  expect_failures = [var.name_prefix]
}

run "shared_dlq_keeps_messages_no_longer_than_the_source" {
  command = plan
  variables {
    queues = {
      errors = {}
      orders = { dlq_arn = "arn:aws:sqs:us-east-1:123456789012:errors", message_retention_seconds = 1209600 }
    }
  }
  expect_failures = [output.queues]
}

run "redrive_of_an_existing_dlq" {
  command = plan
  variables {
    queues             = { orders = { dlq_arn = "arn:aws:sqs:us-east-1:123456789012:shared-dlq" } }
    claim_check_bucket = { enabled = true, name = "acme-claim-check" }
    dlq_redrive        = { enabled = true, queues = ["orders"] }
  }
  expect_failures = [output.dlq_redrive]
}

run "tag_key_reserved_by_aws" {
  command = plan
  variables {
    tags = { "aws:team" = "orders", team = "orders" }
  }
  expect_failures = [var.tags]
}

run "tag_value_too_long" {
  command = plan
  variables {
    tags = { team = "orders", note = "${join("", [for i in range(30) : "0123456789"])}" }
  }
  expect_failures = [var.tags]
}

run "bucket_serves_nothing" {
  command = plan
  variables {
    claim_check_bucket = { enabled = true, name = "acme-claim-check", queues = [] }
  }
  expect_failures = [output.claim_check_bucket]
}

run "fewer_kms_key_arns_than_aliases" {
  command = plan
  variables {
    queues = {
      orders   = { kms_master_key_id = "alias/orders" }
      payments = { kms_master_key_id = "alias/payments" }
    }
    iam = { kms_key_arns = ["arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"] }
  }
  expect_failures = [output.iam_policies]
}

run "kms_key_arn_of_another_region" {
  command = plan
  variables {
    queues = { orders = { kms_master_key_id = "alias/orders" } }
    iam    = { kms_key_arns = ["arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"] }
  }
  expect_failures = [output.iam_policies]
}

run "redrive_covers_no_dlq" {
  command = plan
  variables {
    dlq_redrive = { enabled = true, queues = [], archive_bucket_name = "acme-dlq-archive" }
  }
  expect_failures = [output.dlq_redrive]
}

run "table_without_queues" {
  command = plan
  variables {
    queues            = {}
    idempotency_table = { enabled = true, name = "acme-idempotency" }
  }
  expect_failures = [output.idempotency_table]
}

run "tag_value_null" {
  command = plan
  variables {
    tags = { team = null }
  }
  expect_failures = [var.tags]
}

# --- issue #34 §2/§3: lifecycle and apply-time limits --------------------------------

run "alarm_topic_in_another_region" {
  command = plan
  variables {
    alarms = { sns_topic_arn = "arn:aws:sns:eu-west-1:123456789012:oncall" }
  }
  expect_failures = [output.alarms]
}

run "alarm_topic_in_another_partition" {
  command = plan
  variables {
    alarms = { sns_topic_arn = "arn:aws-us-gov:sns:us-east-1:123456789012:oncall" }
  }
  expect_failures = [output.alarms]
}

run "redrive_alarm_action_in_another_region" {
  command = plan
  variables {
    dlq_redrive = { enabled = true, archive_bucket_name = "acme-dlq-archive", alarm_actions = ["arn:aws:sns:us-west-2:123456789012:oncall"] }
  }
  expect_failures = [output.dlq_redrive]
}

run "table_kms_key_in_another_region" {
  command = plan
  variables {
    idempotency_table = { enabled = true, name = "acme-idempotency", kms_key_arn = "arn:aws:kms:eu-central-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab" }
  }
  expect_failures = [output.idempotency_table]
}

run "queue_kms_key_in_another_partition" {
  command = plan
  variables {
    queues = { orders = { kms_master_key_id = "arn:aws-cn:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab" } }
  }
  expect_failures = [output.iam_policies]
}

run "consumer_function_in_another_region" {
  command = plan
  variables {
    queues = { orders = { consumer = { timeout_seconds = 30, function_name = "arn:aws:lambda:eu-west-1:123456789012:function:orders-consumer" } } }
  }
  expect_failures = [output.consumers]
}

run "iam_policy_names_differ_only_in_case" {
  command = plan
  variables {
    queues = { Orders = {}, orders = {} }
    iam    = { create_managed_policies = true }
  }
  expect_failures = [output.iam_policies]
}

run "iam_policy_names_collide_after_fifo_rewrite" {
  command = plan
  variables {
    queues = { orders-fifo = {}, orders = { fifo = true } }
    iam    = { create_managed_policies = true }
  }
  expect_failures = [output.iam_policies]
}

run "redrive_function_names_collide" {
  command = plan
  variables {
    queues      = { orders = {}, "orders.fifo" = { fifo = true } }
    dlq_redrive = { enabled = true, archive_bucket_name = "acme-dlq-archive" }
  }
  expect_failures = [output.dlq_redrive]
}
