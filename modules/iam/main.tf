# Least-privilege policy documents for the three roles around a queue:
# producer, consumer and redrive operator. Every action is named (no
# wildcards) and every resource is a named ARN taken from the inputs; the
# only pattern is the claim-check object prefix (`<bucket>/<prefix>*`).

module "documents" {
  source = "../../internal/iam-documents"

  sets = {
    this = {
      producer_queue_arns   = var.producer_queue_arns
      consumer_queue_arns   = var.consumer_queue_arns
      consumer_dlq_arns     = var.consumer_dlq_arns
      redrive               = var.redrive
      payload_bucket_arn    = var.payload_bucket_arn
      payload_prefix        = var.payload_prefix
      idempotency_table_arn = var.idempotency_table_arn
      kms_key_arns          = var.kms_key_arns
    }
  }
}

locals {
  # producer, consumer, redrive-operator: JSON, or null when nothing is granted
  documents = module.documents.documents["this"]
  roles     = module.documents.granted["this"]
}

resource "aws_iam_policy" "this" {
  for_each = var.create_managed_policies ? { for k, present in local.roles : k => local.documents[k] if present } : {}

  name        = "${coalesce(var.name, "unnamed")}-${each.key}"
  path        = var.path
  description = "Least-privilege ${each.key} access for ${coalesce(var.name, "unnamed")} (resilient-sqs)."
  policy      = each.value
  tags        = var.tags

  lifecycle {
    # IAM counts a managed policy's characters without whitespace: at most 6,144
    precondition {
      condition     = length(replace(each.value, "/\\s/", "")) <= 6144
      error_message = "${lookup(var.input_names, "name", "name")}: the ${each.key} policy \"${coalesce(var.name, "unnamed")}-${each.key}\" would be ${length(replace(each.value, "/\\s/", ""))} characters (whitespace not counted); IAM refuses a managed policy over 6,144 at apply. It names ${length(distinct(concat(var.producer_queue_arns, var.consumer_queue_arns, var.consumer_dlq_arns)))} queue ARNs and ${length(var.kms_key_arns)} KMS keys (${var.input_prefix}kms_key_arns): grant fewer keys per policy (only those of these queues), or split the queues across more policies."
    }

    precondition {
      condition     = var.name != null
      error_message = "name: create_managed_policies = true needs a base name for the policies (<name>-producer, <name>-consumer, <name>-redrive-operator). Set name, or set create_managed_policies = false to get only the JSON documents."
    }
  }
}
