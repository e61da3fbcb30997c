"""checkov custom checks for the single-resource rules of the catalog.

Load with ``checkov --external-checks-dir "$(sqs-policy checkov-dir)"`` (this directory's
``__init__.py`` is required: without it checkov silently loads nothing). The
cross-resource rules (DLQ links, visibility against the consumer's timeout,
alarms, claim-check expiry against DLQ retention) need the whole plan graph:
run ``sqs-policy check`` for those.
"""
