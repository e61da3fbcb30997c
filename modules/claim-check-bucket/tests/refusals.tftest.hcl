# Every refused input of modules/claim-check-bucket fails the plan. Messages
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
  name = "orders-claim-check"
}

run "name_with_uppercase" {
  command = plan
  variables {
    name = "Orders-Claim-Check"
  }
  expect_failures = [var.name]
}


run "name_like_ip_address" {
  command = plan
  variables {
    name = "192.168.10.1"
  }
  expect_failures = [var.name]
}

run "prefix_without_trailing_slash" {
  command = plan
  variables {
    payload_prefix = "payloads"
  }
  expect_failures = [var.payload_prefix]
}

run "prefix_with_wildcard" {
  command = plan
  variables {
    payload_prefix = "payloads/*/"
  }
  expect_failures = [var.payload_prefix]
}

run "dlq_retention_out_of_range" {
  command = plan
  variables {
    dlq_retention_seconds = { orders-dlq = 1209601 }
  }
  expect_failures = [var.dlq_retention_seconds]
}

run "expiry_zero_days" {
  command = plan
  variables {
    expiration_days = 0
  }
  expect_failures = [var.expiration_days]
}

run "expiry_below_longest_dlq_retention" {
  command = plan
  variables {
    dlq_retention_seconds = { orders-dlq = 345600, emails-dlq = 1209600 }
    expiration_days       = 7
  }
  expect_failures = [aws_s3_bucket_lifecycle_configuration.this]
}

run "expiry_below_fifo_message_lifetime" {
  command = plan
  variables {
    dlq_retention_seconds         = { orders-dlq = 1209600, "payments-dlq.fifo" = 1209600 }
    fifo_source_retention_seconds = { "payments-dlq.fifo" = 345600 }
    expiration_days               = 15
  }
  expect_failures = [aws_s3_bucket_lifecycle_configuration.this]
}

run "fifo_retention_without_dlq" {
  command = plan
  variables {
    dlq_retention_seconds         = { orders-dlq = 1209600 }
    fifo_source_retention_seconds = { "payments-dlq.fifo" = 345600 }
  }
  expect_failures = [aws_s3_bucket_lifecycle_configuration.this]
}

run "fifo_retention_out_of_range" {
  command = plan
  variables {
    dlq_retention_seconds         = { "payments-dlq.fifo" = 1209600 }
    fifo_source_retention_seconds = { "payments-dlq.fifo" = 30 }
  }
  expect_failures = [var.fifo_source_retention_seconds]
}

run "abort_multipart_zero_days" {
  command = plan
  variables {
    abort_incomplete_multipart_upload_days = 0
  }
  expect_failures = [var.abort_incomplete_multipart_upload_days]
}

run "kms_alias_name_not_arn" {
  command = plan
  variables {
    kms_key_arn = "alias/payloads"
  }
  expect_failures = [var.kms_key_arn]
}

run "noncurrent_expiry_zero_days" {
  command = plan
  variables {
    noncurrent_version_expiration_days = 0
  }
  expect_failures = [var.noncurrent_version_expiration_days]
}

run "access_log_bucket_as_arn" {
  command = plan
  variables {
    access_log_bucket = "arn:aws:s3:::central-access-logs"
  }
  expect_failures = [var.access_log_bucket]
}
