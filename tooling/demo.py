"""`make demo`: the module end to end against an embedded LocalStack (no Docker, no AWS account).

Steps (each a function below, so the demo grows by adding steps):

1. start LocalStack (or use the one ``LOCALSTACK_ENDPOINT`` / ``AWS_ENDPOINT_URL`` points at);
2. plan ``examples/basic`` and say in plain words what the module creates;
3. apply it (a copy of the example; takes about a minute: the AWS provider waits
   for every queue's attributes to propagate);
4. send a good message through: received, processed, deleted;
5. send a poison message: the consumer fails it ``maxReceiveCount`` times and
   SQS moves it to the dead-letter queue;
6. redrive it from the DLQ back to its queue with ``StartMessageMoveTask`` (what
   an operator does once the bug is fixed), and process it;
7. destroy everything and stop LocalStack.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import boto3

from tooling import localstack
from tooling.terraform import REPO_ROOT, Terraform, TerraformError, copy_config

EXAMPLE = REPO_ROOT / "examples" / "basic"
QUEUE_KEY = "orders"  # examples/basic's one queue: <name_prefix>-orders


class DemoError(RuntimeError):
    """A step did not see what the module promises."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise DemoError(message)


def say(msg: str = "") -> None:
    print(msg, flush=True)


def step(msg: str) -> None:
    say(f"==> {msg}")


@contextlib.contextmanager
def ticking(what: str, every: float = 15.0) -> Iterator[None]:
    """Print a progress line every ``every`` seconds while a slow step runs."""
    done = threading.Event()
    started = time.monotonic()

    def tick() -> None:
        while not done.wait(every):
            say(f"    ... {what}: {time.monotonic() - started:.0f} s")

    t = threading.Thread(target=tick, daemon=True)
    t.start()
    try:
        yield
    finally:
        done.set()
        t.join()


@dataclass
class Demo:
    ls: localstack.LocalStack
    work: Path
    prefix: str
    tf: Terraform = field(init=False)
    applied: bool = False
    queue: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.tf = Terraform(self.work, variables={"name_prefix": self.prefix, "aws_max_retries": 2}, env=self.ls.env())
        self.sqs = boto3.client(
            "sqs", endpoint_url=self.ls.endpoint, region_name=localstack.REGION,
            aws_access_key_id="test", aws_secret_access_key="test",
        )

    # -- queue helpers ------------------------------------------------------------------------
    def depths(self) -> str:
        def d(url: str) -> str:
            a = self.sqs.get_queue_attributes(
                QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
            )["Attributes"]
            return f"{a['ApproximateNumberOfMessages']} waiting, {a['ApproximateNumberOfMessagesNotVisible']} in flight"

        q = self.queue
        return f"    {q['name']:<34} {d(q['url'])}\n    {q['dlq_name']:<34} {d(q['dlq_url'])}"

    def receive(self, url: str, visibility: int | None = None, wait: int = 5) -> dict | None:
        kwargs = {"VisibilityTimeout": visibility} if visibility is not None else {}
        msgs = self.sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1, WaitTimeSeconds=wait,
                                        AttributeNames=["ApproximateReceiveCount"], **kwargs).get("Messages", [])
        return msgs[0] if msgs else None

    # -- steps ----------------------------------------------------------------------------------
    def plan(self) -> None:
        step(f"terraform init + plan {EXAMPLE.relative_to(REPO_ROOT)} (a copy in {self.work.relative_to(REPO_ROOT)})")
        self.tf.init()
        plan = self.tf.plan_json()
        n = sum(1 for rc in plan["resource_changes"] if "create" in rc["change"]["actions"])
        say(f"\nThe plan creates {n} resources:")
        for line in summarize(plan):
            say("  " + line)
        say()

    def apply(self) -> None:
        step("terraform apply (about a minute: the AWS provider waits ~25 s per queue for SQS to settle)")
        started = time.monotonic()
        self.applied = True
        with ticking("applying"):
            self.tf.apply()
        self.queue = self.tf.outputs()["queues"][f"{self.prefix}-{QUEUE_KEY}"]
        say(f"    applied in {time.monotonic() - started:.0f} s")
        say(self.depths())

    def good_message(self) -> None:
        step("a good message: sent, received by the consumer, processed, deleted")
        self.sqs.send_message(QueueUrl=self.queue["url"], MessageBody=json.dumps({"order": 1, "status": "ok"}))
        msg = self.receive(self.queue["url"])
        check(msg is not None, "the good message was not delivered")
        say(f"    received {msg['Body']} -> processed -> deleted")
        self.sqs.delete_message(QueueUrl=self.queue["url"], ReceiptHandle=msg["ReceiptHandle"])
        say(self.depths())

    def poison_message(self) -> None:
        max_rc = self.queue["max_receive_count"]
        step(f"a poison message: the consumer fails on it every time (maxReceiveCount = {max_rc})")
        body = json.dumps({"order": 2, "status": "malformed"})
        self.sqs.send_message(QueueUrl=self.queue["url"], MessageBody=body)
        for attempt in range(1, max_rc + 1):
            # the consumer crashes before deleting it; a 1 s visibility brings it back quickly for the demo
            msg = self.receive(self.queue["url"], visibility=1, wait=10)
            check(msg is not None, f"poison message not delivered on attempt {attempt}")
            say(f"    receive {attempt}/{max_rc}: {msg['Body']} -> consumer fails, message not deleted")
        msg = self.receive(self.queue["url"], visibility=1, wait=3)
        check(msg is None, "the poison message is still in the source queue")
        say(f"    receive {max_rc + 1}: nothing - after {max_rc} failed receives SQS moved it to the dead-letter queue")
        say(self.depths())

    def redrive(self) -> None:
        step("redrive: after the fix, an operator moves the DLQ's messages back (StartMessageMoveTask)")
        self.sqs.start_message_move_task(SourceArn=self.queue["dlq_arn"])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            task = self.sqs.list_message_move_tasks(SourceArn=self.queue["dlq_arn"], MaxResults=1)["Results"][0]
            if task["Status"] != "RUNNING":
                break
            time.sleep(0.5)
        say(f"    move task {task['Status'].lower()}: {task.get('ApproximateNumberOfMessagesMoved', 0)} message(s) moved")
        msg = self.receive(self.queue["url"])
        check(msg is not None, "the redriven message did not come back")
        self.sqs.delete_message(QueueUrl=self.queue["url"], ReceiptHandle=msg["ReceiptHandle"])
        say(f"    received {msg['Body']} again -> processed by the fixed consumer -> deleted")
        say(self.depths())

    def destroy(self) -> None:
        if not self.applied:
            return
        step("terraform destroy (about half a minute: the provider waits until SQS confirms each deletion)")
        with ticking("destroying"):
            self.tf.destroy()
        self.applied = False
        left = self.sqs.list_queues(QueueNamePrefix=self.prefix).get("QueueUrls", [])
        say(f"    queues named {self.prefix}* left: {len(left)}")


