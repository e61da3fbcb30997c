resource "terraform_data" "old_name" {
  input = "a"
}

resource "terraform_data" "counted" {
  count = 1
  input = "b"
}

module "single" {
  source = "./inner"
}
