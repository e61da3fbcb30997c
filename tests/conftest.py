"""Shared fixtures: the Terraform harness, offline plans of root configurations."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.helpers import OFFLINE_ACCOUNT

# the LocalStack tier's fixtures (localstack, aws, applied, known_differences) and its test order,
# for the tests marked `localstack` in every folder
pytest_plugins = ["tests.support.localstack_fixtures"]


def pytest_configure(config):
    # Terraform and the AWS provider are Go: with GOGC=400 their collector runs at 4x
    # the live heap instead of 2x. Most of the suite's Terraform processes are short and
    # spend their time building the provider's schemas. Measured on `terraform validate`
    # of modules/queue: user CPU 2.8-3.3 s -> 1.8-2.3 s, peak RSS 585 -> 620 MB. A GOGC
    # set by the caller wins.
    os.environ.setdefault("GOGC", "400")


class OfflinePlanner:
    """Plans a root configuration with no AWS access (dummy credentials, account ID as a variable).

    Plans come from the shared cache (tests/support/plan_cache.py): one plan per content
    and variables for the whole test run, whichever worker asks first.
    """

    def __init__(self) -> None:
        self._cache: dict[tuple, dict] = {}

    def plan(self, root: Path, variables: dict | None = None) -> dict:
        from tests.support import plan_cache

        variables = {"account_id": OFFLINE_ACCOUNT, **(variables or {})}
        key = (str(root), tuple(sorted((k, repr(v)) for k, v in variables.items())))
        if key not in self._cache:
            self._cache[key] = plan_cache.load(root, variables)
        return self._cache[key]

    def cleanup(self) -> None:
        self._cache.clear()


@pytest.fixture(scope="session")
def offline_planner():
    planner = OfflinePlanner()
    yield planner
    planner.cleanup()