def summarize(plan: dict) -> list[str]:
    """What the plan creates, per queue pair, in plain words."""
    lines = []
    queues = {rc["address"]: rc["change"]["after"] for rc in plan["resource_changes"] if rc["type"] == "aws_sqs_queue"}
    for addr, src in sorted(queues.items()):
        if not addr.endswith(".this"):
            continue
        dlq = queues[addr[: -len("this")] + "dlq"]
        sse = "SSE-KMS " + src["kms_master_key_id"] if src.get("kms_master_key_id") else "SSE-SQS"
        tls = any(
            s["Effect"] == "Deny" and s.get("Condition", {}).get("Bool", {}).get("aws:SecureTransport") == "false"
            for s in json.loads(src["policy"])["Statement"]
        )
        allow = json.loads(dlq["redrive_allow_policy"])
        lines += [
            f"queue {src['name']}",
            f"  visibility timeout   {src['visibility_timeout_seconds']} s",
            f"  retention            {src['message_retention_seconds'] // 86400} days (DLQ: {dlq['message_retention_seconds'] // 86400} days)",
            f"  long polling         {src['receive_wait_time_seconds']} s",
            f"  encryption           {sse}",
            f"  TLS-only policy      {'yes' if tls else 'NO'}",
            f"  dead-letter queue    {dlq['name']} (after maxReceiveCount failed receives)",
            f"  DLQ accepts from     {', '.join(allow['sourceQueueArns'])} ({allow['redrivePermission']})",
        ]
    alarms = sorted(
        rc["change"]["after"]["alarm_name"] for rc in plan["resource_changes"] if rc["type"] == "aws_cloudwatch_metric_alarm"
    )
    if alarms:
        topics = [rc for rc in plan["resource_changes"] if rc["type"] == "aws_sns_topic"]
        target = f"notifying SNS topic {topics[0]['change']['after']['name']} (encrypted)" if topics else "notifying the given topic, if any"
        lines.append(f"alarms ({len(alarms)}), {target}")
        lines += [f"  {name}" for name in alarms]
    return lines


def main() -> int:
    started = time.monotonic()
    step("starting LocalStack (embedded, no Docker; the first run installs it, about a minute)")
    try:
        ext = localstack.external_endpoint()
        ls = localstack.LocalStack(endpoint=ext) if ext else localstack.start(
            users=[os.getpid()], progress=lambda m: say(f"    {m}")
        )
    except localstack.LocalStackError as exc:
        print(f"demo failed: {exc}", file=sys.stderr)
        return 1
    if ext:
        say(f"    using the LocalStack at {ext}")
    work = copy_config(EXAMPLE)
    demo = Demo(ls=ls, work=work, prefix=f"demo-{uuid.uuid4().hex[:6]}")
    failed = False
    try:
        demo.plan()
        demo.apply()
        demo.good_message()
        demo.poison_message()
        demo.redrive()
    except (TerraformError, DemoError, localstack.LocalStackError) as exc:
        print(f"demo failed: {exc}", file=sys.stderr)
        failed = True
    finally:
        try:
            demo.destroy()
        except TerraformError as exc:
            print(f"destroy failed: {exc}", file=sys.stderr)
            failed = True
        shutil.rmtree(work, ignore_errors=True)
        if not ls.external:
            step("stopping LocalStack")
            ls.stop()
    say(f"\n{'demo FAILED' if failed else 'done'} in {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
