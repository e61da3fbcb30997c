# Plan-mode checks of modules/alarms with the real AWS provider (no API calls:
# dummy credentials, account ID given).

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "offline-plan"
  secret_key                  = "offline-plan"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
}

variables {
  account_id     = "123456789012"
  sns_topic_name = "sqs-alarms-orders"
  kinds          = ["dlq_depth", "dlq_influx", "dlq_stale", "age_warning", "age_critical", "backlog"]
  queues = {
    orders   = { queue_name = "orders", dlq_name = "orders-dlq" }
    payments = { queue_name = "payments.fifo", dlq_name = "payments-dlq.fifo" }
  }
}

run "default_kinds" {
  command = plan

  variables {
    kinds = null
  }

  # two alarms per pair unless more are asked for: what CW001 and CW002 ask for
  assert {
    condition = (
      keys(aws_cloudwatch_metric_alarm.dlq_depth) == ["orders", "payments"] && keys(aws_cloudwatch_metric_alarm.age_critical) == ["orders", "payments"] &&
      length(aws_cloudwatch_metric_alarm.dlq_influx) + length(aws_cloudwatch_metric_alarm.dlq_stale) + length(aws_cloudwatch_metric_alarm.age_warning) + length(aws_cloudwatch_metric_alarm.backlog) == 0
    )
    error_message = "by default each pair should get a DLQ depth alarm and a critical age alarm, and no other"
  }
  assert {
    condition = (
      output.alarm_names["orders"].dlq_depth == "sqs-dlq-not-empty-orders-dlq" && output.alarm_names["orders"].age_critical == "sqs-oldest-message-critical-orders" &&
      output.alarm_names["orders"].backlog == null && output.alarm_names["orders"].age_warning == null && output.alarm_names["orders"].dlq_influx == null
    )
    error_message = "alarm_names should keep its shape, with null for kinds not created"
  }
}

