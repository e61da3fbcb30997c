"""AWS provider 6.x plans: a resource's own `region` is its Region (cross-Region DLQ and alarm
rules), and a 1 MiB queue (provider >= 6.8.0) is judged like any other.

No 6.x plan can be made here (the mirror has 5.100.0 only): the fixtures are derived by
``tooling/provider6_plans.py`` from real 5.100.0 plans of each configuration's 5.x twin (the
same placement written with provider aliases), by the rules of the provider's 6.x source
(see that module). Both plans are committed; the checker must judge them alike, and each
verdict is stated here.
"""
from __future__ import annotations

import copy

import pytest

from resilient_sqs.policy.engine import evaluate
from tooling import provider6_plans as p6

FAIL, UNK, PASS = "fail", "unknown", "pass"


def _verdicts(doc: dict) -> dict[tuple[str, str], str]:
    report = evaluate(doc)
    return {(f.rule_id, f.address): f.status for f in report.passed + report.findings}


@pytest.fixture(scope="module")
def six() -> dict:
    return p6.load("region")


@pytest.fixture(scope="module")
def twin() -> dict:
    return p6.load("region.twin")


def test_fixtures_are_current():
    assert p6.stale() == []


def test_the_derived_plan_has_the_6x_shape(six, twin):
    """What the derivation changed, and only that: `region` on every regional resource (its
    own, or the provider's), the twin's aliases gone, the 1 MiB value restored."""
    after = {rc["address"]: rc["change"]["after"] for rc in six["resource_changes"] if rc["mode"] == "managed"}
    assert after["aws_sqs_queue.cross_dlq"]["region"] == "eu-west-1"
    assert after["aws_sqs_queue.cross"]["region"] == "us-east-1"
    assert after["aws_cloudwatch_metric_alarm.eu_age"]["region"] == "us-east-1"
    assert after["aws_sqs_queue.big"]["max_message_size"] == 1048576
    cfg = {r["address"]: r for r in six["configuration"]["root_module"]["resources"]}
    assert cfg["aws_sqs_queue.cross_dlq"]["provider_config_key"] == "aws"
    assert cfg["aws_sqs_queue.cross_dlq"]["expressions"]["region"] == {"constant_value": "eu-west-1"}
    assert set(six["configuration"]["provider_config"]) == {"aws"}
    # the twin is the real 5.100.0 plan: no region attribute, aliases, 256 KiB
    twin_after = {rc["address"]: rc["change"]["after"] for rc in twin["resource_changes"] if rc["mode"] == "managed"}
    assert "region" not in twin_after["aws_sqs_queue.cross_dlq"]
    assert twin_after["aws_sqs_queue.big"]["max_message_size"] == 262144
    assert "aws.region_eu_west_1" in twin["configuration"]["provider_config"]


# the verdicts that depend on where each resource is (all others are those of any such stack)
PLACED = {
    ("SQS002", "aws_sqs_queue.cross"): FAIL,  # its DLQ has region = "eu-west-1"
    ("SQS002", "aws_sqs_queue.eu"): PASS,  # both placed in eu-west-1
    ("SQS002", "aws_sqs_queue.here"): PASS,  # its DLQ names the provider's own Region
    ("SQS002", "aws_sqs_queue.eu_literal"): FAIL,  # placed in eu-west-1, its DLQ's ARN is in us-east-1
    ("CW001", "aws_sqs_queue.here_dlq"): FAIL,  # its depth alarm is placed in eu-west-1
    ("CW001", "aws_sqs_queue.eu_dlq"): PASS,  # its depth alarm is placed with it
    ("CW002", "aws_sqs_queue.eu"): FAIL,  # its age alarm is in the provider's Region
}


def test_a_resources_own_region_places_it(six):
    got = _verdicts(six)
    assert {k: got.get(k) for k in PLACED} == PLACED


def test_the_derived_plan_is_judged_as_its_real_twin(six, twin):
    """region = "eu-west-1" on a resource means what a provider configuration of eu-west-1
    means: every verdict of the 6.x plan equals the real 5.100.0 plan's."""
    assert _verdicts(six) == _verdicts(twin)


def test_the_messages_say_where(six):
    report = evaluate(six)
    f = next(f for f in report.findings if (f.rule_id, f.address) == ("SQS002", "aws_sqs_queue.cross"))
    assert "is in region eu-west-1, not us-east-1 (the queue's)" in f.message
    assert "the same region argument" in f.remediation
    f = next(f for f in report.findings if (f.rule_id, f.address) == ("CW001", "aws_sqs_queue.here_dlq"))
    assert "aws_cloudwatch_metric_alarm.here_dlq_depth watches a queue of this name elsewhere" in f.message


def test_a_region_known_only_after_apply_is_not_taken_for_the_providers(six):
    """`region = var.x` with x unknown at plan: the DLQ may be anywhere, so SQS002 is unknown,
    not a pass (the plan edited: no plan here can show an unknown region)."""
    doc = copy.deepcopy(six)
    rc = next(rc for rc in doc["resource_changes"] if rc["address"] == "aws_sqs_queue.here_dlq")
    del rc["change"]["after"]["region"]
    rc["change"]["after_unknown"]["region"] = True
    planned = next(r for r in doc["planned_values"]["root_module"]["resources"] if r["address"] == rc["address"])
    del planned["values"]["region"]  # planned_values leave unknown values out
    cfg = next(r for r in doc["configuration"]["root_module"]["resources"] if r["address"] == "aws_sqs_queue.here_dlq")
    cfg["expressions"]["region"] = {"references": ["aws_sqs_queue.cross_dlq.url", "aws_sqs_queue.cross_dlq"]}
    assert _verdicts(doc)[("SQS002", "aws_sqs_queue.here")] == UNK


def test_a_1_mib_queue_is_judged_like_a_256_kib_one(six):
    got = _verdicts(six)
    big = {r: s for (r, a), s in got.items() if a == "aws_sqs_queue.big"}
    small = {r: s for (r, a), s in got.items() if a == "aws_sqs_queue.small"}
    assert big == small and big
    report = evaluate(six)
    assert not [f for f in report.findings if "max_message_size" in f.message + f.remediation]


# --- the derivation itself ------------------------------------------------------------------

def test_the_twin_places_with_provider_aliases():
    text, placed, lowered = p6.twin(
        'resource "aws_sqs_queue" "q" {\n  region = "eu-west-1"\n  name   = "q"\n  max_message_size = 1048576\n}\n')
    assert "  provider = aws.region_eu_west_1\n" in text and "region =" not in text
    assert "  max_message_size = 262144\n" in text
    assert placed == {"aws_sqs_queue.q": "eu-west-1"}
    assert lowered == {("aws_sqs_queue.q", "max_message_size"): 1048576}
    assert 'alias                       = "region_eu_west_1"' in p6.twin_providers({"eu-west-1"})


@pytest.mark.parametrize("text, why", [
    ('resource "aws_sqs_queue" "q" {\n  provider = aws.west\n}\n', "names a provider configuration"),
    ('resource "aws_iam_role" "r" {\n  region = "eu-west-1"\n}\n', "is not in REGIONAL"),
])
def test_what_the_twin_cannot_write_is_refused(text, why):
    with pytest.raises(p6.DerivationError, match=why):
        p6.twin(text)


def test_an_undeclared_type_is_refused(twin):
    doc = copy.deepcopy(twin)
    doc["resource_changes"][0]["type"] = "aws_s3_bucket"
    with pytest.raises(p6.DerivationError, match="aws_s3_bucket: whether its 6.x schema has a top-level region"):
        p6.derive(doc, {}, {})
