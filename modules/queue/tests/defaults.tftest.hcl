# Plan-mode checks of modules/queue with the real AWS provider (no API calls:
# dummy credentials, account ID given).

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "offline-plan"
  secret_key                  = "offline-plan"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
}

variables {
  name       = "orders"
  account_id = "123456789012"
}

run "safe_defaults" {
  command = plan

  assert {
    condition     = aws_sqs_queue.this.name == "orders" && aws_sqs_queue.dlq.name == "orders-dlq"
    error_message = "queue names: expected orders / orders-dlq"
  }
  assert {
    condition     = aws_sqs_queue.this.message_retention_seconds == 345600
    error_message = "source retention should default to 4 days"
  }
  assert {
    condition     = aws_sqs_queue.dlq.message_retention_seconds == 1209600
    error_message = "DLQ retention should default to 14 days"
  }
  assert {
    condition     = aws_sqs_queue.this.receive_wait_time_seconds == 20 && aws_sqs_queue.dlq.receive_wait_time_seconds == 20
    error_message = "both queues should long-poll for 20 s"
  }
  assert {
    condition     = aws_sqs_queue.this.sqs_managed_sse_enabled == true && aws_sqs_queue.dlq.sqs_managed_sse_enabled == true
    error_message = "SSE-SQS should be on for both queues when no KMS key is given"
  }
  assert {
    condition     = aws_sqs_queue.this.visibility_timeout_seconds == 30
    error_message = "without a consumer the visibility timeout should be the AWS default 30 s"
  }
  assert {
    condition     = jsondecode(aws_sqs_queue.dlq.redrive_allow_policy) == { redrivePermission = "byQueue", sourceQueueArns = ["arn:aws:sqs:us-east-1:123456789012:orders"] }
    error_message = "the DLQ's redrive-allow policy should name exactly its source queue"
  }
  assert {
    condition     = jsondecode(aws_sqs_queue.this.redrive_policy) == { deadLetterTargetArn = "arn:aws:sqs:us-east-1:123456789012:orders-dlq", maxReceiveCount = 5 }
    error_message = "the source's redrive policy should be known at plan time: the DLQ's built ARN and maxReceiveCount 5"
  }
  assert {
    condition     = output.queue_arn_static == "arn:aws:sqs:us-east-1:123456789012:orders" && output.dlq_arn_static == "arn:aws:sqs:us-east-1:123456789012:orders-dlq"
    error_message = "static ARNs should be built from partition, region, account and name"
  }
  assert {
    condition = alltrue([for p in [aws_sqs_queue.this.policy, aws_sqs_queue.dlq.policy] : anytrue([
      for s in jsondecode(p).Statement : s.Effect == "Deny" && s.Principal == "*" && s.Condition.Bool["aws:SecureTransport"] == "false"
    ])])
    error_message = "both queue policies should deny requests without TLS"
  }
  assert {
    condition     = aws_sqs_queue.dlq.tags["dlq_for"] == "orders"
    error_message = "the DLQ should be tagged with the queue it serves"
  }
}

run "visibility_derived_from_consumer" {
  command = plan

  variables {
    consumer = { timeout_seconds = 30, maximum_batching_window_seconds = 5 }
  }

  assert {
    condition     = aws_sqs_queue.this.visibility_timeout_seconds == 185
    error_message = "visibility should be 6 x 30 + 5 = 185 s"
  }
}

run "explicit_visibility_above_consumer_bound" {
  command = plan

  variables {
    consumer                   = { timeout_seconds = 10 }
    visibility_timeout_seconds = 600
  }

  assert {
    condition     = aws_sqs_queue.this.visibility_timeout_seconds == 600
    error_message = "an explicit visibility at or above the bound should be kept"
  }
}

