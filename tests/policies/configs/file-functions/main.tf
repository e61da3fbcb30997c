# Settings kept in files beside the configuration, read with the file functions: a queue
# catalogue in YAML (anchors and merge keys), settings in JSON, one YAML file per team found
# with fileset(), an optional overrides file (fileexists), and queue policies rendered with
# templatefile(). The redrive and queue policies embed ARNs of queues this apply creates,
# so the plan leaves them unknown; the checker reads them from the source (--source-dir):
# payments' maxReceiveCount 1 (queues.yaml), shipping's 12 (teams/shipping.yaml) and the
# public Allow rendered for invoices (settings.json) are decided, not unknown.
locals {
  catalogue = yamldecode(file("${path.module}/queues.yaml"))
  settings  = jsondecode(file("${path.module}/settings.json"))
  teams = {
    for f in fileset(path.module, "teams/*.yaml") :
    trimsuffix(basename(f), ".yaml") => yamldecode(file("${path.module}/${f}"))
  }
  overrides = fileexists("${path.module}/overrides.yaml") ? yamldecode(file("${path.module}/overrides.yaml")) : {}
  queues = merge(
    local.catalogue.queues,
    { for team, cfg in local.teams : "team-${team}" => merge(local.catalogue.defaults, cfg) },
    local.overrides,
  )
}

resource "aws_sqs_queue" "dlq" {
  for_each                  = local.queues
  name                      = "files-${each.key}-dlq"
  message_retention_seconds = local.settings.dlq_retention_days * 86400
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "queue" {
  for_each                   = local.queues
  name                       = "files-${each.key}"
  message_retention_seconds  = each.value.retention_days * 86400
  visibility_timeout_seconds = each.value.visibility
  receive_wait_time_seconds  = 20
  sqs_managed_sse_enabled    = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq[each.key].arn
    maxReceiveCount     = each.value.max_receive
  })
}

resource "aws_sqs_queue_redrive_allow_policy" "dlq" {
  for_each  = local.queues
  queue_url = aws_sqs_queue.dlq[each.key].id
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.queue[each.key].arn]
  })
}

resource "aws_sqs_queue_policy" "queue" {
  for_each  = local.queues
  queue_url = aws_sqs_queue.queue[each.key].id
  policy = templatefile("${path.module}/policies/queue.json.tftpl", {
    queue_arn = aws_sqs_queue.queue[each.key].arn
    public    = contains(local.settings.public_queues, each.key)
  })
}

resource "aws_sqs_queue_policy" "dlq" {
  for_each  = local.queues
  queue_url = aws_sqs_queue.dlq[each.key].id
  policy = templatefile("${path.module}/policies/queue.json.tftpl", {
    queue_arn = aws_sqs_queue.dlq[each.key].arn
    public    = false
  })
}

resource "aws_cloudwatch_metric_alarm" "dlq_depth" {
  for_each            = local.queues
  alarm_name          = "files-${each.key}-dlq-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = aws_sqs_queue.dlq[each.key].name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  threshold           = 0
  comparison_operator = "GreaterThanThreshold"
  alarm_actions       = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}

resource "aws_cloudwatch_metric_alarm" "age" {
  for_each            = local.queues
  alarm_name          = "files-${each.key}-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = aws_sqs_queue.queue[each.key].name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  threshold           = local.settings.alarm_age_seconds
  comparison_operator = "GreaterThanThreshold"
  alarm_actions       = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}
