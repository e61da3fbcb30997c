"""Every example applies against LocalStack, re-plans clean, and destroys without leftovers.

New example directories are picked up automatically. The applied copy is the
one the behaviour tests of the same example use (see conftest.py); the destroy
test runs last.
"""
from __future__ import annotations

import pytest

from tests.helpers import example_dirs
from tests.localstack.conftest import example_group
from tests.localstack.support import leftovers, pending_changes, state_resources

pytestmark = pytest.mark.localstack

EXAMPLES = [pytest.param(d.name, id=d.name, marks=example_group(d.name)) for d in example_dirs()]


@pytest.mark.parametrize("example", EXAMPLES)
def test_apply_then_replan_is_empty(example, applied):
    ex = applied(example)
    assert ex.outputs, f"examples/{example}: applied but produced no outputs"
    changes = pending_changes(ex.replan())
    assert not changes, f"examples/{example}: the plan right after apply is not empty (drift):\n" + "\n".join(changes)


@pytest.mark.parametrize("example", EXAMPLES)
def test_destroy_leaves_nothing_behind(example, applied, aws):
    ex = applied(example)
    created = state_resources(ex.state())
    assert created, f"examples/{example}: nothing in state after apply"
    ex.destroy()

    assert state_resources(ex.state()) == [], f"examples/{example}: resources left in state after destroy"
    left = leftovers(aws, created)
    assert not left, f"examples/{example}: still in LocalStack after destroy:\n" + "\n".join(left)
    queues = aws.client("sqs").list_queues(QueueNamePrefix=ex.name_prefix).get("QueueUrls", [])
    assert queues == [], f"examples/{example}: queues named {ex.name_prefix}* remain: {queues}"
