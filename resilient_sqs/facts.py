"""The facts the Terraform modules, the plan checker, the checkov checks and the runtime
helpers must agree on, stated once.

This file is the one source. The other sides are generated from it or declared as copies:

* generated (``python -m tooling.facts``, ``make facts``; ``tests/resilient_sqs/test_facts.py`` fails when
  stale): the ``locals`` in ``modules/queue/facts.tf``, ``modules/lambda-consumer/facts.tf``
  and ``modules/dlq-redrive/facts.tf``, which the modules' expressions, validations and
  refusal messages use, and ``policies/checkov/_facts.py``, which the checkov checks import
  (checkov loads them by path, so they cannot import this package);
* imported: the plan checker's rule options and texts (``policies/rules``) and
  ``resilient_sqs/consumer.py``;
* declared copies, each proven equal by ``tests/resilient_sqs/test_facts.py``: the redrive function's
  constants (``modules/dlq-redrive/src/dlq_redrive.py`` ships in a Lambda zip without this
  package), and the places HCL only accepts a literal (variable defaults, ``optional()``
  defaults in ``internal/inputs``, variable descriptions).

Plain constants, no imports: the checker and the runtime import this without pulling in
anything else.
"""

# -- the consumer / visibility timeout rule ------------------------------------------------
#: AWS guidance for an SQS queue feeding a Lambda function: visibility timeout >=
#: VISIBILITY_TIMEOUT_MULTIPLIER x function timeout + maximum batching window. The queue
#: module derives its default from it, the consumer module refuses less, rule ESM001 checks it.
VISIBILITY_TIMEOUT_MULTIPLIER = 6

# -- maxReceiveCount (the redrive policy) ----------------------------------------------------
#: What the queue module accepts (1 is refused: one ghost receive sends a healthy message to
#: the DLQ; 1000 is SQS's maximum) ...
MAX_RECEIVE_COUNT_MIN = 2
MAX_RECEIVE_COUNT_MAX = 1000
#: ... and what is recommended (rule SQS003's options min/max, its floor is
#: MAX_RECEIVE_COUNT_MIN; the checkov check CKV_RSQS_SQS003).
MAX_RECEIVE_COUNT_RECOMMENDED_MIN = 3
MAX_RECEIVE_COUNT_RECOMMENDED_MAX = 5
#: the queue module's default
MAX_RECEIVE_COUNT_DEFAULT = 5

# -- message attributes shared by the consumer helpers and the redrive function ------------
#: how many times the dlq-redrive function has redriven a message (it increments it;
#: resilient_sqs.consumer.redrive_guard reads it)
REDRIVE_COUNT_ATTRIBUTE = "x-redrive-count"
#: why a consumer failed a message for good (redrive_guard writes it; the redrive function
#: archives messages whose reason is permanent). The dlq-redrive module's default for
#: ``failure_reason_attribute``.
FAILURE_REASON_ATTRIBUTE = "x-failure-reason"

# -- dlq-redrive: the kill switch ------------------------------------------------------------
#: a message redriven this many times is archived instead (module input max_redrive_count,
#: the function's MAX_REDRIVE_COUNT)
MAX_REDRIVE_COUNT_DEFAULT = 3
MAX_REDRIVE_COUNT_MIN = 1
MAX_REDRIVE_COUNT_MAX = 100

# -- the event source mapping's scaling_config.maximum_concurrency ---------------------------
#: Lambda's range for SQS event sources
MAXIMUM_CONCURRENCY_MIN = 2
MAXIMUM_CONCURRENCY_MAX = 1000
#: the consumer module's default (and internal/inputs' for queues[*].consumer)
MAXIMUM_CONCURRENCY_DEFAULT = 10

# -- the idempotency table (Powertools' layout; modules/idempotency-table, rules DDB001-DDB003,
# CHG005, the checkov checks CKV_RSQS_DDB001/DDB003) ---------------------------------------------
#: which DynamoDB tables are idempotency tables: a regular expression on the address or name
#: (the default of the rules' option table_pattern)
IDEMPOTENCY_TABLE_PATTERN = "(?i)idempot"
#: the partition key and the TTL attribute Powertools writes
IDEMPOTENCY_KEY_ATTRIBUTE = "id"
IDEMPOTENCY_EXPIRY_ATTRIBUTE = "expiration"


# -- message sizes ------------------------------------------------------------------------------
#: the largest SQS message the AWS provider's aws_sqs_queue accepts as max_message_size (5.x and
#: 6.x validate 1024-262144) and the SQS extended client's threshold: a body above it goes to the
#: claim-check bucket (sqs_extended_client.client.DEFAULT_MESSAGE_SIZE_THRESHOLD)
SQS_MAX_MESSAGE_BYTES = 262144
