"""A failure's fix names this module's `queues[...]` inputs only for queues this module creates
(issue 35 §3): committed plans written by the real terraform binary."""
from __future__ import annotations

import json

import pytest

from resilient_sqs.testing.discover import discover, this_module_queue_key
from tests.support.helpers import REPO_ROOT

PLANS = REPO_ROOT / "tests" / "policies" / "plans"


def _plan(name: str) -> dict:
    return json.loads((PLANS / f"{name}.json").read_text())


def _state_from(plan: dict) -> dict:
    # the applied state has the plan's planned_values shape (discover reads both the same way)
    return {"values": plan["planned_values"], "terraform_version": plan.get("terraform_version")}


@pytest.mark.parametrize("plan,address,key", [
    ("example-basic", 'module.messaging.module.queue["plantest-orders"].aws_sqs_queue.this', "plantest-orders"),
    # a root module calling modules/queue itself with for_each: no `queues` input to name
    ("consumers", 'module.queue["fast"].aws_sqs_queue.this', None),
    ("consumers", "module.fifo.aws_sqs_queue.this", None),
])
def test_only_this_modules_queues_get_queues_inputs(plan, address, key):
    p = _plan(plan)
    assert address in {r["address"] for r in p["resource_changes"]}
    assert this_module_queue_key(address, p["configuration"]) == key


def test_the_fix_of_a_queue_of_another_module_names_its_own_attribute():
    p = _plan("consumers")
    pairs = {pair.queue.address: pair for pair in discover(p, _state_from(p)).pairs}
    pair = pairs['module.queue["fast"].aws_sqs_queue.this']
    assert pair.module_queue_key is None
    assert pair.setting("max_receive_count") == 'module.queue["fast"].aws_sqs_queue.this: redrive_policy maxReceiveCount'
    mine = {pair.queue.address: pair for pair in discover(_plan("example-basic"), _state_from(_plan("example-basic"))).pairs}
    assert mine['module.messaging.module.queue["plantest-orders"].aws_sqs_queue.this'].setting("max_receive_count") \
        == 'queues["plantest-orders"].max_receive_count'
