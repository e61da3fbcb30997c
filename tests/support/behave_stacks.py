"""Stacks a platform team might write, for the behaviour checks (sqs-behave, the pytest plugin):
the same queue setup three ways, in a directory outside the repository.

* ``module``: sources this checkout by a relative path;
* ``raw``: plain ``aws_sqs_queue`` / ``aws_cloudwatch_metric_alarm`` resources;
* ``anchor``: terraform-aws-modules/sqs v4.3.1, copied at test time from ``../shared/anchors``
  into the stack's own ``modules/sqs`` folder (a local module; never committed here).

``defects=True`` adds pairs that each break one promise (named in :data:`DEFECTS`).
"""
from __future__ import annotations

import io
import os
import shutil
import zipfile
from pathlib import Path

from tests.support.helpers import REPO_ROOT

# $SQS_ANCHOR_DIR, else shared/anchors beside the checkout or beside one of its parents (a worktree)
_ANCHOR_REL = Path("shared") / "anchors" / "terraform-aws-sqs-v4.3.1"
ANCHOR = Path(os.environ["SQS_ANCHOR_DIR"]) if os.environ.get("SQS_ANCHOR_DIR") else next(
    (p / _ANCHOR_REL for p in REPO_ROOT.parents if (p / _ANCHOR_REL).is_dir()), REPO_ROOT.parent / _ANCHOR_REL)

PROVIDER = '''terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0"
    }
  }
}

provider "aws" {
  region      = "us-east-1"
  max_retries = 2
}

variable "name_prefix" {
  type = string
}

resource "aws_sns_topic" "alerts" {
  name = "${var.name_prefix}-alerts"
}

# someone reads the alarms (a topic nobody subscribes to fails dlq-alarm-fires)
resource "aws_sns_topic_subscription" "oncall" {
  topic_arn = aws_sns_topic.alerts.arn
  protocol  = "email"
  endpoint  = "oncall@example.com"
}
'''

MODULE = '''
data "aws_caller_identity" "me" {}

module "messaging" {
  source = "{source}"

  account_id = data.aws_caller_identity.me.account_id
  queues = {
    "${var.name_prefix}-orders" = {}
    "${var.name_prefix}-payments" = {
      fifo                        = true
      content_based_deduplication = true
    }
  }
  alarms = { sns_topic_arn = aws_sns_topic.alerts.arn }
  claim_check_bucket = {
    enabled       = true
    name          = "${var.name_prefix}-claim-check"
    force_destroy = true
  }
  idempotency_table = {
    enabled                     = true
    name                        = "${var.name_prefix}-idempotency"
    deletion_protection_enabled = false
  }
}
'''


def _alarm(res: str, queue_name_expr: str, threshold: int = 0, actions: str = "[aws_sns_topic.alerts.arn]",
           extra: str = "") -> str:
    return f'''
resource "aws_cloudwatch_metric_alarm" "{res}" {{
  alarm_name          = "${{var.name_prefix}}-{res}-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = {{ QueueName = {queue_name_expr} }}
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  threshold           = {threshold}
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = {actions}
{extra}}}
'''


def _raw_pair(key: str, fifo: bool = False, mrc: int = 3, allow: str | None = None, **alarm) -> str:
    """A queue, its DLQ and a depth alarm on the DLQ (``alarm``: _alarm's settings; ``alarm=None``: none)."""
    suffix = ".fifo" if fifo else ""
    fifo_attr = "  fifo_queue = true\n" if fifo else ""
    allow_attr = f"  redrive_allow_policy = {allow}\n" if allow else ""
    return f'''
resource "aws_sqs_queue" "{key}_dlq" {{
  name                      = "${{var.name_prefix}}-{key}-dlq{suffix}"
  message_retention_seconds = 1209600
{fifo_attr}{allow_attr}}}

resource "aws_sqs_queue" "{key}" {{
  name                       = "${{var.name_prefix}}-{key}{suffix}"
  visibility_timeout_seconds = 30
{fifo_attr}  redrive_policy = jsonencode({{
    deadLetterTargetArn = aws_sqs_queue.{key}_dlq.arn
    maxReceiveCount     = {mrc}
  }})
}}
''' + ("" if alarm.get("alarm", True) is None else _alarm(f"{key}_dlq", f"aws_sqs_queue.{key}_dlq.name",
                                                        **{k: v for k, v in alarm.items() if k != "alarm"}))


