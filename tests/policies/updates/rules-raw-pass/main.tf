module "stack" {
  source      = "../../../../tests/policies/updates/_rules-stack"
  name_prefix = var.name_prefix
  broken      = var.broken
  stage       = var.stage
}
