# Plan-mode checks of modules/iam: what each role may do, on which named
# resources, and that no document has a wildcard action or a "*" resource.

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "offline-plan"
  secret_key                  = "offline-plan"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
}

variables {
  producer_queue_arns = ["arn:aws:sqs:us-east-1:123456789012:orders"]
  consumer_queue_arns = ["arn:aws:sqs:us-east-1:123456789012:orders"]
  redrive = [{
    dlq_arn          = "arn:aws:sqs:us-east-1:123456789012:orders-dlq"
    source_queue_arn = "arn:aws:sqs:us-east-1:123456789012:orders"
  }]
  payload_bucket_arn    = "arn:aws:s3:::orders-claim-check"
  idempotency_table_arn = "arn:aws:dynamodb:us-east-1:123456789012:table/orders-idempotency"
  kms_key_arns          = ["arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"]
}

run "every_role_least_privilege" {
  command = plan

  assert {
    condition = jsonencode({
      for s in jsondecode(output.producer_policy_json).Statement : s.Sid => [sort(flatten([s.Action])), sort(flatten([s.Resource]))]
      }) == jsonencode({
      SendToQueues          = [["sqs:SendMessage"], ["arn:aws:sqs:us-east-1:123456789012:orders"]]
      PutClaimCheckPayloads = [["s3:PutObject"], ["arn:aws:s3:::orders-claim-check/payloads/*"]]
      EncryptWithKmsKeys    = [["kms:Decrypt", "kms:GenerateDataKey"], ["arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"]]
    })
    error_message = "producer: SendMessage on the queue, PutObject on the payload prefix, GenerateDataKey+Decrypt on the key, nothing else"
  }
  assert {
    condition = jsonencode({
      for s in jsondecode(output.consumer_policy_json).Statement : s.Sid => [sort(flatten([s.Action])), sort(flatten([s.Resource]))]
      }) == jsonencode({
      ConsumeQueues         = [["sqs:ChangeMessageVisibility", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:ReceiveMessage"], ["arn:aws:sqs:us-east-1:123456789012:orders"]]
      GetClaimCheckPayloads = [["s3:GetObject"], ["arn:aws:s3:::orders-claim-check/payloads/*"]]
      IdempotencyRecords    = [["dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"], ["arn:aws:dynamodb:us-east-1:123456789012:table/orders-idempotency"]]
      DecryptWithKmsKeys    = [["kms:Decrypt"], ["arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"]]
    })
    error_message = "consumer: receive/delete/change-visibility/attributes on the queue, GetObject on payloads, item access on the table, Decrypt on the key, nothing else"
  }
  assert {
    condition = jsonencode({
      for s in jsondecode(output.redrive_operator_policy_json).Statement : s.Sid => [sort(flatten([s.Action])), sort(flatten([s.Resource]))]
      }) == jsonencode({
      MoveMessagesOutOfDlqs = [
        ["sqs:CancelMessageMoveTask", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:ListDeadLetterSourceQueues", "sqs:ListMessageMoveTasks", "sqs:ReceiveMessage", "sqs:StartMessageMoveTask"],
        ["arn:aws:sqs:us-east-1:123456789012:orders-dlq"],
      ]
      SendRedrivenMessagesToSources = [["sqs:GetQueueAttributes", "sqs:SendMessage"], ["arn:aws:sqs:us-east-1:123456789012:orders"]]
      ReencryptWithKmsKeys          = [["kms:Decrypt", "kms:GenerateDataKey"], ["arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"]]
    })
    error_message = "redrive operator: move-task actions and reads on the DLQ, SendMessage on the source, both KMS actions"
  }
  assert {
    condition = alltrue([
      for d in [output.producer_policy_json, output.consumer_policy_json, output.redrive_operator_policy_json] : alltrue([
        for s in jsondecode(d).Statement :
        s.Effect == "Allow" && alltrue([for a in flatten([s.Action]) : !strcontains(a, "*")]) && alltrue([for r in flatten([s.Resource]) : r != "*" && startswith(r, "arn:aws:")])
      ])
    ])
    error_message = "no document may contain a wildcard action or a \"*\" resource"
  }
  assert {
    condition     = output.policy_arns == {}
    error_message = "managed policies should not be created unless asked for"
  }
}

run "only_what_is_given" {
  command = plan

  variables {
    consumer_queue_arns   = ["arn:aws:sqs:us-east-1:123456789012:emails.fifo"]
    producer_queue_arns   = []
    redrive               = []
    payload_bucket_arn    = null
    idempotency_table_arn = null
    kms_key_arns          = []
  }

  assert {
    condition     = output.producer_policy_json == null && output.redrive_operator_policy_json == null
    error_message = "roles with nothing to grant should have no document"
  }
  assert {
    condition     = [for s in jsondecode(output.consumer_policy_json).Statement : s.Sid] == ["ConsumeQueues"]
    error_message = "the consumer should get only the queue statement"
  }
}

run "consumer_dead_letters_permanent_failures" {
  command = plan

  variables {
    consumer_dlq_arns = ["arn:aws:sqs:us-east-1:123456789012:orders-dlq"]
  }

  assert {
    condition = jsonencode({
      for s in jsondecode(output.consumer_policy_json).Statement : s.Sid => [sort(flatten([s.Action])), sort(flatten([s.Resource]))]
      if contains(["DeadLetterPermanentFailures", "DecryptWithKmsKeys"], s.Sid)
      }) == jsonencode({
      DeadLetterPermanentFailures = [["sqs:SendMessage"], ["arn:aws:sqs:us-east-1:123456789012:orders-dlq"]]
      DecryptWithKmsKeys          = [["kms:Decrypt", "kms:GenerateDataKey"], ["arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"]]
    })
    error_message = "consumer with DLQs: SendMessage on exactly the DLQs, and GenerateDataKey to send to an SSE-KMS one"
  }
}

run "managed_policies" {
  command = plan

  variables {
    create_managed_policies = true
    name                    = "orders"
    path                    = "/messaging/"
  }

  assert {
    condition     = toset(keys(aws_iam_policy.this)) == toset(["producer", "consumer", "redrive-operator"])
    error_message = "one managed policy per role"
  }
  assert {
    condition     = aws_iam_policy.this["consumer"].name == "orders-consumer" && aws_iam_policy.this["redrive-operator"].path == "/messaging/"
    error_message = "policies should be named <name>-<role> under the given path"
  }
  assert {
    condition     = jsonencode(jsondecode(aws_iam_policy.this["producer"].policy)) == jsonencode(jsondecode(output.producer_policy_json))
    error_message = "the managed policy should carry exactly the output document"
  }
}

run "whole_bucket_prefix" {
  command = plan

  variables {
    payload_prefix = ""
  }

  assert {
    condition     = contains(flatten([for s in jsondecode(output.consumer_policy_json).Statement : flatten([s.Resource])]), "arn:aws:s3:::orders-claim-check/*")
    error_message = "an empty prefix should grant the bucket's objects (never the bucket itself or \"*\")"
  }
}
