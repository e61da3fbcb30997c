resource "terraform_data" "a" {
  input = "v2"
}

resource "aws_sqs_queue" "new" {
  name = "features-refresh-false"
}

output "a" {
  value = "changed"
}
