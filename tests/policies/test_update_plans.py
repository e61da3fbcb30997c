"""A committed update-plan fixture is what Terraform, the provider and LocalStack plan today.

The policy tests read the fixtures under tests/policies/plans/update/ without
LocalStack; their digests say the inputs did not change. This regenerates a sample
for real (apply "before", plan "after" on the shared LocalStack, with a unique name
prefix) and compares what the change rules read: every resource change's actions,
action_reason, replace_paths and previous_address, and the change findings. The sample is one cheap scenario
(a single queue, ~1 min); UPDATE_PLANS_SAMPLE=name,name or =all widens it.
"""
from __future__ import annotations

import json
import os

import pytest

from resilient_sqs.policy.config import Config
from resilient_sqs.policy.engine import evaluate
from resilient_sqs.policy.rules import RULES
from tests.support.localstack import unique_prefix
from tests.policies import fixture_plans
from tooling import update_plans

pytestmark = [pytest.mark.localstack, pytest.mark.xdist_group("localstack-update-plans")]

_sample = os.environ.get("UPDATE_PLANS_SAMPLE", "raw-queue-rename").strip()
SAMPLE = [s.name for s in update_plans.scenarios()] if _sample == "all" else [n for n in _sample.split(",") if n]


def change_findings(doc: dict) -> set:
    only_change = Config(enabled={rid: rid.startswith("CHG") for rid in RULES})
    return {(f.rule_id, f.status, f.severity, f.address) for f in evaluate(doc, only_change).findings}


def projection(doc: dict) -> dict[str, tuple]:
    return {
        rc["address"]: (tuple(rc["change"]["actions"]), rc.get("action_reason"),
                        sorted(json.dumps(p) for p in rc["change"].get("replace_paths") or ()), rc.get("previous_address"))
        for rc in doc["resource_changes"]
    }


@pytest.mark.parametrize("name", SAMPLE)
def test_regenerated_update_plan_matches_the_fixture(localstack, name):
    sc = update_plans.load_scenario(update_plans.SCENARIOS / name)
    committed = fixture_plans.update_plan(name)
    doc, made_with = update_plans.generate(sc, localstack, name_prefix=unique_prefix("u"), destroy=localstack.external)
    assert projection(doc) == projection(committed), (
        f"{name}: Terraform now plans differently from the committed fixture (made with "
        f"{fixture_plans.Manifest.load(fixture_plans.UPDATE_PLANS).fixtures[name].get('environment')}); "
        f"regenerate: {update_plans.COMMAND} {name}")
    assert change_findings(doc) == change_findings(committed)
