resource "terraform_data" "kept" {
  input = "same"
}

resource "terraform_data" "updated" {
  input = "v2"
}

resource "terraform_data" "replaced" {
  triggers_replace = "v2"
}

resource "terraform_data" "replaced_cbd" {
  triggers_replace = "v2"
  lifecycle {
    create_before_destroy = true
  }
}

resource "terraform_data" "per_key" {
  for_each = toset(["a"])
  input    = each.key
}

resource "terraform_data" "created" {
  input = "new"
}

resource "aws_sqs_queue" "created" {
  name                    = "features-update-created"
  sqs_managed_sse_enabled = true
}
