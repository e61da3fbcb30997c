resource "terraform_data" "a" {
  input = "v1"
}

resource "terraform_data" "gone" {
  input = "x"
}

output "a" {
  value = terraform_data.a.output
}
