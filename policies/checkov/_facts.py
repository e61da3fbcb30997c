"""Generated from resilient_sqs/facts.py by `make facts` (python -m tooling.facts). Do not edit.

The checkov checks are loaded by path in checkov's own venv and cannot import the package;
tests/resilient_sqs/test_facts.py fails while this is stale."""

MAX_RECEIVE_COUNT_RECOMMENDED_MIN = 3
MAX_RECEIVE_COUNT_RECOMMENDED_MAX = 5
MAXIMUM_CONCURRENCY_MIN = 2
IDEMPOTENCY_TABLE_PATTERN = '(?i)idempot'
IDEMPOTENCY_EXPIRY_ATTRIBUTE = 'expiration'
