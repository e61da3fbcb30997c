# Every refused input of modules/idempotency-table fails the plan. Messages
# are asserted by tests/modules/test_refusals.py.

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

run "name_too_short" {
  command = plan
  variables {
    name = "ab"
  }
  expect_failures = [var.name]
}


run "sort_key_same_as_partition_key" {
  command = plan
  variables {
    sort_key_attr = "id"
  }
  expect_failures = [var.sort_key_attr]
}


run "kms_alias_instead_of_arn" {
  command = plan
  variables {
    kms_key_arn = "alias/idempotency"
  }
  expect_failures = [var.kms_key_arn]
}

run "account_id_not_12_digits" {
  command = plan
  variables {
    account_id = "1234"
  }
  expect_failures = [var.account_id]
}
