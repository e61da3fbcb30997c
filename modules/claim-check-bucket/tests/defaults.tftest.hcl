# Plan-mode checks of modules/claim-check-bucket with the real AWS provider
# (no API calls: dummy credentials).

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

run "safe_defaults" {
  command = plan

  assert {
    condition     = aws_s3_bucket.this.bucket == "orders-claim-check" && aws_s3_bucket.this.force_destroy == false
    error_message = "the bucket should be named as given and force_destroy should default to false"
  }
  assert {
    condition = (
      aws_s3_bucket_public_access_block.this.block_public_acls && aws_s3_bucket_public_access_block.this.block_public_policy &&
      aws_s3_bucket_public_access_block.this.ignore_public_acls && aws_s3_bucket_public_access_block.this.restrict_public_buckets
    )
    error_message = "all four public-access blocks should be on"
  }
  assert {
    condition     = one(aws_s3_bucket_ownership_controls.this.rule).object_ownership == "BucketOwnerEnforced"
    error_message = "object ownership should be enforced (ACLs disabled)"
  }
  assert {
    condition     = one(one(aws_s3_bucket_server_side_encryption_configuration.this.rule).apply_server_side_encryption_by_default).sse_algorithm == "AES256"
    error_message = "SSE-S3 should be the default encryption"
  }
  assert {
    condition = anytrue([
      for s in jsondecode(aws_s3_bucket_policy.this.policy).Statement :
      s.Effect == "Deny" && s.Principal == "*" && s.Action == "s3:*" && s.Condition.Bool["aws:SecureTransport"] == "false" &&
      toset(s.Resource) == toset(["arn:aws:s3:::orders-claim-check", "arn:aws:s3:::orders-claim-check/*"])
    ])
    error_message = "the bucket policy should deny every request without TLS, on the bucket and its objects"
  }
  assert {
    condition     = length(aws_s3_bucket_versioning.this) == 0 && length(aws_s3_bucket_logging.this) == 0
    error_message = "versioning and access logging should be off unless asked for"
  }
  assert {
    condition = anytrue([
      for r in aws_s3_bucket_lifecycle_configuration.this.rule :
      try(r.status == "Enabled" && one(r.filter).prefix == "payloads/" && one(r.expiration).days == 14, false)
    ])
    error_message = "payloads/ should expire after 14 days (the SQS maximum retention) when no queue is given"
  }
  assert {
    condition = anytrue([
      for r in aws_s3_bucket_lifecycle_configuration.this.rule :
      try(r.status == "Enabled" && one(r.filter).prefix == "" && one(r.abort_incomplete_multipart_upload).days_after_initiation == 1, false)
    ])
    error_message = "incomplete multipart uploads should be aborted after 1 day, bucket-wide"
  }
  assert {
    condition     = output.payload_objects_arn == "arn:aws:s3:::orders-claim-check/payloads/*" && output.arn_static == "arn:aws:s3:::orders-claim-check"
    error_message = "the static ARNs should be known at plan time"
  }
}

run "expiry_derived_from_longest_dlq_retention" {
  command = plan

  variables {
    dlq_retention_seconds = { orders-dlq = 345600, emails-dlq = 432001 }
  }

  assert {
    condition     = output.expiration_days == 6 && output.min_expiration_days == 6
    error_message = "432001 s is 5 days and 1 s: the expiry should be rounded up to 6 days"
  }
  assert {
    condition     = anytrue([for r in aws_s3_bucket_lifecycle_configuration.this.rule : try(one(r.expiration).days == 6, false)])
    error_message = "the lifecycle rule should use the derived expiry"
  }
}

run "fifo_message_lifetime_is_source_plus_dlq_retention" {
  command = plan

  variables {
    dlq_retention_seconds         = { orders-dlq = 1209600, "payments-dlq.fifo" = 1209600 }
    fifo_source_retention_seconds = { "payments-dlq.fifo" = 345600 }
  }

  assert {
    condition     = output.expiration_days == 18
    error_message = "a FIFO message can live 4 days in its queue and 14 more in its DLQ (the DLQ resets its enqueue time): 18 days"
  }
}

run "explicit_expiry_at_or_above_bound" {
  command = plan

  variables {
    dlq_retention_seconds = { orders-dlq = 1209600 }
    expiration_days       = 30
  }

  assert {
    condition     = output.expiration_days == 30
    error_message = "an explicit expiry at or above the bound should be kept"
  }
}

run "kms_versioning_logging" {
  command = plan

  variables {
    kms_key_arn                        = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    versioning_enabled                 = true
    noncurrent_version_expiration_days = 3
    access_log_bucket                  = "central-access-logs"
    payload_prefix                     = "large/messages/"
    force_destroy                      = true
  }

  assert {
    condition = (
      one(one(aws_s3_bucket_server_side_encryption_configuration.this.rule).apply_server_side_encryption_by_default).sse_algorithm == "aws:kms" &&
      one(one(aws_s3_bucket_server_side_encryption_configuration.this.rule).apply_server_side_encryption_by_default).kms_master_key_id == "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab" &&
      one(aws_s3_bucket_server_side_encryption_configuration.this.rule).bucket_key_enabled == true
    )
    error_message = "SSE-KMS with a bucket key should be used when a key is given"
  }
  assert {
    condition     = one(aws_s3_bucket_versioning.this[0].versioning_configuration).status == "Enabled"
    error_message = "versioning should be enabled on request"
  }
  assert {
    condition = anytrue([
      for r in aws_s3_bucket_lifecycle_configuration.this.rule :
      try(one(r.filter).prefix == "large/messages/" && one(r.noncurrent_version_expiration).noncurrent_days == 3, false)
    ])
    error_message = "with versioning, noncurrent payload versions should expire too"
  }
  assert {
    condition     = anytrue([for r in aws_s3_bucket_lifecycle_configuration.this.rule : try(one(r.expiration).expired_object_delete_marker == true, false)])
    error_message = "with versioning, expired delete markers should be removed"
  }
  assert {
    condition     = aws_s3_bucket_logging.this[0].target_bucket == "central-access-logs" && aws_s3_bucket_logging.this[0].target_prefix == "s3-access-logs/orders-claim-check/"
    error_message = "access logs should go to the given bucket under a per-bucket prefix"
  }
  assert {
    condition     = aws_s3_bucket.this.force_destroy == true && output.payload_objects_arn == "arn:aws:s3:::orders-claim-check/large/messages/*"
    error_message = "force_destroy and the prefix should be passed through"
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
