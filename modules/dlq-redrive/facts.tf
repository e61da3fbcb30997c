# Generated from resilient_sqs/facts.py by `make facts` (python -m tooling.facts). Do not edit:
# change the fact there and regenerate (tests/resilient_sqs/test_facts.py fails while this is stale).

locals {
  max_redrive_count_min = 1
  max_redrive_count_max = 100
}