RAW = _raw_pair("orders") + _raw_pair("payments", fifo=True)

RAW_DEFECTS = '''
resource "aws_sqs_queue" "nodlq" {
  name = "${var.name_prefix}-nodlq"
}
''' + _raw_pair("stray", mrc=3).replace('QueueName = aws_sqs_queue.stray_dlq.name',
                                         'QueueName = "${var.name_prefix}-stray-dql"') + _raw_pair(
    "denied", allow='jsonencode({ redrivePermission = "byQueue", sourceQueueArns = ["arn:aws:sqs:us-east-1:000000000000:${var.name_prefix}-someone-else"] })') + \
    _raw_pair("loud", threshold=50) + _raw_pair("silent", actions="[]") + _raw_pair("unwatched", alarm=None) + \
    _raw_pair("unread", actions="[aws_sns_topic.unread.arn]") + '''
resource "aws_sns_topic" "unread" {
  name = "${var.name_prefix}-unread"
}
'''

ANCHOR_STACK = '''
module "orders" {
  source = "./modules/sqs"

  name                              = "${var.name_prefix}-orders"
  create_dlq                        = true
  dlq_message_retention_seconds     = 1209600
  redrive_policy                    = { maxReceiveCount = 3 }
  create_dlq_redrive_allow_policy   = false
}

module "payments" {
  source = "./modules/sqs"

  name                            = "${var.name_prefix}-payments"
  fifo_queue                      = true
  create_dlq                      = true
  redrive_policy                  = { maxReceiveCount = 4 }
  create_dlq_redrive_allow_policy = false
}
''' + _alarm("orders_dlq", "module.orders.dead_letter_queue_name") + _alarm("payments_dlq", "module.payments.dead_letter_queue_name")

ANCHOR_DEFECTS = '''
module "nodlq" {
  source = "./modules/sqs"

  name = "${var.name_prefix}-nodlq"
}
'''

# every attribute-only SQS resource, each on a queue of the stack: the AWS provider 5.100.0's delete
# of aws_sqs_queue_redrive_allow_policy waits 20 minutes on LocalStack 4.9.2 (the cleared attribute
# reads back as ""), so sqs-behave drops them from the state before destroying their queues
ATTRIBUTES = _raw_pair("orders") + """
resource "aws_sqs_queue_redrive_allow_policy" "orders_dlq" {
  queue_url = aws_sqs_queue.orders_dlq.id
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.orders.arn]
  })
}

resource "aws_sqs_queue_policy" "orders" {
  queue_url = aws_sqs_queue.orders.id
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "sns.amazonaws.com" }, Action = "sqs:SendMessage",
                   Resource = aws_sqs_queue.orders.arn }]
  })
}

resource "aws_sqs_queue" "late_dlq" {
  name = "${var.name_prefix}-late-dlq"
}

resource "aws_sqs_queue" "late" {
  name = "${var.name_prefix}-late"
}

resource "aws_sqs_queue_redrive_policy" "late" {
  queue_url = aws_sqs_queue.late.id
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.late_dlq.arn
    maxReceiveCount     = 3
  })
}
""" + _alarm("late_dlq", "aws_sqs_queue.late_dlq.name")

def _policy(queue: str, principal: str, source: str) -> str:
    return f'''
resource "aws_sqs_queue_policy" "{queue}" {{
  queue_url = aws_sqs_queue.{queue}.id
  policy = jsonencode({{
    Version = "2012-10-17"
    Statement = [{{
      Sid       = "producer"
      Effect    = "Allow"
      Principal = {{ Service = "{principal}" }}
      Action    = "sqs:SendMessage"
      Resource  = aws_sqs_queue.{queue}.arn
      Condition = {{ ArnEquals = {{ "aws:SourceArn" = {source} }} }}
    }}]
  }})
}}
'''


