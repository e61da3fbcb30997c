resource "terraform_data" "a" {
  input = "v1"
}

resource "terraform_data" "b" {
  input = terraform_data.a.output
}

resource "terraform_data" "other" {
  input = "v1"
}
