"""Fixtures for the policy tests: the committed plans of tests/policies/configs/*,
the examples and the module fixtures (tests/policies/plans/, no Terraform needed)."""
from __future__ import annotations

import pytest

from tests.policies import plans


@pytest.fixture(scope="session")
def plan_files():
    """{subject: path of its committed plan JSON}."""
    return plans.ensure_all()


@pytest.fixture(scope="session")
def plan_doc(plan_files):
    import json

    cache: dict[str, dict] = {}

    def get(name: str) -> dict:
        if name not in cache:
            cache[name] = json.loads(plan_files[name].read_text())
        return cache[name]

    return get


@pytest.fixture(scope="session")
def fresh_plan_files():
    """{subject: path of a fresh plan JSON} (Terraform; planned once per content, in parallel)."""
    return plans.ensure_fresh()