# every kind, with the stated defaults
run "stated_defaults" {
  command = plan

  # DLQ depth: any visible message, 1-minute period, missing data not breaching
  assert {
    condition = alltrue([for k, a in aws_cloudwatch_metric_alarm.dlq_depth : (
      a.namespace == "AWS/SQS" && a.metric_name == "ApproximateNumberOfMessagesVisible" &&
      a.comparison_operator == "GreaterThanThreshold" && a.threshold == 0 && a.period == 60 &&
      a.evaluation_periods == 1 && a.treat_missing_data == "notBreaching" && a.statistic == "Maximum"
    )])
    error_message = "DLQ depth alarms: ApproximateNumberOfMessagesVisible > 0 over 1 minute, missing data not breaching"
  }
  assert {
    condition     = aws_cloudwatch_metric_alarm.dlq_depth["orders"].dimensions["QueueName"] == "orders-dlq" && aws_cloudwatch_metric_alarm.dlq_depth["payments"].dimensions["QueueName"] == "payments-dlq.fifo"
    error_message = "DLQ alarms should use the DLQ's QueueName dimension"
  }
  # rapid influx: messages added per minute > 50 for 2 periods
  assert {
    condition = alltrue([for k, a in aws_cloudwatch_metric_alarm.dlq_influx : (
      a.threshold == 50 && a.evaluation_periods == 2 && a.comparison_operator == "GreaterThanThreshold" &&
      anytrue([for q in a.metric_query : q.expression == "DIFF(visible)" && q.return_data]) &&
      anytrue([for q in a.metric_query : q.id == "visible" && try(one(q.metric).metric_name == "ApproximateNumberOfMessagesVisible" && one(q.metric).period == 60, false)])
    )])
    error_message = "DLQ influx alarms: DIFF of visible messages per minute > 50 for 2 periods"
  }
  assert {
    condition     = anytrue([for q in aws_cloudwatch_metric_alarm.dlq_influx["orders"].metric_query : try(one(q.metric).dimensions["QueueName"] == "orders-dlq", false)])
    error_message = "the influx alarm should watch the DLQ by QueueName"
  }
  # stale DLQ: oldest message older than 1 hour
  assert {
    condition = alltrue([for k, a in aws_cloudwatch_metric_alarm.dlq_stale : (
      a.metric_name == "ApproximateAgeOfOldestMessage" && a.threshold == 3600 && a.treat_missing_data == "notBreaching"
    )])
    error_message = "DLQ stale alarms: ApproximateAgeOfOldestMessage > 3600 s"
  }
  # source queue: age warning 5 min, critical 30 min, backlog > 1000
  assert {
    condition = (
      aws_cloudwatch_metric_alarm.age_warning["orders"].metric_name == "ApproximateAgeOfOldestMessage" &&
      aws_cloudwatch_metric_alarm.age_warning["orders"].threshold == 300 &&
      aws_cloudwatch_metric_alarm.age_critical["orders"].threshold == 1800 &&
      aws_cloudwatch_metric_alarm.age_warning["orders"].dimensions["QueueName"] == "orders"
    )
    error_message = "age alarms: warning at 300 s and critical at 1800 s on the source queue"
  }
  assert {
    condition = (
      aws_cloudwatch_metric_alarm.backlog["payments"].metric_name == "ApproximateNumberOfMessagesVisible" &&
      aws_cloudwatch_metric_alarm.backlog["payments"].threshold == 1000 &&
      aws_cloudwatch_metric_alarm.backlog["payments"].dimensions["QueueName"] == "payments.fifo"
    )
    error_message = "backlog alarm: more than 1000 visible messages on the source queue"
  }
  # names and descriptions say which queue and what to do
  assert {
    condition = (
      aws_cloudwatch_metric_alarm.dlq_depth["orders"].alarm_name == "sqs-dlq-not-empty-orders-dlq" &&
      aws_cloudwatch_metric_alarm.age_critical["payments"].alarm_name == "sqs-oldest-message-critical-payments.fifo" &&
      aws_cloudwatch_metric_alarm.backlog["orders"].alarm_name == "sqs-backlog-orders"
    )
    error_message = "alarm names should carry the kind of alarm and the queue name"
  }
  assert {
    condition = alltrue(flatten([for r in [
      aws_cloudwatch_metric_alarm.dlq_depth, aws_cloudwatch_metric_alarm.dlq_influx, aws_cloudwatch_metric_alarm.dlq_stale,
      aws_cloudwatch_metric_alarm.age_warning, aws_cloudwatch_metric_alarm.age_critical, aws_cloudwatch_metric_alarm.backlog,
      ] : [for k, a in r : strcontains(a.alarm_description, var.queues[k].queue_name) && strcontains(a.alarm_description, "To do")]
    ]))
    error_message = "every description should name the queue and say what to do"
  }
  # notifications: an encrypted topic with a key CloudWatch may use
  assert {
    condition     = length(aws_sns_topic.alarms) == 1 && aws_sns_topic.alarms[0].name == "sqs-alarms-orders" && length(aws_kms_key.alarms) == 1
    error_message = "a topic (and its key) should be created when none is given"
  }
  assert {
    condition     = aws_kms_key.alarms[0].enable_key_rotation == true
    error_message = "the topic key should rotate"
  }
  assert {
    condition = anytrue([for s in jsondecode(aws_kms_key.alarms[0].policy).Statement :
      try(s.Principal.Service == "cloudwatch.amazonaws.com" && toset(s.Action) == toset(["kms:GenerateDataKey", "kms:Decrypt"]), false)
    ])
    error_message = "the key policy should let CloudWatch encrypt messages for the topic"
  }
  assert {
    condition = anytrue([for s in jsondecode(aws_sns_topic.alarms[0].policy).Statement :
      try(s.Effect == "Allow" && s.Principal.Service == "cloudwatch.amazonaws.com" && s.Action == "sns:Publish" &&
      s.Resource == "arn:aws:sns:us-east-1:123456789012:sqs-alarms-orders" && s.Condition.StringEquals["aws:SourceAccount"] == "123456789012", false)
    ])
    error_message = "the topic policy should let this account's CloudWatch alarms publish"
  }
  assert {
    condition     = output.sns_topic_created == true && length(output.alarm_names) == 2
    error_message = "outputs should report the created topic and the alarms per queue"
  }
}

