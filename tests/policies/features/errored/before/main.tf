resource "terraform_data" "settings" {
  input = "v1"
}
