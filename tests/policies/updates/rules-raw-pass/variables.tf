variable "broken" {
  type = bool
}

variable "stage" {
  type = string
}
