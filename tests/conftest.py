"""Shared fixtures: the Terraform harness, offline plans of root configurations."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers import OFFLINE_ACCOUNT
from tooling.terraform import Terraform, offline_copy



class OfflinePlanner:
    """Plans a root configuration with no AWS access (dummy credentials, account ID as a variable)."""

    def __init__(self) -> None:
        self._cache: dict[tuple, dict] = {}
        self._dirs: list[Path] = []

    def plan(self, root: Path, variables: dict | None = None) -> dict:
        variables = {"account_id": OFFLINE_ACCOUNT, **(variables or {})}
        key = (str(root), tuple(sorted((k, repr(v)) for k, v in variables.items())))
        if key not in self._cache:
            work = offline_copy(root)
            self._dirs.append(work)
            tf = Terraform(work, variables=variables)
            tf.init()
            self._cache[key] = tf.plan_json()
        return self._cache[key]

    def cleanup(self) -> None:
        for d in self._dirs:
            shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def offline_planner():
    planner = OfflinePlanner()
    yield planner
    planner.cleanup()


# provisional: replaced by the embedded-LocalStack fixture
@pytest.fixture(scope="session")
def aws_clients():
    import os

    import boto3

    endpoint = os.environ["LOCALSTACK_ENDPOINT"]
    kw = dict(endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test")
    return {"sqs": boto3.client("sqs", **kw), "s3": boto3.client("s3", **kw)}


@pytest.fixture(scope="session")
def aws_endpoint():
    import os

    return os.environ["LOCALSTACK_ENDPOINT"]
