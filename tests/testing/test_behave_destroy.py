"""Every sqs-behave run ends, and what it leaves behind is named with a command that removes it
(issue 35 §1, §2, §3): real Terraform, the real AWS provider, the session's LocalStack."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
import xml.etree.ElementTree as ET

import pytest

from tests.support.localstack import session
from tests.support.behave_stacks import PROVIDER, _raw_pair, write_stack

pytestmark = pytest.mark.localstack


def _env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "LOCALSTACK_ENDPOINT"))}


def _behave(stack, endpoint: str, prefix: str, *extra: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "resilient_sqs.testing.cli", str(stack), "--endpoint", endpoint,
         "--var", f"name_prefix={prefix}", "--format", "json", *extra],
        capture_output=True, text=True, cwd=cwd, env=_env(), timeout=1800)


@pytest.mark.xdist_group("behave-destroy")
def test_a_stack_with_every_attribute_resource_is_destroyed_within_the_bound(localstack, tmp_path):
    """aws_sqs_queue_redrive_allow_policy's delete waits 20 minutes on LocalStack 4.9.2 (the cleared
    attribute reads back as ""): with a 240 s bound the destroy was stopped and the run left the
    queues behind; the attribute resources are now dropped from the state (their queues' delete
    removes them) and the destroy finishes."""
    stack = write_stack("attributes", tmp_path)
    prefix = f"bd{uuid.uuid4().hex[:6]}"
    junit = tmp_path / "junit.xml"
    proc = _behave(stack, localstack.endpoint, prefix, "--destroy-timeout", "240", "--junitxml", str(junit),
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    doc = json.loads(proc.stdout)
    assert doc["status"] == "passed" and doc["leftovers"] == [] and doc["destroy"]["outcome"] == "passed", doc
    removed = re.search(r"removing 3 attribute resource\(s\) from the state before destroy; deleting their queue "
                        r"deletes them: (.*)", proc.stderr)
    assert removed and sorted(removed.group(1).split(", ")) == [
        "aws_sqs_queue_policy.orders", "aws_sqs_queue_redrive_allow_policy.orders_dlq",
        "aws_sqs_queue_redrive_policy.late"], proc.stderr
    assert "destroyed: nothing left behind" in proc.stderr
    sqs = session(localstack).client("sqs")
    assert sqs.list_queues(QueueNamePrefix=prefix).get("QueueUrls", []) == []
    # the redrive policy set by its own resource is discovered: the late queue's poison message reaches its DLQ
    results = {(r["scenario"], r["subject"]): r for r in doc["results"]}
    assert results[("poison-to-dlq", f"{prefix}-late")]["outcome"] == "passed"
    # JUnit: the destroy is a test case of its own; each scenario carries its own time
    cases = {c.get("name"): c for c in ET.parse(junit).iter("testcase")}
    assert cases["destroy[attributes]"].find("failure") is None
    times = {n: float(c.get("time")) for n, c in cases.items() if n.startswith("poison-to-dlq[")}
    assert max(times.values()) < doc["timings"]["scenarios"], (times, doc["timings"])


PROTECTED = '''
resource "aws_dynamodb_table" "idempotency" {
  name                        = "${var.name_prefix}-idempotency"
  billing_mode                = "PAY_PER_REQUEST"
  hash_key                    = "id"
  deletion_protection_enabled = true

  attribute {
    name = "id"
    type = "S"
  }

  ttl {
    attribute_name = "expiration"
    enabled        = true
  }
}
'''


@pytest.mark.xdist_group("behave-destroy")
def test_a_table_destroy_cannot_delete_is_left_behind_by_name_exit_3_and_the_remedy_works(localstack, tmp_path):
    stack = tmp_path / "protected"
    stack.mkdir()
    (stack / "main.tf").write_text(PROVIDER + _raw_pair("orders") + PROTECTED)
    prefix = f"bp{uuid.uuid4().hex[:6]}"
    junit = tmp_path / "junit.xml"
    proc = _behave(stack, localstack.endpoint, prefix, "--junitxml", str(junit), cwd=tmp_path)
    assert proc.returncode == 3, proc.stdout[-3000:] + proc.stderr[-3000:]
    doc = json.loads(proc.stdout)
    assert doc["status"] == "left-behind" and doc["destroy"]["outcome"] == "failed"
    assert f"aws_dynamodb_table.idempotency ({prefix}-idempotency)" in doc["leftovers"], doc["leftovers"]
    assert f"--table-name {prefix}-idempotency --no-deletion-protection-enabled" in doc["remedy"]
    failure = {c.get("name"): c for c in ET.parse(junit).iter("testcase")}["destroy[protected]"].find("failure")
    assert failure is not None and f"{prefix}-idempotency" in (failure.get("message") or "") + (failure.text or "")
    # the table: a scenario showed it works; destroy could not delete it
    assert any(r["scenario"] == "idempotency-table" and r["outcome"] == "passed" for r in doc["results"])
    # follow the remedy: deletion protection off (as its aws command says), then its destroy command
    ddb = session(localstack).client("dynamodb")
    ddb.update_table(TableName=f"{prefix}-idempotency", DeletionProtectionEnabled=False)
    command = re.search(r"remove what is left with `([^`]+)`", doc["remedy"]).group(1)
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=_env(), timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"{prefix}-idempotency" not in ddb.list_tables()["TableNames"]


@pytest.mark.xdist_group("behave-interrupt")
def test_sigterm_during_the_scenarios_stops_everything_the_run_started(tmp_path):
    """A cancelled CI job (SIGTERM to sqs-behave --embedded while scenarios run): the run stops without
    waiting for its scenarios, says INTERRUPTED with what finished, and leaves no emulator running."""
    import signal
    import time

    from resilient_sqs.testing import processes
    from tooling.localstack import SETTINGS

    stack = write_stack("raw", tmp_path)
    state = tmp_path / "state"
    env = {**_env(), "LOCALSTACK_VENV": str(SETTINGS.venv), "LOCALSTACK_STATE_DIR": str(state)}
    err = tmp_path / "stderr"
    with open(err, "w") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "resilient_sqs.testing.cli", str(stack), "--embedded",
                                 "--var", f"name_prefix=bt{uuid.uuid4().hex[:6]}"], stdout=subprocess.PIPE, stderr=fh,
                                text=True, cwd=tmp_path, env=env)
    deadline = time.monotonic() + 1200
    while not ("waiting up to" in err.read_text() and "message-sizes[" in err.read_text()) \
            and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.5)  # the alarm checks wait for their alarms (up to 210 s); message-sizes has finished
    instances = [d for d in state.iterdir() if d.is_dir() and (d / "state.json").exists()]
    assert instances, err.read_text()
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=300)
    stopped_in = time.monotonic() - t0
    text = err.read_text()
    assert proc.returncode == 2, text[-3000:]
    assert "INTERRUPTED:" in out and "message-sizes" in out, out  # what finished is reported
    assert stopped_in < 120, f"took {stopped_in:.0f} s after SIGTERM (the alarm waits are up to 210 s)"
    for inst in instances:
        assert not inst.exists() and processes.processes_mentioning(str(inst)) == [], inst
