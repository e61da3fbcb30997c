# Root module composition: queues + claim-check bucket + idempotency table +
# IAM documents + alarms + Lambda consumers, planned offline.

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
  queues = {
    orders = {
      dlq_message_retention_seconds = 777601 # 9 days + 1 s
      consumer = {
        timeout_seconds                 = 30
        maximum_batching_window_seconds = 5
        function_name                   = "orders-consumer"
        filter_patterns                 = ["{\"body\":{\"type\":[\"order\"]}}"]
      }
    }
    emails = {
      dlq_message_retention_seconds = 432000 # 5 days
    }
    "payments.fifo" = {
      fifo     = true
      consumer = { timeout_seconds = 20, function_name = "payments-consumer", maximum_concurrency = 4 }
    }
  }
  claim_check_bucket = { enabled = true, name = "acme-claim-check", queues = ["orders", "emails"] }
  idempotency_table  = { enabled = true, name = "acme-idempotency" }
}

run "everything_composed" {
  command = plan

  # bucket expiry: the longest DLQ retention among the queues it serves
  assert {
    condition     = output.claim_check_bucket.expiration_days == 10 && output.claim_check_bucket.name == "acme-claim-check"
    error_message = "expiry should be derived from orders-dlq (777601 s, rounded up to 10 days), not from payments (not served)"
  }
  assert {
    condition     = module.claim_check_bucket[0].min_expiration_days == 10 && toset(output.claim_check_bucket.queues) == toset(["orders", "emails"])
    error_message = "the bucket should serve exactly the listed queues"
  }
  assert {
    condition     = output.idempotency_table.name == "acme-idempotency" && output.idempotency_table.key_attr == "id" && output.idempotency_table.expiry_attr == "expiration"
    error_message = "the idempotency table should be created with the Powertools layout"
  }
  # IAM: per queue, named resources only
  assert {
    condition = alltrue(flatten([for k, p in output.iam_policies : [
      for d in [p.producer_policy_json, p.consumer_policy_json, p.redrive_operator_policy_json] : [
        for s in jsondecode(d).Statement :
        alltrue([for a in flatten([s.Action]) : !strcontains(a, "*")]) && alltrue([for r in flatten([s.Resource]) : r != "*"])
      ]
    ]]))
    error_message = "no policy document may contain a wildcard action or a \"*\" resource"
  }
  assert {
    condition = contains(
      flatten([for s in jsondecode(output.iam_policies["orders"].consumer_policy_json).Statement : flatten([s.Resource])]),
      "arn:aws:s3:::acme-claim-check/payloads/*"
    )
    error_message = "consumers of a served queue should read the payload prefix"
  }
  assert {
    condition = !contains(
      flatten([for s in jsondecode(output.iam_policies["payments.fifo"].producer_policy_json).Statement : flatten([s.Action])]),
      "s3:PutObject"
    )
    error_message = "producers of a queue the bucket does not serve get no S3 access"
  }
  assert {
    condition = contains(
      flatten([for s in jsondecode(output.iam_policies["payments.fifo"].consumer_policy_json).Statement : flatten([s.Resource])]),
      "arn:aws:dynamodb:us-east-1:123456789012:table/acme-idempotency"
    )
    error_message = "every consumer should get item access to the idempotency table"
  }
  assert {
    condition = [for s in jsondecode(output.iam_policies["emails"].redrive_operator_policy_json).Statement : flatten([s.Resource])] == [
      ["arn:aws:sqs:us-east-1:123456789012:emails-dlq"], ["arn:aws:sqs:us-east-1:123456789012:emails"]
    ]
    error_message = "the redrive operator of emails should move from emails-dlq to emails only"
  }
  assert {
    condition     = length(output.iam_policies["orders"].policy_arns) == 0 && length(module.iam) == 0
    error_message = "managed policies (and the per-queue modules/iam that makes them) should not be created by default"
  }
  # alarms on by default, for every queue
  assert {
    condition     = toset(keys(module.alarms[0].alarm_names)) == toset(["orders", "emails", "payments.fifo"])
    error_message = "every queue should have its alarms"
  }
  assert {
    condition     = module.alarms[0].alarm_names["payments.fifo"].dlq_depth == "sqs-dlq-not-empty-payments-dlq.fifo"
    error_message = "DLQ alarms should watch the DLQ"
  }
  # no topic and no key nobody asked for; the output and a plan warning say the alarms notify nobody
  assert {
    condition     = !module.alarms[0].sns_topic_created && module.alarms[0].kms_key_arn == null && output.alarms.notifies_nobody && output.alarms.sns_topic_arn == null
    error_message = "without sns_topic_arn or create_sns_topic = true, no topic or key should be created, and the output should say nobody is notified"
  }
  assert {
    condition = (
      module.alarms[0].alarm_names["orders"].dlq_depth != null && module.alarms[0].alarm_names["orders"].age_critical != null &&
      length([for n in values(module.alarms[0].alarm_names["orders"]) : n if n != null]) == 2
    )
    error_message = "the alarms themselves should still be created: by default the DLQ depth and critical age alarms"
  }

  expect_failures = [check.alarms_notify_someone]
  # consumers only where a function is named
  assert {
    condition     = toset(keys(module.consumer)) == toset(["orders", "payments.fifo"])
    error_message = "event source mappings only for queues whose consumer names a function"
  }
  assert {
    condition = (
      module.consumer["orders"].batch_size == 10 && module.consumer["orders"].maximum_concurrency == 10 &&
      module.consumer["orders"].report_batch_item_failures && module.consumer["orders"].minimum_visibility_timeout_seconds == 185 &&
      module.consumer["payments.fifo"].maximum_concurrency == 4
    )
    error_message = "consumer defaults (batch 10, concurrency 10, partial batch failures) and overrides should reach the mappings"
  }
  assert {
    condition     = output.queues["orders"].visibility_timeout_seconds == 185 && output.queues["payments.fifo"].visibility_timeout_seconds == 120
    error_message = "the consumer's timeout and window should still derive the queue's visibility"
  }
}

