"""`make demo`: examples/complete end to end against an embedded LocalStack (no Docker, no AWS account).

Steps (each a method of :class:`Demo`, so the demo grows by adding steps):

1. start LocalStack (or use the one ``LOCALSTACK_ENDPOINT`` / ``AWS_ENDPOINT_URL`` points at);
2. plan ``examples/complete`` and say in plain words what the module creates;
3. run the plan policy check (``python -m resilient_sqs.policy check``) on that plan;
4. apply it (a copy of the example; about two minutes: the AWS provider waits for
   every queue's attributes and the bucket's lifecycle rule to settle);
5. a poison message: the consumer fails it ``maxReceiveCount`` times and SQS moves it
   to the dead-letter queue;
6. a 2 MiB payload through the claim-check bucket with the AWS SQS extended client
   (its pointer format, keys under the payload prefix), its SHA-256 checked on the
   consumer side;
7. the same message delivered twice to a Powertools idempotent consumer: one side effect;
8. the DLQ depth alarm fires on the poison message and notifies its SNS topic;
9. the queues, DLQ depths and alarm states; then destroy everything and stop LocalStack.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import boto3

from resilient_sqs.testing.stack import ticking as _ticking
from tooling import localstack
from tooling.example_settings import example_variables
from tooling.terraform import REPO_ROOT, Terraform, TerraformError, copy_config

EXAMPLE = REPO_ROOT / "examples" / "complete"
POINTER_CLASS = "software.amazon.payloadoffloading.PayloadS3Pointer"
PAYLOAD_BYTES = 2 * 1024 * 1024
ALARM_WAIT_SECONDS = 180


class DemoError(RuntimeError):
    """A step did not see what the module promises."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise DemoError(message)


def say(msg: str = "") -> None:
    print(msg, flush=True)


def step(msg: str) -> None:
    say(f"\n==> {msg}")


def ticking(what: str, every: float = 15.0):
    """Print a progress line every ``every`` seconds while a slow step runs (the shipped harness's ticker)."""
    return _ticking(lambda line: say(f"    {line}"), what, every)


