"""What this repository's examples need to run against LocalStack (the tests and `make demo`
pass these; only the variables an example declares are passed, so every example gets what
applies to it)."""
from __future__ import annotations

import re
from pathlib import Path

EXAMPLE_VARIABLES: dict[str, object] = {
    "s3_use_path_style": True,  # LocalStack has no per-bucket host names
    "deletion_protection": False,  # throwaway: `terraform destroy` must remove the idempotency table...
    "force_destroy": True,  # ...and the claim-check bucket with its payloads
    "consumer_function_name": None,  # Lambda functions cannot run here: no event source mappings
    "dlq_redrive_enabled": False,  # the dlq-redrive module deploys a Lambda function
    "create_function": False,  # examples/same-stack-consumer: its own consumer function (and so its mapping)
}


def declared_variables(config_dir: Path) -> set[str]:
    """Names of the input variables a Terraform root configuration declares."""
    names: set[str] = set()
    for tf in sorted(Path(config_dir).glob("*.tf")):
        names.update(re.findall(r'^\s*variable\s+"([^"]+)"', tf.read_text(), flags=re.MULTILINE))
    return names


def example_variables(config_dir: Path) -> dict[str, object]:
    """The LocalStack settings of :data:`EXAMPLE_VARIABLES` that ``config_dir`` declares."""
    declared = declared_variables(config_dir)
    return {k: v for k, v in EXAMPLE_VARIABLES.items() if k in declared}


