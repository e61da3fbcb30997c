variable "name" {
  type = string
}

module "dlq" {
  source = "./dlq"
  count  = 1
  name   = "${var.name}-dlq"
}

resource "aws_sqs_queue" "this" {
  name                    = var.name
  sqs_managed_sse_enabled = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = module.dlq[0].arn
    maxReceiveCount     = 5
  })
}

output "url" {
  value = aws_sqs_queue.this.url
}
