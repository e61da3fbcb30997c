# Waivers next to the code (# sqs-policy:ignore, policies/inline_waivers.py): one that waives,
# one expired, one unused, malformed ones, and one on a module call that covers the module's
# resources. Every queue lacks a DLQ (SQS002) unless said otherwise.

# sqs-policy:ignore SQS009 reason="outside any block: reported, waives nothing"

resource "aws_sqs_queue" "waived" {
  name                      = "iw-waived"
  sqs_managed_sse_enabled   = true
  receive_wait_time_seconds = 20
  # sqs-policy:ignore SQS002 reason="audit queue: its consumer parks poison messages itself (TICKET-1)" expires=2099-12-31
}

resource "aws_sqs_queue" "expired" {
  # sqs-policy:ignore queue-has-dlq reason="until the DLQ migration (TICKET-2)" expires=2020-01-31
  name                      = "iw-expired"
  sqs_managed_sse_enabled   = true
  receive_wait_time_seconds = 20
}

resource "aws_sqs_queue" "unused" {
  name                      = "iw-unused"
  sqs_managed_sse_enabled   = true # sqs-policy:ignore SQS001 reason="encryption is on, so this waives nothing"
  receive_wait_time_seconds = 20
  tags = {
    # a "#" or the marker inside a string is not a comment: { braces } too
    note = "not # sqs-policy:ignore SQS002 reason=\"inside a string\" ${"{"}"
  }
}

resource "aws_sqs_queue" "malformed" {
  name                      = "iw-malformed"
  sqs_managed_sse_enabled   = true
  receive_wait_time_seconds = 20
  tags = {
    doc = <<-EOT
      { unbalanced brace in a heredoc
      # sqs-policy:ignore SQS002 reason="inside a heredoc: not a comment"
    EOT
  }
  # sqs-policy:ignore SQS002
  // sqs-policy:ignore SQS02 reason="a typo in the rule"
}

module "legacy" {
  source = "./legacy"
  # sqs-policy:ignore SQS002,CW002 reason="retired with the legacy stack in Q3 (TICKET-3)"
}
