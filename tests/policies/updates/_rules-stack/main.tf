# Raw resources that every rule of the catalog applies to, each setting good or (with
# broken = true) bad, for update plans with real prior state: applied good on
# LocalStack, then planned again good (only a tag changes) or broken.
terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

locals {
  b       = var.broken
  arn     = "arn:aws:sqs:us-east-1:000000000000"
  tags    = { stage = var.stage }
  a_src   = "${var.name_prefix}-a"
  a_dlq   = "${var.name_prefix}-a-dlq"
  b_src   = "${var.name_prefix}-b"
  b_dlq   = "${var.name_prefix}-b-dlq"
  c_src   = "${var.name_prefix}-c"
  e_src   = "${var.name_prefix}-e"
  e_dlq   = "${var.name_prefix}-e-dlq"
  g_src   = "${var.name_prefix}-g"
  f_src   = "${var.name_prefix}-f.fifo"
  f_dlq   = local.b ? "${var.name_prefix}-f-dlq" : "${var.name_prefix}-f-dlq.fifo"
  bucket  = "${var.name_prefix}-payloads"
  queues  = toset([local.a_src, local.a_dlq, local.b_src, local.b_dlq, local.c_src, local.e_src, local.e_dlq, local.f_src, local.f_dlq])
  consume = "${var.name_prefix}-consumer" # created through the API before the apply
}

data "aws_iam_policy_document" "tls" {
  for_each = local.queues
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["sqs:*"]
    resources = ["${local.arn}:${each.key}"]
    principals {
      type        = "*"
      identifiers = ["*"]
    }
    condition {
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["false"]
    }
  }
  # queue e and its subscription DLQ admit the topic that feeds them (PRD001, PRD003)
  dynamic "statement" {
    for_each = contains([local.e_src, local.e_dlq], each.key) ? [1] : []
    content {
      sid       = "AllowEventsTopic"
      actions   = ["sqs:SendMessage"]
      resources = ["${local.arn}:${each.key}"]
      principals {
        type        = "Service"
        identifiers = ["sns.amazonaws.com"]
      }
      condition {
        test     = "ArnEquals"
        variable = "aws:SourceArn"
        values   = [aws_sns_topic.events.arn]
      }
    }
  }
  # broken: the DLQ of pair a lets anyone send
  dynamic "statement" {
    for_each = local.b && each.key == local.a_dlq ? [1] : []
    content {
      sid       = "AnyoneMaySend"
      actions   = ["sqs:SendMessage"]
      resources = ["${local.arn}:${each.key}"]
      principals {
        type        = "*"
        identifiers = ["*"]
      }
    }
  }
}

# -- pair a: most queue rules, the consumer rules and the alarms --------------------------
resource "aws_sqs_queue" "a_dlq" {
  name                      = local.a_dlq
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = !local.b
  policy                    = data.aws_iam_policy_document.tls[local.a_dlq].json
  redrive_allow_policy      = jsonencode({ redrivePermission = "byQueue", sourceQueueArns = ["${local.arn}:${local.a_src}"] })
  tags                      = local.tags
}

resource "aws_sqs_queue" "a" {
  name                       = local.a_src
  message_retention_seconds  = 345600
  visibility_timeout_seconds = local.b ? 60 : 180 # the consumer's timeout is 30 s: 6 x 30 = 180
  receive_wait_time_seconds  = local.b ? 0 : 20
  sqs_managed_sse_enabled    = true
  policy                     = data.aws_iam_policy_document.tls[local.a_src].json
  redrive_policy             = jsonencode({ deadLetterTargetArn = "${local.arn}:${local.a_dlq}", maxReceiveCount = local.b ? 1 : 5 })
  tags                       = local.tags
  depends_on                 = [aws_sqs_queue.a_dlq]
}

# -- pair b: retention ---------------------------------------------------------------------
resource "aws_sqs_queue" "b_dlq" {
  name                      = local.b_dlq
  message_retention_seconds = local.b ? 3600 : 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = data.aws_iam_policy_document.tls[local.b_dlq].json
  redrive_allow_policy = jsonencode({ redrivePermission = "byQueue",
  sourceQueueArns = ["${local.arn}:${local.b_src}", "${local.arn}:${local.c_src}", "${local.arn}:${local.e_src}"] })
  tags = local.tags
}

