variable "stage" {
  type = string
}
