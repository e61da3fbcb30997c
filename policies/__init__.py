"""Plan policy engine: the resilient-messaging rule catalog over `terraform show -json` output.

Installed as ``resilient_sqs.policy`` (its source lives in the repository's top-level
``policies/`` folder). Run ``sqs-policy check plan.json`` or
``python -m resilient_sqs.policy check plan.json``.
"""
if __name__ != "policies":  # run from a checkout as `python -m policies`, __main__ hands over to resilient_sqs.policy
    from .. import __version__  # noqa: F401  (one version for the whole distribution)