# producers wired to queues (issue 35 §6) and sizes/retention (§6, §7): good pairs, and one defect each
PRODUCERS = _raw_pair("fanout") + _raw_pair("events") + _raw_pair("uploads") + _raw_pair("unallowed") + \
    _raw_pair("shortlived") + _raw_pair("small") + '''
resource "aws_sns_topic" "orders" {
  name = "${var.name_prefix}-orders-topic"
}

resource "aws_sns_topic_subscription" "fanout" {
  topic_arn = aws_sns_topic.orders.arn
  protocol  = "sqs"
  endpoint  = aws_sqs_queue.fanout.arn
}

resource "aws_sns_topic_subscription" "unallowed" {
  topic_arn = aws_sns_topic.orders.arn
  protocol  = "sqs"
  endpoint  = aws_sqs_queue.unallowed.arn
}

resource "aws_cloudwatch_event_rule" "shipped" {
  name          = "${var.name_prefix}-shipped"
  event_pattern = jsonencode({ source = ["shop.orders"], "detail-type" = ["OrderShipped"] })
}

resource "aws_cloudwatch_event_target" "shipped" {
  rule = aws_cloudwatch_event_rule.shipped.name
  arn  = aws_sqs_queue.events.arn
}

resource "aws_s3_bucket" "uploads" {
  bucket        = "${var.name_prefix}-uploads"
  force_destroy = true
}

resource "aws_s3_bucket_notification" "uploads" {
  bucket = aws_s3_bucket.uploads.id
  queue {
    queue_arn     = aws_sqs_queue.uploads.arn
    events        = ["s3:ObjectCreated:*"]
    filter_prefix = "incoming/"
  }
  depends_on = [aws_sqs_queue_policy.uploads]
}
''' + _policy("fanout", "sns.amazonaws.com", "aws_sns_topic.orders.arn") + \
    _policy("events", "events.amazonaws.com", "aws_cloudwatch_event_rule.shipped.arn") + \
    _policy("uploads", "s3.amazonaws.com", "aws_s3_bucket.uploads.arn")
# unallowed: subscribed to the topic without a queue policy (AWS drops the notifications)
# shortlived: retention 60 s, visibility 30 s, maxReceiveCount 3: lost before the DLQ
PRODUCERS = PRODUCERS.replace('''resource "aws_sqs_queue" "shortlived" {
  name                       = "${var.name_prefix}-shortlived"
  visibility_timeout_seconds = 30''', '''resource "aws_sqs_queue" "shortlived" {
  name                       = "${var.name_prefix}-shortlived"
  message_retention_seconds  = 60
  visibility_timeout_seconds = 30''')
# small: max_message_size 2048 (fine without a claim-check bucket: a 2048 byte message goes through)
PRODUCERS = PRODUCERS.replace('''resource "aws_sqs_queue" "small" {
  name                       = "${var.name_prefix}-small"
  visibility_timeout_seconds = 30''', '''resource "aws_sqs_queue" "small" {
  name                       = "${var.name_prefix}-small"
  max_message_size           = 2048
  visibility_timeout_seconds = 30''')

# consumers (issue 35 §5): Lambda functions (Python, a local zip) consuming queues through event
# source mappings, which ministack runs without Docker (LocalStack without Docker cannot create the
# functions). "orders" is this module's same-stack consumer (consumer_functions; the module derives
# the visibility timeout, 6 x 8 s); "late" is raw resources whose visibility timeout (5 s) is below
# its function's timeout (8 s): visibility-covers-consumer must fail it, naming the setting
CONSUMER_TIMEOUT = 8
CONSUMER_HANDLER = """import json


def handler(event, context):
    for record in event.get("Records", []):
        print(json.dumps({"consumed": record["messageId"]}))
    return {"batchItemFailures": []}
"""

