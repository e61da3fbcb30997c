"""Behaviour checks of a team's own stack (sqs-behave, the pytest plugin) on LocalStack.

(Destroy bounds and leftovers: test_behave_destroy.py.)

The same setup written three ways (tests/support/behave_stacks.py) in a directory outside the
repository, each applied ONCE and checked by every scenario, the three stacks on different
workers. Each stack also carries defects, each of which must fail the right scenario naming
its queue, while the healthy pairs beside it pass or skip with a reason:

* raw resources (sqs-behave): no DLQ, an alarm on a mistyped queue name, a redrive-allow policy
  that excludes its source;
* this module by relative path (pytest --sqs-stack, with the team's own test asserting
  maxReceiveCount through the sqs_stack fixture, wrongly);
* terraform-aws-modules/sqs v4.3.1 as a local module (sqs-behave from a fresh venv with
  `pip install "<checkout>[testing]"`): a queue without DLQ.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
import xml.etree.ElementTree as ET

import pytest

from tests.support.behave_stacks import ANCHOR, DEFECTS, write_stack

pytestmark = pytest.mark.localstack

HEALTHY_PASSES = {"poison-to-dlq", "dlq-alarm-fires"}  # what every healthy pair of these stacks must pass


def _env(endpoint: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "LOCALSTACK_ENDPOINT"))}
    return env


def _by_key(results: list[dict], prefix: str) -> dict[tuple[str, str], dict]:
    return {(r["subject"].removeprefix(prefix + "-"), r["scenario"]): r for r in results}


def _check_healthy(results: dict, keys: list[str]) -> None:
    for (key, scenario), r in results.items():
        if key in keys:
            assert r["outcome"] != "failed", f"{scenario}[{key}] failed on a healthy pair: {r['message']}"
            if r["outcome"] == "skipped":
                assert r["message"].strip(), f"{scenario}[{key}] skipped without a reason"
    for key in keys:
        for scenario in HEALTHY_PASSES:
            assert results[(key, scenario)]["outcome"] == "passed", (key, scenario, results[(key, scenario)])


def _check_defects(results: dict, form: str, prefix: str) -> None:
    for (f, key), scenario in DEFECTS.items():
        if f != form:
            continue
        r = results[(key, scenario)]
        assert r["outcome"] == "failed", f"{scenario}[{key}] should fail: {r}"
        assert f"{prefix}-{key}" in r["message"]
        # the defect fails its own scenario; the pair's other scenarios pass or skip
        others = [s for (k, s), o in results.items() if k == key and s != scenario and o["outcome"] == "failed"]
        assert not others, f"{key}: {others} failed too: " + "; ".join(results[(key, s)]["message"] for s in others)


@pytest.mark.xdist_group("behave-raw")
def test_sqs_behave_on_raw_resources_fails_each_defect_naming_its_queue(localstack, tmp_path):
    stack = write_stack("raw", tmp_path, defects=True)
    prefix = f"bh{uuid.uuid4().hex[:6]}"
    junit = tmp_path / "junit.xml"
    proc = subprocess.run(
        [sys.executable, "-m", "resilient_sqs.testing.cli", str(stack), "--endpoint", localstack.endpoint,
         "--var", f"name_prefix={prefix}", "--format", "json", "--junitxml", str(junit)],
        capture_output=True, text=True, cwd=tmp_path, env=_env(localstack.endpoint), timeout=1500)
    assert proc.returncode == 1, proc.stderr[-3000:]
    doc = json.loads(proc.stdout)
    assert doc["leftovers"] == [], doc["leftovers"]
    results = _by_key(doc["results"], prefix)
    _check_healthy(results, ["orders", "payments.fifo"])
    _check_defects(results, "raw", prefix)
    assert results[("orders", "redrive-conserves")]["outcome"] == "passed"
    # the messages say what to change
    assert "aws_sqs_queue.nodlq: redrive_policy" in results[("nodlq", "poison-to-dlq")]["message"]
    assert f"QueueName={prefix}-stray-dql" in results[("stray", "dlq-alarm-fires")]["message"]
    assert "aws_sqs_queue.denied_dlq: redrive_allow_policy" in results[("denied", "redrive-conserves")]["message"]
    # a DLQ alarm that does not tell anyone of the first dead letter fails, naming the alarm and the fix
    loud = results[("loud", "dlq-alarm-fires")]["message"]
    assert f"alarm {prefix}-loud_dlq-depth" in loud and "GreaterThanThreshold 50" in loud and "needs 51 messages" in loud
    assert "set threshold = 0" in loud
    assert "has no alarm_actions" in results[("silent", "dlq-alarm-fires")]["message"]
    assert f"no CloudWatch alarm watches the depth of its DLQ {prefix}-unwatched-dlq" in \
        results[("unwatched", "dlq-alarm-fires")]["message"]
    assert f"{prefix}-unread (actions of {prefix}-unread_dlq-depth) has no subscription besides this check's own" in \
        results[("unread", "dlq-alarm-fires")]["message"]
    # progress while applying, waiting and destroying
    for line in ("terraform apply", "waiting up to", "terraform destroy", "destroyed: nothing left behind"):
        assert line in proc.stderr, line
    # JUnit: one testcase per scenario and queue
    cases = {c.get("name"): c for c in ET.parse(junit).iter("testcase")}
    assert f"poison-to-dlq[{prefix}-nodlq]" in cases and cases[f"poison-to-dlq[{prefix}-nodlq]"].find("failure") is not None
    assert cases[f"poison-to-dlq[{prefix}-orders]"].find("failure") is None


TEAM_TEST = '''
def test_orders_dead_letters_after_four_receives(sqs_stack):
    sqs_stack.pair("orders").expect(max_receive_count=4)


def test_payments_is_fifo_with_a_dlq(sqs_stack):
    pair = sqs_stack.pair("payments.fifo")
    assert pair.queue.fifo and pair.dlq is not None
    attrs = sqs_stack.client("sqs").get_queue_attributes(QueueUrl=pair.queue.url, AttributeNames=["FifoQueue"])
    assert attrs["Attributes"]["FifoQueue"] == "true"
'''


@pytest.mark.xdist_group("behave-module")
def test_pytest_plugin_on_a_stack_sourcing_this_module_by_relative_path(localstack, tmp_path):
    stack = write_stack("module", tmp_path)
    assert 'source = "../' in (stack / "main.tf").read_text()
    team = tmp_path / "team_tests"
    team.mkdir()
    (team / "test_queues.py").write_text(TEAM_TEST)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    prefix = f"bm{uuid.uuid4().hex[:6]}"
    junit = tmp_path / "junit.xml"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", str(team), "--sqs-stack", str(stack),
         f"--sqs-localstack={localstack.endpoint}", f"--sqs-var=name_prefix={prefix}", f"--junitxml={junit}"],
        capture_output=True, text=True, cwd=tmp_path, env=_env(localstack.endpoint), timeout=1500)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (stack / "main.tf").is_file() and not (stack / ".terraform").exists()  # the team's directory untouched
    cases = {c.get("name"): c for c in ET.parse(junit).iter("testcase")}
    # the team's own assertion through the fixture: fails naming the queue and the module setting
    failure = cases["test_orders_dead_letters_after_four_receives"].find("failure")
    assert failure is not None
    assert (f'queue {prefix}-orders: max_receive_count is 5, expected 4 (change queues["{prefix}-orders"].'
            "max_receive_count)") in failure.get("message", "") + (failure.text or "")
    assert cases["test_payments_is_fifo_with_a_dlq"].find("failure") is None
    outcome = {}
    for name, c in cases.items():
        if "[" in name:
            outcome[name] = "failed" if c.find("failure") is not None else "skipped" if c.find("skipped") is not None else "passed"
    assert not [n for n, o in outcome.items() if o == "failed"], [
        (n, cases[n].find("failure").get("message")) for n, o in outcome.items() if o == "failed"]
    for scenario in ("poison-to-dlq", "dlq-alarm-fires", "claim-check-roundtrip"):
        for key in ("orders", "payments.fifo"):
            assert outcome[f"{scenario}[{prefix}-{key}]"] == "passed", (scenario, key)
    assert outcome[f"redrive-conserves[{prefix}-orders]"] == "passed"
    assert outcome[f"idempotency-table[{prefix}-idempotency]"] == "passed"
    assert "destroyed: nothing left behind" in proc.stderr


@pytest.fixture(scope="module")
def testing_venv(tmp_path_factory):
    """A fresh venv with `pip install "<checkout>[testing]"` (what a team's CI does)."""
    from tests.support.packaging import _source_copy

    base = tmp_path_factory.mktemp("testing-install")
    src = _source_copy(base / "src")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "--quiet",
                           f"{src}[testing]"], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"pip install of the checkout's [testing] extra failed:\n{proc.stdout}\n{proc.stderr}"
    return venv


