"""The module's prevent_destroy switches, for real: a queue pair, the claim-check bucket
and the idempotency table applied on LocalStack with the switches on
(tests/fixtures/prevent-destroy), then planned against the same state.

Changes that would replace them (a new queue name, bucket name, table sort key) fail
at plan time, naming each guard; an in-place change plans as usual; switching off and
removing the guards from state lets the replacement plan.

The same applied stack shows a `queues` key renamed with the `moved` blocks of
docs/module.md: the pair, its managed policies, its six alarms and its event source
mapping all move, and the plan (refreshed against LocalStack) is empty. The DLQ redrive
is not in this stack (LocalStack cannot run its function): tests/root_module/test_key_rename.py
plans it against a state instead.
"""
from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.helpers import FIXTURES, documented_moves
from tests.support.localstack import pending_changes, unique_prefix
from tooling.key_rename_state import create_function
from tooling.terraform import Terraform, TerraformError, copy_config, terraform_bin, terraform_env

pytestmark = [pytest.mark.localstack, pytest.mark.xdist_group("localstack-prevent-destroy")]

GUARDS = {
    "queue": 'module.messaging.module.queue["orders"].terraform_data.prevent_destroy[0]',
    "bucket": "module.messaging.module.claim_check_bucket[0].terraform_data.prevent_destroy[0]",
    "table": "module.messaging.module.idempotency_table[0].terraform_data.prevent_destroy[0]",
}
REPLACING = {"queue": "orders-v2", "bucket": "payloads-v2", "sort_key": "sk"}


@pytest.fixture(scope="module")
def stack(localstack):
    work = copy_config(FIXTURES / "prevent-destroy")
    base = {"name_prefix": unique_prefix("pd")}
    tf = Terraform(work, variables=base, env={**localstack.env(), "AWS_MAX_ATTEMPTS": "3"})
    try:
        create_function(localstack.endpoint, f"{base['name_prefix']}-consumer")  # the mapping's function
        tf.init()
        tf.apply()
        yield tf, base
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _plan(tf: Terraform, variables: dict) -> dict:
    tf.tf_variables = variables
    return tf.plan_json(out="check.tfplan", refresh=False)


def test_replacing_a_protected_queue_bucket_or_table_fails_at_plan(stack):
    tf, base = stack
    with pytest.raises(TerraformError) as err:
        _plan(tf, {**base, **REPLACING})
    text = " ".join(err.value.errors)
    assert text.count("Error: Instance cannot be destroyed") == 3, text
    for guard in GUARDS.values():
        assert f"Resource {guard} has lifecycle.prevent_destroy set" in text


def test_in_place_changes_plan_as_usual(stack):
    tf, base = stack
    plan = _plan(tf, {**base, "tags": {"team": "orders"}})
    actions = {rc["address"]: rc["change"]["actions"] for rc in plan["resource_changes"]}
    assert ["update"] in actions.values()
    assert not [a for a, acts in actions.items() if "delete" in acts], actions


def _changes(plan: dict) -> dict[str, list[str]]:
    return {rc["address"]: rc["change"]["actions"] for rc in plan["resource_changes"]}


def test_a_key_renamed_with_the_documented_moves_replaces_nothing(stack, known_differences):
    tf, base = stack
    moves = tf.path / "moves.tf"
    of_key = sorted(a for a in tf.cmd("state list")[1].split() if '["orders"]' in a and ".data." not in a)
    try:
        # the control: the queue's block alone (what docs/module.md gave before) keeps the pair only
        moves.write_text(documented_moves().split("}\n", 1)[0] + "}\n")
        tf.tf_variables = {**base, "key": "orders_v2"}
        only_queue = _changes(tf.plan_json(out="rename.tfplan"))
        left = {a for a in of_key if 'module.queue["orders"]' not in a}
        assert {a for a, acts in only_queue.items() if acts == ["delete"]} == left
        assert {a for a, acts in only_queue.items() if acts == ["create"]} == {a.replace('"orders"', '"orders_v2"') for a in left}

        moves.write_text(documented_moves())
        plan = tf.plan_json(out="rename.tfplan")
        assert pending_changes(plan, known_differences) == []
        moved = {rc["previous_address"] for rc in plan["resource_changes"] if rc.get("previous_address")}
        assert moved == set(of_key)
    finally:
        moves.unlink(missing_ok=True)
        tf.tf_variables = base
    # what the stack holds for the key: the pair with its guard, 3 policies, 6 alarms, the mapping
    assert len(of_key) == 13 and len(left) == 10, of_key


def test_switching_off_and_removing_the_guards_lets_the_replacement_plan(stack):
    """Runs last: it removes the guards from the shared state."""
    tf, base = stack
    for guard in GUARDS.values():  # what the module's documentation says to run
        done = subprocess.run([terraform_bin(), "state", "rm", guard], cwd=tf.path, env=terraform_env(tf.extra_env),
                              capture_output=True, text=True)
        assert done.returncode == 0 and "Successfully removed 1 resource instance" in done.stdout, done.stderr
    plan = _plan(tf, {**base, **REPLACING, "protect": False})
    replaced = {rc["address"] for rc in plan["resource_changes"] if rc["change"]["actions"] == ["delete", "create"]}
    assert {'module.messaging.module.queue["orders"].aws_sqs_queue.this',
            "module.messaging.module.claim_check_bucket[0].aws_s3_bucket.this",
            "module.messaging.module.idempotency_table[0].aws_dynamodb_table.this"} <= replaced
