# S3 bucket for claim-check payloads: messages too large for SQS are stored
# here and the message carries a pointer (bucket + key) instead.
#
# Payloads are never deleted by consumers (a retried or redriven message would
# find nothing); a lifecycle rule expires them instead. The expiry must outlast
# the longest DLQ retention of the queues the bucket serves, or a message
# redriven from a DLQ points at a payload that is already gone.

data "aws_partition" "current" {}

locals {
  arn_static = "arn:${data.aws_partition.current.partition}:s3:::${var.name}"

  # how long a message pointing into the bucket can exist, per DLQ
  lifetimes = {
    for dlq, retention in var.dlq_retention_seconds : dlq => retention + lookup(var.fifo_source_retention_seconds, dlq, 0)
  }
  longest_dlq_seconds = length(local.lifetimes) > 0 ? max(values(local.lifetimes)...) : 0
  longest_dlq_name    = length(local.lifetimes) > 0 ? [for k, v in local.lifetimes : k if v == local.longest_dlq_seconds][0] : null
  longest_is_fifo     = local.longest_dlq_name != null && contains(keys(var.fifo_source_retention_seconds), coalesce(local.longest_dlq_name, "-"))
  min_expiration_days = ceil(local.longest_dlq_seconds / 86400)
  lifetime_note       = local.longest_is_fifo ? "FIFO: source retention ${lookup(var.fifo_source_retention_seconds, coalesce(local.longest_dlq_name, "-"), 0)} s + DLQ retention ${lookup(var.dlq_retention_seconds, coalesce(local.longest_dlq_name, "-"), 0)} s, as SQS resets a FIFO message's enqueue time when it moves to the DLQ" : "its DLQ retention, as a standard queue's message keeps its enqueue time in the DLQ"
  expiration_days     = coalesce(var.expiration_days, length(var.dlq_retention_seconds) > 0 ? max(local.min_expiration_days, 1) : 14)

  sse_kms = var.kms_key_arn != null
}

resource "aws_s3_bucket" "this" {
  #checkov:skip=CKV2_AWS_62:nothing consumes object events: consumers reach a payload through the pointer in its message
  #checkov:skip=CKV_AWS_144:payloads live only as long as the regional queue messages pointing at them; replication needs a second-region bucket and role the caller owns
  bucket        = var.name
  force_destroy = var.force_destroy
  tags          = var.tags
}

resource "aws_s3_bucket_public_access_block" "this" {
  bucket = aws_s3_bucket.this.id

  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

# ACLs disabled: the bucket owner owns every object, whoever uploads it.
resource "aws_s3_bucket_ownership_controls" "this" {
  bucket = aws_s3_bucket.this.id

  rule {
    object_ownership = "BucketOwnerEnforced"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "this" {
  bucket = aws_s3_bucket.this.id

  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm     = local.sse_kms ? "aws:kms" : "AES256"
      kms_master_key_id = var.kms_key_arn
    }
    bucket_key_enabled = local.sse_kms ? true : null
  }
}

resource "aws_s3_bucket_versioning" "this" {
  count  = var.versioning_enabled ? 1 : 0
  bucket = aws_s3_bucket.this.id

  versioning_configuration {
    status = "Enabled"
  }
}

data "aws_iam_policy_document" "tls_only" {
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["s3:*"]
    resources = [local.arn_static, "${local.arn_static}/*"]

    principals {
      type        = "*"
      identifiers = ["*"]
    }

    condition {
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["false"]
    }
  }
}

resource "aws_s3_bucket_policy" "this" {
  bucket = aws_s3_bucket.this.id
  policy = data.aws_iam_policy_document.tls_only.json

  # S3 rejects concurrent changes to a bucket's access settings
  depends_on = [aws_s3_bucket_public_access_block.this, aws_s3_bucket_ownership_controls.this]
}

resource "aws_s3_bucket_lifecycle_configuration" "this" {
  bucket = aws_s3_bucket.this.id

  rule {
    id     = "expire-claim-check-payloads"
    status = "Enabled"

    filter {
      prefix = var.payload_prefix
    }

    expiration {
      days = local.expiration_days
    }

    dynamic "noncurrent_version_expiration" {
      for_each = var.versioning_enabled ? [1] : []
      content {
        noncurrent_days = var.noncurrent_version_expiration_days
      }
    }
  }

  rule {
    id     = "abort-incomplete-multipart-uploads"
    status = "Enabled"

    filter {
      prefix = ""
    }

    abort_incomplete_multipart_upload {
      days_after_initiation = var.abort_incomplete_multipart_upload_days
    }

    dynamic "expiration" {
      for_each = var.versioning_enabled ? [1] : []
      content {
        expired_object_delete_marker = true
      }
    }
  }

  depends_on = [aws_s3_bucket_versioning.this]

  lifecycle {
    precondition {
      condition     = length(setsubtract(keys(var.fifo_source_retention_seconds), keys(var.dlq_retention_seconds))) == 0
      error_message = "fifo_source_retention_seconds: ${join(", ", setsubtract(keys(var.fifo_source_retention_seconds), keys(var.dlq_retention_seconds)))} not in dlq_retention_seconds. Key both maps by the DLQ name."
    }

    precondition {
      condition     = var.expiration_days == null || try(var.expiration_days >= local.min_expiration_days, true)
      error_message = "expiration_days: ${coalesce(var.expiration_days, 0)} days is shorter than a message served by this bucket can live before its DLQ deletes it (${coalesce(local.longest_dlq_name, "none")}: ${local.longest_dlq_seconds} s = ${local.min_expiration_days} days, rounded up; ${local.lifetime_note}). A message redriven from that DLQ would point at a payload S3 has already expired. Set expiration_days (root module: claim_check_bucket.expiration_days) to at least ${local.min_expiration_days}, or leave it unset to derive it."
    }
  }
}

resource "aws_s3_bucket_logging" "this" {
  count  = var.access_log_bucket != null ? 1 : 0
  bucket = aws_s3_bucket.this.id

  target_bucket = var.access_log_bucket
  target_prefix = coalesce(var.access_log_prefix, "s3-access-logs/${var.name}/")
}

# prevent_destroy must be a literal: a guard that has it is replaced whenever the
# bucket is (its ID changes only then) and removed with it (see modules/queue).
resource "terraform_data" "prevent_destroy" {
  count = var.prevent_destroy ? 1 : 0

  input = "guards S3 bucket ${var.name} against deletion and replacement"

  lifecycle {
    prevent_destroy      = true
    replace_triggered_by = [aws_s3_bucket.this.id]
  }
}
