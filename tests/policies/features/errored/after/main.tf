resource "terraform_data" "settings" {
  input = "v2"
}

resource "aws_sqs_queue" "jobs" {
  name                    = "features-errored"
  sqs_managed_sse_enabled = true
}

resource "terraform_data" "guarded" {
  input = "x"
  lifecycle {
    precondition {
      condition     = terraform_data.settings.input == "v3"
      error_message = "settings must be v3 (this plan fails on purpose)"
    }
  }
}
