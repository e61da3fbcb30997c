"""Every unsafe input of modules/queue is refused at plan time with a message that
names the input, the value, the bound and why. Each case runs a real `terraform
plan` of tests/fixtures/queue-inputs with the inputs in a JSON var file."""
from __future__ import annotations

import re
import shutil

import pytest

from tests.helpers import FIXTURES, MODULES
from tooling.terraform import Terraform, TerraformError, offline_copy

pytestmark = pytest.mark.plan

ARN_ROOT = "arn:aws:iam::123456789012:root"

# (id, inputs, fragments every one of which must appear in Terraform's error)
CASES = [
    ("name-chars", {"name": "orders/v1"}, ["name:", "letters, digits, hyphens"]),
    ("name-too-long", {"name": "a" * 74, "fifo": True}, ["dlq_name:", "83 characters", "at most 80"]),
    ("fifo-suffix-on-standard", {"name": "orders.fifo"}, ["\"orders.fifo\" ends with .fifo but fifo = false"]),
    ("dlq-name-chars", {"dlq_name": "orders dlq"}, ["dlq_name:", "letters, digits"]),
    ("visibility-over-12h", {"visibility_timeout_seconds": 43201}, ["visibility_timeout_seconds:", "43200"]),
    (
        "visibility-below-consumer",
        {"consumer": {"timeout_seconds": 30, "maximum_batching_window_seconds": 5}, "visibility_timeout_seconds": 60},
        ["visibility_timeout_seconds: 60 s", "6 x consumer timeout 30 s", "batching window 5 s = 185 s", "at least 185"],
    ),
    ("consumer-timeout", {"consumer": {"timeout_seconds": 901}}, ["consumer.timeout_seconds:", "1-900"]),
    ("consumer-window", {"consumer": {"timeout_seconds": 30, "maximum_batching_window_seconds": 301}}, ["maximum_batching_window_seconds:", "0-300"]),
    ("retention-below-1-day", {"message_retention_seconds": 3600}, ["message_retention_seconds:", "86400 (1 day)"]),
    ("retention-above-14-days", {"message_retention_seconds": 1209601}, ["message_retention_seconds:", "1209600"]),
    (
        "dlq-retention-equal",
        {"message_retention_seconds": 1209600, "dlq_message_retention_seconds": 1209600},
        ["dlq_message_retention_seconds: 1209600 s must be greater than message_retention_seconds (1209600 s)"],
    ),
    (
        "dlq-retention-below",
        {"message_retention_seconds": 604800, "dlq_message_retention_seconds": 345600},
        ["dlq_message_retention_seconds: 345600 s must be greater than message_retention_seconds (604800 s)", "enqueue time"],
    ),
    ("dlq-retention-above-max", {"dlq_message_retention_seconds": 2000000}, ["dlq_message_retention_seconds:", "1209600"]),
    ("max-receive-1", {"max_receive_count": 1}, ["max_receive_count:", "2 to 1000", "ghost receive"]),
    ("max-receive-fraction", {"max_receive_count": 2.5}, ["max_receive_count:", "whole number"]),
    ("short-polling", {"receive_wait_time_seconds": 0}, ["receive_wait_time_seconds: 0", "allow_short_polling = true"]),
    ("wait-above-20", {"receive_wait_time_seconds": 21}, ["receive_wait_time_seconds:", "0 to 20"]),
    ("delay-above-900", {"delay_seconds": 901}, ["delay_seconds:", "900"]),
    ("message-size-small", {"max_message_size": 512}, ["max_message_size:", "1024"]),
    ("kms-empty", {"kms_master_key_id": ""}, ["kms_master_key_id:", "null for SSE-SQS"]),
    ("kms-reuse", {"kms_data_key_reuse_period_seconds": 30}, ["kms_data_key_reuse_period_seconds:", "60 to 86400"]),
    ("dedup-scope", {"fifo": True, "deduplication_scope": "group"}, ["deduplication_scope:", "\"messageGroup\""]),
    ("throughput-limit", {"fifo": True, "fifo_throughput_limit": "perGroup"}, ["fifo_throughput_limit:", "\"perMessageGroupId\""]),
    (
        "per-group-needs-group-scope",
        {"fifo": True, "fifo_throughput_limit": "perMessageGroupId", "deduplication_scope": "queue"},
        ["requires deduplication_scope = \"messageGroup\"", "it is \"queue\""],
    ),
    (
        "per-group-scope-unset",
        {"fifo": True, "fifo_throughput_limit": "perMessageGroupId"},
        ["requires deduplication_scope = \"messageGroup\"", "unset (AWS default \"queue\")"],
    ),
    ("fifo-options-on-standard", {"content_based_deduplication": True}, ["FIFO-only settings but fifo = false"]),
    (
        "policy-wildcard",
        {"queue_policy_statements": [{"sid": "Any", "actions": ["sqs:*"], "principals": [{"type": "AWS", "identifiers": [ARN_ROOT]}]}]},
        ["queue_policy_statements[*].actions:", "wildcards"],
    ),
    (
        "policy-public",
        {"queue_policy_statements": [{"sid": "Pub", "actions": ["sqs:SendMessage"], "principals": [{"type": "AWS", "identifiers": ["*"]}]}]},
        ["principal \"*\" without a condition makes the queue public"],
    ),
    (
        "policy-effect",
        {"queue_policy_statements": [{"sid": "X", "effect": "allow", "actions": ["sqs:SendMessage"], "principals": [{"type": "Service", "identifiers": ["sns.amazonaws.com"]}]}]},
        ["effect: must be \"Allow\" or \"Deny\""],
    ),
    (
        "dlq-policy-wildcard",
        {"dlq_policy_statements": [{"sid": "Any", "actions": ["sqs:Receive*"], "principals": [{"type": "AWS", "identifiers": [ARN_ROOT]}]}]},
        ["dlq_policy_statements[*].actions:", "wildcards"],
    ),
    (
        "dlq-policy-public",
        {"dlq_policy_statements": [{"sid": "Pub", "actions": ["sqs:ReceiveMessage"], "principals": [{"type": "AWS", "identifiers": ["*"]}]}]},
        ["makes the DLQ public"],
    ),
    ("account-id", {"account_id": "12345"}, ["account_id:", "12-digit"]),
]


