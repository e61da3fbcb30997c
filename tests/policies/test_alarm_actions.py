"""CW001/CW002 on alarms that notify nobody (issue #23): an alarm with no ``alarm_actions``
whose ``actions_enabled`` is not false pages nobody when it fires, so the rule warns, by
default. The configuration says silence is intended in two ways: ``actions_enabled = false``
on the alarm (the module's alarms with ``alarms.create_sns_topic = false``), or the rule
option ``require_actions: false`` (paging wired outside the stack). ``ok_actions`` and
``insufficient_data_actions`` do not count: they never run when the alarm fires.

A real offline plan of a flat stack: one alarm per way of (not) notifying.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from resilient_sqs.policy.config import Config
from resilient_sqs.policy.engine import evaluate
from tests.support import plan_cache
from tests.support.helpers import OFFLINE_PROVIDER

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("alarm-actions")]

ONCALL = "arn:aws:sns:us-east-1:123456789012:oncall"
SCALE_OUT = ("arn:aws:autoscaling:us-east-1:123456789012:scalingPolicy:1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d:"
             "autoScalingGroupName/workers:policyName/scale-out")
EC2_STOP = "arn:aws:automate:us-east-1:ec2:stop"
EC2_REBOOT = "arn:aws:swf:us-east-1:123456789012:action/actions/AWS_EC2.InstanceId.Reboot/1.0"
OPSITEM = "arn:aws:ssm:us-east-1:123456789012:opsitem:2#CATEGORY=Availability"
INCIDENT = "arn:aws:ssm-incidents::123456789012:response-plan/oncall"

# how each source queue's age alarm notifies (the HCL lines inside the alarm block)
AGE_ALARMS = {
    "paged": f'alarm_actions = ["{ONCALL}"]',
    "new-topic": "alarm_actions = [aws_sns_topic.oncall.arn]",
    # the module's own pattern: Terraform cannot tell the list from null before the topic exists
    "late-list": "alarm_actions = aws_sns_topic.oncall.arn == null ? null : [aws_sns_topic.oncall.arn]",
    "silent": "",
    "dashboard": "actions_enabled = false",
    "ok-only": f'ok_actions = ["{ONCALL}"]\n  insufficient_data_actions = ["{ONCALL}"]',
    "late-switch": 'actions_enabled = aws_sns_topic.oncall.arn != ""',
    # actions that act on resources and page no one (PutMetricAlarm's AlarmActions)
    "scaling": f'alarm_actions = ["{SCALE_OUT}"]',
    "ec2": f'alarm_actions = ["{EC2_STOP}", "{EC2_REBOOT}"]',
    # actions that reach a person: Systems Manager OpsItems and Incident Manager response plans
    "opsitem": f'alarm_actions = ["{OPSITEM}"]',
    "incident": f'alarm_actions = ["{SCALE_OUT}", "{INCIDENT}"]',
}


def _stack() -> str:
    out = [OFFLINE_PROVIDER, 'resource "aws_sns_topic" "oncall" {\n  name = "oncall"\n}\n']
    for key, notify in AGE_ALARMS.items():
        out.append(f'''
resource "aws_sqs_queue" "{key.replace("-", "_")}" {{
  name = "{key}"
}}

resource "aws_cloudwatch_metric_alarm" "{key.replace("-", "_")}_age" {{
  alarm_name          = "{key}-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = {{ QueueName = aws_sqs_queue.{key.replace("-", "_")}.name }}
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 600
  {notify}
}}
''')
    # a DLQ whose depth alarm pages nobody: CW001 judges it the same way
    out.append('''
resource "aws_sqs_queue" "jobs_dlq" {
  name = "jobs-dlq"
}

resource "aws_sqs_queue" "jobs" {
  name = "jobs"
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.jobs_dlq.arn
    maxReceiveCount     = 4
  })
}

resource "aws_cloudwatch_metric_alarm" "jobs_dlq_depth" {
  alarm_name          = "jobs-dlq-depth"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = aws_sqs_queue.jobs_dlq.name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
}

resource "aws_cloudwatch_metric_alarm" "jobs_age" {
  alarm_name          = "jobs-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = aws_sqs_queue.jobs.name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 600
  alarm_actions       = [aws_sns_topic.oncall.arn]
}
''')
    return "\n".join(out)


@pytest.fixture(scope="module")
def plan():
    work = Path(tempfile.mkdtemp(prefix="alarm-actions-"))
    try:
        (work / "main.tf").write_text(_stack())
        yield plan_cache.load(work, offline=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _by_queue(report, rule: str) -> dict:
    return {f.address.split(".", 1)[1]: f for f in report.passed + report.findings if f.rule_id == rule}


def test_the_plan_shows_what_the_rules_decide_on(plan):
    after = {rc["address"]: rc["change"] for rc in plan["resource_changes"]}
    late = after["aws_cloudwatch_metric_alarm.late_list_age"]
    assert late["after_unknown"].get("alarm_actions") is True  # the whole list, not only its element
    switch = after["aws_cloudwatch_metric_alarm.late_switch_age"]
    assert switch["after_unknown"].get("actions_enabled") is True


def test_an_alarm_without_alarm_actions_warns_by_default(plan):
    cw002 = _by_queue(evaluate(plan), "CW002")
    silent = cw002["silent"]
    assert (silent.status, silent.severity) == ("fail", "warning")
    assert silent.message == ("age alarm aws_cloudwatch_metric_alarm.silent_age notifies nobody: it has no "
                              "alarm_actions, so when it fires nobody is paged")
    assert "alarms.sns_topic_arn" in silent.remediation and "actions_enabled = false" in silent.remediation
    assert "require_actions: false" in silent.remediation
    # OK and INSUFFICIENT_DATA actions never run when the alarm fires
    ok_only = cw002["ok_only"]
    assert (ok_only.status, ok_only.severity) == ("fail", "warning")
    assert "notifies nobody: it has no alarm_actions (its ok_actions and insufficient_data_actions run only " \
           "when it recovers or lacks data)" in ok_only.message
    # the same for a DLQ's depth alarm
    cw001 = _by_queue(evaluate(plan), "CW001")
    assert cw001["jobs_dlq"].status == "fail" and "jobs_dlq_depth notifies nobody" in cw001["jobs_dlq"].message


def test_alarms_that_notify_or_are_silent_on_purpose_pass(plan):
    cw002 = _by_queue(evaluate(plan), "CW002")
    assert {k: f.status for k, f in cw002.items()} == {
        "paged": "pass", "new_topic": "pass", "late_list": "pass", "dashboard": "pass", "jobs": "pass",
        "silent": "fail", "ok_only": "fail", "late_switch": "unknown",
        "scaling": "fail", "ec2": "fail", "opsitem": "pass", "incident": "pass"}
    assert cw002["paged"].message == "age alarm aws_cloudwatch_metric_alarm.paged_age"
    assert cw002["late_list"].message.endswith("(its alarm_actions are known after apply)")
    assert cw002["dashboard"].message.endswith("(actions_enabled = false: it notifies nobody, on purpose)")


def test_actions_enabled_known_only_after_apply_is_unknown(plan):
    f = _by_queue(evaluate(plan), "CW002")["late_switch"]
    assert f.status == "unknown"
    assert "has no alarm_actions, so it notifies nobody, and its actions_enabled is only known after apply" in f.message


def test_require_actions_false_is_the_opt_out(plan):
    config = Config(options={"CW001": {"require_actions": False}, "CW002": {"require_actions": False}})
    report = evaluate(plan, config)
    assert [f for f in report.findings if f.rule_id in ("CW001", "CW002")] == []
    cw002 = _by_queue(report, "CW002")
    assert cw002["silent"].message.endswith("(whether it notifies anyone is not checked: require_actions is false)")
    # set on one rule, it is that rule's: CW001 still warns
    only_cw002 = evaluate(plan, Config(options={"CW002": {"require_actions": False}}))
    assert _by_queue(only_cw002, "CW001")["jobs_dlq"].status == "fail"


def test_a_stack_that_owns_its_alarms_makes_it_an_error(plan):
    report = evaluate(plan, Config(severity={"CW002": "error"}))
    silent = _by_queue(report, "CW002")["silent"]
    assert (silent.status, silent.severity) == ("fail", "error")


def test_an_alarm_whose_actions_only_scale_or_act_on_ec2_notifies_nobody(plan):
    """Auto Scaling policies and EC2 actions (stop, terminate, reboot, recover) run when the
    alarm fires but page no one: the warning names what they do instead; with an SNS topic,
    an OpsItem or an Incident Manager response plan among them, the alarm notifies someone."""
    cw002 = _by_queue(evaluate(plan), "CW002")
    scaling, ec2 = cw002["scaling"], cw002["ec2"]
    assert (scaling.status, scaling.severity) == ("fail", "warning")
    assert scaling.message == ("age alarm aws_cloudwatch_metric_alarm.scaling_age notifies nobody: its alarm_actions "
                               f"only run an Auto Scaling policy (they scale a group or target) ({SCALE_OUT}), so "
                               "when it fires nobody is paged")
    assert "alarms.sns_topic_arn" in scaling.remediation and "require_actions: false" in scaling.remediation
    assert (ec2.status, ec2.severity) == ("fail", "warning")
    # alarm_actions is a set: the plan lists it sorted
    assert ec2.message == ("age alarm aws_cloudwatch_metric_alarm.ec2_age notifies nobody: its alarm_actions only "
                           f"stop an EC2 instance and reboot an EC2 instance ({EC2_STOP}, {EC2_REBOOT}), so when it "
                           "fires nobody is paged")
    assert cw002["opsitem"].message == "age alarm aws_cloudwatch_metric_alarm.opsitem_age"
    assert cw002["incident"].message == "age alarm aws_cloudwatch_metric_alarm.incident_age"
    # the opt-out covers them as any alarm that notifies nobody
    config = Config(options={"CW002": {"require_actions": False}})
    assert _by_queue(evaluate(plan, config), "CW002")["scaling"].status == "pass"
