# Generated from resilient_sqs/facts.py by `make facts` (python -m tooling.facts). Do not edit:
# change the fact there and regenerate (tests/resilient_sqs/test_facts.py fails while this is stale).

locals {
  visibility_timeout_multiplier = 6
  maximum_concurrency_min       = 2
  maximum_concurrency_max       = 1000
}
