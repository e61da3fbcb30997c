"""Consumer stacks on ministack (issue 35 §5): Lambda functions (Python, from a local zip) consuming
queues through event source mappings apply and run there without Docker, so
``visibility-covers-consumer`` is shown on a real apply: it passes on this module's same-stack
consumer (visibility 6 x the function's timeout) and fails, naming the setting, on raw resources
whose visibility timeout is below their function's timeout (tests/support/behave_stacks.py,
``consumers``; one stack, one apply, one ministack).

The functions are live: while the scenarios run the stack's event source mappings are paused, or
the functions would take the test messages. The run is ``--keep`` on a ministack this test starts
(the instance ``--embedded ministack`` starts, by the same launcher, stops with its run), so the
mappings are read after the run: enabled again, none of the test messages processed by a function,
and a message sent afterwards consumed by the function.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from resilient_sqs.testing import ministack
from resilient_sqs.testing.aws import Clients, depth
from tests.support.behave_stacks import CONSUMER_TIMEOUT, write_stack

pytestmark = [pytest.mark.localstack, pytest.mark.xdist_group("behave-ministack")]


@pytest.fixture(scope="module")
def ministack_endpoint():
    try:
        ms = ministack.start(users=[os.getpid()])
    except ministack.MiniStackError as exc:
        pytest.fail(f"ministack could not be started: {exc}", pytrace=False)
    yield ms.endpoint
    ms.stop()


def test_visibility_covers_consumer_on_live_functions(ministack_endpoint, tmp_path, request):
    stack = write_stack("consumers", tmp_path)
    prefix = f"bc{uuid.uuid4().hex[:6]}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "LOCALSTACK_ENDPOINT"))}
    proc = subprocess.run(
        [sys.executable, "-m", "resilient_sqs.testing.cli", str(stack), "--endpoint", ministack_endpoint, "--keep",
         "--var", f"name_prefix={prefix}", "--format", "json", "-k", "visibility or poison"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=1500)
    kept = re.search(r"destroy it with `cd (\S+) && ", proc.stderr)
    if kept:  # the kept copy's state goes with this test's ministack: remove the copy too
        request.addfinalizer(lambda: shutil.rmtree(Path(kept.group(1)).parent, ignore_errors=True))
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    doc = json.loads(proc.stdout)
    r = {(x["scenario"], x["subject"].removeprefix(prefix + "-")): x for x in doc["results"]}
    assert set(r) == {(s, q) for s in ("visibility-covers-consumer", "poison-to-dlq") for q in ("orders", "late")}, r

    good = r[("visibility-covers-consumer", "orders")]
    assert good["outcome"] == "passed", good
    assert (f"stayed hidden for the consumer's timeout ({CONSUMER_TIMEOUT} s, function {prefix}-orders-consumer); "
            f"visibility timeout {6 * CONSUMER_TIMEOUT} s") in good["message"]
    bad = r[("visibility-covers-consumer", "late")]
    assert bad["outcome"] == "failed", bad
    assert f"function {prefix}-late-consumer, timeout {CONSUMER_TIMEOUT} s) reappeared after" in bad["message"], bad
    assert "the queue's visibility timeout is 5 s" in bad["message"], bad
    assert "Change: aws_sqs_queue.late: visibility_timeout_seconds." in bad["message"], bad
    # a live consumer would have taken the poison message: the paused mappings left it to the check
    for key in ("orders", "late"):
        assert r[("poison-to-dlq", key)]["outcome"] == "passed", r[("poison-to-dlq", key)]

    clients = Clients(ministack_endpoint)
    lam, sqs = clients.client("lambda"), clients.client("sqs")
    arns = {sqs.get_queue_attributes(QueueUrl=sqs.get_queue_url(QueueName=f"{prefix}-{key}")["QueueUrl"],
                                     AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]: key
            for key in ("orders", "late")}
    mappings = {arns[m["EventSourceArn"]]: m for m in lam.list_event_source_mappings()["EventSourceMappings"]
                if m["EventSourceArn"] in arns}
    assert set(mappings) == {"orders", "late"}, mappings
    for key, m in mappings.items():
        assert m["State"] == "Enabled", f"{key}: the mapping paused for the run is {m['State']} after it"
        assert m["LastProcessingResult"] == "No records processed", \
            f"{key}: the function consumed a message during or after the run: {m['LastProcessingResult']}"
    # the consumer is live again: a message sent now is taken by the function
    url = sqs.get_queue_url(QueueName=f"{prefix}-orders")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody=json.dumps({"order_id": "after-the-run"}))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
            lam.get_event_source_mapping(UUID=mappings["orders"]["UUID"])["LastProcessingResult"].startswith("OK")
            and depth(sqs, url) == (0, 0)):
        time.sleep(1)
    after = lam.get_event_source_mapping(UUID=mappings["orders"]["UUID"])
    assert after["LastProcessingResult"] == "OK - 1 records" and depth(sqs, url) == (0, 0), (after, depth(sqs, url))
