"""Every example applies against LocalStack, re-plans clean, and destroys without leftovers.

New example directories are picked up automatically. The applied copy is the
one the behaviour tests of the same example use (fixture `applied`, tests/support/localstack_fixtures.py); the destroy
test runs last.

"Empty" as Terraform means it (``plan -detailed-exitcode`` = 0): no resource or output
change. One LocalStack defect is tolerated, and only while the running LocalStack has it
(probed: ``known_differences``): LocalStack 4.9.2 drops the Tags of PutMetricAlarm, so the
first plan after apply re-tags every alarm. Exactly that is allowed: an update of an
``aws_cloudwatch_metric_alarm`` whose only changes are ``tags``/``tags_all`` from empty to
the configured tags. Any other change fails the test.
"""
from __future__ import annotations

import warnings

import pytest

from tests.support.helpers import example_dirs
from tests.support.localstack import example_group
from tests.support.localstack import leftovers, live_named_keys, named_leftovers, pending_changes, state_resources, tolerated_changes

pytestmark = pytest.mark.localstack

EXAMPLES = [pytest.param(d.name, id=d.name, marks=example_group(d.name)) for d in example_dirs()]


@pytest.mark.parametrize("example", EXAMPLES)
def test_apply_then_replan_is_empty(example, applied, known_differences, record_property):
    ex = applied(example)
    assert ex.outputs, f"examples/{example}: applied but produced no outputs"
    record_property("apply_seconds", round(ex.apply_seconds or 0, 1))
    plan = ex.replan()
    changes = pending_changes(plan, known_differences)
    assert not changes, f"examples/{example}: the plan right after apply is not empty (drift):\n" + "\n".join(changes)
    record_property("tolerated", len(tolerated_changes(plan, known_differences)))


@pytest.mark.parametrize("example", EXAMPLES)
def test_destroy_leaves_nothing_behind(example, applied, aws):
    ex = applied(example)
    created = state_resources(ex.state())
    assert created, f"examples/{example}: nothing in state after apply"
    # CreateKey is not idempotent: when a create call is retried (a slow or failed response
    # under load) the provider records one key and the other is orphaned during the APPLY,
    # outside the state destroy works from. Such keys are reported, scheduled for deletion,
    # and not held against destroy; everything that was in state, and every other resource
    # named after the example, must be gone.
    in_state = {(r.get("values") or {}).get("key_id") for r in created if r["type"] == "aws_kms_key"}
    orphaned = {k: d for k, d in live_named_keys(aws, ex.name_prefix).items() if k not in in_state}
    for key_id, description in orphaned.items():
        warnings.warn(f"examples/{example}: KMS key {key_id} ({description}) was created during apply but is "
                      "not in Terraform's state (a retried CreateKey); scheduling its deletion", stacklevel=2)
        aws.client("kms").schedule_key_deletion(KeyId=key_id, PendingWindowInDays=7)
    ex.destroy()

    assert state_resources(ex.state()) == [], f"examples/{example}: resources left in state after destroy"
    left = leftovers(aws, created)
    assert not left, f"examples/{example}: still in LocalStack after destroy:\n" + "\n".join(left)
    named = named_leftovers(aws, ex.name_prefix)
    assert named == [], f"examples/{example}: resources named after {ex.name_prefix} remain:\n" + "\n".join(named)
