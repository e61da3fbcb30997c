"""Fixtures for the policy tests: real plans of tests/policies/configs/* and examples/*."""
from __future__ import annotations

import pytest

from tests.policies import plans


@pytest.fixture(scope="session")
def plan_files():
    """{subject: path of its plan JSON}; every plan generated once, in parallel, cached."""
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
