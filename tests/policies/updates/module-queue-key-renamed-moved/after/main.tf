module "messaging" {
  source = "../../../.."

  queues = {
    orders_v2 = {
      name     = "${var.name_prefix}-orders"
      consumer = { timeout_seconds = 10, function_name = "${var.name_prefix}-consumer" }
    }
  }
  alarms = {
    create_sns_topic = false
    kinds            = ["dlq_depth", "dlq_influx", "dlq_stale", "age_warning", "age_critical", "backlog"]
  }
  iam = { create_managed_policies = true }
}

# the blocks of docs/module.md "Renaming a queues key" (those for the redrive find nothing to move)
moved {
  from = module.messaging.module.queue["orders"]
  to   = module.messaging.module.queue["orders_v2"]
}
moved {
  from = module.messaging.module.iam["orders"]
  to   = module.messaging.module.iam["orders_v2"]
}
moved {
  from = module.messaging.module.consumer["orders"]
  to   = module.messaging.module.consumer["orders_v2"]
}
moved {
  from = module.messaging.module.dlq_redrive["orders"]
  to   = module.messaging.module.dlq_redrive["orders_v2"]
}
moved {
  from = module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.dlq_depth["orders"]
  to   = module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.dlq_depth["orders_v2"]
}
moved {
  from = module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.dlq_influx["orders"]
  to   = module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.dlq_influx["orders_v2"]
}
moved {
  from = module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.dlq_stale["orders"]
  to   = module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.dlq_stale["orders_v2"]
}
moved {
  from = module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.age_warning["orders"]
  to   = module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.age_warning["orders_v2"]
}
moved {
  from = module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.age_critical["orders"]
  to   = module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.age_critical["orders_v2"]
}
moved {
  from = module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.backlog["orders"]
  to   = module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.backlog["orders_v2"]
}
