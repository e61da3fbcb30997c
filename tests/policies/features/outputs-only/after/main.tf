resource "terraform_data" "a" {
  input = "a"
}

output "changed" {
  value = "v2"
}

output "added" {
  value = terraform_data.a.output
}
