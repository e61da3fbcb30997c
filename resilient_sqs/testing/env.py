"""The one environment builder for talking to an emulator's endpoint: what Terraform, the AWS CLI,
boto3 and the SQS extended client need to reach it (endpoint, test credentials, region, no
instance-metadata lookups). Real AWS (``endpoint`` None) adds nothing: the caller's own
credentials and region apply."""
from __future__ import annotations

import os
from typing import Mapping

DEFAULT_REGION = "us-east-1"
TEST_ACCESS_KEY = "test"  # LocalStack's and ministack's default account for it: 000000000000


def region(environ: Mapping[str, str] | None = None) -> str:
    """The region of the caller's environment (AWS_REGION, AWS_DEFAULT_REGION), else us-east-1."""
    environ = os.environ if environ is None else environ
    return environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION") or DEFAULT_REGION


def endpoint_env(endpoint: str | None, region_name: str | None = None) -> dict[str, str]:
    """Variables pointing AWS clients at ``endpoint`` (None: real AWS, nothing to add)."""
    if endpoint is None:
        return {}
    r = region_name or region()
    return {
        "AWS_ENDPOINT_URL": endpoint.rstrip("/"),
        "AWS_ACCESS_KEY_ID": TEST_ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": TEST_ACCESS_KEY,
        "AWS_REGION": r,
        "AWS_DEFAULT_REGION": r,
        "AWS_EC2_METADATA_DISABLED": "true",
    }
