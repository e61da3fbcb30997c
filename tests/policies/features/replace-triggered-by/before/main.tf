resource "terraform_data" "config_version" {
  input = "v1"
}

resource "terraform_data" "worker" {
  input = "worker"
  lifecycle {
    replace_triggered_by = [terraform_data.config_version]
  }
}
