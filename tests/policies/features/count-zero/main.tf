variable "create_dlq" {
  type    = bool
  default = false
}

resource "aws_sqs_queue" "jobs" {
  name                    = "features-count-zero"
  sqs_managed_sse_enabled = true
}

resource "aws_sqs_queue" "dlq" {
  count                   = var.create_dlq ? 1 : 0
  name                    = "features-count-zero-dlq"
  sqs_managed_sse_enabled = true
}

resource "aws_sqs_queue" "per_key" {
  for_each = {}
  name     = each.key
}

data "aws_iam_policy_document" "none" {
  count = 0
}

module "nothing" {
  source = "./inner"
  count  = 0
}

module "nothing_either" {
  source   = "./inner"
  for_each = toset([])
}
