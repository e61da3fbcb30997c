resource "terraform_data" "a" {
  input = "v2"
}

resource "terraform_data" "b" {
  input = terraform_data.a.output
}

resource "terraform_data" "other" {
  input = "v2"
}

resource "aws_sqs_queue" "untargeted" {
  name = "features-target"
}
