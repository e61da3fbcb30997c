variable "token" {
  type      = string
  sensitive = true
}

resource "terraform_data" "held" {
  input = var.token
}

output "token" {
  value     = terraform_data.held.output
  sensitive = true
}
