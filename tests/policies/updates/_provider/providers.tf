terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.100, < 7.0"
    }
  }
}

provider "aws" {
  region            = "us-east-1"
  s3_use_path_style = true
}

variable "name_prefix" {
  type = string
}
