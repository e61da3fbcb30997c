# Action patterns IAM reads as a service-wide wildcard without writing `sqs:*`, and an Allow
# of every action but one (NotAction): IAM001 fails them all, IAM002 fails the ones on "*".
# Partial wildcards (one kind of action) and Denies are fine.
locals {
  queue_arn = "arn:aws:sqs:us-east-1:123456789012:iam-eq-jobs"
  policies = {
    # a doubled star matches what one does
    double_star = { Effect = "Allow", Action = ["sqs:**"], Resource = local.queue_arn }
    # ? matches the first letter of every action name
    any_name = { Effect = "Allow", Action = "sqs:?*", Resource = local.queue_arn }
    # a wildcard in the service part: sqs (and sns) actions
    service_glob = { Effect = "Allow", Action = "sq?:*", Resource = local.queue_arn }
    # no colon at all: every action of every service starting with s (s3, sqs, ...)
    prefix_only = { Effect = "Allow", Action = "s*", Resource = local.queue_arn }
    # every action of every service, written with a colon
    star_colon_star = { Effect = "Allow", Action = "*:*", Resource = local.queue_arn }
    # every action but one, on every resource: IAM001 and IAM002
    not_action_anywhere = { Effect = "Allow", NotAction = "sqs:DeleteQueue", Resource = "*" }
    # every action but one, on one named queue: IAM001 only
    not_action_named = { Effect = "Allow", NotAction = ["sqs:PurgeQueue"], Resource = local.queue_arn }
    # a service wildcard on "*" through a glob: IAM001 and IAM002
    glob_anywhere = { Effect = "Allow", Action = "dynamo*:*", Resource = "*" }
    # fine: one kind of action, on a named queue
    partial = { Effect = "Allow", Action = ["sqs:*Message", "sqs:ChangeMessageVisibility*"], Resource = local.queue_arn }
    # fine: a Deny may use any wildcard
    deny = { Effect = "Deny", Action = "sqs:**", Resource = "*" }
  }
}

resource "aws_iam_policy" "p" {
  for_each = local.policies
  name     = "iam-eq-${replace(each.key, "_", "-")}"
  policy   = jsonencode({ Version = "2012-10-17", Statement = [each.value] })
}
