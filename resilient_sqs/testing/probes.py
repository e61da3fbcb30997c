"""What an endpoint can show, found by asking it (throwaway resources), never by its name or version.

``sqs-behave --endpoint URL`` accepts any endpoint that answers the SQS API; the scenarios skip
what a probe shows the endpoint cannot do (with the probe's finding as the reason), so a gap of
the emulator is never reported as a defect of the stack. The documentation's capability table
per emulator is rendered from probe results recorded with
``python -m resilient_sqs.testing.probes URL --json`` (docs/capabilities/*.json, ``make docs``).

    python -m resilient_sqs.testing.probes http://127.0.0.1:4566 [--slow] [--json]
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
import urllib.error
import urllib.request
import uuid
import zipfile
from dataclasses import asdict, dataclass
from typing import Callable

from .aws import Clients, depth, receive

TOKEN_WORDS = ("auth token", "auth_token", "license", "subscription required", "api key")


class EndpointRefused(RuntimeError):
    """The endpoint does not answer the SQS API (or demands a token): the message says what to do."""


@dataclass
class Finding:
    name: str
    title: str
    shown: bool | None  # None: not probed (slow probe not asked for, or it could not decide)
    detail: str


def _get_json(url: str, timeout: float = 3.0) -> dict | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            doc = json.loads(resp.read().decode() or "{}")
            return doc if isinstance(doc, dict) else None
    except (urllib.error.URLError, OSError, ValueError):
        return None


def identify(endpoint: str) -> dict:
    """{"kind": "localstack" | "ministack" | "other", "version": str | None, "edition": str | None}."""
    base = endpoint.rstrip("/")
    mini = _get_json(base + "/_ministack/health")
    if mini is not None:
        return {"kind": "ministack", "version": mini.get("version"), "edition": mini.get("edition")}
    ls = _get_json(base + "/_localstack/health")
    if ls is not None and "services" in ls:
        return {"kind": "localstack", "version": ls.get("version"), "edition": ls.get("edition")}
    return {"kind": "other", "version": None, "edition": None}


def check_answers(endpoint: str) -> dict:
    """Raise :class:`EndpointRefused` unless ``endpoint`` answers the SQS API; returns :func:`identify`."""
    who = identify(endpoint)
    try:
        from botocore.config import Config

        Clients(endpoint).client("sqs", config=Config(retries={"max_attempts": 1}, connect_timeout=10,
                                                      read_timeout=180)).list_queues(MaxResults=1)
    except Exception as exc:  # noqa: BLE001 - every failure is reported with its text
        text = str(exc)
        if any(w in text.lower() for w in TOKEN_WORDS):
            raise EndpointRefused(
                f"{endpoint} demands an auth token ({text.strip()[:300]}). LocalStack's images after the "
                "community edition's end need LOCALSTACK_AUTH_TOKEN; run the last free image "
                "(localstack/localstack:4.9.2 is what this project tests) or --embedded") from None
        raise EndpointRefused(f"{endpoint} does not answer the SQS API ({type(exc).__name__}: {text.strip()[:300]}). "
                              "Start the emulator there, or use --embedded") from None
    return who


# ----------------------------------------------------------------------------------------------
# the probes: each makes throwaway resources named sqs-behave-probe-*, and removes them
# ----------------------------------------------------------------------------------------------
class _Scratch:
    def __init__(self, clients: Clients):
        self.sqs = clients.client("sqs")
        self.clients = clients
        self.tag = uuid.uuid4().hex[:8]
        self.urls: list[str] = []
        self.cleanup: list[Callable[[], object]] = []

    def queue(self, suffix: str, **attrs) -> tuple[str, str]:
        name = f"sqs-behave-probe-{self.tag}-{suffix}"
        url = self.sqs.create_queue(QueueName=name, Attributes={k: str(v) for k, v in attrs.items()})["QueueUrl"]
        self.urls.append(url)
        arn = self.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        return url, arn

    def close(self) -> None:
        for fn in self.cleanup:
            with contextlib.suppress(Exception):
                fn()
        for url in self.urls:
            with contextlib.suppress(Exception):
                self.sqs.delete_queue(QueueUrl=url)


def _dead_letter(s: _Scratch) -> tuple[str, str, str]:
    dlq, dlq_arn = s.queue("dlq")
    src, _ = s.queue("src", RedrivePolicy=json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 2}))
    s.sqs.send_message(QueueUrl=src, MessageBody="probe")
    deadline = time.monotonic() + 15
    while depth(s.sqs, dlq)[0] < 1 and time.monotonic() < deadline:
        receive(s.sqs, src, wait=1, max_n=1, visibility=0)
    return src, dlq, dlq_arn


def probe_redrive(s: _Scratch) -> tuple[bool, str]:
    _src, dlq, _ = _dead_letter(s)
    got = depth(s.sqs, dlq)[0]
    return got == 1, ("a message received twice and never deleted reached the DLQ (maxReceiveCount 2)" if got == 1
                      else "a message received twice and never deleted did not reach the DLQ within 15 s")


def probe_move_task(s: _Scratch) -> tuple[bool, str]:
    src, dlq, dlq_arn = _dead_letter(s)
    if depth(s.sqs, dlq)[0] < 1:
        return False, "no message could be dead-lettered to try it"
    try:
        s.sqs.start_message_move_task(SourceArn=dlq_arn)
    except Exception as exc:  # noqa: BLE001 - the refusal is the finding
        return False, f"StartMessageMoveTask refused: {str(exc)[:200]}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if depth(s.sqs, src)[0] >= 1 and depth(s.sqs, dlq) == (0, 0):
            return True, "StartMessageMoveTask moved a dead-lettered message back to its source"
        time.sleep(0.3)
    return False, "StartMessageMoveTask was accepted but the message was not back in its source within 20 s"


def probe_redrive_allow_cleared(s: _Scratch) -> tuple[bool, str]:
    url, _ = s.queue("allow")
    s.sqs.set_queue_attributes(QueueUrl=url, Attributes={"RedriveAllowPolicy": json.dumps({"redrivePermission": "allowAll"})})
    s.sqs.set_queue_attributes(QueueUrl=url, Attributes={"RedriveAllowPolicy": ""})
    attrs = s.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    if "RedriveAllowPolicy" in attrs:
        return False, (f"a cleared RedriveAllowPolicy reads back as {attrs['RedriveAllowPolicy']!r} instead of absent "
                       "(the AWS provider's delete of aws_sqs_queue_redrive_allow_policy then waits 20 minutes; "
                       "sqs-behave removes such resources from the state before destroy)")
    return True, "a cleared RedriveAllowPolicy reads back absent, as on AWS"


def probe_fifo_dlq_mismatch(s: _Scratch) -> tuple[bool, str]:
    _dlq, dlq_arn = s.queue("std-dlq")
    try:
        s.queue("fifo-src.fifo", FifoQueue="true",
                RedrivePolicy=json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 3}))
    except Exception as exc:  # noqa: BLE001 - the refusal is what AWS does
        return True, f"a FIFO queue with a standard DLQ is refused, as on AWS ({str(exc)[:120]})"
    return False, ("a FIFO queue with a standard DLQ is accepted (AWS refuses it): sqs-behave checks that pairing "
                   "itself")


def probe_alarm_dimensions(s: _Scratch) -> tuple[bool, str]:
    cw = s.clients.client("cloudwatch")
    name = f"sqs-behave-probe-{s.tag}"
    cw.put_metric_alarm(AlarmName=name, Namespace="AWS/SQS", MetricName="ApproximateNumberOfMessagesVisible",
                        Dimensions=[{"Name": "QueueName", "Value": name}], Statistic="Maximum", Period=60,
                        EvaluationPeriods=1, Threshold=0, ComparisonOperator="GreaterThanThreshold")
    s.cleanup.append(lambda: cw.delete_alarms(AlarmNames=[name]))
    got = (cw.describe_alarms(AlarmNames=[name]).get("MetricAlarms") or [{}])[0].get("Dimensions") or []
    if got == [{"Name": "QueueName", "Value": name}]:
        return True, "an alarm's QueueName dimension reads back as written"
    return False, f"an alarm's QueueName dimension reads back as {got!r}"


def probe_sns_to_sqs(s: _Scratch) -> tuple[bool, str]:
    sns = s.clients.client("sns")
    topic = sns.create_topic(Name=f"sqs-behave-probe-{s.tag}")["TopicArn"]
    s.cleanup.append(lambda: sns.delete_topic(TopicArn=topic))
    url, arn = s.queue("inbox")
    s.sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"},
                                                "Action": "sqs:SendMessage", "Resource": arn}]})})
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    sns.publish(TopicArn=topic, Message="probe")
    got = receive(s.sqs, url, wait=5, max_n=1)
    return bool(got), ("SNS delivered a published message to a subscribed queue" if got
                       else "a message published to a topic did not reach its subscribed queue within 5 s")


def probe_sqs_metrics(s: _Scratch, wait: float = 90) -> tuple[bool, str]:
    url, _ = s.queue("metrics")
    name = url.rsplit("/", 1)[-1]
    s.sqs.send_message(QueueUrl=url, MessageBody="probe")
    cw = s.clients.client("cloudwatch")
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        metrics = cw.list_metrics(Namespace="AWS/SQS", MetricName="ApproximateNumberOfMessagesVisible",
                                  Dimensions=[{"Name": "QueueName", "Value": name}]).get("Metrics", [])
        if metrics:
            return True, "SQS publishes ApproximateNumberOfMessagesVisible to CloudWatch"
        time.sleep(3)
    return False, (f"no AWS/SQS ApproximateNumberOfMessagesVisible metric for a queue holding a message within "
                   f"{wait:.0f} s: a DLQ depth alarm cannot fire here")


_CONSUMER = """import sys