CONSUMERS = """
data "aws_caller_identity" "me" {}

resource "aws_iam_role" "consumer" {
  name = "${var.name_prefix}-consumer"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = "sts:AssumeRole", Principal = { Service = "lambda.amazonaws.com" } }]
  })
}

module "messaging" {
  source = "{source}"

  account_id = data.aws_caller_identity.me.account_id
  queues = {
    "${var.name_prefix}-orders" = { consumer = { timeout_seconds = %(timeout)d } }
  }
  consumer_functions = {
    "${var.name_prefix}-orders" = {
      function_name   = aws_lambda_function.orders.function_name
      timeout_seconds = aws_lambda_function.orders.timeout
    }
  }
  alarms = { sns_topic_arn = aws_sns_topic.alerts.arn }
}

resource "aws_lambda_function" "orders" {
  function_name    = "${var.name_prefix}-orders-consumer"
  role             = aws_iam_role.consumer.arn
  runtime          = "python3.12"
  handler          = "handler.handler"
  filename         = "${path.module}/consumer.zip"
  source_code_hash = filebase64sha256("${path.module}/consumer.zip")
  timeout          = %(timeout)d
}

resource "aws_sqs_queue" "late_dlq" {
  name = "${var.name_prefix}-late-dlq"
}

resource "aws_sqs_queue" "late" {
  name                       = "${var.name_prefix}-late"
  visibility_timeout_seconds = 5
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.late_dlq.arn
    maxReceiveCount     = 3
  })
}

resource "aws_lambda_function" "late" {
  function_name    = "${var.name_prefix}-late-consumer"
  role             = aws_iam_role.consumer.arn
  runtime          = "python3.12"
  handler          = "handler.handler"
  filename         = "${path.module}/consumer.zip"
  source_code_hash = filebase64sha256("${path.module}/consumer.zip")
  timeout          = %(timeout)d
}

resource "aws_lambda_event_source_mapping" "late" {
  event_source_arn = aws_sqs_queue.late.arn
  function_name    = aws_lambda_function.late.arn
  batch_size       = 5
}
""" % {"timeout": CONSUMER_TIMEOUT}


def consumer_zip() -> bytes:
    """The consumer functions' package: handler.py in a zip, as a build step would make it."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("handler.py", CONSUMER_HANDLER)
    return buf.getvalue()


# (stack form, queue key) -> the scenario its defect must fail
DEFECTS = {
    ("raw", "nodlq"): "poison-to-dlq",
    ("raw", "stray"): "dlq-alarm-fires",
    ("raw", "denied"): "redrive-conserves",
    ("raw", "loud"): "dlq-alarm-fires",
    ("raw", "silent"): "dlq-alarm-fires",
    ("raw", "unwatched"): "dlq-alarm-fires",
    ("raw", "unread"): "dlq-alarm-fires",
    ("anchor", "nodlq"): "poison-to-dlq",
}


def write_stack(form: str, where: Path, defects: bool = False) -> Path:
    """Write the ``form`` stack into ``where/<form>`` (``where`` outside the repository); returns its directory."""
    stack = Path(where) / form
    stack.mkdir(parents=True)
    body = PROVIDER
    if form == "module":
        body += MODULE.replace("{source}", os.path.relpath(REPO_ROOT, stack))
    elif form == "raw":
        body += RAW + (RAW_DEFECTS if defects else "")
    elif form == "attributes":
        body += ATTRIBUTES
    elif form == "producers":
        body += PRODUCERS
    elif form == "consumers":
        body += CONSUMERS.replace("{source}", os.path.relpath(REPO_ROOT, stack))
        (stack / "consumer.zip").write_bytes(consumer_zip())
    elif form == "anchor":
        shutil.copytree(ANCHOR, stack / "modules" / "sqs", ignore=shutil.ignore_patterns(".git*", "*.md", "examples"))
        body += ANCHOR_STACK + (ANCHOR_DEFECTS if defects else "")
    else:
        raise ValueError(form)
    (stack / "main.tf").write_text(body)
    return stack
