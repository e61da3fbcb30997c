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
    condition     = aws_sqs_queue.this.name == "orders" && aws_sqs_queue.dlq[0].name == "orders-dlq"
    error_message = "queue names: expected orders / orders-dlq"
  }
  assert {
    condition     = aws_sqs_queue.this.message_retention_seconds == 345600
    error_message = "source retention should default to 4 days"
  }
  assert {
    condition     = aws_sqs_queue.dlq[0].message_retention_seconds == 1209600
    error_message = "DLQ retention should default to 14 days"
  }
  assert {
    condition     = aws_sqs_queue.this.receive_wait_time_seconds == 20 && aws_sqs_queue.dlq[0].receive_wait_time_seconds == 20
    error_message = "both queues should long-poll for 20 s"
  }
  assert {
    condition     = aws_sqs_queue.this.sqs_managed_sse_enabled == true && aws_sqs_queue.dlq[0].sqs_managed_sse_enabled == true
    error_message = "SSE-SQS should be on for both queues when no KMS key is given"
  }
  assert {
    condition     = aws_sqs_queue.this.visibility_timeout_seconds == 30
    error_message = "without a consumer the visibility timeout should be the AWS default 30 s"
  }
  assert {
    condition     = jsondecode(aws_sqs_queue.dlq[0].redrive_allow_policy) == { redrivePermission = "byQueue", sourceQueueArns = ["arn:aws:sqs:us-east-1:123456789012:orders"] }
    error_message = "the DLQ's redrive-allow policy should name exactly its source queue"
  }
  assert {
    condition     = jsondecode(aws_sqs_queue.this.redrive_policy) == { deadLetterTargetArn = "arn:aws:sqs:us-east-1:123456789012:orders-dlq", maxReceiveCount = 5 }
    error_message = "the source's redrive policy should be known at plan time: the DLQ's built ARN and maxReceiveCount 5"
  }
  assert {
    condition     = output.queue.arn_static == "arn:aws:sqs:us-east-1:123456789012:orders" && output.dlq.arn_static == "arn:aws:sqs:us-east-1:123456789012:orders-dlq"
    error_message = "static ARNs should be built from partition, region, account and name"
  }
  assert {
    condition = alltrue([for p in [aws_sqs_queue.this.policy, aws_sqs_queue.dlq[0].policy] : anytrue([
      for s in jsondecode(p).Statement : s.Effect == "Deny" && s.Principal == "*" && s.Condition.Bool["aws:SecureTransport"] == "false"
    ])])
    error_message = "both queue policies should deny requests without TLS"
  }
  assert {
    condition     = aws_sqs_queue.dlq[0].tags["dlq_for"] == "orders"
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
    condition     = aws_sqs_queue.this.name == "payments.fifo" && aws_sqs_queue.dlq[0].name == "payments-dlq.fifo"
    error_message = "the .fifo suffix should appear exactly once on both names"
  }
  assert {
    condition     = aws_sqs_queue.this.fifo_queue && aws_sqs_queue.dlq[0].fifo_queue
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
    condition     = aws_sqs_queue.this.kms_master_key_id == "alias/messaging" && aws_sqs_queue.dlq[0].kms_master_key_id == "alias/messaging"
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
    condition     = aws_sqs_queue.dlq[0].name == "orders-failed"
    error_message = "dlq_name should be used as given"
  }
  assert {
    condition     = length(jsondecode(aws_sqs_queue.this.policy).Statement) == 2
    error_message = "the extra statement should be added beside the TLS deny"
  }
}

run "existing_dlq_by_arn" {
  command = plan

  variables {
    dlq_arn = "arn:aws:sqs:us-east-1:123456789012:shared-dlq"
  }

  assert {
    condition     = length(aws_sqs_queue.dlq) == 0 && length(data.aws_iam_policy_document.dlq) == 0
    error_message = "no DLQ (nor its policy) should be created when dlq_arn is given"
  }
  assert {
    condition     = jsondecode(aws_sqs_queue.this.redrive_policy).deadLetterTargetArn == "arn:aws:sqs:us-east-1:123456789012:shared-dlq"
    error_message = "the redrive policy should name the given DLQ"
  }
  assert {
    condition     = output.dlq.name == "shared-dlq" && output.dlq.url == "https://sqs.us-east-1.amazonaws.com/123456789012/shared-dlq" && output.dlq.arn == var.dlq_arn && !output.dlq.created
    error_message = "the outputs should describe the existing DLQ"
  }
}

