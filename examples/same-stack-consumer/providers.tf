# Works against real AWS (credentials and region from the usual chain) and
# against any endpoint given by the standard AWS_ENDPOINT_URL variable, for
# example LocalStack: export AWS_ENDPOINT_URL=http://127.0.0.1:4566
# AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test.
provider "aws" {
  region      = var.region
  max_retries = var.aws_max_retries
}
