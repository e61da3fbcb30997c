"""A `queues` key renamed with the `moved` blocks of docs/module.md keeps every resource of the queue.

The prior state is the one a real apply left (tests/fixtures/key-rename/terraform.tfstate,
made on LocalStack by tooling/key_rename_state.py): two pairs with every per-queue resource
the module makes, the DLQ redrive functions included (LocalStack cannot run them, so the
LocalStack test, tests/root_module/test_prevent_destroy.py, applies the rest; here they are
planned offline against that state). The consumer stack renames `orders` to `orders_v2`,
keeping the queue's name, with the blocks read from docs/module.md itself: the plan (offline,
no refresh) moves every resource of the key and creates, updates and destroys nothing. The
first block alone, what the documentation gave before, moves the pair and replaces the rest,
which the change rule CHG013 reports, naming each block that would keep it.
"""
from __future__ import annotations

import json
import os
import re
import shutil

import pytest

from resilient_sqs.policy.config import Config
from resilient_sqs.policy.engine import evaluate
from resilient_sqs.policy.rules import RULES
from tests.support.consumer_stack import consumer_stack
from tests.support.helpers import FIXTURES, documented_moves
from tooling.key_rename_state import STACK
from tooling.terraform import REPO_ROOT, Terraform

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("key-rename")]

STATE = FIXTURES / "key-rename" / "terraform.tfstate"
OLD, NEW = '"orders"', '"orders_v2"'


MOVES = documented_moves()


def _plan(moves: str, key: str = "orders_v2") -> dict:
    work = consumer_stack(STACK, {"moves.tf": moves.encode(), "terraform.tfvars.json": json.dumps({"key": key}).encode()})
    try:
        # paths in the state are relative to the stack that was applied: as if it had been this one
        source = os.path.relpath(REPO_ROOT, work)
        (work / "terraform.tfstate").write_text(STATE.read_text().replace("{source}/", f"{source}/"))
        tf = Terraform(work)
        tf.init()
        return tf.plan_json(out="rename.tfplan", refresh=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _prior_addresses() -> set[str]:
    state = json.loads(STATE.read_text())
    out = set()
    for r in state["resources"]:
        if r["mode"] != "managed":
            continue
        for i in r["instances"]:
            key = i.get("index_key")
            idx = "" if key is None else f"[{json.dumps(key)}]"
            out.add(f"{r['module']}.{r['type']}.{r['name']}{idx}")
    return out


@pytest.fixture(scope="module")
def renamed() -> dict:
    return _plan(MOVES)


@pytest.fixture(scope="module")
def queue_block_only() -> dict:
    first = re.match(r"moved \{.*?\n\}\n", MOVES, flags=re.S).group(0)
    assert 'module.queue["orders"]' in first
    return _plan(first)


def _actions(plan: dict) -> dict[str, list[str]]:
    return {rc["address"]: rc["change"]["actions"] for rc in plan["resource_changes"] if rc["mode"] == "managed"}


def test_the_state_holds_every_kind_of_per_queue_resource():
    of_key = {a for a in _prior_addresses() if OLD in a}
    for what in ('module.queue["orders"].aws_sqs_queue.this', 'module.iam["orders"].aws_iam_policy.this',
                 'module.consumer["orders"].aws_lambda_event_source_mapping.this',
                 'module.dlq_redrive["orders"].aws_lambda_function.this', 'module.dlq_redrive["orders"].aws_iam_role.this',
                 'module.dlq_redrive["orders"].aws_cloudwatch_log_group.this',
                 *(f'aws_cloudwatch_metric_alarm.{k}["orders"]' for k in
                   ("dlq_depth", "dlq_influx", "dlq_stale", "age_warning", "age_critical", "backlog"))):
        assert any(what in a for a in of_key), f"{what} is not in {STATE.name}"


def test_the_documented_moves_keep_every_resource(renamed):
    actions = _actions(renamed)
    changed = {a: acts for a, acts in actions.items() if acts != ["no-op"]}
    assert changed == {}, changed
    moved = {rc["previous_address"]: rc["address"] for rc in renamed["resource_changes"] if rc.get("previous_address")}
    of_key = {a for a in _prior_addresses() if OLD in a}
    assert set(moved) == of_key
    assert all(new == old.replace(OLD, NEW) for old, new in moved.items())


def test_the_queue_block_alone_replaces_the_rest(queue_block_only):
    """The control: what docs/module.md gave before. The pair moves, every other resource of
    the key is deleted and created again under the new key."""
    actions = _actions(queue_block_only)
    deleted = {a for a, acts in actions.items() if acts == ["delete"]}
    created = {a for a, acts in actions.items() if acts == ["create"]}
    of_key = {a for a in _prior_addresses() if OLD in a and 'module.queue["orders"]' not in a}
    assert deleted == of_key
    assert created == {a.replace(OLD, NEW) for a in of_key}
    assert len(deleted) == 19, sorted(deleted)


def test_chg013_names_each_resource_left_behind_and_its_moved_block(queue_block_only, renamed):
    only = Config(enabled={rid: rid == "CHG013" for rid in RULES})
    report = evaluate(queue_block_only, only)
    failed = {f.address: f for f in report.findings if f.status == "fail"}
    of_key = {a for a in _prior_addresses() if OLD in a and 'module.queue["orders"]' not in a}
    # every resource deleted under the old key, none of the pair's (moved) nor the other queue's
    assert set(failed) == of_key
    fixes = {f.remediation for f in failed.values()}
    documented = {f"Add: moved {{ from = {a}  to = {b} }}" for a, b in re.findall(r"from = (\S+)\n\s*to\s*= (\S+)", MOVES)}
    assert len(documented) == 10
    assert {fix.split(" (", 1)[0] for fix in fixes} <= documented, fixes
    alarm = failed['module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.dlq_depth["orders"]']
    assert "sqs-dlq-not-empty-kr-orders-dlq" in alarm.message and "moves to" in alarm.message
    # with the documented blocks, nothing is left behind: each moved resource passes
    report = evaluate(renamed, only)
    assert report.findings == []
    assert report.pass_count == len(of_key)


def test_the_module_of_today_keeps_every_resource_of_the_state():
    """The state was left by an earlier main (23ea51a, by tooling/key_rename_state.py): planned with this
    checkout and the key unchanged, nothing is created or destroyed. A change of the module's
    addresses (a resource renamed, a key regrouped) without a moved block inside the module
    fails here: it would replace the resources of every stack that upgrades."""
    actions = _actions(_plan("", key="orders"))
    replaced = {a: acts for a, acts in actions.items() if "create" in acts or "delete" in acts}
    assert replaced == {}, replaced
