# DynamoDB table for Powertools-style idempotency records
# (aws_lambda_powertools.utilities.idempotency.DynamoDBPersistenceLayer):
# partition key `id` (string), optional string sort key, TTL on `expiration`
# so completed records disappear on their own, on-demand billing, PITR, SSE,
# deletion protection.

data "aws_partition" "current" {}
data "aws_region" "current" {}

data "aws_caller_identity" "current" {
  count = var.account_id == null ? 1 : 0
}

locals {
  account_id = var.account_id != null ? var.account_id : one(data.aws_caller_identity.current[*].account_id)
  arn_static = "arn:${data.aws_partition.current.partition}:dynamodb:${data.aws_region.current.id}:${local.account_id}:table/${var.name}"
}

resource "aws_dynamodb_table" "this" {
  name         = var.name
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  range_key    = var.sort_key_attr

  attribute {
    name = "id"
    type = "S"
  }

  dynamic "attribute" {
    for_each = var.sort_key_attr == null ? [] : [var.sort_key_attr]
    content {
      name = attribute.value
      type = "S"
    }
  }

  ttl {
    attribute_name = "expiration"
    enabled        = true
  }

  point_in_time_recovery {
    enabled = true
  }

  # Without this block DynamoDB encrypts with an AWS-owned key.
  dynamic "server_side_encryption" {
    for_each = var.kms_key_arn == null ? [] : [var.kms_key_arn]
    content {
      enabled     = true
      kms_key_arn = server_side_encryption.value
    }
  }

  deletion_protection_enabled = var.deletion_protection_enabled

  tags = var.tags
}

# prevent_destroy must be a literal: a guard that has it is replaced whenever the
# table is (its ID changes only then) and removed with it (see modules/queue).
resource "terraform_data" "prevent_destroy" {
  count = var.prevent_destroy ? 1 : 0

  input = "guards DynamoDB table ${var.name} against deletion and replacement"

  lifecycle {
    prevent_destroy      = true
    replace_triggered_by = [aws_dynamodb_table.this.id]
  }
}
