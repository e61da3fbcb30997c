resource "terraform_data" "config_version" {
  input = "v2"
}

resource "terraform_data" "worker" {
  input = "worker"
  lifecycle {
    replace_triggered_by = [terraform_data.config_version]
  }
}
