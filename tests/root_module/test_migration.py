"""A stack switches from terraform-aws-modules/sqs to this module without destroying its queues.

The prior state is the one terraform-aws-modules/sqs v4.3.1 left after a real apply
(tests/fixtures/migration/terraform-aws-sqs.tfstate, made on LocalStack by
tooling/migration_state.py): `module.orders_queue` with its queue, DLQ, queue
policy, redrive policy and redrive-allow policy. The consumer stack (outside the
repository) replaces that module call with this module and the `moved` /
`removed` blocks of the migration guide (read from docs/migration.md itself); its plan (offline, no
refresh) must keep both queues: moved, updated in place at most, never
destroyed (a destroyed queue loses its messages). The same stack without those
blocks is planned too: it would destroy them, so the blocks are what saves them.
"""
from __future__ import annotations

import json
import re
import shutil

import pytest

from tests.support.helpers import FIXTURES
from tests.support.consumer_stack import consumer_stack
from tooling.terraform import REPO_ROOT, Terraform

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("migration")]

STATE = FIXTURES / "migration" / "terraform-aws-sqs.tfstate"
ACCOUNT = "000000000000"  # LocalStack's, where the state was made

OURS = '''
module "messaging" {
  source     = "{source}"
  account_id = "%s"
  alarms     = { create_sns_topic = false }

  queues = {
    orders = {
      max_receive_count = 4
      # terraform-aws-modules/sqs takes statements as a map; so does this module
      queue_policy_statements = {
        sns = {
          sid        = "AllowOrdersTopic"
          actions    = ["sqs:SendMessage"]
          principals = [{ type = "Service", identifiers = ["sns.amazonaws.com"] }]
          conditions = [{ test = "ArnEquals", variable = "aws:SourceArn", values = ["arn:aws:sns:us-east-1:%s:orders"] }]
        }
      }
      tags = { team = "orders" }
    }
  }
}
''' % (ACCOUNT, ACCOUNT)


def readme_migration_blocks() -> str:
    """The `moved`/`removed` blocks of the migration guide, as written there."""
    text = (REPO_ROOT / "docs" / "migration.md").read_text()
    blocks = re.findall(r"```terraform\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 1, "docs/migration.md should hold one ```terraform block of moved/removed blocks"
    return blocks[0]


MOVES = readme_migration_blocks()

OLD = "module.orders_queue"
NEW = 'module.messaging.module.queue["orders"]'


def _plan(main_tf: str) -> dict:
    work = consumer_stack(main_tf)
    try:
        shutil.copy(STATE, work / "terraform.tfstate")
        tf = Terraform(work)
        tf.init()
        return tf.plan_json(out="migration.tfplan", refresh=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="module")
def migrated() -> dict:
    return _plan(OURS + MOVES)


def test_fixture_is_the_state_terraform_aws_modules_sqs_leaves():
    state = json.loads(STATE.read_text())
    managed = {f"{r['module']}.{r['type']}.{r['name']}" for r in state["resources"] if r["mode"] == "managed"}
    assert managed == {f"{OLD}.{t}" for t in (
        "aws_sqs_queue.this", "aws_sqs_queue.dlq", "aws_sqs_queue_policy.this",
        "aws_sqs_queue_redrive_policy.dlq", "aws_sqs_queue_redrive_allow_policy.dlq",
    )}


def test_queues_are_moved_not_replaced(migrated):
    changes = {rc["address"]: rc for rc in migrated["resource_changes"]}
    for old, new in ((f"{OLD}.aws_sqs_queue.this[0]", f"{NEW}.aws_sqs_queue.this"),
                     (f"{OLD}.aws_sqs_queue.dlq[0]", f"{NEW}.aws_sqs_queue.dlq[0]")):
        rc = changes[new]
        assert rc.get("previous_address") == old, rc.get("previous_address")
        assert rc["change"]["actions"] in (["update"], ["no-op"]), (new, rc["change"]["actions"])
        assert rc["change"]["before"]["url"] == rc["change"]["after"]["url"]
    queues = [rc for rc in migrated["resource_changes"] if rc["type"] == "aws_sqs_queue"]
    assert all("delete" not in rc["change"]["actions"] and "create" not in rc["change"]["actions"] for rc in queues)


def test_old_policy_resources_are_forgotten_not_destroyed(migrated):
    old = [rc for rc in migrated["resource_changes"] if rc["address"].startswith(f"{OLD}.")]
    assert {rc["type"] for rc in old} == {"aws_sqs_queue_policy", "aws_sqs_queue_redrive_policy", "aws_sqs_queue_redrive_allow_policy"}
    assert all(rc["change"]["actions"] == ["forget"] for rc in old), [(rc["address"], rc["change"]["actions"]) for rc in old]


def _old_attribute(type_: str, attr: str):
    state = json.loads(STATE.read_text())
    r = next(r for r in state["resources"] if r["mode"] == "managed" and r["type"] == type_)
    return json.loads(r["instances"][0]["attributes"][attr])


def test_queues_keep_their_redrive_and_sender(migrated):
    """What the separate resources held is now on the queues themselves, the same:
    the DLQ and maxReceiveCount, the redrive-allow policy, the SNS sender with its condition."""
    changes = {rc["address"]: rc["change"] for rc in migrated["resource_changes"]}
    queue = changes[f"{NEW}.aws_sqs_queue.this"]["after"]
    assert json.loads(queue["redrive_policy"]) == _old_attribute("aws_sqs_queue_redrive_policy", "redrive_policy")
    dlq = changes[f"{NEW}.aws_sqs_queue.dlq[0]"]["after"]
    assert json.loads(dlq["redrive_allow_policy"]) == _old_attribute("aws_sqs_queue_redrive_allow_policy", "redrive_allow_policy")
    old_statement = _old_attribute("aws_sqs_queue_policy", "policy")["Statement"][0]
    statement = next(s for s in json.loads(queue["policy"])["Statement"] if s.get("Sid") == "AllowOrdersTopic")
    assert statement == old_statement
    # and the TLS-only deny comes with it
    assert any(s.get("Sid") == "DenyInsecureTransport" for s in json.loads(queue["policy"])["Statement"])


def test_without_the_blocks_the_queues_would_be_destroyed():
    """The control: the same switch without moved/removed deletes both queues and their messages."""
    plan = _plan(OURS)
    deleted = {rc["address"] for rc in plan["resource_changes"] if rc["change"]["actions"] == ["delete"]}
    assert {f"{OLD}.aws_sqs_queue.this[0]", f"{OLD}.aws_sqs_queue.dlq[0]"} <= deleted


def test_checker_reports_nothing_on_resources_that_only_leave_the_state(migrated):
    """The `removed` block's resources are forgotten (they leave the state, nothing is
    configured): no rule judges them, e.g. SQS011 on the old redrive-allow policy."""
    from resilient_sqs.policy.engine import evaluate

    report = evaluate(migrated)
    forgotten = [f for f in report.findings + report.passed if f.address.startswith(f"{OLD}.")]
    assert forgotten == [], [(f.rule_id, f.status, f.address, f.message) for f in forgotten]
    assert [f for f in report.findings if f.status == "fail" and f.severity == "error"] == []
