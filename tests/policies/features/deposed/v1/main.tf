resource "terraform_data" "worker" {
  triggers_replace = "v1"
  lifecycle {
    create_before_destroy = true
  }
}