run "fifo_queue_extends_payload_expiry" {
  command = plan

  variables {
    alarms = { create_sns_topic = false }
    queues = {
      orders          = {}
      "payments.fifo" = { fifo = true, message_retention_seconds = 432000, dlq_message_retention_seconds = 864000 }
    }
    claim_check_bucket = { enabled = true, name = "acme-claim-check" }
  }

  assert {
    condition     = output.claim_check_bucket.expiration_days == 15
    error_message = "a FIFO message lives source + DLQ retention (5 + 10 = 15 days, its DLQ resets the enqueue time), longer than orders' 14-day DLQ"
  }
}

run "kms_keys_resolved_for_iam" {
  command = plan

  variables {
    alarms = { create_sns_topic = false }
    queues = {
      a = { kms_master_key_id = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab" }
      b = { kms_master_key_id = "0987dcba-09fe-87dc-65ba-ab0987654321" }
      c = { kms_master_key_id = "alias/aws/sqs" }
      d = {}
    }
    claim_check_bucket = { enabled = true, name = "acme-claim-check", queues = ["d"], kms_key_arn = "arn:aws:kms:us-east-1:123456789012:key/bbbbbbbb-2222-3333-4444-555555555555" }
    idempotency_table  = {}
  }

  assert {
    condition     = output.iam_policies["a"].producer_policy_json != null && contains(flatten([for s in jsondecode(output.iam_policies["a"].producer_policy_json).Statement : flatten([s.Resource]) if s.Sid == "EncryptWithKmsKeys"]), "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab")
    error_message = "a queue key ARN should be granted as is"
  }
  assert {
    condition     = contains(flatten([for s in jsondecode(output.iam_policies["b"].consumer_policy_json).Statement : flatten([s.Resource]) if s.Sid == "DecryptWithKmsKeys"]), "arn:aws:kms:us-east-1:123456789012:key/0987dcba-09fe-87dc-65ba-ab0987654321")
    error_message = "a bare key ID should be turned into the key's ARN"
  }
  assert {
    condition     = length([for s in jsondecode(output.iam_policies["c"].consumer_policy_json).Statement : s if s.Sid == "DecryptWithKmsKeys"]) == 0
    error_message = "the AWS-managed alias/aws/sqs needs no KMS grant"
  }
  assert {
    condition     = contains(flatten([for s in jsondecode(output.iam_policies["d"].producer_policy_json).Statement : flatten([s.Resource]) if s.Sid == "EncryptWithKmsKeys"]), "arn:aws:kms:us-east-1:123456789012:key/bbbbbbbb-2222-3333-4444-555555555555")
    error_message = "producers of a served queue should be able to encrypt with the bucket's key"
  }
  assert {
    condition     = output.idempotency_table == null && output.iam_policies["a"].consumer_policy_json != null && !strcontains(output.iam_policies["a"].consumer_policy_json, "dynamodb:")
    error_message = "without a table no DynamoDB access is granted"
  }
}

run "custom_alias_with_explicit_key_arns_and_managed_policies" {
  command = plan

  variables {
    alarms = { create_sns_topic = false }
    queues = { orders = { kms_master_key_id = "alias/messaging" } }
    iam = {
      create_managed_policies = true
      name_prefix             = "acme-"
      kms_key_arns            = ["arn:aws:kms:us-east-1:123456789012:key/cccccccc-2222-3333-4444-555555555555"]
    }
    claim_check_bucket = {}
    idempotency_table  = {}
  }

  assert {
    condition     = toset(keys(module.iam["orders"].policy_names)) == toset(["producer", "consumer", "redrive-operator"]) && module.iam["orders"].policy_names["consumer"] == "acme-orders-consumer"
    error_message = "managed policies should be created as <prefix><queue name>-<role>"
  }
  assert {
    condition     = strcontains(module.iam["orders"].producer_policy_json, "arn:aws:kms:us-east-1:123456789012:key/cccccccc-2222-3333-4444-555555555555")
    error_message = "iam.kms_key_arns should be granted"
  }
  assert {
    condition     = module.iam["orders"].consumer_policy_json == output.iam_policies["orders"].consumer_policy_json && module.iam["orders"].producer_policy_json == output.iam_policies["orders"].producer_policy_json
    error_message = "the managed policies should hold the documents the iam_policies output gives"
  }
}

run "alarms_disabled_and_nothing_optional" {
  command = plan

  variables {
    queues             = { orders = {} }
    alarms             = { enabled = false }
    claim_check_bucket = {}
    idempotency_table  = {}
  }

  assert {
    condition     = output.alarms == null && output.claim_check_bucket == null && output.idempotency_table == null && output.consumers == {}
    error_message = "switched-off parts should create nothing and output null"
  }
  assert {
    condition     = output.iam_policies["orders"].producer_policy_json != null
    error_message = "IAM documents are always output"
  }
}

run "alarms_to_given_topic" {
  command = plan

  variables {
    queues             = { orders = { alarm_thresholds = { backlog_messages = 50 } } }
    alarms             = { sns_topic_arn = "arn:aws:sns:us-east-1:123456789012:oncall", kinds = ["dlq_depth", "age_warning", "age_critical", "backlog"], thresholds = { age_warning_seconds = 120 } }
    claim_check_bucket = {}
    idempotency_table  = {}
  }

  assert {
    condition     = module.alarms[0].alarm_names["orders"].backlog == "sqs-backlog-orders" && module.alarms[0].alarm_names["orders"].age_warning != null && module.alarms[0].alarm_names["orders"].dlq_stale == null
    error_message = "alarms.kinds should create exactly the kinds it lists"
  }

  assert {
    condition     = output.alarms.sns_topic_arn == "arn:aws:sns:us-east-1:123456789012:oncall" && output.alarms.kms_key_arn == null
    error_message = "a given topic should be used and no topic or key created"
  }
  assert {
    condition     = module.alarms[0].thresholds["orders"].backlog_messages == 50 && module.alarms[0].thresholds["orders"].age_warning_seconds == 120 && module.alarms[0].thresholds["orders"].age_critical_seconds == 1800
    error_message = "per-queue and module-wide thresholds should reach the alarms; unset ones keep the defaults"
  }
}

run "alarm_topic_and_key_created_when_asked" {
  command = plan

  variables {
    alarms = { create_sns_topic = true, sns_topic_name = "orders-alarms" }
  }

  assert {
    condition     = module.alarms[0].sns_topic_created && output.alarms.notifies_nobody == false && length(module.alarms[0].alarm_names) == 3
    error_message = "create_sns_topic = true should create the topic (and its key)"
  }
}

run "alarms_without_topic_on_purpose" {
  command = plan

  variables {
    alarms = { create_sns_topic = false }
  }

  assert {
    condition     = !module.alarms[0].sns_topic_created && output.alarms.notifies_nobody
    error_message = "create_sns_topic = false: no topic, no warning (the check passes), and the output still says so"
  }
}
