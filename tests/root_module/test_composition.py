"""How stacks compose the module (issue #34): `depends_on` on the module call, a
`for_each` over the `iam_policies` output's ARNs, and provider 5.x's own refusal of a
message size SQS accepts.

Each stack sources this checkout from outside the repository and is planned for real
(Terraform, the AWS provider 5.100.0 from the mirror, no AWS access)."""
from __future__ import annotations

import shutil

import pytest

from tests.support.consumer_stack import consumer_stack
from tooling.terraform import Terraform, TerraformError

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("composition")]

# A stack whose module call waits for another resource: with depends_on, Terraform reads
# every data source of the module (partition, region, caller identity) only at apply, so
# their values are unknown at plan. Without account_id, the account is looked up too.
DEPENDS_ON = '''
resource "terraform_data" "network_ready" {
  input = "vpc endpoints, KMS keys, ..."
}

module "messaging" {
  source     = "{source}"
  account_id = %s
  queues = {
    orders   = {}
    payments = { fifo = true, consumer = { timeout_seconds = 30, function_name = "payments-consumer" } }
  }
  alarms             = { create_sns_topic = true, sns_topic_name = "composition-oncall" }
  iam                = { create_managed_policies = true }
  claim_check_bucket = { enabled = true, name = "composition-claim-check" }
  idempotency_table  = { enabled = true, name = "composition-idempotency" }
  dlq_redrive        = { enabled = true }

  depends_on = [terraform_data.network_ready]
}

# one attachment per managed policy of a queue: keyed by role, known at plan
resource "terraform_data" "attach" {
  for_each = module.messaging.iam_policies["orders"].policy_arns
  input    = each.value
}
'''


@pytest.mark.parametrize("account_id", ['"123456789012"', "null"], ids=["account-given", "account-looked-up"])
def test_depends_on_and_for_each_over_policy_arns_plan(account_id):
    work = consumer_stack(DEPENDS_ON % account_id)
    try:
        tf = Terraform(work)
        tf.init(backend=False)
        plan = tf.plan_json()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    changes = {r["address"]: r for r in plan["resource_changes"]}
    assert {a for a in changes if a.startswith("terraform_data.attach[")} == {
        'terraform_data.attach["producer"]', 'terraform_data.attach["consumer"]', 'terraform_data.attach["redrive-operator"]',
    }
    # the module's resources are all planned (not deferred or dropped by the unknown lookups)
    for address in (
        'module.messaging.module.queue["orders"].aws_sqs_queue.this',
        'module.messaging.module.queue["orders"].aws_sqs_queue.dlq[0]',
        'module.messaging.module.queue["payments"].aws_sqs_queue.this',
        'module.messaging.module.consumer["payments"].aws_lambda_event_source_mapping.this',
        'module.messaging.module.iam["orders"].aws_iam_policy.this["producer"]',
        'module.messaging.module.alarms[0].aws_sns_topic.alarms[0]',
    ):
        assert changes[address]["change"]["actions"] == ["create"], address
    # the queue's name is known at plan even though its ARN's partition, region and account are not
    assert changes['module.messaging.module.queue["payments"].aws_sqs_queue.this']["change"]["after"]["name"] == "payments.fifo"


# SQS takes up to 1 MiB since August 2025 and the module allows it; provider 5.x (the
# version in the mirror here) still validates 1024-262144 itself and refuses the plan.
# Provider 6.8.0 and later accept it (not run here: the mirror has 5.100.0 only).
MESSAGE_SIZE = '''
module "messaging" {
  source     = "{source}"
  account_id = "123456789012"
  alarms     = { create_sns_topic = false }
  queues     = { orders = { max_message_size = %d } }
}
'''


def test_message_size_above_256_kib_is_decided_by_the_provider():
    work = consumer_stack(MESSAGE_SIZE % 1048576)
    try:
        tf = Terraform(work)
        tf.init(backend=False)
        with pytest.raises(TerraformError) as e:
            tf.plan()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = " ".join(e.value.errors)
    assert "max_message_size" in text and "262144" in text, text
    # the module itself does not refuse it (its own refusals name the queue)
    assert 'queues["orders"]' not in text, text
