"""Every attribute of a `queues` entry, set through the root module, reaches the real plan.

A queue attribute passes through internal/inputs, the root module's call of modules/queue
and modules/queue's variable before it meets the aws_sqs_queue; an attribute dropped on the
way used to plan green with the default. Here every attribute declared in
``tooling/queue_settings.py`` (the declaration the plumbing is generated from) gets a value
other than its default (``CASES``: the test fails while one has none), once on a queue
entry and, for a setting, once through `queue_defaults`. A stack outside the repository
calls this checkout, Terraform plans it offline with the real AWS provider, and each value
is looked for where it acts: the planned source queue or DLQ (their attributes, redrive and
queue policies), the event source mapping, the alarm, the destroy guard.

Two settings SQS-side have one accepted value only: `sqs_managed_sse_enabled` and
`dlq_sqs_managed_sse_enabled` may only be true (encryption is always on), which is also
what the module does without them. Their plan shows true either way; what proves they
are read is a second plan that gives them false, on a queue and through `queue_defaults`,
and is refused naming each one.
"""
from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from typing import Any, Callable

import pytest

from tests.support.consumer_stack import consumer_stack
from tests.support.helpers import OFFLINE_ACCOUNT
from tooling.queue_settings import ATTRIBUTES
from tooling.terraform import Terraform, TerraformError

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("every-queue-attribute")]

REGION = "us-east-1"  # the offline provider's
ARN = f"arn:aws:sqs:{REGION}:{OFFLINE_ACCOUNT}"


class HCL(str):
    """A value written as HCL (a reference), passed on verbatim."""


def _hcl(value: Any) -> str:
    if isinstance(value, HCL):
        return value
    if isinstance(value, dict):
        return "{\n" + "".join(f"  {k} = {_hcl(v)}\n" for k, v in value.items()) + "}"
    return json.dumps(value)  # JSON is HCL expression syntax


@dataclass
class Queue:
    """The planned resources of one queue entry of one module call."""
    rc: dict[str, dict]
    call: str
    key: str

    def _after(self, address: str) -> dict:
        full = f"module.{self.call}.module.queue[\"{self.key}\"].{address}"
        assert full in self.rc, f"{full} is not in the plan"
        return self.rc[full]["change"]["after"]

    def has(self, address: str) -> bool:
        return f"module.{self.call}.module.queue[\"{self.key}\"].{address}" in self.rc

    @property
    def this(self) -> dict:
        return self._after("aws_sqs_queue.this")

    @property
    def dlq(self) -> dict:
        return self._after("aws_sqs_queue.dlq[0]")

    def redrive(self) -> dict:
        return json.loads(self.this["redrive_policy"])

    def sids(self, which: str) -> set[str]:
        policy = (self.this if which == "queue" else self.dlq)["policy"]
        return {s.get("Sid") for s in json.loads(policy)["Statement"]}

    def _of_module(self, rtype: str) -> list[dict]:
        return [r["change"]["after"] for a, r in self.rc.items()
                if a.startswith(f"module.{self.call}.") and r["type"] == rtype]

    def alarm(self, metric: str) -> dict:
        name = self.this["name"]
        found = [a for a in self._of_module("aws_cloudwatch_metric_alarm")
                 if a.get("metric_name") == metric and (a.get("dimensions") or {}).get("QueueName") == name]
        assert len(found) == 1, f"{len(found)} {metric} alarms on {name}"
        return found[0]

    def mapping(self) -> dict:
        # its event_source_arn is the queue's, known after apply: found by the module's address
        address = f"module.{self.call}.module.consumer[\"{self.key}\"].aws_lambda_event_source_mapping.this"
        assert address in self.rc, f"{address} is not in the plan"
        return self.rc[address]["change"]["after"]


@dataclass
class Case:
    """An attribute's value (not its default), the queue entry it is set on, and where it
    shows in the plan: ``observe(queue)`` must equal ``expect`` (default: the value)."""
    value: Any
    queue: str
    observe: Callable[[Queue], Any]
    expect: Any = field(default=None)

    @property
    def expected(self) -> Any:
        return self.value if self.expect is None else self.expect


DOC = {"Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": "*", "Action": "sqs:PurgeQueue"}]}


