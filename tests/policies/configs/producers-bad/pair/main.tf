# A queue and its DLQ as the queue rules want them, with their alarms. The source queue's
# policy is the caller's (it names the producers); the DLQ's denies plain HTTP.
variable "name" {
  type = string
}

variable "fifo" {
  type    = bool
  default = false
}

variable "kms_key_arn" {
  type    = string
  default = null
}

# whether kms_key_arn is given (a key the same apply creates has an ARN known only after apply)
variable "kms" {
  type    = bool
  default = false
}

variable "alarm_topic_arn" {
  type = string
}

locals {
  suffix   = var.fifo ? ".fifo" : ""
  dlq_name = "${var.name}-dlq${local.suffix}"
  src_name = "${var.name}${local.suffix}"
  prefix   = "arn:aws:sqs:us-east-1:123456789012"
}

resource "aws_sqs_queue" "dlq" {
  name                      = local.dlq_name
  fifo_queue                = var.fifo
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = var.kms ? null : true
  kms_master_key_id         = var.kms_key_arn
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "DenyInsecureTransport"
      Effect    = "Deny"
      Principal = "*"
      Action    = "sqs:*"
      Resource  = "${local.prefix}:${local.dlq_name}"
      Condition = { Bool = { "aws:SecureTransport" = "false" } }
    }]
  })
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = ["${local.prefix}:${local.src_name}"]
  })
}

resource "aws_sqs_queue" "this" {
  name                      = local.src_name
  fifo_queue                = var.fifo
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = var.kms ? null : true
  kms_master_key_id         = var.kms_key_arn
  redrive_policy = jsonencode({
    deadLetterTargetArn = "${local.prefix}:${local.dlq_name}"
    maxReceiveCount     = 4
  })
  depends_on = [aws_sqs_queue.dlq]
}

resource "aws_cloudwatch_metric_alarm" "depth" {
  alarm_name          = "${local.dlq_name}-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = local.dlq_name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  alarm_actions       = [var.alarm_topic_arn]
}

resource "aws_cloudwatch_metric_alarm" "age" {
  alarm_name          = "${local.src_name}-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = local.src_name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 3600
  alarm_actions       = [var.alarm_topic_arn]
}

output "arn" {
  value = aws_sqs_queue.this.arn
}

output "url" {
  value = aws_sqs_queue.this.url
}

output "dlq_arn" {
  value = aws_sqs_queue.dlq.arn
}

output "name" {
  value = aws_sqs_queue.this.name
}
