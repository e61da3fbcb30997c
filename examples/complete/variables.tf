variable "region" {
  description = "AWS region to deploy into."
  type        = string
  default     = "us-east-1"
}

variable "name_prefix" {
  description = "Prefix for every name (queues, bucket, table, alarms, policies), so several copies of this example can live in one account. Lowercase: it is part of the S3 bucket name."
  type        = string
  default     = "example"

  validation {
    condition     = can(regex("^[a-z0-9][a-z0-9-]{0,29}$", var.name_prefix))
    error_message = "name_prefix: 1-30 lowercase letters, digits or hyphens, starting with a letter or digit (it is part of the S3 bucket name)."
  }
}

variable "account_id" {
  description = "AWS account ID. Null: looked up with sts:GetCallerIdentity."
  type        = string
  default     = null
}

variable "aws_max_retries" {
  description = "Maximum retries of the AWS provider. Null: the provider default (25)."
  type        = number
  default     = null
}

variable "s3_use_path_style" {
  description = "Address S3 buckets by path instead of host name (needed for LocalStack and other S3-compatible endpoints)."
  type        = bool
  default     = false
}

variable "consumer_function_name" {
  description = "Name of an existing Lambda function that consumes both queues (its timeout must match the consumers' timeout_seconds below). Null: no event source mappings are created (the queues, bucket, table, policies and alarms still are)."
  type        = string
  default     = null
}

variable "deletion_protection" {
  description = "Deletion protection of the idempotency table. Keep true outside throwaway environments; set false to let `terraform destroy` remove the table."
  type        = bool
  default     = true
}

variable "force_destroy" {
  description = "Let `terraform destroy` delete the claim-check bucket with its payloads. Keep false outside throwaway environments."
  type        = bool
  default     = false
}

variable "dlq_redrive_enabled" {
  description = "Create the scheduled DLQ redrive functions (modules/dlq-redrive). Set false where Lambda functions cannot be created, e.g. LocalStack without Docker."
  type        = bool
  default     = true
}
