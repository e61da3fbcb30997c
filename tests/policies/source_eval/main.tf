# Expressions the source reader evaluates, planned by Terraform itself: every
# output's planned value is what policies/source.py must compute from this file
# (tests/policies/test_source.py). No provider: terraform_data is built in.
variable "queues" {
  type = map(object({ max_receive = number, fifo = bool }))
  default = {
    orders   = { max_receive = 5, fifo = false }
    payments = { max_receive = 3, fifo = true }
  }
}

variable "names" {
  type    = list(string)
  default = ["b", "a", "b", ""]
}

locals {
  prefix = "arn:aws:sqs:us-east-1:123456789012"
  arns   = { for k, q in var.queues : k => "${local.prefix}:${k}${q.fifo ? ".fifo" : ""}" }
  tls = {
    Sid       = "DenyInsecureTransport"
    Effect    = "Deny"
    Principal = "*"
    Action    = "sqs:*"
    Condition = { Bool = { "aws:SecureTransport" = "false" } }
  }
}

resource "terraform_data" "known" {
  count = 2
  input = "item-${count.index}"
}

resource "terraform_data" "later" {
  input = "x"
}

output "redrive" {
  value = { for k, q in var.queues : k => jsonencode({ deadLetterTargetArn = local.arns[k], maxReceiveCount = q.max_receive }) }
}

output "policy" {
  value = jsonencode({ Version = "2012-10-17", Statement = [merge(local.tls, { Resource = values(local.arns) })] })
}

output "heredoc" {
  value = <<-EOT
    {
      "a": "${local.arns["orders"]}",
      %{for k in sort(keys(var.queues))}
      "${k}": ${var.queues[k].max_receive},
      %{endfor}
      "z": "$${not.interpolated} 100%"
    }
  EOT
}

output "plain_heredoc" {
  value = <<EOT
line "one" \n
  ${upper("two")}
%{~for n in ["a", "b"]~}
 ${n}
%{~endfor~}
EOT
}

output "template" {
  value = "%{if length(var.names) > 3}many%{else}few%{endif}: %{for i, n in var.names}${i}=${n} %{endfor}"
}

output "functions" {
  value = {
    format    = format("%s-%03d-%q-%v-%.2f-%%", "a", 7, "q", true, 3.14159)
    concat    = concat(["a"], ["b", "c"], [])
    merge     = merge({ a = 1, b = 2 }, { b = 3 }, null)
    toset     = toset(var.names)
    coalesce  = coalesce("", null, "x")
    lookup    = [lookup({ a = 1 }, "a", 0), lookup({ a = 1 }, "b", 0)]
    element   = [element(["a", "b", "c"], 4), element(var.names, 1)]
    try       = [try(var.queues["none"].max_receive, 4), try(local.tls.Sid, "no")]
    can       = [can(var.queues["none"]), can(var.queues["orders"])]
    length    = [length(var.names), length(var.queues), length("abc")]
    keys      = keys(var.queues)
    values    = values({ b = 2, a = 1 })
    join      = join(",", compact(var.names))
    split     = split(":", local.prefix)
    distinct  = distinct(var.names)
    flatten   = flatten([["a"], [["b"]], "c"])
    contains  = [contains(var.names, "a"), contains(var.names, "z")]
    zipmap    = zipmap(["x", "y"], [1, 2])
    case      = [lower("AbC"), upper("AbC"), trimspace("  a b  ")]
    replace   = replace("a-b-c", "-", "_")
    one       = [one([]), one(["a"])]
    numbers   = [1 + 2 * 3, 7 / 2, 7 % 3, -(2 - 5), max(1, 5, 3), min(4, 2), abs(-3)]
    logic     = [true && false, true || false, !true, 1 == 1, "a" != "b", 2 >= 3, 2 < 3]
    cond      = length(var.names) > 10 ? "big" : "small"
    tostring  = [tostring(5), tonumber("5"), tobool("true")]
    starts    = [startswith("arn:aws", "arn:"), endswith("name.fifo", ".fifo")]
    sort      = sort(["b", "c", "a"])
    ellipsis  = concat([["a"], ["b"]]...)
    splat     = terraform_data.known[*].input
    splat_old = terraform_data.known.*.input
    index     = terraform_data.known[1].input
    for_if    = [for n in var.names : upper(n) if n != ""]
    for_group = { for n in var.names : n => n... if n != "" }
    jsondec   = jsondecode("{\"a\": [1, 2]}")["a"][1]
  }
}

output "unknown" {
  value = jsonencode({ arn = terraform_data.later.id, n = 5 })
}
