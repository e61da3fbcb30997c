# Every refused input of modules/iam fails the plan. Messages are asserted by
# tests/modules/test_refusals.py.

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
}

run "producer_queue_wildcard" {
  command = plan
  variables {
    producer_queue_arns = ["arn:aws:sqs:us-east-1:123456789012:orders-*"]
  }
  expect_failures = [var.name]
}

run "consumer_queue_url_not_arn" {
  command = plan
  variables {
    consumer_queue_arns = ["https://sqs.us-east-1.amazonaws.com/123456789012/orders"]
  }
  expect_failures = [var.name]
}

run "consumer_dlq_wildcard" {
  command = plan
  variables {
    consumer_dlq_arns = ["arn:aws:sqs:us-east-1:123456789012:*"]
  }
  expect_failures = [var.name]
}

run "redrive_dlq_wildcard" {
  command = plan
  variables {
    redrive = [{ dlq_arn = "*", source_queue_arn = "arn:aws:sqs:us-east-1:123456789012:orders" }]
  }
  expect_failures = [var.name]
}

run "bucket_arn_with_object_wildcard" {
  command = plan
  variables {
    payload_bucket_arn = "arn:aws:s3:::orders-claim-check/*"
  }
  expect_failures = [var.name]
}

run "payload_prefix_wildcard" {
  command = plan
  variables {
    payload_prefix = "*"
  }
  expect_failures = [var.name]
}

run "table_arn_wildcard" {
  command = plan
  variables {
    idempotency_table_arn = "arn:aws:dynamodb:us-east-1:123456789012:table/*"
  }
  expect_failures = [var.name]
}

run "kms_alias_instead_of_key_arn" {
  command = plan
  variables {
    kms_key_arns = ["arn:aws:kms:us-east-1:123456789012:alias/messaging"]
  }
  expect_failures = [var.name]
}

run "policy_name_with_space" {
  command = plan
  variables {
    name = "orders policy"
  }
  expect_failures = [var.name]
}

run "path_without_slashes" {
  command = plan
  variables {
    path = "messaging"
  }
  expect_failures = [var.name]
}

run "managed_policies_without_name" {
  command = plan
  variables {
    create_managed_policies = true
  }
  expect_failures = [aws_iam_policy.this]
}

# IAM refuses a managed policy over 6,144 characters (whitespace not counted)
run "managed_policy_above_6144_characters" {
  command = plan
  variables {
    create_managed_policies = true
    name                    = "orders"
    consumer_queue_arns     = ["arn:aws:sqs:us-east-1:123456789012:orders"]
    consumer_dlq_arns       = ["arn:aws:sqs:us-east-1:123456789012:orders-dlq"]
    kms_key_arns            = [for i in range(80) : format("arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-%012d", i)]
  }
  expect_failures = [aws_iam_policy.this]
}
