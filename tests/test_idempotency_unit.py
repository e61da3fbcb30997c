"""resilient_sqs.idempotency: bad configuration is refused with a message naming the input.

Its behaviour against DynamoDB is tested on the applied examples/complete
(tests/localstack/test_complete_behaviour.py).
"""
from __future__ import annotations

import pytest

from resilient_sqs.idempotency import IdempotencyStore, body_key

pytestmark = pytest.mark.static


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"table_name": ""}, "table_name"),
        ({"table_name": "t", "expires_after_seconds": 0}, "expires_after_seconds: 0"),
        ({"table_name": "t", "in_progress_seconds": 0}, "in_progress_seconds: 0"),
    ],
)
def test_bad_settings_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        IdempotencyStore(**kwargs)


def test_default_key_is_the_body_hash():
    a = body_key({"body": '{"id": 1}', "messageId": "m1"})
    assert a == body_key({"body": '{"id": 1}', "messageId": "m2"})  # a duplicate send has another message id
    assert a != body_key({"body": '{"id": 2}', "messageId": "m1"})
    assert len(a) == 64
