output "name" {
  description = "Table name (Powertools: `DynamoDBPersistenceLayer(table_name=...)`)."
  value       = aws_dynamodb_table.this.name
}

output "arn" {
  description = "Table ARN (known after apply)."
  value       = aws_dynamodb_table.this.arn
}

output "arn_static" {
  description = "Table ARN built from partition, region, account and name: known at plan time (for IAM policy documents)."
  value       = local.arn_static
}

output "key_attr" {
  description = "Partition key attribute (Powertools `key_attr`): always `id`."
  value       = "id"
}

output "sort_key_attr" {
  description = "Sort key attribute (Powertools `sort_key_attr`), or null."
  value       = var.sort_key_attr
}

output "expiry_attr" {
  description = "TTL attribute (Powertools `expiry_attr`): always `expiration`."
  value       = "expiration"
}

output "encryption" {
  description = "Encryption at rest: `AWS_OWNED_KEY` (DynamoDB default) or `CUSTOMER_MANAGED_KEY`."
  value       = var.kms_key_arn == null ? "AWS_OWNED_KEY" : "CUSTOMER_MANAGED_KEY"
}

output "kms_key_arn" {
  description = "Customer-managed key encrypting the table, or null for the AWS-owned key."
  value       = var.kms_key_arn
}
