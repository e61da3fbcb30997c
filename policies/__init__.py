"""Plan policy engine: the resilient-messaging rule catalog over `terraform show -json` output.

Run ``python -m policies check plan.json`` (or the ``sqs-policy`` console script).
"""
__version__ = "0.1.0"