run "given_topic_overrides_and_prefix" {
  command = plan

  variables {
    sns_topic_arn     = "arn:aws:sns:us-east-1:123456789012:oncall"
    alarm_name_prefix = "prod-"
    notify_on_ok      = false
    thresholds        = { age_warning_seconds = 120, backlog_messages = 200 }
    queues = {
      orders = { queue_name = "orders", dlq_name = "orders-dlq", thresholds = { backlog_messages = 5000 } }
      emails = { queue_name = "emails", dlq_name = "emails-dlq" }
    }
  }

  assert {
    condition     = length(aws_sns_topic.alarms) == 0 && length(aws_kms_key.alarms) == 0
    error_message = "no topic or key should be created when one is given"
  }
  assert {
    condition     = aws_cloudwatch_metric_alarm.dlq_depth["orders"].alarm_actions == toset(["arn:aws:sns:us-east-1:123456789012:oncall"]) && aws_cloudwatch_metric_alarm.dlq_depth["orders"].ok_actions == null
    error_message = "alarms should notify the given topic, and not on OK when notify_on_ok = false"
  }
  assert {
    condition     = aws_cloudwatch_metric_alarm.backlog["orders"].threshold == 5000 && aws_cloudwatch_metric_alarm.backlog["emails"].threshold == 200
    error_message = "a per-queue threshold should win over the module-wide one"
  }
  assert {
    condition     = aws_cloudwatch_metric_alarm.age_warning["emails"].threshold == 120 && aws_cloudwatch_metric_alarm.age_critical["emails"].threshold == 1800
    error_message = "module-wide overrides apply; unset thresholds keep their defaults"
  }
  assert {
    condition     = aws_cloudwatch_metric_alarm.dlq_stale["emails"].alarm_name == "prod-sqs-dlq-stale-emails-dlq"
    error_message = "the prefix should lead every alarm name"
  }
}

run "no_notifications_when_opted_out" {
  command = plan

  variables {
    create_sns_topic = false
  }

  assert {
    condition     = length(aws_sns_topic.alarms) == 0 && aws_cloudwatch_metric_alarm.dlq_depth["orders"].alarm_actions == null && output.sns_topic_arn == null
    error_message = "create_sns_topic = false without a topic should give alarms without actions"
  }
}

run "given_kms_key_for_created_topic" {
  command = plan

  variables {
    sns_kms_master_key_id = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    sns_topic_name        = "messaging-alarms"
  }

  assert {
    condition     = length(aws_kms_key.alarms) == 0 && aws_sns_topic.alarms[0].kms_master_key_id == "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    error_message = "a given key should encrypt the created topic, and no key should be created"
  }
  assert {
    condition     = aws_sns_topic.alarms[0].name == "messaging-alarms"
    error_message = "the topic name should be used as given"
  }
}

# thresholds just below the retentions can fire: planned; a DLQ alarm left out
# (dlq_alarms = false) is not judged against a retention it does not watch
run "age_thresholds_below_retention" {
  command = plan
  variables {
    kinds = ["dlq_depth", "dlq_stale", "age_critical"]
    queues = {
      orders = {
        queue_name = "orders", dlq_name = "orders-dlq", retention_seconds = 86400, dlq_retention_seconds = 172800
        thresholds = { age_critical_seconds = 86399, dlq_stale_age_seconds = 172799 }
      }
      emails = {
        queue_name = "emails", dlq_name = "orders-dlq", dlq_alarms = false, retention_seconds = 86400, dlq_retention_seconds = 60
      }
    }
  }
  assert {
    condition     = aws_cloudwatch_metric_alarm.age_critical["orders"].threshold == 86399 && aws_cloudwatch_metric_alarm.dlq_stale["orders"].threshold == 172799
    error_message = "thresholds a second below the retentions must plan as given"
  }
  assert {
    condition     = !contains(keys(aws_cloudwatch_metric_alarm.dlq_stale), "emails")
    error_message = "a queue whose DLQ is watched by another entry gets no DLQ alarm"
  }
}
