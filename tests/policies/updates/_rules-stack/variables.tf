variable "name_prefix" {
  description = "Prefix of every name (the scenario's name)."
  type        = string
}

variable "broken" {
  description = "false: every rule of the catalog passes; true: every rule fails somewhere."
  type        = bool
}

variable "stage" {
  description = "A tag value, changed between the phases of an update that keeps everything good."
  type        = string
}
