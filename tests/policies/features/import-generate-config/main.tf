import {
  to = terraform_data.adopted
  id = "adopted-id"
}
