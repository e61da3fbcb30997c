variable "api_key" {
  type      = string
  ephemeral = true
}

ephemeral "aws_eks_cluster_auth" "cluster" {
  name = "features"
}

resource "aws_ssm_parameter" "cluster_token" {
  name             = "/features/cluster-token"
  type             = "SecureString"
  value_wo         = ephemeral.aws_eks_cluster_auth.cluster.token
  value_wo_version = 1
}

resource "aws_ssm_parameter" "api_key" {
  name             = "/features/api-key"
  type             = "SecureString"
  value_wo         = var.api_key
  value_wo_version = 1
}

module "passthrough" {
  source = "./passthrough"
  secret = var.api_key
}

resource "aws_ssm_parameter" "from_module" {
  name             = "/features/from-module"
  type             = "SecureString"
  value_wo         = module.passthrough.secret
  value_wo_version = 1
}

resource "aws_sqs_queue" "jobs" {
  name                    = "features-write-only"
  sqs_managed_sse_enabled = true
}