def handler(event, context):
    if "Records" not in event:  # invoked by the probe: which Python runs it
        return {"python": sys.version.split()[0]}
    return {"batchItemFailures": []}
"""


def _wait_for(fn: Callable[[], bool], timeout: float, step: float = 1.0) -> bool:
    deadline = time.monotonic() + timeout
    while not fn():
        if time.monotonic() >= deadline:
            return False
        time.sleep(step)
    return True


def probe_lambda_consumer(s: _Scratch) -> tuple[bool, str]:
    """A Python function consumes a queue through an event source mapping, and a disabled mapping
    leaves the queue's messages alone (what sqs-behave's pausing relies on)."""
    lam, iam = s.clients.client("lambda"), s.clients.client("iam")
    name = f"sqs-behave-probe-{s.tag}"
    role = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                                                "Principal": {"Service": "lambda.amazonaws.com"}}]}))["Role"]["Arn"]
    s.cleanup.insert(0, lambda: iam.delete_role(RoleName=name))
    url, arn = s.queue("consumed")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("handler.py", _CONSUMER)
    try:
        lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="handler.handler",
                            Code={"ZipFile": buf.getvalue()}, Timeout=5)
    except Exception as exc:  # noqa: BLE001 - the refusal is the finding
        return False, f"CreateFunction (python3.12) refused: {str(exc)[:200]}"
    s.cleanup.insert(0, lambda: lam.delete_function(FunctionName=name))
    config: dict = {}

    def settled() -> bool:
        config.update(lam.get_function(FunctionName=name)["Configuration"])
        return config.get("State") not in ("Pending", None)
    _wait_for(settled, 60)
    if config.get("State") != "Active":
        return False, (f"a python3.12 function did not become Active within 60 s: State {config.get('State')}"
                       f" ({config.get('StateReasonCode') or ''} {config.get('StateReason') or ''}".rstrip() + ")")
    try:
        ran = json.loads(lam.invoke(FunctionName=name, Payload=b"{}")["Payload"].read() or b"{}").get("python")
    except Exception:  # noqa: BLE001 - which Python ran it is a detail; the mapping decides the finding
        ran = None
    on = f" (it ran on Python {ran}; the runtime asks python3.12)" if ran and not ran.startswith("3.12.") else ""
    esm = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=name, BatchSize=1)["UUID"]
    s.cleanup.insert(0, lambda: lam.delete_event_source_mapping(UUID=esm))
    _wait_for(lambda: lam.get_event_source_mapping(UUID=esm).get("State") == "Enabled", 60)
    s.sqs.send_message(QueueUrl=url, MessageBody="probe")
    if not _wait_for(lambda: depth(s.sqs, url) == (0, 0), 60):
        return False, ("an event source mapping did not deliver a queued message to its python3.12 function within "
                       f"60 s ({lam.get_event_source_mapping(UUID=esm).get('LastProcessingResult')})")
    lam.update_event_source_mapping(UUID=esm, Enabled=False)
    _wait_for(lambda: lam.get_event_source_mapping(UUID=esm).get("State") == "Disabled", 60)
    s.sqs.send_message(QueueUrl=url, MessageBody="probe while disabled")
    time.sleep(5)
    if depth(s.sqs, url)[0] != 1:
        return False, ("a python3.12 function consumed a queue through its event source mapping, but the disabled "
                       "mapping still took a message (sqs-behave's pausing would not hold)")
    return True, ("a python3.12 function consumed a queue through its event source mapping; disabled, the mapping "
                  f"left a message in the queue{on}")


PROBES: dict[str, tuple[str, Callable[[_Scratch], tuple[bool, str]], bool]] = {
    # name: (what it shows, probe, slow)
    "redrive": ("a message moves to the DLQ after maxReceiveCount receives", probe_redrive, False),
    "move_task": ("StartMessageMoveTask moves dead letters back (redrive-conserves, fifo-order)", probe_move_task, False),
    "redrive_allow_cleared": ("a cleared RedriveAllowPolicy reads back absent (destroy)", probe_redrive_allow_cleared, False),
    "fifo_dlq_mismatch_refused": ("a FIFO queue with a standard DLQ is refused, as on AWS", probe_fifo_dlq_mismatch, False),
    "alarm_dimensions": ("an alarm's dimensions read back as written through boto3 (the provider's own read-back is checked per run: state against plan)", probe_alarm_dimensions, False),
    "sns_to_sqs": ("SNS delivers to a subscribed queue (alarm notifications)", probe_sns_to_sqs, False),
    "sqs_metrics": ("SQS queue metrics reach CloudWatch (dlq-alarm-fires)", probe_sqs_metrics, True),
    "lambda_consumer": ("a Python Lambda function consumes a queue through an event source mapping, and stops "
                        "while the mapping is disabled (consumer stacks apply; visibility-covers-consumer runs on a "
                        "real apply with the consumer paused)", probe_lambda_consumer, True),
}


def probe(endpoint: str, names: list[str] | None = None, slow: bool = False) -> list[Finding]:
    clients = Clients(endpoint)
    out = []
    for name, (title, fn, is_slow) in PROBES.items():
        if names is not None and name not in names:
            continue
        if is_slow and not slow and names is None:
            out.append(Finding(name, title, None, "not probed (slow; --slow)"))
            continue
        s = _Scratch(clients)
        try:
            shown, detail = fn(s)
        except Exception as exc:  # noqa: BLE001 - a probe that errs shows the capability is missing
            shown, detail = False, f"{type(exc).__name__}: {str(exc)[:200]}"
        finally:
            s.close()
        out.append(Finding(name, title, shown, detail))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m resilient_sqs.testing.probes", description=__doc__.splitlines()[0])
    ap.add_argument("endpoint")
    ap.add_argument("--slow", action="store_true", help="also the probes that wait for metrics (about 90 s)")
    ap.add_argument("--json", action="store_true", help="print the findings as JSON (docs/capabilities/*.json)")
    args = ap.parse_args(argv)
    try:
        who = check_answers(args.endpoint)
    except EndpointRefused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    findings = probe(args.endpoint, slow=args.slow)
    if args.json:
        print(json.dumps({"emulator": who, "findings": [asdict(f) for f in findings]}, indent=2))
    else:
        print(f"{args.endpoint}: {who['kind']} {who.get('version') or ''}".rstrip())
        for f in findings:
            mark = {True: "yes", False: "NO", None: "-"}[f.shown]
            print(f"  {mark:<3} {f.name}: {f.detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
