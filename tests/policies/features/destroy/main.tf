resource "terraform_data" "a" {
  input = "a"
}

module "inner" {
  source = "./inner"
  input  = terraform_data.a.output
}

output "inner" {
  value = module.inner.output
}
