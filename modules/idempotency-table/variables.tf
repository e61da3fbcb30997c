variable "name" {
  description = "Table name, 3-255 characters of letters, digits, '_', '-' and '.'."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9_.-]{3,255}$", var.name))
    error_message = "${var.input_prefix}name: ${jsonencode(var.name)} must be 3-255 characters of letters, digits, '_', '-' or '.' (DynamoDB's table-name rule)."
  }
}

variable "sort_key_attr" {
  description = "Sort-key mode (Powertools' `sort_key_attr`): name of a string sort key. The partition key `id` then holds a static value per function and the sort key the idempotency key. Null: partition key only (Powertools' default)."
  type        = string
  default     = null

  validation {
    condition     = var.sort_key_attr == null || try(can(regex("^[A-Za-z0-9_.-]{1,255}$", var.sort_key_attr)) && !contains(["id", "expiration", "status", "data", "validation", "in_progress_expiration"], var.sort_key_attr), false)
    error_message = "${var.input_prefix}sort_key_attr: ${jsonencode(var.sort_key_attr)} must be an attribute name of 1-255 letters, digits, '_', '-' or '.', and not one Powertools already uses (id, expiration, status, data, validation, in_progress_expiration). Powertools' own examples use \"sk\"."
  }
}

variable "kms_key_arn" {
  description = "KMS key ARN for SSE with a customer-managed key. Null: encryption with an AWS-owned key (DynamoDB's default, no KMS charges). Encryption at rest is always on."
  type        = string
  default     = null

  validation {
    condition     = var.kms_key_arn == null || can(regex("^arn:[a-z-]+:kms:[a-z0-9-]+:[0-9]{12}:key/[A-Za-z0-9-]+$", coalesce(var.kms_key_arn, "x")))
    error_message = "${var.input_prefix}kms_key_arn: ${jsonencode(var.kms_key_arn)} must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>), or null for an AWS-owned key. DynamoDB does not accept aliases here."
  }
}

variable "deletion_protection_enabled" {
  description = "Refuse DeleteTable while true. On by default: the table holds the record of which messages were already processed; losing it re-runs side effects for every redelivered message."
  type        = bool
  default     = true
  nullable    = false
}

variable "prevent_destroy" {
  description = "Refuse, at plan time, every plan that deletes or replaces the table (and so every idempotency record): changing `name` or `sort_key_attr`, or removing the table, fails with Terraform's \"Instance cannot be destroyed\" naming this module's `terraform_data.prevent_destroy[0]`. `deletion_protection_enabled` only refuses the delete at apply time, part-way through. To lift it: set it false and run `terraform state rm` on that guard, then plan again. Default false."
  type        = bool
  default     = false
  nullable    = false
}

variable "account_id" {
  description = "AWS account ID of the table, used to build its ARN at plan time (`arn_static`). Null: looked up with sts:GetCallerIdentity."
  type        = string
  default     = null

  validation {
    condition     = var.account_id == null || can(regex("^[0-9]{12}$", coalesce(var.account_id, "x")))
    error_message = "account_id: must be a 12-digit AWS account ID, or null to look it up."
  }
}

variable "tags" {
  description = "Tags for the table."
  type        = map(string)
  default     = {}
  nullable    = false
}

variable "input_prefix" {
  description = "Put in front of an input's name in refusal messages: the root module passes \"idempotency_table.\" so that they name the input as the user wrote it (`idempotency_table.<name>`)."
  type        = string
  default     = ""
  nullable    = false
}
