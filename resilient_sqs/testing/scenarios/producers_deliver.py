"""producers-deliver: what the stack wires to a queue (SNS subscription, EventBridge rule, S3
notification) gets a message into it, and the queue's policy and key admit that producer."""
from __future__ import annotations

import fnmatch
import json
import time
import uuid

from ..aws import delete_all, receive
from ..discover import Pair
from . import PAIR, USES_SOURCE, Context, Scenario, ScenarioFailed, ScenarioSkipped

AWS_MANAGED_SQS_KEY = "alias/aws/sqs"


def _listify(x) -> list:
    return x if isinstance(x, list) else [] if x is None else [x]


def _principal_matches(principal, service: str) -> bool:
    if principal == "*":
        return True
    if isinstance(principal, dict):
        return "*" in _listify(principal.get("AWS")) or service in _listify(principal.get("Service"))
    return False


def _action_matches(actions) -> bool:
    return any(fnmatch.fnmatchcase("sqs:sendmessage", str(a).lower()) for a in _listify(actions)) or \
        any(str(a) == "*" for a in _listify(actions))


def _resource_matches(resources, arn: str) -> bool:
    return any(fnmatch.fnmatchcase(arn, str(r)) for r in _listify(resources)) if resources is not None else True


def _conditions_hold(cond: dict | None, source_arn: str | None) -> bool | None:
    """True/False when the statement's conditions are about the sender (aws:SourceArn), None when
    they are about something this check cannot decide (they are taken to hold)."""
    if not cond:
        return True
    for op, tests in cond.items():
        for key, values in (tests or {}).items():
            if key.lower() in ("aws:sourcearn",):
                if source_arn is None:
                    return None
                vals = [str(v) for v in _listify(values)]
                like = "like" in op.lower()
                if not any(fnmatch.fnmatchcase(source_arn, v) if like else source_arn == v for v in vals):
                    return False
            elif key.lower() == "aws:securetransport":
                continue  # services send over TLS
    return True


def policy_refusal(policy: dict | None, queue_arn: str, principal: str, source_arn: str | None) -> str | None:
    """Why the queue policy does not let ``principal`` (for ``source_arn``) send to the queue (None: it does)."""
    if not policy:
        return (f"the queue has no policy: {principal} may not send to it (a service needs a statement allowing "
                f"sqs:SendMessage to Principal {{ Service = \"{principal}\" }} with aws:SourceArn {source_arn})")
    allowed = False
    for st in _listify(policy.get("Statement")):
        if not isinstance(st, dict) or not _principal_matches(st.get("Principal"), principal):
            continue
        if not _action_matches(st.get("Action")) or not _resource_matches(st.get("Resource"), queue_arn):
            continue
        holds = _conditions_hold(st.get("Condition"), source_arn)
        if st.get("Effect") == "Deny" and holds and not (st.get("Condition") or {}).keys() & {"Bool"}:
            return f"statement {st.get('Sid') or '(no Sid)'} denies sqs:SendMessage to {principal}"
        if st.get("Effect") == "Allow" and holds is not False:
            allowed = True
    if not allowed:
        return (f"no statement allows sqs:SendMessage to {principal} with aws:SourceArn {source_arn} (the policy "
                f"names other principals or sources)")
    return None


def _event_for(pattern_text: str | None) -> tuple[dict | None, str | None]:
    """An event the rule's pattern matches (source, detail-type, detail), or the reason none can be built."""
    if not pattern_text:
        return None, "the rule has no event pattern (a schedule): nothing to put"
    try:
        pattern = json.loads(pattern_text)
    except ValueError:
        return None, "the rule's event pattern is not JSON"

    def pick(values):
        for v in _listify(values):
            if isinstance(v, (str, int, float, bool)):
                return v
        return None

    def build(p: dict) -> dict | None:
        out = {}
        for k, v in p.items():
            if isinstance(v, dict):
                sub = build(v)
                if sub is None:
                    return None
                out[k] = sub
            else:
                got = pick(v)
                if got is None:
                    return None
                out[k] = got
        return out

    event = build(pattern)
    if event is None:
        return None, "the rule's pattern uses content filters (prefix, anything-but, numeric...) this check does not satisfy"
    return event, None


def _arrives(ctx: Context, pair: Pair, marker: str, timeout: float = 15) -> bool:
    sqs = ctx.clients.client("sqs")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for m in receive(sqs, pair.queue.url, wait=2, max_n=10, visibility=5):
            sqs.delete_message(QueueUrl=pair.queue.url, ReceiptHandle=m["ReceiptHandle"])
            if marker in m["Body"]:
                return True
    return False


def producer_key(prod: dict) -> tuple:
    """What sends: the topic, the rule or the bucket (one producer may feed several queues)."""
    return (prod["kind"], prod.get("source_arn") or prod.get("rule") or prod.get("bucket"))


