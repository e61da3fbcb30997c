# A Lambda consumer: the function and its event source mapping.
variable "name" {
  description = "Function name."
  type        = string
}

variable "timeout" {
  description = "Function timeout in seconds."
  type        = number
}

variable "window" {
  description = "Maximum batching window in seconds."
  type        = number
}

variable "queue_arn" {
  description = "ARN of the queue to consume."
  type        = string
}

resource "aws_lambda_function" "this" {
  function_name = var.name
  role          = "arn:aws:iam::123456789012:role/${var.name}"
  handler       = "app.handler"
  runtime       = "python3.12"
  filename      = "${path.module}/app.zip"
  timeout       = var.timeout
}

resource "aws_lambda_event_source_mapping" "this" {
  event_source_arn                   = var.queue_arn
  function_name                      = aws_lambda_function.this.arn
  batch_size                         = 10
  maximum_batching_window_in_seconds = var.window
  function_response_types            = ["ReportBatchItemFailures"]
  scaling_config {
    maximum_concurrency = 5
  }
}

output "function_arn" {
  description = "ARN of the function."
  value       = aws_lambda_function.this.arn
}
