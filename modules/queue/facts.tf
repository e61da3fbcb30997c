# Generated from resilient_sqs/facts.py by `make facts` (python -m tooling.facts). Do not edit:
# change the fact there and regenerate (tests/resilient_sqs/test_facts.py fails while this is stale).

locals {
  visibility_timeout_multiplier     = 6
  max_receive_count_min             = 2
  max_receive_count_max             = 1000
  max_receive_count_recommended_min = 3
  max_receive_count_recommended_max = 5
}