def _clear_siblings(ctx: Context, pair: Pair, prod: dict, marker: str, timeout: float = 10) -> None:
    """A topic, rule or bucket that feeds other queues of the stack delivered the test message there
    too: take it out of them (only it), or their own scenarios would receive it for theirs. The runner
    runs pairs that share a producer one after another (``BehaveRun._groups``), so those queues are idle."""
    sqs = ctx.clients.client("sqs")
    for other in ctx.discovery.pairs:
        if other is pair or not any(producer_key(p) == producer_key(prod) for p in other.producers or ()):
            continue
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = False
            for m in receive(sqs, other.queue.url, wait=1, max_n=10, visibility=0):
                if marker in m["Body"]:
                    sqs.delete_message(QueueUrl=other.queue.url, ReceiptHandle=m["ReceiptHandle"])
                    found = True
            if found:
                break


def producers_deliver(ctx: Context, pair: Pair) -> str:
    if not pair.producers:
        raise ScenarioSkipped(f"no SNS subscription, EventBridge rule or S3 notification in the stack sends to {pair.name}")
    problems, shown, skipped = [], [], []
    sqs = ctx.clients.client("sqs")
    delete_all(sqs, pair.queue.url)  # S3 puts a test event in the queue when the notification is configured
    for prod in pair.producers:
        who = f"{prod['kind']} producer {prod['address']}"
        refusal = policy_refusal(pair.policy, pair.queue.arn, prod["principal"], prod.get("source_arn"))
        if refusal:
            problems.append(f"{who}: {refusal}; on AWS its messages never arrive (the endpoint here does not enforce "
                            f"queue policies). Change: {pair.setting('policy')}")
            continue
        if pair.kms_key == AWS_MANAGED_SQS_KEY:
            problems.append(f"{who}: the queue is encrypted with the AWS managed key {AWS_MANAGED_SQS_KEY}, whose key "
                            f"policy {prod['principal']} cannot use: on AWS its messages never arrive. Change: "
                            f"{pair.setting('kms_master_key_id')} (a customer managed key whose policy allows "
                            f"{prod['principal']} kms:GenerateDataKey and kms:Decrypt, or SSE-SQS)")
            continue
        marker = f"sqs-behave-{uuid.uuid4().hex}"
        fifo = {"MessageGroupId": "sqs-behave", "MessageDeduplicationId": uuid.uuid4().hex} if pair.queue.fifo else {}
        if prod["kind"] == "sns":
            if prod.get("filter_policy"):
                skipped.append(f"{who}: the subscription has a filter policy this check does not satisfy")
                continue
            ctx.clients.client("sns").publish(TopicArn=prod["source_arn"], Message=json.dumps({"sqs-behave": marker}),
                                              **fifo)
        elif prod["kind"] == "events":
            event, why = _event_for(prod.get("pattern"))
            if event is None:
                skipped.append(f"{who}: {why}")
                continue
            entry = {"Source": str(event.get("source", "sqs-behave")), "DetailType": str(event.get("detail-type", "sqs-behave")),
                     "Detail": json.dumps({**(event.get("detail") or {}), "sqs-behave": marker}),
                     "EventBusName": prod["bus"]}
            resp = ctx.clients.client("events").put_events(Entries=[entry])
            if resp.get("FailedEntryCount"):
                problems.append(f"{who}: PutEvents refused the event: {resp.get('Entries')}")
                continue
        elif prod["kind"] == "s3":
            key = f"{prod['prefix']}{marker}{prod['suffix']}"
            s3 = ctx.clients.client("s3")
            s3.put_object(Bucket=prod["bucket"], Key=key, Body=b"sqs-behave")
            try:
                if not _arrives(ctx, pair, marker):
                    problems.append(f"{who}: an object put to {prod['bucket']}/{key} produced no event in {pair.name} "
                                    f"within 15 s (events {', '.join(prod['events'])})")
                else:
                    shown.append(f"S3 {prod['bucket']} -> {pair.name}")
            finally:
                s3.delete_object(Bucket=prod["bucket"], Key=key)
                _clear_siblings(ctx, pair, prod, marker)
            continue
        if _arrives(ctx, pair, marker):
            shown.append(f"{prod['kind']} {prod.get('rule') or prod.get('source_arn')} -> {pair.name}")
        else:
            problems.append(f"{who}: a message sent through it did not arrive in {pair.name} within 15 s")
        _clear_siblings(ctx, pair, prod, marker)
    delete_all(sqs, pair.queue.url)
    if problems:
        raise ScenarioFailed(f"queue {pair.name}: " + "; ".join(problems))
    if not shown:
        raise ScenarioSkipped(f"queue {pair.name}: " + "; ".join(skipped))
    return "delivered: " + ", ".join(shown) + (f" (not shown: {'; '.join(skipped)})" if skipped else "")


SCENARIO = Scenario(
    name="producers-deliver",
    subject=PAIR,
    order=15,
    uses=USES_SOURCE,
    summary="each producer the stack wires to the queue (SNS subscription, EventBridge rule target, S3 notification) "
            "gets a message into it: publish, put a matching event, put an object; a queue policy or key that would "
            "refuse the producer on AWS fails, naming the statement or key",
    needs="an `aws_sns_topic_subscription` (protocol sqs), `aws_cloudwatch_event_target` or "
          "`aws_s3_bucket_notification` whose target is the queue",
    probes="SNS, EventBridge and S3 delivery to SQS (queue policies and key policies are checked by the scenario "
           "itself: emulators do not enforce them)",
    run=producers_deliver,
)