def _doc(sid: str) -> str:
    return json.dumps({**DOC, "Statement": [{**DOC["Statement"][0], "Sid": sid}]})


TOPIC = f"arn:aws:sns:{REGION}:{OFFLINE_ACCOUNT}:orders"
CONSUMER = {
    "timeout_seconds": 20,
    "maximum_batching_window_seconds": 5,
    "function_name": "existing-consumer",
    "batch_size": 50,
    "maximum_concurrency": 7,
    "filter_patterns": ['{"body":{"kind":["order"]}}'],
    "report_batch_item_failures": True,  # its default: false is refused (ESM002)
    "enabled": False,
}


def _consumer(q: Queue) -> dict:
    m = q.mapping()
    return {
        "timeout_seconds": (q.this["visibility_timeout_seconds"] - m["maximum_batching_window_in_seconds"]) / 6,
        "maximum_batching_window_seconds": m["maximum_batching_window_in_seconds"],
        "function_name": m["function_name"],
        "batch_size": m["batch_size"],
        "maximum_concurrency": m["scaling_config"][0]["maximum_concurrency"],
        "filter_patterns": [f["pattern"] for f in m["filter_criteria"][0]["filter"]],
        "report_batch_item_failures": m["function_response_types"] == ["ReportBatchItemFailures"],
        "enabled": m["enabled"],
    }


# Queue entries: `full` (FIFO, its own DLQ: almost everything), `consumed` (a consumer, so
# the visibility timeout is derived), `shared` (an existing DLQ by a known ARN), `deferred`
# (an existing DLQ whose ARN is known only after apply: create_dlq = false decides).
SUPPORT = {"deferred": {"dlq_arn": HCL("aws_sqs_queue.elsewhere.arn")}}

