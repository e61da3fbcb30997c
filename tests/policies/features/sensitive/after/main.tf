resource "terraform_data" "secret" {
  input = var.token
}

resource "aws_sqs_queue" "jobs" {
  name                    = "features-sensitive"
  sqs_managed_sse_enabled = true
  tags = {
    token = var.token
  }
}

resource "aws_sqs_queue_policy" "jobs" {
  queue_url = aws_sqs_queue.jobs.id
  policy = sensitive(jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "DenyInsecureTransport"
      Effect    = "Deny"
      Principal = "*"
      Action    = "sqs:*"
      Resource  = aws_sqs_queue.jobs.arn
      Condition = { Bool = { "aws:SecureTransport" = "false" } }
    }]
  }))
}

module "holder" {
  source = "./holder"
  token  = var.token
}

output "secret" {
  value     = terraform_data.secret.output
  sensitive = true
}

output "from_module" {
  value     = module.holder.token
  sensitive = true
}
