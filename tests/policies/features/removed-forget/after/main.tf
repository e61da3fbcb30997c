resource "terraform_data" "kept" {
  input = "kept"
}

removed {
  from = terraform_data.handed_over
  lifecycle {
    destroy = false
  }
}

removed {
  from = module.old
  lifecycle {
    destroy = false
  }
}
