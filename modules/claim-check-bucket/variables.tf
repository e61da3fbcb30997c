variable "name" {
  description = "Bucket name (globally unique): 3-63 characters of lowercase letters, digits, hyphens and dots, starting and ending with a letter or digit."
  type        = string

  validation {
    condition = (
      can(regex("^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$", var.name)) &&
      !strcontains(var.name, "..") &&
      !can(regex("^[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+$", var.name)) &&
      !startswith(var.name, "xn--") && !startswith(var.name, "sthree-") &&
      !endswith(var.name, "-s3alias") && !endswith(var.name, "--ol-s3") && !endswith(var.name, "--x-s3")
    )
    error_message = "${var.input_prefix}name: ${jsonencode(var.name)} must be a valid S3 bucket name: 3-63 characters of lowercase letters, digits, hyphens and dots, starting and ending with a letter or digit, no \"..\", not an IP address, not starting with \"xn--\"/\"sthree-\" nor ending with \"-s3alias\"/\"--ol-s3\"/\"--x-s3\". Uppercase letters and underscores are refused by S3."
  }
}

variable "payload_prefix" {
  description = "Key prefix under which producers store payloads; the expiry rule applies to it and the IAM policies grant access to it only. Empty string: the whole bucket. Otherwise one or more path segments each ending in `/` (default `payloads/`)."
  type        = string
  default     = "payloads/"
  nullable    = false

  validation {
    condition     = can(regex("^([A-Za-z0-9._-]+/)*$", var.payload_prefix)) && length(var.payload_prefix) <= 512
    error_message = "${var.input_prefix}payload_prefix: ${jsonencode(var.payload_prefix)} must be \"\" (whole bucket) or path segments of letters, digits, '.', '_' or '-', each ending in \"/\" (e.g. \"payloads/\"), at most 512 characters. Without the trailing slash \"payloads\" would also match \"payloads-archive/...\"; wildcards are not prefixes."
  }
}

variable "dlq_retention_seconds" {
  description = "Message retention (seconds) of the dead-letter queue of every queue whose messages point into this bucket, keyed by DLQ name. The payload expiry must be at least the longest of them in days (rounded up), so a message redriven from a DLQ still finds its payload."
  type        = map(number)
  default     = {}
  nullable    = false

  validation {
    condition     = alltrue([for v in values(var.dlq_retention_seconds) : v >= 60 && v <= 1209600])
    error_message = "dlq_retention_seconds: every value must be an SQS retention in seconds, 60-1209600."
  }
}

variable "fifo_source_retention_seconds" {
  description = "For FIFO queues among them: the source queue's retention (seconds), keyed by the same DLQ name. SQS resets a FIFO message's enqueue time when it moves to the DLQ, so such a message can exist for source + DLQ retention, and its payload must too. (A standard queue's message keeps its enqueue time, so its DLQ retention alone bounds it.)"
  type        = map(number)
  default     = {}
  nullable    = false

  validation {
    condition     = alltrue([for v in values(var.fifo_source_retention_seconds) : v >= 60 && v <= 1209600])
    error_message = "fifo_source_retention_seconds: every value must be an SQS retention in seconds, 60-1209600."
  }
}

variable "expiration_days" {
  description = "Days after which payload objects expire. Default: the longest life of a message served (its DLQ retention; source + DLQ retention for FIFO) in days, rounded up, or 14 (the SQS maximum retention) when no queue is given. A value below that bound is refused."
  type        = number
  default     = null

  validation {
    condition     = var.expiration_days == null || try(var.expiration_days >= 1 && var.expiration_days <= 3650 && floor(var.expiration_days) == var.expiration_days, false)
    error_message = "${var.input_prefix}expiration_days: ${jsonencode(var.expiration_days)} must be a whole number of days from 1 to 3650 (S3 expires objects in whole days), or null to derive it from the DLQ retention."
  }
}