resource "aws_sqs_queue" "b" {
  name                      = local.b_src
  message_retention_seconds = local.b ? 3600 : 345600
  # broken: 4 receives x 900 s reach the 1-hour retention: a failing message expires before
  # it reaches the DLQ (SQS012)
  visibility_timeout_seconds = local.b ? 900 : null
  receive_wait_time_seconds  = 20
  sqs_managed_sse_enabled    = true
  policy                     = data.aws_iam_policy_document.tls[local.b_src].json
  redrive_policy             = jsonencode({ deadLetterTargetArn = "${local.arn}:${local.b_dlq}", maxReceiveCount = 4 })
  tags                       = local.tags
  depends_on                 = [aws_sqs_queue.b_dlq]
}

# -- queue c: the other source of pair b's DLQ ------------------------------------------------
resource "aws_sqs_queue" "c" {
  name                      = local.c_src
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = data.aws_iam_policy_document.tls[local.c_src].json
  redrive_policy            = jsonencode({ deadLetterTargetArn = "${local.arn}:${local.b_dlq}", maxReceiveCount = 4 })
  tags                      = local.tags
  depends_on                = [aws_sqs_queue.b_dlq]
}

# -- queue e: an SNS subscription's target. Its subscription's dead-letter queue e_dlq was
# created without a redrive-allow policy (the provider stores "" in state); broken, queue e
# sends its own failures there too, so e_dlq needs one (SQS011 reads "" from real state).
resource "aws_sqs_queue" "e_dlq" {
  name                      = local.e_dlq
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = data.aws_iam_policy_document.tls[local.e_dlq].json
  tags                      = local.tags
}

resource "aws_sqs_queue" "e" {
  name                      = local.e_src
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = data.aws_iam_policy_document.tls[local.e_src].json
  redrive_policy            = jsonencode({ deadLetterTargetArn = "${local.arn}:${local.b ? local.e_dlq : local.b_dlq}", maxReceiveCount = 4 })
  tags                      = local.tags
  depends_on                = [aws_sqs_queue.b_dlq, aws_sqs_queue.e_dlq]
}

resource "aws_sns_topic" "events" {
  name = "${var.name_prefix}-events"
}

resource "aws_sns_topic_subscription" "e" {
  topic_arn      = aws_sns_topic.events.arn
  protocol       = "sqs"
  endpoint       = aws_sqs_queue.e.arn
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.e_dlq.arn })
}

# -- queue g: created by the broken update without a DLQ or a queue policy --------------------
resource "aws_sqs_queue" "g" {
  count                     = local.b ? 1 : 0
  name                      = local.g_src
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  tags                      = local.tags
}

# -- FIFO pair f: its DLQ becomes standard; its consumer batches ----------------------------
resource "aws_sqs_queue" "f_dlq" {
  name                      = local.f_dlq
  fifo_queue                = !local.b
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy                    = data.aws_iam_policy_document.tls[local.f_dlq].json
  redrive_allow_policy      = jsonencode({ redrivePermission = "byQueue", sourceQueueArns = ["${local.arn}:${local.f_src}"] })
  tags                      = local.tags
}

resource "aws_sqs_queue" "f" {
  name                       = local.f_src
  fifo_queue                 = true
  visibility_timeout_seconds = 180
  receive_wait_time_seconds  = 20
  sqs_managed_sse_enabled    = true
  policy                     = data.aws_iam_policy_document.tls[local.f_src].json
  redrive_policy             = jsonencode({ deadLetterTargetArn = "${local.arn}:${local.f_dlq}", maxReceiveCount = 4 })
  tags                       = local.tags
  depends_on                 = [aws_sqs_queue.f_dlq]
}

# -- consumers ----------------------------------------------------------------------------
data "aws_lambda_function" "consumer" {
  function_name = local.consume
}

resource "aws_lambda_event_source_mapping" "a" {
  event_source_arn        = aws_sqs_queue.a.arn
  function_name           = data.aws_lambda_function.consumer.function_name
  batch_size              = 10
  function_response_types = local.b ? [] : ["ReportBatchItemFailures"]
  dynamic "scaling_config" {
    for_each = local.b ? [] : [5]
    content {
      maximum_concurrency = scaling_config.value
    }
  }
}

