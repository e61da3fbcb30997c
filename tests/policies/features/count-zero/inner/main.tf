resource "aws_sqs_queue" "q" {
  name = "features-count-zero-inner"
}
