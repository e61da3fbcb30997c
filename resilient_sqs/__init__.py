"""resilient-sqs: the Python side of the resilient SQS messaging module.

* ``resilient_sqs.policy``: the plan checker (``sqs-policy``); needs only jsonschema, PyYAML and
  python-hcl2 (the last only to read the .tf source behind values a plan leaves unknown).
* ``resilient_sqs.consumer``, ``resilient_sqs.claim_check``, ``resilient_sqs.redrive``
  (``sqs-redrive``): runtime helpers that talk to AWS; install with the ``runtime`` extra
  (``pip install 'resilient-sqs[runtime]'``).

This file stays free of imports: the checker must not pull in AWS libraries.
"""
# The one place the version lives: pyproject.toml reads it, `sqs-policy --version` prints it,
# CHANGELOG.md records it.
__version__ = "0.1.0"
