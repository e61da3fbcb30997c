resource "terraform_data" "secret" {
  input = var.token
}

output "secret" {
  value     = terraform_data.secret.output
  sensitive = true
}
