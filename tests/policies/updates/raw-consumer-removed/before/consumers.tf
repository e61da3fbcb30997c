resource "aws_lambda_event_source_mapping" "orders" {
  event_source_arn        = aws_sqs_queue.orders.arn
  function_name           = "${var.name_prefix}-consumer"
  batch_size              = 10
  function_response_types = ["ReportBatchItemFailures"]

  scaling_config {
    maximum_concurrency = 5
  }
}

resource "aws_lambda_event_source_mapping" "billing" {
  event_source_arn        = aws_sqs_queue.billing.arn
  function_name           = "${var.name_prefix}-consumer"
  batch_size              = 10
  function_response_types = ["ReportBatchItemFailures"]

  scaling_config {
    maximum_concurrency = 5
  }
}

resource "aws_lambda_event_source_mapping" "shipping" {
  event_source_arn        = aws_sqs_queue.shipping.arn
  function_name           = "${var.name_prefix}-consumer"
  batch_size              = 10
  function_response_types = ["ReportBatchItemFailures"]

  scaling_config {
    maximum_concurrency = 5
  }
}

resource "aws_lambda_event_source_mapping" "returns" {
  event_source_arn        = aws_sqs_queue.returns.arn
  function_name           = "${var.name_prefix}-consumer"
  batch_size              = 10
  function_response_types = ["ReportBatchItemFailures"]

  scaling_config {
    maximum_concurrency = 5
  }
}
