# A consumer Lambda function defined in this stack, beside the queue it
# consumes: the function reads the queue's URL from the module, its role gets
# the module's consumer policy, and the module's event source mapping invokes
# it. A producer role gets the producer policy.
#
# What makes this plan in one go, without a cycle:
# * the function is named in `consumer_functions`, not in `queues`: the queue,
#   its URL and its policy documents do not depend on the function (which
#   depends on them); only the event source mapping does, so it is created
#   after the function;
# * the function's timeout is a local shared by the function and
#   `queues.<key>.consumer.timeout_seconds`, from which the module derives the
#   queue's visibility timeout (6 x 30 s); `consumer_functions` also passes the
#   function's own timeout, so a mismatch is refused at plan;
# * the function depends on its role policy, so the mapping (after the
#   function) is created once the role may receive from the queue, which
#   CreateEventSourceMapping checks.

locals {
  queue            = "${var.name_prefix}-orders"
  consumer_timeout = 30
  package          = "${path.module}/dist/same-stack-consumer.zip"
}

module "messaging" {
  source = "../../"

  account_id = var.account_id

  queues = {
    (local.queue) = {
      consumer = {
        timeout_seconds = local.consumer_timeout
        # settings of the event source mapping: only with the function (the
        # module refuses them on a queue nobody consumes, as doing nothing)
        batch_size          = var.create_function ? 10 : null
        maximum_concurrency = var.create_function ? 5 : null
      }
    }
  }

  # the function of this stack that consumes each queue (none when create_function is false)
  consumer_functions = {
    for f in aws_lambda_function.consumer : local.queue => {
      function_name   = f.function_name
      timeout_seconds = f.timeout
    }
  }

  # The alarms (on by default) notify this topic. Without one no topic is
  # created and the plan warns that the alarms notify nobody.
  alarms = { sns_topic_arn = var.alarm_topic_arn }

  tags = { example = "same-stack-consumer" }
}

data "aws_partition" "current" {}

data "aws_iam_policy_document" "assume_by_lambda" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["lambda.amazonaws.com"]
    }
  }
}

# --- the consumer ----------------------------------------------------------------

resource "aws_iam_role" "consumer" {
  name               = "${var.name_prefix}-orders-consumer"
  assume_role_policy = data.aws_iam_policy_document.assume_by_lambda.json
}

resource "aws_iam_role_policy" "consumer" {
  name   = "consume-${local.queue}"
  role   = aws_iam_role.consumer.id
  policy = module.messaging.iam_policies[local.queue].consumer_policy_json
}

resource "aws_iam_role_policy_attachment" "consumer_logs" {
  role       = aws_iam_role.consumer.name
  policy_arn = "arn:${data.aws_partition.current.partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
}

resource "aws_lambda_function" "consumer" {
  count = var.create_function ? 1 : 0

  function_name    = "${var.name_prefix}-orders-consumer"
  role             = aws_iam_role.consumer.arn
  runtime          = "python3.12"
  handler          = "handler.handler"
  filename         = local.package
  source_code_hash = filebase64sha256(local.package)
  timeout          = local.consumer_timeout

  environment {
    variables = {
      QUEUE_URL = module.messaging.queues[local.queue].url
      DLQ_URL   = module.messaging.queues[local.queue].dlq_url
    }
  }

  # the role may read the queue before the mapping (created after the function) polls it
  depends_on = [aws_iam_role_policy.consumer, aws_iam_role_policy_attachment.consumer_logs]
}

# --- a producer ----------------------------------------------------------------------

resource "aws_iam_role" "producer" {
  name               = "${var.name_prefix}-orders-producer"
  assume_role_policy = data.aws_iam_policy_document.assume_by_lambda.json
}

resource "aws_iam_role_policy" "producer" {
  name   = "produce-${local.queue}"
  role   = aws_iam_role.producer.id
  policy = module.messaging.iam_policies[local.queue].producer_policy_json
}
