resource "terraform_data" "kept" {
  input = "kept"
}

resource "terraform_data" "handed_over" {
  input = "another stack manages it now"
}

module "old" {
  source = "./inner"
}
