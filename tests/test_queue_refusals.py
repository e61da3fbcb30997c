"""Every unsafe input of modules/queue is refused at plan time with a message that
names the input, the value, the bound and why. Each case is a real plan of
tests/fixtures/queue-inputs with its inputs, all of them in one `terraform test`."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.helpers import FIXTURES, MODULES
from tooling.terraform import Terraform, offline_copy

# one worker runs every case: they share one `terraform test` (a module-scoped fixture)
pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("queue-refusals")]

ACCOUNT = "123456789012"
ARN_ROOT = f"arn:aws:iam::{ACCOUNT}:root"

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
    ("consumer-timeout", {"consumer": {"timeout_seconds": 901}}, ["consumer.timeout_seconds:", "1 to 900"]),
    ("consumer-window", {"consumer": {"timeout_seconds": 30, "maximum_batching_window_seconds": 301}}, ["maximum_batching_window_seconds:", "0 to 300"]),
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
        ["dlq_message_retention_seconds: 345600 s must be greater than message_retention_seconds (604800 s)",
         "On a standard queue a message keeps its original enqueue time"],
    ),
    (
        # the reason given must be true for FIFO, whose DLQ restarts a message's retention
        "dlq-retention-below-fifo",
        {"fifo": True, "message_retention_seconds": 604800, "dlq_message_retention_seconds": 345600},
        ["dlq_message_retention_seconds: 345600 s must be greater than message_retention_seconds (604800 s)",
         "On a FIFO queue a message's retention restarts when it moves to the DLQ"],
    ),
    ("retention-fraction", {"message_retention_seconds": 86400.5}, ["message_retention_seconds: 86400.5", "whole number"]),
    ("kms-reuse-fraction", {"kms_master_key_id": "11111111-2222-3333-4444-555555555555", "kms_data_key_reuse_period_seconds": 300.5},
     ["kms_data_key_reuse_period_seconds: 300.5", "whole number"]),
    ("kms-reuse-without-key", {"kms_data_key_reuse_period_seconds": 600},
     ["kms_data_key_reuse_period_seconds: 600 is set, but the queue has no KMS key"]),
    ("dlq-kms-reuse-without-key", {"dlq_kms_data_key_reuse_period_seconds": 600},
     ["dlq_kms_data_key_reuse_period_seconds: 600 is set, but the DLQ has no KMS key"]),
    ("sns-without-source-condition",
     {"queue_policy_statements": [{"sid": "Sns", "actions": ["sqs:SendMessage"], "principals": [{"type": "Service", "identifiers": ["sns.amazonaws.com"]}]}]},
     ['queue_policy_statements[0] (sid "Sns"): an Allow to service principal sns.amazonaws.com without an aws:SourceArn or aws:SourceAccount condition', "confused deputy"]),
    ("service-in-document-without-source-condition",
     {"source_queue_policy_documents": ['{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "events.amazonaws.com"}, "Action": "sqs:SendMessage"}]}']},
     ["source_queue_policy_documents[0]", "service principal events.amazonaws.com without an aws:SourceArn or aws:SourceAccount Condition"]),
    ("star-with-principal-tag-only",
     {"queue_policy_statements": [{"sid": "Tagged", "actions": ["sqs:SendMessage"], "principals": [{"type": "AWS", "identifiers": ["*"]}],
                                   "conditions": [{"test": "StringEquals", "variable": "aws:PrincipalTag/team", "values": ["orders"]}]}]},
     ['queue_policy_statements[0] (sid "Tagged"): an Allow to principal "*" without a condition that pins the caller', "aws:principaltag/team"]),
    ("dlq-retention-above-max", {"dlq_message_retention_seconds": 2000000}, ["dlq_message_retention_seconds:", "1209600"]),
    ("max-receive-1", {"max_receive_count": 1}, ["max_receive_count:", "2 to 1000", "ghost receive"]),
    ("max-receive-fraction", {"max_receive_count": 2.5}, ["max_receive_count:", "whole number"]),
    ("short-polling", {"receive_wait_time_seconds": 0}, ["receive_wait_time_seconds: 0", "allow_short_polling = true"]),
    ("wait-above-20", {"receive_wait_time_seconds": 21}, ["receive_wait_time_seconds:", "0 to 20"]),
    ("delay-above-900", {"delay_seconds": 901}, ["delay_seconds:", "900"]),
    ("message-size-small", {"max_message_size": 512}, ["max_message_size:", "1024"]),
    ("kms-empty", {"kms_master_key_id": ""}, ["kms_master_key_id:", "null for SSE-SQS"]),
    ("kms-reuse", {"kms_master_key_id": "11111111-2222-3333-4444-555555555555", "kms_data_key_reuse_period_seconds": 30}, ["kms_data_key_reuse_period_seconds:", "60 to 86400"]),
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
        ["queue_policy_statements[0] (sid \"Any\"): actions: [\"sqs:*\"] in an Allow", "wildcards"],
    ),
    (
        "policy-public",
        {"queue_policy_statements": [{"sid": "Pub", "actions": ["sqs:SendMessage"], "principals": [{"type": "AWS", "identifiers": ["*"]}]}]},
        ["principal \"*\" without a condition that pins the caller", "makes the queue public"],
    ),
    (
        "policy-effect",
        {"queue_policy_statements": [{"sid": "X", "effect": "allow", "actions": ["sqs:SendMessage"], "principals": [{"type": "Service", "identifiers": ["sns.amazonaws.com"]}]}]},
        ["queue_policy_statements[0] (sid \"X\"): effect: \"allow\" must be \"Allow\" or \"Deny\""],
    ),
    (
        "dlq-policy-wildcard",
        {"dlq_policy_statements": [{"sid": "Any", "actions": ["sqs:Receive*"], "principals": [{"type": "AWS", "identifiers": [ARN_ROOT]}]}]},
        ["dlq_policy_statements[0] (sid \"Any\"): actions: [\"sqs:Receive*\"] in an Allow", "wildcards"],
    ),
    (
        "dlq-policy-public",
        {"dlq_policy_statements": [{"sid": "Pub", "actions": ["sqs:ReceiveMessage"], "principals": [{"type": "AWS", "identifiers": ["*"]}]}]},
        ["makes the DLQ public"],
    ),
    ("account-id", {"account_id": "12345"}, ["account_id:", "12-digit"]),
    # the provider (5.x) validates 1024-262144 itself; refused here first, with the way out
    ("message-size-above-provider-range", {"max_message_size": 300000}, ["max_message_size: 300000 bytes", "1024-262144", "claim-check bucket"]),
    ("dlq-name-is-queue-name", {"dlq_name": "orders"}, ["dlq_name: \"orders\" is the queue's own name", "its own dead-letter queue"]),
    ("create-dlq-with-dlq-arn", {"create_dlq": True, "dlq_arn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:shared-dlq"},
     ["create_dlq: true, but dlq_arn names an existing DLQ too"]),
    ("create-dlq-false-without-dlq-arn", {"create_dlq": False}, ["create_dlq: false needs dlq_arn"]),
    ("dlq-arn-is-queue-arn", {"dlq_arn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders"}, ["dlq_arn:", "is this queue's own ARN"]),
    ("dlq-arn-not-fifo", {"fifo": True, "dlq_arn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:shared-dlq"},
     ["dlq_arn:", "is a standard queue but this queue is FIFO"]),
    ("dlq-arn-other-region", {"dlq_arn": f"arn:aws:sqs:eu-west-1:{ACCOUNT}:shared-dlq"},
     ["dlq_arn:", "is in eu-west-1/", "same account and region"]),
    ("dlq-arn-with-dlq-settings", {"dlq_arn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:shared-dlq", "dlq_visibility_timeout_seconds": 60},
     ["dlq_arn: the DLQ is an existing queue", "dlq_visibility_timeout_seconds would not be applied"]),
    ("dlq-arn-url", {"dlq_arn": f"https://sqs.us-east-1.amazonaws.com/{ACCOUNT}/shared-dlq"}, ["dlq_arn:", "must be an SQS queue ARN"]),
    ("dlq-short-polling", {"dlq_receive_wait_time_seconds": 0}, ["dlq_receive_wait_time_seconds: 0 (short polling) is refused"]),
    ("dlq-visibility-over-12h", {"dlq_visibility_timeout_seconds": 43201}, ["dlq_visibility_timeout_seconds: 43201", "43200"]),
    ("dlq-redrive-allow-deny-all", {"dlq_redrive_allow_policy": {"redrivePermission": "denyAll"}},
     ["dlq_redrive_allow_policy.redrivePermission: \"denyAll\"", "own DLQ"]),
    (
        "policy-not-actions-allow",
        {"queue_policy_statements": [{"sid": "AllBut", "not_actions": ["sqs:DeleteQueue"], "principals": [{"type": "AWS", "identifiers": [ARN_ROOT]}]}]},
        ["queue_policy_statements[0] (sid \"AllBut\"): not_actions in an Allow grants every other action"],
    ),
    (
        "policy-not-principals-allow",
        {"queue_policy_statements": [{"sid": "AllButOne", "actions": ["sqs:SendMessage"], "not_principals": [{"type": "AWS", "identifiers": [ARN_ROOT]}]}]},
        ["not_principals in an Allow grants every principal not listed"],
    ),
    (
        "policy-resources",
        {"queue_policy_statements": [{"sid": "Sns", "actions": ["sqs:SendMessage"], "resources": ["*"], "principals": [{"type": "Service", "identifiers": ["sns.amazonaws.com"]}]}]},
        ["resources/not_resources: the resource of this policy is always the source queue itself", "remove them"],
    ),
    (
        "policy-public-via-document",
        {"source_queue_policy_documents": ['{"Statement":[{"Sid":"Open","Effect":"Allow","Principal":"*","Action":"sqs:SendMessage"}]}']},
        ["source_queue_policy_documents[0] statement \"Open\": an Allow to principal \"*\" without a Condition that pins the caller", "makes the source queue public"],
    ),
    ("partition", {"partition": "amazon"}, ["partition:", "\"aws-cn\""]),
    ("region", {"region": "EU West 1"}, ["region:", "\"eu-west-1\""]),
]


BASELINE = "baseline"


def _tftest(run: str, inputs: dict, asserts: str = "") -> str:
    # JSON is valid HCL expression syntax: the inputs keep their types
    return f'run "{run}" {{\n  command = plan\n  variables {{\n    inputs = {json.dumps(inputs)}\n  }}\n{asserts}}}\n'


@pytest.fixture(scope="module")
def outcomes():
    """Every case planned in ONE `terraform test` of a copy of the fixture, one file
    per case (Terraform skips the rest of a file after an error): the provider
    starts once per run instead of once per `terraform plan` process, a fraction
    of the cost. {case id: {"status", "errors"}}."""
    work = offline_copy(FIXTURES / "queue-inputs")
    try:
        (work / "tests").mkdir()
        for case, inputs, _ in CASES:
            (work / "tests" / f"{case}.tftest.hcl").write_text(_tftest("refused", inputs))
        # the fixture itself is valid: each refusal is caused by its own input alone
        (work / "tests" / f"{BASELINE}.tftest.hcl").write_text(_tftest(BASELINE, {}, (
            "  assert {\n"
            '    condition     = module.queue.queue.name == "orders" && module.queue.dlq.name == "orders-dlq"\n'
            '    error_message = "baseline names"\n'
            "  }\n")))
        tf = Terraform(work)
        tf.init(backend=False)
        result = tf.test()
        got: dict[str, dict] = {}
        for line in result.stdout.splitlines():
            if not line.startswith("{"):
                continue
            event = json.loads(line)
            case = Path(event.get("@testfile") or "x").name.removesuffix(".tftest.hcl")
            if event.get("type") == "test_run" and event["test_run"].get("progress") == "complete":
                got.setdefault(case, {"errors": []})["status"] = event["test_run"]["status"]
            elif event.get("type") == "diagnostic" and event.get("@level") == "error" and event.get("@testfile"):
                d = event["diagnostic"]
                got.setdefault(case, {"errors": []})["errors"].append(f"{d.get('summary', '')}: {d.get('detail', '')}")
        assert got, f"terraform test reported no runs:\n{result.stderr[-3000:]}"
        return got
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.parametrize("case,fragments", [pytest.param(c, f, id=c) for c, _, f in CASES])
def test_refused_with_clear_message(outcomes, case, fragments):
    got = outcomes.get(case)
    assert got is not None and got.get("status") == "error", f"the plan was not refused: {got}"
    message = " ".join(" ".join(got["errors"]).split())
    for fragment in fragments:
        assert fragment in message, f"expected {fragment!r} in:\n{message}"


def test_baseline_inputs_plan_cleanly(outcomes):
    """The fixture itself is valid: each refusal above is caused by its own input alone."""
    assert outcomes[BASELINE] == {"errors": [], "status": "pass"}


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

