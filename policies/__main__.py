if __package__ == "policies":
    # `python -m policies` in a checkout (the folder's old name): the checker is the installed
    # package resilient_sqs.policy, whose source is this folder
    import sys

    try:
        from resilient_sqs.policy.cli import run
    except ImportError:
        sys.stderr.write("python -m policies: error: the checker is the package resilient_sqs.policy: install the "
                         "checkout (pip install -e .) and run `sqs-policy` or `python -m resilient_sqs.policy`\n")
        raise SystemExit(2) from None
else:
    from .cli import run

run()