@pytest.fixture(scope="module")
def queue_inputs_dir():
    """One initialised copy of the fixture (init once, plan many times in parallel-safe copies)."""
    work = offline_copy(FIXTURES / "queue-inputs")
    tf = Terraform(work)
    tf.init()
    yield work
    shutil.rmtree(work, ignore_errors=True)


def _plan_error(work, inputs: dict) -> str:
    with pytest.raises(TerraformError) as excinfo:
        Terraform(work, variables={"inputs": inputs}).plan(out=f"refused-{abs(hash(repr(inputs)))}.tfplan")
    return " ".join(" ".join(excinfo.value.errors).split())


@pytest.mark.parametrize("inputs,fragments", [pytest.param(i, f, id=c) for c, i, f in CASES])
def test_refused_with_clear_message(queue_inputs_dir, inputs, fragments):
    message = _plan_error(queue_inputs_dir, inputs)
    for fragment in fragments:
        assert fragment in message, f"expected {fragment!r} in:\n{message}"


def test_baseline_inputs_plan_cleanly(queue_inputs_dir):
    """The fixture itself is valid: each refusal above is caused by its own input alone."""
    plan = Terraform(queue_inputs_dir, variables={"inputs": {}}).plan_json(out="baseline.tfplan")
    names = {rc["change"]["after"]["name"] for rc in plan["resource_changes"] if rc["type"] == "aws_sqs_queue"}
    assert names == {"orders", "orders-dlq"}


def test_every_validated_input_has_a_native_negative_test():
    """Every variable with a validation block appears in expect_failures in refusals.tftest.hcl."""
    variables_tf = (MODULES / "queue" / "variables.tf").read_text()
    validated = set()
    for block in re.split(r'^variable "', variables_tf, flags=re.M)[1:]:
        name = block.split('"', 1)[0]
        if "validation {" in block:
            validated.add(name)
    refusals = (MODULES / "queue" / "tests" / "refusals.tftest.hcl").read_text()
    expected = set(re.findall(r"expect_failures = \[var\.([a-z_]+)\]", refusals))
    assert validated - expected == set(), f"validated inputs without a negative terraform test: {validated - expected}"
    assert len(re.findall(r"^run ", refusals, flags=re.M)) >= 15

