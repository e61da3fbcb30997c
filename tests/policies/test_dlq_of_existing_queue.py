"""SQS002 on a DLQ created beside an existing queue (issue #23): the stack reads the queue
with ``data "aws_sqs_queue"`` and gives it a new DLQ with ``aws_sqs_queue_redrive_policy``.

SQS002 says every source queue has a DLQ in its own account and Region. Here the source is
the existing queue; the new queue is its DLQ, so it needs no DLQ of its own (nor an age alarm:
a depth alarm). Before, every queue of the plan was taken as a possible target of the redrive
policy resource ("targets a queue that cannot be told from the plan"), so SQS002 stayed
unknown on the DLQ, CW002 asked the DLQ for an age alarm, and the existing queue's DLQ was
never judged. Now SQS002 judges the redrive policy resource: the DLQ's place against the
existing queue's (its ARN when the data source is read at plan time, else its provider
configuration's), unknown only when neither shows it.

A real offline plan; each data source waits for its DLQ (``depends_on``), so Terraform reads
it at apply and the plan needs no AWS access (and shows no ARN for it).
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from resilient_sqs.policy.engine import evaluate
from tests.support import plan_cache
from tests.support.helpers import OFFLINE_PROVIDER, offline_provider

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("dlq-of-existing-queue")]

PROVIDERS = (OFFLINE_PROVIDER + "\n" + offline_provider("us-west-2", alias="west")
             + "\n# its Region comes from the environment: the plan does not show it\n"
             + offline_provider(None, alias="elsewhere"))


def _pair(key: str, provider: str | None) -> str:
    """An existing queue ``key`` (read with ``provider``) and a new DLQ for it (default provider)."""
    use = f"\n  provider   = aws.{provider}" if provider else ""
    return f'''
resource "aws_sqs_queue" "{key}_dlq" {{
  name                      = "{key}-dlq"
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true
}}

data "aws_sqs_queue" "{key}" {{{use}
  name       = "{key}"
  depends_on = [aws_sqs_queue.{key}_dlq]
}}

resource "aws_sqs_queue_redrive_policy" "{key}" {{{use}
  queue_url = data.aws_sqs_queue.{key}.url
  redrive_policy = jsonencode({{
    deadLetterTargetArn = aws_sqs_queue.{key}_dlq.arn
    maxReceiveCount     = 5
  }})
}}
'''


STACK = PROVIDERS + _pair("legacy", None) + _pair("west", "west") + _pair("far", "elsewhere") + '''
resource "aws_cloudwatch_metric_alarm" "legacy_dlq_depth" {
  alarm_name          = "legacy-dlq-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = aws_sqs_queue.legacy_dlq.name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  alarm_actions       = ["arn:aws:sns:us-east-1:123456789012:oncall"]
}
'''


@pytest.fixture(scope="module")
def stack():
    work = Path(tempfile.mkdtemp(prefix="dlq-existing-"))
    try:
        (work / "main.tf").write_text(STACK)
        yield work, plan_cache.load(work, offline=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="module", params=[False, True], ids=["plan", "with-source"])
def report(request, stack):
    work, plan = stack
    return evaluate(plan, source_dir=str(work)) if request.param else evaluate(plan)


def _of(report, rule: str) -> dict:
    return {f.address: f for f in report.passed + report.findings if f.rule_id == rule}


def test_the_existing_queues_are_data_sources_read_at_apply(stack):
    _, plan = stack
    reads = {rc["address"]: rc["change"] for rc in plan["resource_changes"] if rc["mode"] == "data"}
    assert set(reads) == {"data.aws_sqs_queue.legacy", "data.aws_sqs_queue.west", "data.aws_sqs_queue.far"}
    assert all(c["after_unknown"].get("arn") is True for c in reads.values())  # no ARN: its place is its provider's


def test_sqs002_judges_the_dlq_given_to_the_existing_queue(report):
    got = _of(report, "SQS002")
    assert {a: f.status for a, f in got.items()} == {
        "aws_sqs_queue_redrive_policy.legacy": "pass",
        "aws_sqs_queue_redrive_policy.west": "fail",
        "aws_sqs_queue_redrive_policy.far": "unknown"}, {a: (f.status, f.message) for a, f in got.items()}
    assert got["aws_sqs_queue_redrive_policy.legacy"].message == \
        "the existing queue data.aws_sqs_queue.legacy has the dead-letter queue aws_sqs_queue.legacy_dlq"
    west = got["aws_sqs_queue_redrive_policy.west"]
    assert (west.severity, west.message) == ("error", (
        "dead-letter queue aws_sqs_queue.west_dlq of the existing queue data.aws_sqs_queue.west is in region "
        "us-east-1, not us-west-2 (the source's): a dead-letter queue must be in the same account and Region as "
        "its source queue, so failed messages have no DLQ to go to"))


def test_an_undecided_place_says_what_is_not_known_and_how_to_know_it(report):
    far = _of(report, "SQS002")["aws_sqs_queue_redrive_policy.far"]
    assert "dead-letter queue aws_sqs_queue.far_dlq of the existing queue data.aws_sqs_queue.far" in far.message
    assert "data.aws_sqs_queue.far is read at apply (it depends on a resource of the plan), so its ARN is not in " \
           "the plan; the plan does not show the region of data.aws_sqs_queue.far" in far.message
    assert "Read the existing queue with the DLQ's provider configuration, or at plan time" in far.remediation


def test_the_new_queues_are_dlqs(report):
    """They need no DLQ and no age alarm of their own, but a depth alarm."""
    dlqs = {f"aws_sqs_queue.{k}_dlq" for k in ("legacy", "west", "far")}
    assert not dlqs & set(_of(report, "SQS002")), _of(report, "SQS002")
    assert not dlqs & set(_of(report, "CW002"))
    cw001 = _of(report, "CW001")
    assert set(cw001) == dlqs
    assert cw001["aws_sqs_queue.legacy_dlq"].status == "pass"
    assert cw001["aws_sqs_queue.west_dlq"].status == "fail"  # no depth alarm


def _read_at_plan_time(plan: dict, key: str, arn: str) -> dict:
    """The plan as Terraform writes it when ``data.aws_sqs_queue.<key>`` is read while planning
    (no depends_on on the plan's resources; that needs AWS access, which the tests do not
    have): the data source only in ``prior_state`` with its ARN and URL, and the redrive
    policy's ``queue_url`` known."""
    import copy

    doc = copy.deepcopy(plan)
    address, name = f"data.aws_sqs_queue.{key}", arn.rsplit(":", 1)[1]
    region, account = arn.split(":")[3:5]
    url = f"https://sqs.{region}.amazonaws.com/{account}/{name}"
    doc["resource_changes"] = [rc for rc in doc["resource_changes"] if rc["address"] != address]
    root = doc["planned_values"]["root_module"]
    root["resources"] = [r for r in root["resources"] if r["address"] != address]
    for r in root["resources"]:
        if r["address"] == f"aws_sqs_queue_redrive_policy.{key}":
            r.setdefault("values", {})["queue_url"] = url
    for rc in doc["resource_changes"]:
        if rc["address"] == f"aws_sqs_queue_redrive_policy.{key}":
            rc["change"]["after"]["queue_url"] = url
            rc["change"]["after_unknown"].pop("queue_url", None)
    doc.setdefault("prior_state", {"format_version": "1.0", "values": {"root_module": {"resources": []}}})
    doc["prior_state"]["values"]["root_module"].setdefault("resources", []).append({
        "address": address, "mode": "data", "type": "aws_sqs_queue", "name": key,
        "provider_name": "registry.terraform.io/hashicorp/aws", "schema_version": 0,
        "values": {"name": name, "arn": arn, "url": url, "id": url, "tags": {}}, "sensitive_values": {"tags": {}}})
    return doc


@pytest.mark.parametrize("region,status", [("eu-west-1", "fail"), ("us-east-1", "unknown")])
def test_a_data_source_read_at_plan_time_places_the_existing_queue(stack, region, status):
    """Its ARN is in the plan: the region its provider configuration does not show is decided.
    In us-east-1 only the DLQ's account is left: its provider configuration does not show it."""
    _, plan = stack
    doc = _read_at_plan_time(plan, "far", f"arn:aws:sqs:{region}:123456789012:far")
    f = _of(evaluate(doc), "SQS002")["aws_sqs_queue_redrive_policy.far"]
    assert f.status == status, f.message
    if status == "fail":
        assert "far_dlq of the existing queue data.aws_sqs_queue.far is in region us-east-1, not eu-west-1" in f.message
    else:
        assert f.message.startswith("dead-letter queue aws_sqs_queue.far_dlq of the existing queue data.aws_sqs_queue.far:"
                                    " whether they are in the same account and Region is not known: the plan does not "
                                    "show the account of aws_sqs_queue.far_dlq ("), f.message