@dataclass
class Demo:
    ls: localstack.LocalStack
    work: Path
    prefix: str
    tf: Terraform = field(init=False)
    applied: bool = False
    out: dict = field(default_factory=dict)
    inbox: str | None = None
    digest: str = ""

    def __post_init__(self) -> None:
        # a few retries: an embedded LocalStack under load may drop a connection
        # (seen: GetKeyPolicy "use of closed network connection" while the suite ran)
        variables = {**example_variables(EXAMPLE), "name_prefix": self.prefix, "aws_max_retries": 5}
        self.tf = Terraform(self.work, variables=variables, env=self.ls.env())
        kw = dict(endpoint_url=self.ls.endpoint, region_name=localstack.REGION,
                  aws_access_key_id="test", aws_secret_access_key="test")
        self.client_kwargs = kw
        self.sqs, self.s3, self.ddb = boto3.client("sqs", **kw), boto3.client("s3", **kw), boto3.client("dynamodb", **kw)
        self.sns, self.cw = boto3.client("sns", **kw), boto3.client("cloudwatch", **kw)

    # -- helpers --------------------------------------------------------------------------------
    def pair(self, key: str) -> dict:
        return self.out["queues"][f"{self.prefix}-{key}"]

    def depth(self, url: str) -> tuple[int, int]:
        a = self.sqs.get_queue_attributes(
            QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
        )["Attributes"]
        return int(a["ApproximateNumberOfMessages"]), int(a["ApproximateNumberOfMessagesNotVisible"])

    def receive(self, url: str, visibility: int | None = None, wait: int = 5) -> dict | None:
        kwargs = {"VisibilityTimeout": visibility} if visibility is not None else {}
        msgs = self.sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1, WaitTimeSeconds=wait,
                                        AttributeNames=["All"], MessageAttributeNames=["All"], **kwargs).get("Messages", [])
        return msgs[0] if msgs else None

    # -- steps ----------------------------------------------------------------------------------
    def plan(self) -> Path:
        step(f"terraform init + plan {EXAMPLE.relative_to(REPO_ROOT)} (a copy in {self.work.relative_to(REPO_ROOT)})")
        say("    LocalStack settings: " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in example_variables(EXAMPLE).items()))
        self.tf.init()
        plan = self.tf.plan_json()
        path = self.work / "plan.json"
        path.write_text(json.dumps(plan))
        n = sum(1 for rc in plan["resource_changes"] if "create" in rc["change"]["actions"])
        say(f"\nThe plan creates {n} resources:")
        for line in summarize(plan):
            say("  " + line)
        return path

    def policy_check(self, plan_json: Path) -> None:
        step("plan policy check: python -m resilient_sqs.policy check plan.json (what CI runs before merge)")
        proc = subprocess.run([sys.executable, "-m", "resilient_sqs.policy", "check", str(plan_json)],
                              capture_output=True, text=True, cwd=REPO_ROOT)
        lines = proc.stdout.rstrip().splitlines()
        for line in lines[-12:] if len(lines) > 12 else lines:
            say(f"    {line}")
        if len(lines) > 12:
            say(f"    ({len(lines) - 12} more lines above: `python -m resilient_sqs.policy check` on the plan shows them all)")
        check(proc.returncode == 0, f"the policy check failed (exit {proc.returncode}): {proc.stderr.strip()}")
        say("    " + explain_counts(json.loads(plan_json.read_text()), lines[-1] if lines else ""))
        say("    exit 0: no error-level finding; the plan may be applied")

    def apply(self) -> None:
        step("terraform apply (about two minutes: the AWS provider waits for SQS and S3 to settle)")
        started = time.monotonic()
        self.applied = True
        with ticking("applying"):
            self.tf.apply()
        self.out = self.tf.outputs()
        say(f"    applied in {time.monotonic() - started:.0f} s")

    def subscribe_inbox(self) -> None:
        """A queue subscribed to the alarm topic, standing in for the on-call's e-mail/pager."""
        self.inbox = self.sqs.create_queue(QueueName=f"{self.prefix}-oncall-inbox")["QueueUrl"]
        arn = self.sqs.get_queue_attributes(QueueUrl=self.inbox, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        self.sns.subscribe(TopicArn=self.out["alarms"]["sns_topic_arn"], Protocol="sqs", Endpoint=arn)

    def poison_message(self) -> None:
        q = self.pair("orders")
        max_rc = q["max_receive_count"]
        step(f"a poison message on {q['name']}: the consumer fails on it every time (maxReceiveCount = {max_rc})")
        self.subscribe_inbox()
        self.sqs.send_message(QueueUrl=q["url"], MessageBody=json.dumps({"order": 2, "status": "malformed"}))
        for attempt in range(1, max_rc + 1):
            # the consumer crashes before deleting it; visibility 0 brings it back at once for the demo
            msg = self.receive(q["url"], visibility=0, wait=10)
            check(msg is not None, f"poison message not delivered on attempt {attempt}")
            say(f"    receive {attempt}/{max_rc}: {msg['Body']} -> consumer fails, message not deleted")
        check(self.receive(q["url"], visibility=0, wait=1) is None, "the poison message is still in the source queue")
        check(self.depth(q["dlq_url"])[0] == 1, "the poison message did not reach the DLQ")
        say(f"    receive {max_rc + 1}: nothing - SQS moved it to {q['dlq_name']}, where it waits for a fix and a redrive")

    def claim_check(self) -> None:
        from resilient_sqs.claim_check import extended_client, resolve
        from resilient_sqs.consumer import lambda_event

        q, bucket = self.pair("orders"), self.out["claim_check_bucket"]
        step(f"a {PAYLOAD_BYTES // 1024 // 1024} MiB payload (SQS takes 256 KiB) through the claim-check bucket {bucket['name']}")
        payload = os.urandom(PAYLOAD_BYTES // 2).hex()  # 2 MiB of text
        self.digest = hashlib.sha256(payload.encode()).hexdigest()
        # producer: the AWS SQS extended client, writing under the bucket's payload prefix
        producer = extended_client(bucket["name"], bucket["payload_prefix"], s3=self.s3, **self.client_kwargs)
        producer.send_message(QueueUrl=q["url"], MessageBody=payload)
        msg = self.receive(q["url"], visibility=60)  # a plain client: the message as it sits in SQS
        check(msg is not None and "ExtendedPayloadSize" in msg.get("MessageAttributes", {}), "pointer message not delivered")
        kind, ref = json.loads(msg["Body"])
        check(kind == POINTER_CLASS and ref["s3Key"].startswith(bucket["payload_prefix"]), f"unexpected pointer {msg['Body']}")
        head = self.s3.head_object(Bucket=bucket["name"], Key=ref["s3Key"])
        say(f"    producer (amazon-sqs-extended-client): sha256 {self.digest[:16]}... -> s3://{bucket['name']}/{ref['s3Key']} "
            f"({head['ContentLength']:,} bytes, {head['ServerSideEncryption']})")
        say(f"    message body ({len(msg['Body'])} bytes): {msg['Body']}")
        # consumer: a Lambda record, resolved through the extended client
        body = resolve(lambda_event([msg], q["arn"])["Records"][0], producer)
        got = hashlib.sha256(body.encode()).hexdigest()
        check(got == self.digest, f"payload hash mismatch: sent {self.digest}, got {got}")
        self.sqs.delete_message(QueueUrl=q["url"], ReceiptHandle=msg["ReceiptHandle"])
        say(f"    consumer: resolved the pointer, {len(body):,} bytes, sha256 {got[:16]}... = the producer's: MATCH")
        rule = next(r for r in self.s3.get_bucket_lifecycle_configuration(Bucket=bucket["name"])["Rules"] if "Expiration" in r)
        say(f"    the consumer leaves the payload (a retry or redrive still needs it); the lifecycle rule expires "
            f"{rule['Filter'].get('Prefix', '')}* after {rule['Expiration']['Days']} days, derived from the queues:")
        for k in bucket["queues"]:
            p = self.out["queues"][k]
            src, dlq = p["message_retention_seconds"] // 86400, p["dlq_message_retention_seconds"] // 86400
            life = f"source {src} d + DLQ {dlq} d = {src + dlq} d (FIFO: the move resets the enqueue time)" if p["fifo"] \
                else f"DLQ {dlq} d (a message keeps its enqueue time when it moves)"
            say(f"      {p['name']}: a message lives at most {life}")

    def idempotency(self) -> None:
        from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
        from aws_lambda_powertools.utilities.idempotency import (
            DynamoDBPersistenceLayer, IdempotencyConfig, idempotent_function)

        from resilient_sqs.consumer import lambda_event

        q, table = self.pair("orders"), self.out["idempotency_table"]["name"]
        step(f"a message delivered twice to a Powertools idempotent consumer (idempotency table {table})")
        charges: list[str] = []
        persistence = DynamoDBPersistenceLayer(table_name=table, boto3_client=self.ddb)
        config = IdempotencyConfig(event_key_jmespath="body")

        @idempotent_function(data_keyword_argument="record", config=config, persistence_store=persistence)
        def charge(record) -> dict:
            charges.append(json.loads(record.body)["order"])
            return {"charged": True}

        class Context:  # what Lambda passes the handler: Powertools reads the time left
            @staticmethod
            def get_remaining_time_in_millis() -> int:
                return 60_000

        def invoke(message: dict) -> dict:
            config.register_lambda_context(Context())  # as the handler in docs/runtime.md does
            return process_partial_response(event=lambda_event([message], q["arn"]), record_handler=charge,
                                            processor=BatchProcessor(event_type=EventType.SQS))

        self.sqs.send_message(QueueUrl=q["url"], MessageBody=json.dumps({"order": 3, "amount": 42}))
        msg = self.receive(q["url"], visibility=60)
        check(msg is not None, "message not delivered")
        invoke(msg)
        say("    delivery 1: card charged, then the consumer dies before deleting the message")
        self.sqs.change_message_visibility(QueueUrl=q["url"], ReceiptHandle=msg["ReceiptHandle"], VisibilityTimeout=0)
        again = self.receive(q["url"], visibility=60)
        check(again is not None and again["MessageId"] == msg["MessageId"], "the message was not redelivered")
        result = invoke(again)
        check(result == {"batchItemFailures": []} and len(charges) == 1, f"charged {len(charges)} times")
        self.sqs.delete_message(QueueUrl=q["url"], ReceiptHandle=again["ReceiptHandle"])
        say(f"    delivery {again['Attributes']['ApproximateReceiveCount']}: Powertools finds the record COMPLETED -> "
            f"not charged again, message deleted. Charges: {len(charges)}")

    def alarm(self) -> None:
        q = self.pair("orders")
        name = self.out["alarms"]["alarm_names"][f"{self.prefix}-orders"]["dlq_depth"]
        step(f"waiting for the DLQ alarm {name} (SQS publishes queue depth, CloudWatch evaluates every minute)")
        started = time.monotonic()
        state = None
        with ticking("waiting for ALARM"):
            while time.monotonic() - started < ALARM_WAIT_SECONDS:
                state = self.cw.describe_alarms(AlarmNames=[name])["MetricAlarms"][0]["StateValue"]
                if state == "ALARM":
                    break
                time.sleep(2)
        check(state == "ALARM", f"{name} is still {state} after {ALARM_WAIT_SECONDS} s")
        say(f"    {name}: ALARM after {time.monotonic() - started:.0f} s (the poison message in {q['dlq_name']})")
        note = None
        deadline = time.monotonic() + 30
        while note is None and time.monotonic() < deadline and self.inbox:
            msg = self.receive(self.inbox, wait=2)
            if msg and json.loads(json.loads(msg["Body"])["Message"]).get("AlarmName") == name:
                note = json.loads(msg["Body"])
        check(note is not None, "the alarm topic did not deliver the notification")
        say(f"    on-call notified through SNS topic {self.out['alarms']['sns_topic_arn'].rsplit(':', 1)[1]}: "
            f"\"{note.get('Subject', '')}\"")

    def report(self) -> None:
        step("what the module gave you, now")
        say("    queue                                  waiting  in flight")
        for key in ("orders", "payments"):
            q = self.pair(key)
            for name, url in ((q["name"], q["url"]), (q["dlq_name"], q["dlq_url"])):
                visible, inflight = self.depth(url)
                note = "   <- the poison message, kept for inspection and redrive" if url == q["dlq_url"] and visible else ""
                say(f"    {name:<38} {visible:>7}  {inflight:>9}{note}")
        say(f"    claim check: payload sha256 sent = received ({self.digest[:16]}...)")
        say("    alarms:")
        names = [n for per_queue in self.out["alarms"]["alarm_names"].values() for n in per_queue.values()]
        for a in sorted(self.cw.describe_alarms(AlarmNames=names)["MetricAlarms"], key=lambda a: a["AlarmName"]):
            say(f"      {a['StateValue']:<17} {a['AlarmName']}")
        say("    (OK: evaluated, within bounds. INSUFFICIENT_DATA on the influx alarms: they use metric math,\n"
            "     which LocalStack does not evaluate; CloudWatch does)")

    def destroy(self) -> None:
        if not self.applied:
            return
        step("terraform destroy")
        if self.inbox:
            with contextlib.suppress(Exception):
                self.sqs.delete_queue(QueueUrl=self.inbox)
        with ticking("destroying"):
            self.tf.destroy()
        self.applied = False
        queues = self.sqs.list_queues(QueueNamePrefix=self.prefix).get("QueueUrls", [])
        buckets = [b["Name"] for b in self.s3.list_buckets().get("Buckets", []) if b["Name"].startswith(self.prefix)]
        tables = [t for t in self.ddb.list_tables()["TableNames"] if t.startswith(self.prefix)]
        alarms = [a["AlarmName"] for a in self.cw.describe_alarms()["MetricAlarms"] if self.prefix in a["AlarmName"]]
        say(f"    left behind: {len(queues)} queues, {len(buckets)} buckets, {len(tables)} tables, {len(alarms)} alarms")


def plan_counts(plan: dict) -> tuple[int, dict[str, int]]:
    """(resources the plan creates, {data source type: count} read while planning): the
    checker's resource count is their sum, the demo's "creates" line the first."""
    created = sum(1 for rc in plan["resource_changes"] if "create" in rc["change"]["actions"])
    data: dict[str, int] = {}
    stack = [((plan.get("prior_state") or {}).get("values") or {}).get("root_module") or {}]
    while stack:
        module = stack.pop()
        for r in module.get("resources") or ():
            if r.get("mode") == "data":
                data[r["type"]] = data.get(r["type"], 0) + 1
        stack.extend(module.get("child_modules") or ())
    return created, data


def explain_counts(plan: dict, summary_line: str) -> str:
    """Why the checker's resource count (its summary line) is not the demo's "creates" count."""
    created, data = plan_counts(plan)
    m = re.search(r"\b([0-9]+) resources\)", summary_line)
    if m is None or int(m.group(1)) != created + sum(data.values()):
        return f"(the plan creates {created} resources and reads {sum(data.values())} data sources)"
    return (f"(its {m.group(1)} resources: the {created} the plan creates and the {sum(data.values())} data sources "
            "Terraform read while planning, " + ", ".join(f"{t} x{n}" for t, n in sorted(data.items())) + ")")


def summarize(plan: dict) -> list[str]:
    """What the plan creates, in plain words."""
    lines = []
    rcs = [rc for rc in plan["resource_changes"] if "create" in rc["change"]["actions"]]
    queues = {rc["change"]["after"]["name"]: rc["change"]["after"] for rc in rcs if rc["type"] == "aws_sqs_queue"}
    for _name, src in sorted(queues.items()):
        if not src.get("redrive_policy"):
            continue  # a DLQ: described with its source
        # the DLQ by the name in the source's redrive policy, not by resource address
        dlq = queues[json.loads(src["redrive_policy"])["deadLetterTargetArn"].rsplit(":", 1)[-1]]
        sse = "SSE-KMS " + src["kms_master_key_id"] if src.get("kms_master_key_id") else "SSE-SQS"
        allow = json.loads(dlq["redrive_allow_policy"])
        lines += [
            f"queue {src['name']}" + (" (FIFO)" if src.get("fifo_queue") else ""),
            f"  visibility timeout {src['visibility_timeout_seconds']} s, long polling {src['receive_wait_time_seconds']} s, "
            f"{sse}, TLS-only queue policy",
            f"  retention {src['message_retention_seconds'] // 86400} d; dead-letter queue {dlq['name']} "
            f"({dlq['message_retention_seconds'] // 86400} d) after maxReceiveCount failed receives, "
            f"accepting only from its source ({allow['redrivePermission']})",
        ]
    by_type: dict[str, list[dict]] = {}
    for rc in rcs:
        by_type.setdefault(rc["type"], []).append(rc["change"]["after"])
    for b in by_type.get("aws_s3_bucket", []):
        lines.append(f"claim-check bucket {b['bucket']}: SSE, public access blocked, TLS only, payloads expire (lifecycle rule)")
    for t in by_type.get("aws_dynamodb_table", []):
        lines.append(f"idempotency table {t['name']}: key id, TTL on expiration, PITR, on-demand")
    policies = by_type.get("aws_iam_policy", [])
    if policies:
        lines.append(f"IAM policies ({len(policies)}): producer, consumer and redrive operator per queue, every action and ARN named")
    alarms = by_type.get("aws_cloudwatch_metric_alarm", [])
    if alarms:
        topics = by_type.get("aws_sns_topic", [])
        target = f"notifying SNS topic {topics[0]['name']} (KMS-encrypted)" if topics else "notifying the given topic"
        lines.append(f"alarms ({len(alarms)}), {target}:")
        lines += [f"  {a['alarm_name']}" for a in sorted(alarms, key=lambda a: a["alarm_name"])]
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
        plan_json = demo.plan()
        demo.policy_check(plan_json)
        demo.apply()
        demo.poison_message()  # first: the DLQ alarm's minute runs while the next steps do
        demo.claim_check()
        demo.idempotency()
        demo.alarm()
        demo.report()
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
