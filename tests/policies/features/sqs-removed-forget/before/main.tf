module "old" {
  source = "./old"
  name   = "${var.name_prefix}-orders"
}