@pytest.mark.install
@pytest.mark.xdist_group("behave-anchor")
@pytest.mark.skipif(not ANCHOR.is_dir(), reason="terraform-aws-modules/sqs v4.3.1 (../shared/anchors) is not on this machine")
def test_sqs_behave_from_a_fresh_testing_install_on_terraform_aws_modules_sqs(localstack, tmp_path, testing_venv):
    stack = write_stack("anchor", tmp_path, defects=True)
    prefix = f"ba{uuid.uuid4().hex[:6]}"
    env = _env(localstack.endpoint)
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        [str(testing_venv / "bin" / "sqs-behave"), str(stack), "--endpoint", localstack.endpoint,
         "--var", f"name_prefix={prefix}", "--format", "json"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=1500)
    assert proc.returncode == 1, proc.stderr[-3000:]
    doc = json.loads(proc.stdout)
    assert doc["leftovers"] == []
    results = _by_key(doc["results"], prefix)
    _check_healthy(results, ["orders", "payments.fifo"])
    _check_defects(results, "anchor", prefix)
    assert results[("orders", "redrive-conserves")]["outcome"] == "passed"
    assert "module.nodlq.aws_sqs_queue.this[0]: redrive_policy" in results[("nodlq", "poison-to-dlq")]["message"]


@pytest.mark.xdist_group("behave-raw")
def test_a_stack_that_does_not_apply_is_exit_2_with_terraforms_error(localstack, tmp_path):
    stack = tmp_path / "broken"
    stack.mkdir()
    (stack / "main.tf").write_text('resource "aws_sqs_queue" "q" {\n  name = "not a valid name!"\n}\n')
    proc = subprocess.run([sys.executable, "-m", "resilient_sqs.testing.cli", str(stack), "--endpoint", localstack.endpoint],
                          capture_output=True, text=True, cwd=tmp_path, env=_env(localstack.endpoint), timeout=600)
    assert proc.returncode == 2, proc.stderr
    assert "sqs-behave: error: terraform plan of" in proc.stderr and "Error: invalid queue name" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


@pytest.mark.xdist_group("behave-interrupt")
def test_ctrl_c_during_apply_destroys_what_was_created(localstack, tmp_path):
    import signal
    import time

    from tests.support.localstack import named_leftovers, session

    stack = write_stack("raw", tmp_path)
    prefix = f"bi{uuid.uuid4().hex[:6]}"
    err = tmp_path / "stderr"
    with open(err, "w") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "resilient_sqs.testing.cli", str(stack), "--endpoint",
                                 localstack.endpoint, "--var", f"name_prefix={prefix}"], stdout=subprocess.PIPE,
                                stderr=fh, text=True, cwd=tmp_path, env=_env(localstack.endpoint), start_new_session=True)
    deadline = time.monotonic() + 300
    while "terraform apply" not in err.read_text() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.5)
    time.sleep(8)  # the provider is creating the queues
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground process group
    out, _ = proc.communicate(timeout=600)
    text = err.read_text()
    assert proc.returncode == 2, text
    assert "terraform destroy" in text and "destroyed: nothing left behind" in text, text
    assert named_leftovers(session(localstack), prefix) == []
