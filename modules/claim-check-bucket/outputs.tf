output "name" {
  description = "Bucket name."
  value       = aws_s3_bucket.this.bucket
}

output "arn" {
  description = "Bucket ARN."
  value       = aws_s3_bucket.this.arn
}

output "arn_static" {
  description = "Bucket ARN built from partition and name: known at plan time (for IAM policy documents)."
  value       = local.arn_static
}

output "payload_prefix" {
  description = "Key prefix of the payload objects (\"\" = whole bucket)."
  value       = var.payload_prefix
}

output "payload_objects_arn" {
  description = "ARN pattern of the payload objects (`<bucket ARN>/<prefix>*`), known at plan time: the resource for s3:PutObject/s3:GetObject grants."
  value       = "${local.arn_static}/${var.payload_prefix}*"
}

output "expiration_days" {
  description = "Days after which payloads expire (given, or derived from the queues served)."
  value       = local.expiration_days
}

output "min_expiration_days" {
  description = "The bound expiration_days must meet: the longest life of a message served (DLQ retention; source + DLQ retention for FIFO), in days rounded up (0 when no queue is given)."
  value       = local.min_expiration_days
}

output "kms_key_arn" {
  description = "KMS key used for SSE-KMS, or null for SSE-S3."
  value       = var.kms_key_arn
}
