resource "terraform_data" "worker" {
  triggers_replace = "v2"
  lifecycle {
    create_before_destroy = true
  }
  # fails after the replacement is created: the new object is tainted and the old one stays deposed
  provisioner "local-exec" {
    command = "exit 1"
  }
}
