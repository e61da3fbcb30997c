# Provider configurations of this fixture only; the default one (us-east-1, offline) comes
# from tests/policies/configs/_provider/providers.tf. Three aliases: another region, the
# same region and credentials under an alias, and other credentials (an account the plan
# does not show).
provider "aws" {
  alias                       = "west"
  region                      = "us-west-2"
  access_key                  = "offline-plan"
  secret_key                  = "offline-plan"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
}

provider "aws" {
  alias                       = "same"
  region                      = "us-east-1"
  access_key                  = "offline-plan"
  secret_key                  = "offline-plan"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
}

provider "aws" {
  alias                       = "other_account"
  region                      = "us-east-1"
  access_key                  = "offline-plan-other"
  secret_key                  = "offline-plan-other"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
}
