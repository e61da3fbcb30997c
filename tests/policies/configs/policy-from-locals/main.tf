# Queue policies created with for_each over a local map: which queue each one
# targets is not in the plan (the map is a local value), so a queue without an
# inline policy may still have one: unknown, not "has no queue policy".
locals {
  arn_prefix = "arn:aws:sqs:us-east-1:123456789012"
  queues     = toset(["billing", "shipping"])
  # queue URLs are only known after apply; the plan shows this map only as "local.targets"
  targets = { for k in local.queues : k => aws_sqs_queue.q[k].url }
}

resource "aws_sqs_queue" "q" {
  for_each                  = local.queues
  name                      = "loc-${each.key}"
  sqs_managed_sse_enabled   = true
  receive_wait_time_seconds = 20
  redrive_allow_policy      = jsonencode({ redrivePermission = "denyAll" })
}

resource "aws_sqs_queue_policy" "q" {
  for_each  = local.targets
  queue_url = each.value
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "DenyInsecureTransport"
      Effect    = "Deny"
      Principal = "*"
      Action    = "sqs:*"
      Resource  = "${local.arn_prefix}:loc-${each.key}"
      Condition = { Bool = { "aws:SecureTransport" = "false" } }
    }]
  })
}
