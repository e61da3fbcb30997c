variable "secret" {
  type      = string
  ephemeral = true
}

output "secret" {
  value     = var.secret
  ephemeral = true
}