variable "abort_incomplete_multipart_upload_days" {
  description = "Days after which incomplete multipart uploads are aborted (their parts are billed but invisible), 1-365. Default 1."
  type        = number
  default     = 1
  nullable    = false

  validation {
    condition     = var.abort_incomplete_multipart_upload_days >= 1 && var.abort_incomplete_multipart_upload_days <= 365 && floor(var.abort_incomplete_multipart_upload_days) == var.abort_incomplete_multipart_upload_days
    error_message = "${var.input_prefix}abort_incomplete_multipart_upload_days: ${jsonencode(var.abort_incomplete_multipart_upload_days)} must be a whole number of days from 1 to 365."
  }
}

variable "kms_key_arn" {
  description = "KMS key ARN (or alias ARN) for SSE-KMS with an S3 Bucket Key. Null: SSE-S3 (AES256). Producers then need kms:GenerateDataKey and consumers kms:Decrypt on the key (see modules/iam)."
  type        = string
  default     = null

  validation {
    condition     = var.kms_key_arn == null || can(regex("^arn:[a-z-]+:kms:[a-z0-9-]+:[0-9]{12}:(key|alias)/[A-Za-z0-9/_-]+$", coalesce(var.kms_key_arn, "x")))
    error_message = "${var.input_prefix}kms_key_arn: ${jsonencode(var.kms_key_arn)} must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>) or alias ARN, or null for SSE-S3. A bare alias name or key ID is refused: IAM policies for the producer and consumer need the ARN."
  }
}

variable "versioning_enabled" {
  description = "Enable object versioning. Off by default: payloads are write-once and expire. When on, noncurrent versions expire after `noncurrent_version_expiration_days` and expired delete markers are removed."
  type        = bool
  default     = false
  nullable    = false
}

variable "noncurrent_version_expiration_days" {
  description = "With versioning: days after which noncurrent payload versions are deleted, 1-365. Default 1."
  type        = number
  default     = 1
  nullable    = false

  validation {
    condition     = var.noncurrent_version_expiration_days >= 1 && var.noncurrent_version_expiration_days <= 365 && floor(var.noncurrent_version_expiration_days) == var.noncurrent_version_expiration_days
    error_message = "noncurrent_version_expiration_days: must be a whole number of days from 1 to 365."
  }
}

variable "force_destroy" {
  description = "Allow `terraform destroy` to delete a bucket that still holds objects. False by default: payloads of messages still in a queue or DLQ would be lost."
  type        = bool
  default     = false
  nullable    = false
}

variable "access_log_bucket" {
  description = "Name of an existing bucket to receive S3 server access logs. Null: no access logging. For a bucket of the same stack, give `aws_s3_bucket.<name>.bucket` (known at plan), not `.id` (known only after apply): whether the logging resource exists must be known at plan."
  type        = string
  default     = null

  validation {
    condition     = var.access_log_bucket == null || can(regex("^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$", coalesce(var.access_log_bucket, "x")))
    error_message = "${var.input_prefix}access_log_bucket: ${jsonencode(var.access_log_bucket)} must be the name of an existing S3 bucket, or null."
  }
}

variable "access_log_prefix" {
  description = "Key prefix for access logs in `access_log_bucket`. Default: `s3-access-logs/<bucket name>/`."
  type        = string
  default     = null
}

variable "prevent_destroy" {
  description = "Refuse, at plan time, every plan that deletes or replaces the bucket (and so every payload): changing `name` or removing the bucket fails with Terraform's \"Instance cannot be destroyed\" naming this module's `terraform_data.prevent_destroy[0]`. `force_destroy = false` only refuses deleting a non-empty bucket at apply time, part-way through. To lift it: set it false and run `terraform state rm` on that guard, then plan again. Default false."
  type        = bool
  default     = false
  nullable    = false
}

variable "tags" {
  description = "Tags for the bucket."
  type        = map(string)
  default     = {}
  nullable    = false
}

variable "input_prefix" {
  description = "Put in front of an input's name in refusal messages: the root module passes \"claim_check_bucket.\" so that they name the input as the user wrote it (`claim_check_bucket.<name>`)."
  type        = string
  default     = ""
  nullable    = false
}
