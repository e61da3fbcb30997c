resource "terraform_data" "kept" {
  input = "kept"
}

removed {
  from = terraform_data.handed_over
  lifecycle {
    destroy = true
  }
}

removed {
  from = module.old
  lifecycle {
    destroy = true
  }
}
