resource "terraform_data" "a" {
  input = "a"
}

output "changed" {
  value = "v1"
}

output "removed" {
  value = "gone"
}