CASES: dict[str, Case] = {
    "name": Case("renamed", "full", lambda q: q.this["name"], "{prefix}renamed.fifo"),
    "dlq_name": Case("renamed-dead", "full", lambda q: q.dlq["name"], "{prefix}renamed-dead.fifo"),
    "dlq_arn": Case(f"{ARN}:team-shared-dlq", "shared", lambda q: (q.redrive()["deadLetterTargetArn"], q.has("aws_sqs_queue.dlq[0]")),
                    (f"{ARN}:team-shared-dlq", False)),
    # with the DLQ's ARN unknown at plan, only create_dlq = false tells Terraform the DLQ
    # resource does not exist (dropped, the plan fails on modules/queue's count)
    "create_dlq": Case(False, "deferred", lambda q: q.has("aws_sqs_queue.dlq[0]")),
    "fifo": Case(True, "full", lambda q: (q.this["fifo_queue"], q.dlq["fifo_queue"]), (True, True)),
    "visibility_timeout_seconds": Case(321, "full", lambda q: q.this["visibility_timeout_seconds"]),
    "consumer": Case(CONSUMER, "consumed", _consumer),
    "message_retention_seconds": Case(172800, "full", lambda q: q.this["message_retention_seconds"]),
    "dlq_message_retention_seconds": Case(1000000, "full", lambda q: q.dlq["message_retention_seconds"]),
    "max_receive_count": Case(4, "full", lambda q: q.redrive()["maxReceiveCount"]),
    "receive_wait_time_seconds": Case(0, "full", lambda q: q.this["receive_wait_time_seconds"]),
    # what it allows: the 0 s waits above and below plan instead of being refused
    "allow_short_polling": Case(True, "full", lambda q: (q.this["receive_wait_time_seconds"], q.dlq["receive_wait_time_seconds"]), (0, 0)),
    "delay_seconds": Case(9, "full", lambda q: q.this["delay_seconds"]),
    "max_message_size": Case(131072, "full", lambda q: (q.this["max_message_size"], q.dlq["max_message_size"]), (131072, 131072)),
    "kms_master_key_id": Case("alias/aws/sqs", "full", lambda q: (q.this["kms_master_key_id"], q.this.get("sqs_managed_sse_enabled")),
                              ("alias/aws/sqs", None)),
    "kms_data_key_reuse_period_seconds": Case(600, "full", lambda q: q.this["kms_data_key_reuse_period_seconds"]),
    "sqs_managed_sse_enabled": Case(True, "consumed", lambda q: q.this["sqs_managed_sse_enabled"]),
    "content_based_deduplication": Case(True, "full", lambda q: q.this["content_based_deduplication"]),
    "deduplication_scope": Case("messageGroup", "full", lambda q: q.this["deduplication_scope"]),
    "fifo_throughput_limit": Case("perMessageGroupId", "full", lambda q: q.this["fifo_throughput_limit"]),
    "dlq_visibility_timeout_seconds": Case(99, "full", lambda q: q.dlq["visibility_timeout_seconds"]),
    "dlq_delay_seconds": Case(4, "full", lambda q: q.dlq["delay_seconds"]),
    "dlq_receive_wait_time_seconds": Case(0, "full", lambda q: q.dlq["receive_wait_time_seconds"]),
    "dlq_kms_master_key_id": Case(f"arn:aws:kms:{REGION}:{OFFLINE_ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab", "full",
                                  lambda q: q.dlq["kms_master_key_id"]),
    "dlq_kms_data_key_reuse_period_seconds": Case(900, "full", lambda q: q.dlq["kms_data_key_reuse_period_seconds"]),
    "dlq_sqs_managed_sse_enabled": Case(True, "consumed", lambda q: q.dlq["sqs_managed_sse_enabled"]),
    "dlq_content_based_deduplication": Case(True, "full", lambda q: q.dlq["content_based_deduplication"]),
    "dlq_deduplication_scope": Case("messageGroup", "full", lambda q: q.dlq["deduplication_scope"]),
    "dlq_fifo_throughput_limit": Case("perMessageGroupId", "full", lambda q: q.dlq["fifo_throughput_limit"]),
    "dlq_redrive_allow_policy": Case(
        {"redrivePermission": "byQueue", "sourceQueueArns": [f"{ARN}:other-source.fifo"]}, "full",
        lambda q: sorted(json.loads(q.dlq["redrive_allow_policy"])["sourceQueueArns"]),
        "{sources}"),
    "dlq_tags": Case({"tier": "dead-letters"}, "full", lambda q: q.dlq["tags"].get("tier"), "dead-letters"),
    "queue_policy_statements": Case(
        [{"sid": "FromTopic", "actions": ["sqs:SendMessage"],
          "principals": [{"type": "Service", "identifiers": ["sns.amazonaws.com"]}],
          "condition": [{"test": "ArnEquals", "variable": "aws:SourceArn", "values": [TOPIC]}]}],
        "full", lambda q: "FromTopic" in q.sids("queue"), True),
    "dlq_policy_statements": Case(
        [{"sid": "OpsReads", "actions": ["sqs:ReceiveMessage"],
          "principals": [{"type": "AWS", "identifiers": [f"arn:aws:iam::{OFFLINE_ACCOUNT}:role/ops"]}]}],
        "full", lambda q: "OpsReads" in q.sids("dlq"), True),
    "source_queue_policy_documents": Case([_doc("SourceDoc")], "full", lambda q: "SourceDoc" in q.sids("queue"), True),
    "override_queue_policy_documents": Case([_doc("OverrideDoc")], "full", lambda q: "OverrideDoc" in q.sids("queue"), True),
    "source_dlq_queue_policy_documents": Case([_doc("SourceDlqDoc")], "full", lambda q: "SourceDlqDoc" in q.sids("dlq"), True),
    "override_dlq_queue_policy_documents": Case([_doc("OverrideDlqDoc")], "full", lambda q: "OverrideDlqDoc" in q.sids("dlq"), True),
    "alarm_thresholds": Case({"age_critical_seconds": 7200}, "full",
                             lambda q: q.alarm("ApproximateAgeOfOldestMessage")["threshold"], 7200),
    "prevent_destroy": Case(True, "full", lambda q: q.has("terraform_data.prevent_destroy[0]")),
    "tags": Case({"team": "orders"}, "full", lambda q: q.this["tags"].get("team"), "orders"),
}
QUEUES = sorted({c.queue for c in CASES.values()})
SETTINGS = [a.name for a in ATTRIBUTES if a.defaults]

