resource "terraform_data" "kept" {
  input = "same"
}

resource "terraform_data" "updated" {
  input = "v1"
}

resource "terraform_data" "replaced" {
  triggers_replace = "v1"
}

resource "terraform_data" "replaced_cbd" {
  triggers_replace = "v1"
  lifecycle {
    create_before_destroy = true
  }
}

resource "terraform_data" "deleted" {
  input = "going"
}

resource "terraform_data" "per_key" {
  for_each = toset(["a", "b"])
  input    = each.key
}
