# The styles of source-good with the mistakes a plan hides: each sits in a value
# that is unknown until apply, so only the source shows it (--source-dir).
# One value stays unknown with the source too: a maxReceiveCount chosen by a
# condition on a value known only after apply. The policy rendered by
# templatefile() is read from its template file.
variable "queues" {
  type = map(object({ max_receive = number }))
  default = {
    billing  = { max_receive = 1 } # a single receive moves a message to the DLQ
    shipping = { max_receive = 4 }
  }
}

locals {
  retries = 10 # retried (and billed) ten times before the DLQ
  payments_redrive = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.payments_dlq.arn
    maxReceiveCount     = local.retries
  })
}

resource "aws_sqs_queue" "orders_dlq" {
  name                      = "src-bad-orders-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

# inline jsonencode: maxReceiveCount 1
resource "aws_sqs_queue" "orders" {
  name                      = "src-bad-orders"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn
    maxReceiveCount     = 1
  })
}

# heredoc: a public Allow, and no Deny without TLS
resource "aws_sqs_queue_policy" "orders" {
  queue_url = aws_sqs_queue.orders.id
  policy    = <<-EOT
    {
      "Version": "2012-10-17",
      "Statement": [{
        "Sid": "AnyoneMaySend",
        "Effect": "Allow",
        "Principal": "*",
        "Action": "sqs:SendMessage",
        "Resource": "${aws_sqs_queue.orders.arn}"
      }]
    }
  EOT
}

# through a local: maxReceiveCount 10
resource "aws_sqs_queue" "payments_dlq" {
  name                      = "src-bad-payments-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "payments" {
  name                      = "src-bad-payments"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  redrive_policy            = local.payments_redrive
}

# the DLQ named by its URL (aws_sqs_queue.id), not its ARN: SQS refuses it
resource "aws_sqs_queue" "refunds_dlq" {
  name                      = "src-bad-refunds-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "refunds" {
  name                      = "src-bad-refunds"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.refunds_dlq.id
    maxReceiveCount     = 4
  })
}

# for_each over a map: billing's maxReceiveCount 1; each DLQ allows the other key's queue
resource "aws_sqs_queue" "work_dlq" {
  for_each                  = var.queues
  name                      = "src-bad-${each.key}-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "work" {
  for_each                  = var.queues
  name                      = "src-bad-${each.key}"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.work_dlq[each.key].arn
    maxReceiveCount     = each.value.max_receive
  })
}

resource "aws_sqs_queue_redrive_allow_policy" "work_dlq" {
  for_each  = var.queues
  queue_url = aws_sqs_queue.work_dlq[each.key].id
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.work[each.key == "billing" ? "shipping" : "billing"].arn]
  })
}

# identity policies: sqs:* in jsonencode, s3:* in a source document
resource "aws_iam_policy" "producer" {
  name = "src-bad-producer"
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = "sqs:*", Resource = aws_sqs_queue.orders.arn }]
  })
}

resource "aws_s3_bucket" "payloads" {
  bucket_prefix = "src-bad-payloads-"
}

data "aws_iam_policy_document" "payloads_admin" {
  statement {
    actions   = ["s3:*"]
    resources = [aws_s3_bucket.payloads.arn, "${aws_s3_bucket.payloads.arn}/*"]
  }
}

data "aws_iam_policy_document" "worker" {
  source_policy_documents = [data.aws_iam_policy_document.payloads_admin.json]
  statement {
    actions   = ["sqs:ReceiveMessage", "sqs:DeleteMessage"]
    resources = [for q in aws_sqs_queue.work : q.arn]
  }
}

resource "aws_iam_policy" "worker" {
  name   = "src-bad-worker"
  policy = data.aws_iam_policy_document.worker.json
}

# a module call passing maxReceiveCount 1
module "legacy" {
  source            = "./modules/pair"
  name              = "src-bad-legacy"
  max_receive_count = 1
}

# rendered from a template file beside the configuration (templatefile)
resource "aws_sqs_queue_policy" "payments" {
  queue_url = aws_sqs_queue.payments.id
  policy    = templatefile("${path.module}/queue-policy.json.tftpl", { queue_arn = aws_sqs_queue.payments.arn })
}

resource "aws_sqs_queue" "audit_dlq" {
  name                      = "src-bad-audit-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "audit" {
  name                      = "src-bad-audit"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.audit_dlq.arn
    maxReceiveCount     = startswith(aws_sqs_queue.audit_dlq.url, "https://sqs.us-east-1") ? 3 : 1
  })
}
