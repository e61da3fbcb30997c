variable "token" {
  type      = string
  sensitive = true
}