run "dlq_settings" {
  command = plan

  variables {
    fifo                                  = true
    kms_master_key_id                     = "alias/messaging"
    dlq_kms_data_key_reuse_period_seconds = 3600
    dlq_visibility_timeout_seconds        = 120
    dlq_delay_seconds                     = 5
    dlq_receive_wait_time_seconds         = 10
    dlq_content_based_deduplication       = true
    dlq_deduplication_scope               = "messageGroup"
    dlq_fifo_throughput_limit             = "perMessageGroupId"
    dlq_tags                              = { tier = "dlq" }
    dlq_redrive_allow_policy              = { sourceQueueArns = ["arn:aws:sqs:us-east-1:123456789012:legacy.fifo"] }
  }

  assert {
    condition = (aws_sqs_queue.dlq[0].visibility_timeout_seconds == 120 && aws_sqs_queue.dlq[0].delay_seconds == 5
      && aws_sqs_queue.dlq[0].receive_wait_time_seconds == 10 && aws_sqs_queue.dlq[0].content_based_deduplication
    && aws_sqs_queue.dlq[0].deduplication_scope == "messageGroup" && aws_sqs_queue.dlq[0].fifo_throughput_limit == "perMessageGroupId")
    error_message = "the dlq_* settings should be applied to the DLQ"
  }
  assert {
    condition     = aws_sqs_queue.dlq[0].kms_master_key_id == "alias/messaging" && aws_sqs_queue.dlq[0].kms_data_key_reuse_period_seconds == 3600
    error_message = "the DLQ should inherit the KMS key and take its own reuse period"
  }
  assert {
    condition     = aws_sqs_queue.dlq[0].tags == tomap({ tier = "dlq", dlq_for = "orders.fifo" })
    error_message = "dlq_tags should be merged, dlq_for kept"
  }
  assert {
    condition     = jsondecode(aws_sqs_queue.dlq[0].redrive_allow_policy) == { redrivePermission = "byQueue", sourceQueueArns = ["arn:aws:sqs:us-east-1:123456789012:orders.fifo", "arn:aws:sqs:us-east-1:123456789012:legacy.fifo"] }
    error_message = "the redrive-allow policy should name this queue and the extra sources"
  }
}

run "statement_spellings_of_aws_iam_policy_document" {
  command = plan

  variables {
    queue_policy_statements = [
      {
        sid        = "AllowSns"
        actions    = ["sqs:SendMessage"]
        principals = [{ type = "Service", identifiers = ["sns.amazonaws.com"] }]
        condition  = [{ test = "ArnEquals", variable = "aws:SourceArn", values = ["arn:aws:sns:us-east-1:123456789012:orders"] }]
      },
      {
        sid            = "OnlyOurRoles"
        effect         = "Deny"
        not_actions    = ["sqs:GetQueueAttributes"]
        not_principals = [{ type = "AWS", identifiers = ["arn:aws:iam::123456789012:role/orders"] }]
      },
    ]
  }

  assert {
    condition     = one([for s in jsondecode(aws_sqs_queue.this.policy).Statement : s.Condition.ArnEquals["aws:SourceArn"] if s.Sid == "AllowSns"]) == "arn:aws:sns:us-east-1:123456789012:orders"
    error_message = "a statement's `condition` must be kept (it pins the sender)"
  }
  assert {
    condition = one([for s in jsondecode(aws_sqs_queue.this.policy).Statement : [s.NotAction, s.NotPrincipal.AWS, s.Resource] if s.Sid == "OnlyOurRoles"]) == [
      "sqs:GetQueueAttributes", "arn:aws:iam::123456789012:role/orders", "arn:aws:sqs:us-east-1:123456789012:orders"
    ]
    error_message = "not_actions and not_principals must be kept in a Deny statement"
  }
}

