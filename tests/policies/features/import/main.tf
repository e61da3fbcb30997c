import {
  to = terraform_data.one
  id = "one-id"
}

resource "terraform_data" "one" {}

locals {
  existing = { blue = "blue-id", green = "green-id" }
}

import {
  for_each = local.existing
  to       = terraform_data.many[each.key]
  id       = each.value
}

resource "terraform_data" "many" {
  for_each = local.existing
  input    = each.key
}