# the stack: a call with every attribute on queue entries, and per entry a call that gives
# the same settings through queue_defaults to a queue that sets nothing itself. `deferred`
# has a call of its own: beside a queue whose dlq_arn is known (`shared`), an unknown one
# makes the root module's alarms fail the plan ("Invalid count argument" in modules/alarms,
# a limitation of its own, not of the plumbing).
APART = {"deferred": "by_queue_deferred"}
CALLS = {"by_queue": "q-", "by_queue_deferred": "qd-", **{f"defaults_{k}": f"d{i}-" for i, k in enumerate(QUEUES)}}


def _queue_call(queue: str) -> str:
    return APART.get(queue, "by_queue")


def _entry(queue: str, names: list[str]) -> dict:
    return {**SUPPORT.get(queue, {}), **{n: CASES[n].value for n in names if CASES[n].queue == queue}}


def _call(name: str, queues: dict, defaults: dict | None = None) -> str:
    body = (f'module "{name}" {{\n  source      = "{{source}}"\n  account_id  = "{OFFLINE_ACCOUNT}"\n'
            f'  name_prefix = "{CALLS[name]}"\n  alarms      = {{ create_sns_topic = false }}\n'
            f"  queues = {_hcl(queues)}\n")
    if defaults:
        body += f"  queue_defaults = {_hcl(defaults)}\n"
    return body + "}\n"


def _stack() -> str:
    text = 'resource "aws_sqs_queue" "elsewhere" {\n  name = "elsewhere-dlq"\n}\n'
    for call in sorted({_queue_call(q) for q in QUEUES}):
        text += _call(call, {q: _entry(q, list(CASES)) for q in QUEUES if _queue_call(q) == call})
    for q in QUEUES:
        own = _entry(q, SETTINGS)
        if set(own) - set(SUPPORT.get(q, {})):
            text += _call(f"defaults_{q}", {"plain": {}}, own)
    return text


def _plan(stack: str) -> dict:
    work = consumer_stack(stack)
    try:
        tf = Terraform(work)
        tf.init(backend=False)
        return tf.plan_json()
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="module")
def planned() -> dict[str, dict]:
    plan = _plan(_stack())
    return {r["address"]: r for r in plan["resource_changes"]}


def _expected(case: Case, call: str) -> Any:
    e = case.expected
    if e == "{sources}":  # the module adds the queue itself to the DLQ's redrive-allow policy
        return sorted(case.value["sourceQueueArns"] + [f"{ARN}:{CALLS[call]}renamed.fifo"])
    return e.replace("{prefix}", CALLS[call]) if isinstance(e, str) else e


def test_every_declared_attribute_has_a_case():
    """A new attribute in the declaration fails here until it is given a value to find."""
    declared = [a.name for a in ATTRIBUTES]
    assert sorted(set(declared) - set(CASES)) == [], "declared queue attributes without a case here"
    assert sorted(set(CASES) - set(declared)) == [], "cases for attributes the declaration does not have"


@pytest.mark.parametrize("name", list(CASES))
def test_set_on_the_queue_reaches_the_plan(planned, name):
    case = CASES[name]
    call = _queue_call(case.queue)
    got = case.observe(Queue(planned, call, case.queue))
    assert got == _expected(case, call), f'queues["{case.queue}"].{name} = {case.value!r} planned as {got!r}'


@pytest.mark.parametrize("name", SETTINGS)
def test_set_in_queue_defaults_reaches_the_plan(planned, name):
    case = CASES[name]
    call = f"defaults_{case.queue}"
    got = case.observe(Queue(planned, call, "plain"))
    want = _expected(case, call)
    assert got == want, f"queue_defaults.{name} = {case.value!r} planned as {got!r}"


def test_the_encryption_switches_are_read(tmp_path):
    """false, the one value other than the module's own behaviour, is refused naming each
    input: on the queue, and through queue_defaults."""
    names = ["sqs_managed_sse_enabled", "dlq_sqs_managed_sse_enabled"]
    stack = _call("by_queue", {"own": {n: False for n in names}, "plain": {}}, {n: False for n in names})
    with pytest.raises(TerraformError) as err:
        _plan(stack)
    text = " ".join(str(err.value).split())
    for n in names:
        assert f'queues["own"].{n}: false is refused' in text, text[-3000:]
        assert f'queue_defaults.{n} (used by queues["plain"]): false is refused' in text, text[-3000:]