resource "aws_lambda_event_source_mapping" "f" {
  event_source_arn                   = aws_sqs_queue.f.arn
  function_name                      = data.aws_lambda_function.consumer.function_name
  batch_size                         = local.b ? 20 : 10
  maximum_batching_window_in_seconds = local.b ? 5 : 0
  function_response_types            = ["ReportBatchItemFailures"]
  scaling_config {
    maximum_concurrency = 2
  }
  # broken: provisioned mode beside scaling_config (Lambda refuses the pair, ESM005)
  dynamic "provisioned_poller_config" {
    for_each = local.b ? [20] : []
    content {
      maximum_pollers = provisioned_poller_config.value
    }
  }
}

# -- alarms ----------------------------------------------------------------------------------
resource "aws_cloudwatch_metric_alarm" "depth" {
  for_each            = toset([local.a_dlq, local.b_dlq, local.e_dlq, local.f_dlq])
  alarm_name          = "${each.key}-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = each.key }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = local.b && each.key == local.a_dlq ? 10 : 0
}

resource "aws_cloudwatch_metric_alarm" "age" {
  for_each            = toset([local.a_src, local.b_src, local.c_src, local.e_src, local.f_src])
  alarm_name          = "${each.key}-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = each.key }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = local.b && each.key == local.a_src ? 345600 : 3600
}

# -- claim-check bucket: payloads of pair a --------------------------------------------------
resource "aws_s3_bucket" "payloads" {
  bucket        = local.bucket
  force_destroy = true
  tags          = local.tags
}

resource "aws_s3_bucket_server_side_encryption_configuration" "payloads" {
  count  = local.b ? 0 : 1
  bucket = aws_s3_bucket.payloads.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_public_access_block" "payloads" {
  bucket                  = aws_s3_bucket.payloads.id
  block_public_acls       = true
  block_public_policy     = !local.b
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_policy" "payloads" {
  bucket = aws_s3_bucket.payloads.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "DenyInsecureTransport"
      Effect    = "Deny"
      Principal = "*"
      Action    = "s3:*"
      Resource  = local.b ? ["arn:aws:s3:::${local.bucket}"] : ["arn:aws:s3:::${local.bucket}", "arn:aws:s3:::${local.bucket}/*"]
      Condition = { Bool = { "aws:SecureTransport" = "false" } }
    }]
  })
}

resource "aws_s3_bucket_lifecycle_configuration" "payloads" {
  bucket = aws_s3_bucket.payloads.id
  rule {
    id     = "expire-payloads"
    status = "Enabled"
    filter {
      prefix = "payloads/"
    }
    expiration {
      days = local.b ? 10 : 15 # pair a's DLQ keeps messages 14 days
    }
  }
}

resource "aws_iam_policy" "producer" {
  name = "${var.name_prefix}-producer"
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      { Effect = "Allow", Action = local.b ? "sqs:*" : "sqs:SendMessage", Resource = local.b ? "*" : "${local.arn}:${local.a_src}" },
      { Effect = "Allow", Action = "s3:PutObject", Resource = "arn:aws:s3:::${local.bucket}/payloads/*" },
    ]
  })
}

# -- idempotency table -------------------------------------------------------------------------
resource "aws_dynamodb_table" "idempotency" {
  name         = "${var.name_prefix}-idempotency"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = local.b ? "pk" : "id"
  attribute {
    name = local.b ? "pk" : "id"
    type = "S"
  }
  ttl {
    attribute_name = "expiration"
    enabled        = !local.b
  }
  point_in_time_recovery {
    enabled = !local.b
  }
  tags = local.tags
}

# -- an existing managed policy, read by a data source; attached only when broken ------------------
data "aws_iam_policy" "sqs_full" {
  arn = "arn:aws:iam::aws:policy/AmazonSQSFullAccess"
}

resource "aws_iam_role" "app" {
  name = "${var.name_prefix}-app"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "lambda.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
  tags = local.tags
}

resource "aws_iam_role_policy_attachment" "sqs_full" {
  count      = local.b ? 1 : 0
  role       = aws_iam_role.app.name
  policy_arn = data.aws_iam_policy.sqs_full.arn
}
