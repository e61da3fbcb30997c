"""Behaviour checks for any stack on LocalStack: the pytest plugin (``pytest --sqs-stack DIR``),
the ``sqs-behave`` CLI and the embedded LocalStack launcher.

Install with ``pip install "resilient-sqs[testing]"``. Nothing here is imported by the plan
checker or the runtime helpers, so the plain install stays lean.
"""
