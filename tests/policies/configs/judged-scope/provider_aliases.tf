# Provider configurations of this fixture only; the default one (us-east-1, offline) comes
# from tests/policies/configs/_provider/providers.tf.
provider "aws" {
  alias                       = "eu"
  region                      = "eu-west-1"
  access_key                  = "offline-plan"
  secret_key                  = "offline-plan"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
}
