"""The module's prevent_destroy switches, for real: a queue pair, the claim-check bucket
and the idempotency table applied on LocalStack with the switches on
(tests/fixtures/prevent-destroy), then planned against the same state.

Changes that would replace them (a new queue name, bucket name, table sort key) fail
at plan time, naming each guard; an in-place change plans as usual; switching off and
removing the guards from state lets the replacement plan.
"""
from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.helpers import FIXTURES
from tests.support.localstack import unique_prefix
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
