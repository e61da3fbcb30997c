variable "input" {
  type = string
}

resource "terraform_data" "b" {
  input = var.input
}

output "output" {
  value = terraform_data.b.output
}
