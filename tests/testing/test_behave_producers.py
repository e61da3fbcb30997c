"""Producers, sizes and retention (issue 35 §6, §7) on the real emulator: SNS, EventBridge and S3
deliver to the queues a stack wires them to; a queue policy that would refuse the producer on AWS
fails naming it; max_message_size holds; a retention shorter than the retries loses the message."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest

from tests.support.behave_stacks import write_stack

pytestmark = pytest.mark.localstack


@pytest.mark.xdist_group("behave-producers")
def test_producers_sizes_and_retention(localstack, tmp_path):
    stack = write_stack("producers", tmp_path)
    prefix = f"bq{uuid.uuid4().hex[:6]}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "LOCALSTACK_ENDPOINT"))}
    proc = subprocess.run(
        [sys.executable, "-m", "resilient_sqs.testing.cli", str(stack), "--endpoint", localstack.endpoint,
         "--var", f"name_prefix={prefix}", "--format", "json", "-k", "deliver or sizes or retention or poison"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=1800)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    doc = json.loads(proc.stdout)
    r = {(x["scenario"], x["subject"].removeprefix(prefix + "-")): x for x in doc["results"]}
    for key, how in (("fanout", "sns"), ("events", "events"), ("uploads", f"S3 {prefix}-uploads")):
        got = r[("producers-deliver", key)]
        assert got["outcome"] == "passed" and how in got["message"], got
    unallowed = r[("producers-deliver", "unallowed")]
    assert unallowed["outcome"] == "failed", unallowed
    assert "the queue has no policy: sns.amazonaws.com may not send to it" in unallowed["message"]
    assert "aws_sqs_queue.unallowed: policy" in unallowed["message"]
    # sizes: exactly max_message_size goes through
    assert r[("message-sizes", "small")]["outcome"] == "passed" and "2048 bytes" in r[("message-sizes", "small")]["message"]
    # retention: 3 x 30 s visibility > 60 s retention: failed, replayed on a scaled copy
    short = r[("retention-outlasts-retries", "shortlived")]
    assert short["outcome"] == "failed" and "= 90 s to reach DLQ" in short["message"], short
    assert "was deleted after" in short["message"], short  # the embedded/served LocalStack enforces retention
    assert r[("retention-outlasts-retries", "fanout")]["outcome"] == "passed"
    failed = sorted(k for k, x in r.items() if x["outcome"] == "failed")
    assert failed == [("producers-deliver", "unallowed"), ("retention-outlasts-retries", "shortlived")], \
        [(k, r[k]["message"]) for k in failed]
    # -k selected the scenarios: no alarm check ran
    assert not [k for k in r if k[0] == "dlq-alarm-fires"]
    assert doc["leftovers"] == []
