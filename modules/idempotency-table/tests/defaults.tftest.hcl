# Plan-mode checks of modules/idempotency-table with the real AWS provider
# (no API calls: dummy credentials, account ID given).

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "offline-plan"
  secret_key                  = "offline-plan"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
}

variables {
  name       = "orders-idempotency"
  account_id = "123456789012"
}

run "powertools_layout_and_safe_defaults" {
  command = plan

  assert {
    condition     = aws_dynamodb_table.this.billing_mode == "PAY_PER_REQUEST"
    error_message = "the table should bill on demand"
  }
  assert {
    condition     = aws_dynamodb_table.this.hash_key == "id" && aws_dynamodb_table.this.range_key == null
    error_message = "partition key should be id, with no sort key by default"
  }
  assert {
    condition     = [for a in aws_dynamodb_table.this.attribute : "${a.name}:${a.type}"] == ["id:S"]
    error_message = "only the string attribute id should be declared"
  }
  assert {
    condition     = one(aws_dynamodb_table.this.ttl).enabled == true && one(aws_dynamodb_table.this.ttl).attribute_name == "expiration"
    error_message = "TTL should be enabled on expiration (Powertools' expiry_attr)"
  }
  assert {
    condition     = one(aws_dynamodb_table.this.point_in_time_recovery).enabled == true
    error_message = "point-in-time recovery should be on"
  }
  assert {
    condition     = aws_dynamodb_table.this.deletion_protection_enabled == true
    error_message = "deletion protection should be on by default"
  }
  assert {
    condition     = output.encryption == "AWS_OWNED_KEY" && output.kms_key_arn == null
    error_message = "without a key the table should use the AWS-owned key (no server_side_encryption block)"
  }
  assert {
    condition     = output.arn_static == "arn:aws:dynamodb:us-east-1:123456789012:table/orders-idempotency"
    error_message = "the static ARN should be known at plan time"
  }
}

run "sort_key_mode_kms_and_no_deletion_protection" {
  command = plan

  variables {
    sort_key_attr               = "sk"
    kms_key_arn                 = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    deletion_protection_enabled = false
  }

  assert {
    condition     = aws_dynamodb_table.this.hash_key == "id" && aws_dynamodb_table.this.range_key == "sk"
    error_message = "sort-key mode: partition key id, sort key sk"
  }
  assert {
    condition     = toset([for a in aws_dynamodb_table.this.attribute : "${a.name}:${a.type}"]) == toset(["id:S", "sk:S"])
    error_message = "both keys should be string attributes"
  }
  assert {
    condition     = one(aws_dynamodb_table.this.server_side_encryption).enabled == true && one(aws_dynamodb_table.this.server_side_encryption).kms_key_arn == "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    error_message = "SSE should use the given customer-managed key"
  }
  assert {
    condition     = output.encryption == "CUSTOMER_MANAGED_KEY"
    error_message = "the encryption output should name the customer-managed key mode"
  }
  assert {
    condition     = aws_dynamodb_table.this.deletion_protection_enabled == false
    error_message = "deletion protection should be switchable off explicitly"
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
  }

  assert {
    condition     = output.arn_static == "arn:aws:dynamodb:us-east-1:210987654321:table/orders-idempotency"
    error_message = "without account_id the caller identity should be used"
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
