resource "terraform_data" "new_name" {
  input = "a"
}

moved {
  from = terraform_data.old_name
  to   = terraform_data.new_name
}

resource "terraform_data" "keyed" {
  for_each = toset(["b"])
  input    = each.key
}

moved {
  from = terraform_data.counted[0]
  to   = terraform_data.keyed["b"]
}

module "many" {
  source   = "./inner"
  for_each = toset(["first"])
}

moved {
  from = module.single
  to   = module.many["first"]
}