run "whole_policy_documents" {
  command = plan

  variables {
    source_queue_policy_documents = [jsonencode({
      Version = "2012-10-17"
      Statement = [{
        Sid       = "FromEventBridge"
        Effect    = "Allow"
        Principal = { Service = "events.amazonaws.com" }
        Action    = "sqs:SendMessage"
        Condition = { ArnEquals = { "aws:SourceArn" = "arn:aws:events:us-east-1:123456789012:rule/orders" } }
      }]
    })]
    override_queue_policy_documents = [jsonencode({
      Version   = "2012-10-17"
      Statement = [{ Sid = "DenyOutsideOrg", Effect = "Deny", Principal = "*", Action = "sqs:SendMessage", Condition = { StringNotEquals = { "aws:PrincipalOrgID" = "o-exampleorgid" } } }]
    })]
  }

  assert {
    condition     = one([for s in jsondecode(aws_sqs_queue.this.policy).Statement : s.Effect if s.Sid == "DenyOutsideOrg"]) == "Deny"
    error_message = "an override document's statement should be in the policy"
  }

  assert {
    condition     = one([for s in jsondecode(aws_sqs_queue.this.policy).Statement : s.Resource if s.Sid == "FromEventBridge"]) == "arn:aws:sqs:us-east-1:123456789012:orders"
    error_message = "a document statement without Resource should get the queue's ARN"
  }
  assert {
    condition = one([for s in jsondecode(aws_sqs_queue.this.policy).Statement : s if s.Sid == "DenyInsecureTransport"]) == {
      Sid       = "DenyInsecureTransport", Effect = "Deny", Principal = "*", Action = "sqs:*", Resource = "arn:aws:sqs:us-east-1:123456789012:orders"
      Condition = { Bool = { "aws:SecureTransport" = "false" } }
    }
    error_message = "the TLS-only deny must stay as the module writes it beside override documents (one reusing its Sid is refused: modules/queue/tests/refusals.tftest.hcl)"
  }
}

run "partition_and_region_given" {
  command = plan

  variables {
    partition = "aws-cn"
    region    = "cn-north-1"
  }

  assert {
    condition     = output.queue.arn_static == "arn:aws-cn:sqs:cn-north-1:123456789012:orders" && output.dlq.arn_static == "arn:aws-cn:sqs:cn-north-1:123456789012:orders-dlq"
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

run "prevent_destroy_guard_with_an_existing_dlq" {
  command = plan

  variables {
    prevent_destroy = true
    dlq_arn         = "arn:aws:sqs:us-east-1:123456789012:shared-dlq"
  }

  assert {
    condition     = length(terraform_data.prevent_destroy) == 0 && length(terraform_data.prevent_destroy_queue) == 1 && length(aws_sqs_queue.dlq) == 0
    error_message = "the guard covers the queue alone when the DLQ is an existing one"
  }
}

# a message that fails every receive reaches the DLQ with a second to spare: plans
# (one second more is refused: refusals.tftest.hcl receives_times_visibility_equal_to_retention)
run "receives_times_visibility_just_below_retention" {
  command = plan

  variables {
    max_receive_count          = 2
    visibility_timeout_seconds = 43199
    delay_seconds              = 1
    message_retention_seconds  = 86400
  }

  assert {
    condition     = jsondecode(aws_sqs_queue.this.redrive_policy).maxReceiveCount == 2 && aws_sqs_queue.this.visibility_timeout_seconds == 43199
    error_message = "2 x 43199 s + 1 s delay = 86399 s is below the 86400 s retention: the pair must plan"
  }
}

# AWS's limits reached, not passed: 19 statements + the TLS-only deny = 20, 7 actions in one
# statement, condition operators with IfExists and a set prefix, 50 tags on the DLQ (49 +
# the module's dlq_for): plans
run "policy_and_tags_at_the_limits" {
  command = plan

  variables {
    queue_policy_statements = concat(
      [for i in range(17) : { sid = "Producer${i}", actions = ["sqs:SendMessage"], principals = [{ type = "AWS", identifiers = ["arn:aws:iam::123456789012:role/producer-${i}"] }] }],
      [{
        sid        = "Operator"
        actions    = ["sqs:SendMessage", "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:ListQueueTags"]
        principals = [{ type = "AWS", identifiers = ["*"] }]
        condition = [
          { test = "ForAnyValue:StringLikeIfExists", variable = "aws:PrincipalOrgPaths", values = ["o-abc123/r-ab12/ou-ab12-11111111/*"] },
          { test = "StringEquals", variable = "aws:PrincipalOrgID", values = ["o-abc123"] },
        ]
      }],
    )
    # a Deny to everyone with a condition keeps out only those it names
    source_queue_policy_documents = [jsonencode({
      Version   = "2012-10-17"
      Statement = [{ Sid = "OrgOnly", Effect = "Deny", Action = "sqs:*", Principal = "*", Condition = { StringNotEqualsIfExists = { "aws:PrincipalOrgID" = "o-abc123" }, Null = { "aws:PrincipalOrgID" = "false" } } }]
    })]
    tags = { for i in range(49) : "team-tag-${i}" => "x" }
  }

  assert {
    condition     = length(jsondecode(aws_sqs_queue.this.policy).Statement) == 20 && length(aws_sqs_queue.dlq[0].tags) == 50
    error_message = "20 statements (19 + the TLS-only deny) and 50 tags are within SQS's limits: they must plan"
  }
}
