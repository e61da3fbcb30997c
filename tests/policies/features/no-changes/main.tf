resource "terraform_data" "a" {
  for_each = { one = 1, two = 2 }
  input    = each.value
}

output "a" {
  value = { for k, v in terraform_data.a : k => v.output }
}
