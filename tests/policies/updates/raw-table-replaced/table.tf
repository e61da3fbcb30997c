variable "sort_key" {
  type    = string
  default = null
}

resource "aws_dynamodb_table" "idempotency" {
  name                        = "${var.name_prefix}-idempotency"
  billing_mode                = "PAY_PER_REQUEST"
  hash_key                    = "id"
  range_key                   = var.sort_key
  deletion_protection_enabled = true

  attribute {
    name = "id"
    type = "S"
  }

  dynamic "attribute" {
    for_each = var.sort_key == null ? [] : [var.sort_key]
    content {
      name = attribute.value
      type = "S"
    }
  }

  ttl {
    attribute_name = "expiration"
    enabled        = true
  }
}
