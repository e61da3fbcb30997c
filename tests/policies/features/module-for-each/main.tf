locals {
  pairs = {
    "orders"      = "orders"
    "two words"   = "two-words"
    "say \"hi\""  = "say-hi"
    "back\\slash" = "back-slash"
    "größe"       = "groesse"
  }
}

module "pair" {
  source   = "./pair"
  for_each = local.pairs
  name     = "features-${each.value}"
}

output "urls" {
  value = { for k, m in module.pair : k => m.url }
}
