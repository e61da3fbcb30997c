"""Runtime helpers that go with the Terraform module: consumer kill switch, operator redrive."""