run "fifo_pair" {
  command = plan

  variables {
    name                        = "payments.fifo"
    fifo                        = true
    content_based_deduplication = true
    deduplication_scope         = "messageGroup"
    fifo_throughput_limit       = "perMessageGroupId"
  }

  assert {
    condition     = aws_sqs_queue.this.name == "payments.fifo" && aws_sqs_queue.dlq.name == "payments-dlq.fifo"
    error_message = "the .fifo suffix should appear exactly once on both names"
  }
  assert {
    condition     = aws_sqs_queue.this.fifo_queue && aws_sqs_queue.dlq.fifo_queue
    error_message = "the DLQ of a FIFO queue must be FIFO"
  }
  assert {
    condition     = jsondecode(aws_sqs_queue.this.redrive_policy).deadLetterTargetArn == "arn:aws:sqs:us-east-1:123456789012:payments-dlq.fifo"
    error_message = "the redrive policy should name the FIFO DLQ by its built ARN (with .fifo)"
  }
  assert {
    condition     = aws_sqs_queue.this.deduplication_scope == "messageGroup" && aws_sqs_queue.this.fifo_throughput_limit == "perMessageGroupId"
    error_message = "high-throughput FIFO settings should be passed through"
  }
}

run "kms_encryption" {
  command = plan

  variables {
    kms_master_key_id                 = "alias/messaging"
    kms_data_key_reuse_period_seconds = 600
  }

  assert {
    condition     = aws_sqs_queue.this.kms_master_key_id == "alias/messaging" && aws_sqs_queue.dlq.kms_master_key_id == "alias/messaging"
    error_message = "both queues should use the KMS key"
  }
  assert {
    condition     = aws_sqs_queue.this.kms_data_key_reuse_period_seconds == 600
    error_message = "the data key reuse period should be passed through"
  }
}

run "custom_dlq_name_and_policy_statement" {
  command = plan

  variables {
    dlq_name = "orders-failed"
    queue_policy_statements = [{
      sid        = "AllowSnsSend"
      actions    = ["sqs:SendMessage"]
      principals = [{ type = "Service", identifiers = ["sns.amazonaws.com"] }]
      conditions = [{ test = "ArnEquals", variable = "aws:SourceArn", values = ["arn:aws:sns:us-east-1:123456789012:orders"] }]
    }]
  }

  assert {
    condition     = aws_sqs_queue.dlq.name == "orders-failed"
    error_message = "dlq_name should be used as given"
  }
  assert {
    condition     = length(jsondecode(aws_sqs_queue.this.policy).Statement) == 2
    error_message = "the extra statement should be added beside the TLS deny"
  }
}

run "partition_and_region_given" {
  command = plan

  variables {
    partition = "aws-cn"
    region    = "cn-north-1"
  }

  assert {
    condition     = output.queue_arn_static == "arn:aws-cn:sqs:cn-north-1:123456789012:orders" && output.dlq_arn_static == "arn:aws-cn:sqs:cn-north-1:123456789012:orders-dlq"
    error_message = "given partition and region should build the static ARNs"
  }
  assert {
    condition     = length(data.aws_partition.current) == 0 && length(data.aws_region.current) == 0
    error_message = "given partition and region should not be looked up again"
  }
}

run "default_policies_without_data_sources" {
  command = plan

  assert {
    condition     = length(data.aws_iam_policy_document.queue) == 0 && length(data.aws_iam_policy_document.dlq) == 0
    error_message = "without extra statements the queue policies should be written with jsonencode, not read from a data source per queue"
  }
  assert {
    condition = jsondecode(aws_sqs_queue.this.policy) == {
      Version = "2012-10-17"
      Statement = [{
        Sid       = "DenyInsecureTransport"
        Effect    = "Deny"
        Principal = "*"
        Action    = "sqs:*"
        Resource  = "arn:aws:sqs:us-east-1:123456789012:orders"
        Condition = { Bool = { "aws:SecureTransport" = "false" } }
      }]
    }
    error_message = "the default queue policy should be exactly the TLS-only deny on the queue"
  }
}

run "prevent_destroy_guard" {
  command = plan

  variables {
    prevent_destroy = true
  }

  # the guard that makes a plan deleting or replacing what it protects fail
  assert {
    condition     = length(terraform_data.prevent_destroy) == 1
    error_message = "prevent_destroy = true should create the guard"
  }
}

run "no_guard_by_default" {
  command = plan

  assert {
    condition     = length(terraform_data.prevent_destroy) == 0
    error_message = "no guard unless prevent_destroy = true"
  }
}
