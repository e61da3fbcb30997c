variable "region" {
  description = "AWS region to deploy into."
  type        = string
  default     = "us-east-1"
}

variable "name_prefix" {
  description = "Prefix for every queue name, so several copies of this example can live in one account."
  type        = string
  default     = "example"
}

variable "account_id" {
  description = "AWS account ID. Null: looked up with sts:GetCallerIdentity."
  type        = string
  default     = null
}

variable "aws_max_retries" {
  description = "Maximum retries of the AWS provider. Null: the provider default (25)."
  type        = number
  default     = null
}

variable "alarm_topic_arn" {
  description = "ARN of the SNS topic the alarms notify (your on-call topic). Null: the alarms are created but notify nobody, and the plan says so."
  type        = string
  default     = null
}
