"""Producer rules: the path from a producer (an SNS topic, an EventBridge rule, an S3 bucket's
notifications) into a queue. A message the queue never receives is lost as surely as one
deleted from it: the service's delivery is refused by the queue policy or the key policy, or
dropped after its retries with nowhere to go. Each finding is on the resource that makes the
delivery (the subscription, the target, the notification); model/producers.py links them."""
from __future__ import annotations

from ..graph import UNKNOWN
from ..model import Delivery, Model, Queue
from ..model.producers import (CLOUDWATCH, EXACT, OTHER, WILD, Admission, admits, is_fifo_topic, key_allows,
                               may_send, redrive_dlq, role_documents, service_name)
from . import fail, ok, rule, unknown


def _deliveries(model: Model, *kinds: str):
    """(delivery, queue) of ``kinds``; the deliveries whose queue cannot be told give an unknown
    result (yielded as (delivery, None, result)); those to a queue outside the plan are skipped
    (its policy is not in the plan)."""
    for d in model.producers:
        if d.kind not in kinds:
            continue
        q = d.queue.one
        if q is not None:
            yield d, q, None
        elif d.queue.external:
            continue
        else:
            yield d, None, unknown(d.address, f"which queue it delivers to cannot be told: {d.queue.unknown_reason}")


def _policy_fix(d: Delivery, q: Queue, svc: str, what: str) -> str:
    where = " or ".join(a for a in sorted({r.address for r, _ in q.policy_sources})) or q.address
    return (f'Add to the queue policy ({where}) a statement: Effect "Allow", Principal {{"Service": "{d.service}"}}, '
            f'Action "sqs:SendMessage", Resource the queue\'s ARN, Condition {{"ArnEquals": {{"aws:SourceArn": '
            f'<{what}>}}}}.')


def _judge_admission(d: Delivery, q: Queue, adm: Admission, what: str, role: str = "queue"):
    """The result of an admission (model.producers.admits) for a delivery."""
    svc = service_name(d.service)
    src = d.source.label
    fix = _policy_fix(d, q, svc, what)
    attrs = tuple((r.address, "policy") for r, _ in q.policy_sources)
    if adm.verdict == EXACT:
        return ok(d.address, f"the policy of {role} {q.address} lets {d.service} send with aws:SourceArn {src}",
                  ref=adm.ref)
    if adm.verdict is UNKNOWN:
        return unknown(d.address, f"whether the policy of {role} {q.address} admits {src} cannot be told: {adm.why}",
                       fix, ref=adm.ref, attrs=attrs)
    if adm.verdict == WILD:
        return fail(d.address, f"the policy of {role} {q.address} lets {d.service} send without naming {src} "
                               f"({adm.why}): {svc} producers other than {src} can write into it",
                    f'Give that statement Condition {{"ArnEquals": {{"aws:SourceArn": <{what}>}}}} (the ARN itself, '
                    "no wildcard).", ref=adm.ref, attrs=attrs)
    if adm.verdict == OTHER:
        names = ", ".join(adm.others[:3]) or "another producer"
        return fail(d.address, f"the policy of {role} {q.address} lets {d.service} send only for {names}, not {src}: "
                               f"{svc} delivers nothing and the messages are lost", fix, ref=adm.ref, attrs=attrs)
    has = "has no queue policy" if not adm.read else f"has a queue policy with no statement letting {d.service} send"
    return fail(d.address, f"{role} {q.address} {has}: {d.service} may not sqs:SendMessage, so every message of "
                           f"{src} is refused and lost", fix, attrs=attrs)


# ------------------------------------------------------------------------------------------
# SNS
# ------------------------------------------------------------------------------------------
def _queue_policy_admits(model: Model, kind: str, source_label: str):
    """Each delivery of ``kind`` judged on whether its queue's policy admits the producer (PRD001, PRD004)."""
    for d, q, res in _deliveries(model, kind):
        if res is not None:
            yield res
            continue
        yield _judge_admission(d, q, admits(q, d.service, d.source, model.documents, model.resolve), source_label)


@rule("PRD001", "sns-queue-policy-admits-topic", "error", "producers",
      "The queue policy lets the subscribed SNS topic send (aws:SourceArn = that topic)",
      why="""
SNS delivers to an SQS subscription as the service principal sns.amazonaws.com; the queue policy must
allow it sqs:SendMessage, or every delivery is refused and the message is gone (SNS retries an SQS
endpoint, then drops it or moves it to the subscription's DLQ, which needs the same permission). The
statement must carry aws:SourceArn equal to the topic: without it (or with a wildcard) any topic of
any account can write into the queue, and with another topic's ARN (a topic renamed, a stale copy)
this topic is refused. The topic is matched by reference, by its ARN, or through the configuration
source.""",
      fix='Allow {"Service": "sns.amazonaws.com"} sqs:SendMessage on the queue with Condition '
          '{"ArnEquals": {"aws:SourceArn": "<topic ARN>"}} in the queue policy.',
      sources=("sns-sqs", "sqs-security"))
def sns_queue_policy(model: Model, opts):
    yield from _queue_policy_admits(model, "sns", "the topic's ARN")


@rule("PRD002", "sns-fifo-topic-fifo-queue", "error", "producers",
      "A FIFO topic delivers to FIFO queues, a standard topic to standard queues",
      why="""
A standard SNS topic cannot subscribe a FIFO queue: the subscription fails at apply. A FIFO topic
orders and deduplicates messages per message group; delivered to a standard queue, the order and
the deduplication the producers rely on are lost (messages arrive out of order and twice), so a FIFO
topic's subscriptions must be FIFO queues.""",
      fix="Subscribe a queue of the topic's kind: a .fifo queue (fifo_queue = true) to a FIFO topic, a standard queue to a "
          "standard topic.",
      sources=("sns-fifo", "sns-sqs"))
def sns_fifo(model: Model, opts):
    for d, q, res in _deliveries(model, "sns"):
        if res is not None:
            yield res
            continue
        topic_fifo = is_fifo_topic(d.source.res) if d.source.res is not None else (
            d.source.name.endswith(".fifo") if isinstance(d.source.name, str) else UNKNOWN)
        if topic_fifo is UNKNOWN or not isinstance(q.fifo, bool):
            yield unknown(d.address, "whether the topic or the queue is FIFO is only known after apply")
        elif topic_fifo is True and q.fifo is not True:
            yield fail(d.address, f"FIFO topic {d.source.label} delivers to standard queue {q.address}: message order "
                                  "and deduplication are lost")
        elif topic_fifo is not True and q.fifo is True:
            yield fail(d.address, f"standard topic {d.source.label} cannot deliver to FIFO queue {q.address}: SNS "
                                  "refuses the subscription")
        else:
            yield ok(d.address, f"{'FIFO' if q.fifo is True else 'standard'} topic to a queue of the same kind")


@rule("PRD003", "sns-subscription-dlq", "error", "producers",
      "An SQS subscription has a redrive policy (DLQ) whose queue policy admits the topic",
      why="""
When SNS cannot deliver to the queue (the queue policy or the key policy refuses it, the queue was
deleted) it retries, then drops the message, unless the subscription has a redrive_policy naming a
dead-letter queue. That DLQ must let the topic send as well (sns.amazonaws.com, sqs:SendMessage,
aws:SourceArn the topic), or the failed messages are lost there too. A FIFO topic's subscription
needs a FIFO DLQ.""",
      fix='Set redrive_policy = jsonencode({ deadLetterTargetArn = <DLQ ARN> }) on the subscription and allow the topic '
          "(sns.amazonaws.com, aws:SourceArn the topic) in the DLQ's queue policy.",
      sources=("sns-dlq",), attrs=("redrive_policy",))
def sns_dlq(model: Model, opts):
    for d, q, res in _deliveries(model, "sns"):
        if res is not None:
            yield res
            continue
        link, raw = redrive_dlq(model.resolve, model.index, d.res)
        if link is None:
            yield fail(d.address, f"the subscription to {q.address} has no redrive_policy: a message SNS cannot "
                                  "deliver is dropped after its retries")
            continue
        dlq = link.one
        if dlq is None:
            if link.external:
                yield unknown(d.address, f"its DLQ {link.external} is not in this plan, so whether its policy admits "
                                         f"{d.source.label} cannot be told")
            else:
                yield unknown(d.address, f"its DLQ cannot be told: {link.unknown_reason}")
            continue
        if is_fifo_topic(d.source.res) is True and dlq.fifo is False:
            yield fail(d.address, f"FIFO topic {d.source.label}'s subscription DLQ {dlq.address} is a standard queue: "
                                  "SNS refuses it")
            continue
        adm = admits(dlq, d.service, d.source, model.documents, model.resolve)
        got = _judge_admission(d, dlq, adm, "the topic's ARN", role="subscription DLQ")
        if got.status == "pass":
            got.message = f"redrive_policy names {dlq.address}, and " + got.message
        yield got


# ------------------------------------------------------------------------------------------
# EventBridge
# ------------------------------------------------------------------------------------------
@rule("PRD004", "events-queue-policy-admits-rule", "error", "producers",
      "The queue policy lets the EventBridge rule send (aws:SourceArn = that rule)",
      why="""
EventBridge delivers to an SQS target as events.amazonaws.com; the queue policy must allow it
sqs:SendMessage with aws:SourceArn equal to the rule's ARN. Refused deliveries are retried, then
dropped (or sent to the target's DLQ). Without aws:SourceArn, or with a wildcard, any rule of any
account may write into the queue; with another rule's ARN this rule is refused.""",
      fix='Allow {"Service": "events.amazonaws.com"} sqs:SendMessage on the queue with Condition '
          '{"ArnEquals": {"aws:SourceArn": "<rule ARN>"}} in the queue policy.',
      sources=("eventbridge-permissions", "sqs-security"))
def events_queue_policy(model: Model, opts):
    yield from _queue_policy_admits(model, "events", "the rule's ARN")


@rule("PRD005", "events-fifo-message-group", "error", "producers",
      "An EventBridge target or schedule that is a FIFO queue sets a message group",
      why="""
SQS refuses a message without MessageGroupId on a FIFO queue; EventBridge sends one only when the
target's sqs_target.message_group_id is set (an EventBridge Scheduler schedule: its target's
sqs_parameters.message_group_id). Without it every event fails delivery (and, after the
retries, is dropped or dead-lettered).""",
      fix="Add sqs_target { message_group_id = \"<group>\" } to the target.",
      sources=("eventbridge-sqs-fifo",), attrs=("sqs_target",))
def events_fifo(model: Model, opts):
    for d, q, res in _deliveries(model, "events", "scheduler"):
        if res is not None:
            yield res
            continue
        if not isinstance(q.fifo, bool):
            yield unknown(d.address, f"whether {q.address} is FIFO is only known after apply")
            continue
        if q.fifo is not True:
            continue  # a standard queue takes no message group
        where = ("sqs_target",) if d.kind == "events" else ("target", 0, "sqs_parameters")
        name = ".".join(str(p) for p in where if not isinstance(p, int)) + ".message_group_id"
        group = d.res.path(*where, 0, "message_group_id")
        if group is UNKNOWN:
            yield unknown(d.address, f"{name} is only known after apply")
        elif isinstance(group, str) and group:
            yield ok(d.address, f"message group {group!r} for FIFO queue {q.address}")
        else:
            yield fail(d.address, f"target {q.address} is a FIFO queue and the {'target' if d.kind == 'events' else 'schedule'} "
                                  f"sets no {name}: SQS refuses every event",
                       None if d.kind == "events" else
                       'Add sqs_parameters { message_group_id = "<group>" } to the schedule\'s target.',
                       attrs=((d.address, where[0]),))


@rule("PRD006", "events-target-dlq-retry", "error", "producers",
      "An EventBridge target or schedule to a queue has a dead_letter_config and a retry_policy",
      why="""
An event EventBridge cannot deliver (the queue policy or key refuses it, the queue is gone, a FIFO
queue without message group) is retried for up to 24 hours and then dropped, unless the target has
a dead_letter_config: an SQS queue that keeps it (its policy must let events.amazonaws.com send with
the rule's ARN; for an EventBridge Scheduler schedule, which sends with its role, the role must be
allowed sqs:SendMessage on it). A retry_policy states how long and how often it is retried; without one the
defaults apply, which the plan then does not show (a warning when only that is missing).""",
      fix="Add dead_letter_config { arn = <DLQ ARN> } (a queue whose policy admits events.amazonaws.com for this rule) and "
          "retry_policy { maximum_event_age_in_seconds = ..., maximum_retry_attempts = ... } to the target.",
      sources=("eventbridge-dlq",), attrs=("dead_letter_config", "retry_policy"))
def events_dlq(model: Model, opts):
    from ..model.producers import queue_of

    for d, q, res in _deliveries(model, "events", "scheduler"):
        if res is not None:
            yield res
            continue
        base = () if d.kind == "events" else ("target", 0)
        dlc = d.res.path(*base, "dead_letter_config") if base else d.res.attr("dead_letter_config")
        retry = d.res.path(*base, "retry_policy") if base else d.res.attr("retry_policy")
        who = "target" if d.kind == "events" else "schedule's target"
        if dlc is UNKNOWN or retry is UNKNOWN:
            yield unknown(d.address, "its dead_letter_config or retry_policy is only known after apply")
            continue
        if not dlc:
            yield fail(d.address, f"the {who} to {q.address} has no dead_letter_config: an event it cannot deliver "
                                  "is dropped after its retries", attrs=((d.address, "dead_letter_config"),))
            continue
        link = queue_of(model.resolve, model.index, d.res, (*base, "dead_letter_config", 0, "arn"))
        dlq = link.one
        if dlq is None:
            why = f"{link.external} is not in this plan" if link.external else link.unknown_reason
            yield unknown(d.address, f"whether its DLQ takes what it cannot deliver cannot be told: {why}")
            continue
        if d.kind == "events":
            adm = admits(dlq, d.service, d.source, model.documents, model.resolve)
            got = _judge_admission(d, dlq, adm, "the rule's ARN", role="target DLQ")
        else:  # Scheduler sends to its DLQ with the schedule's role
            got = _role_sends(model, d, dlq)
        if got.status != "pass":
            yield got
        elif not retry:
            yield fail(d.address, f"dead-letter queue {dlq.address} takes what it cannot deliver, but the {who} has no "
                                  "retry_policy: how long an event is retried is left to the defaults (24 h, 185 "
                                  "attempts), not stated", "Add retry_policy { maximum_event_age_in_seconds = ..., "
                                  f"maximum_retry_attempts = ... }} to the {who}.", severity="warning",
                       attrs=((d.address, "retry_policy"),))
        else:
            yield ok(d.address, f"dead_letter_config names {dlq.address}, which takes what it cannot deliver, and a "
                                "retry_policy is set", ref=got.ref)


def _role_sends(model: Model, d: Delivery, dlq: Queue):
    """Whether the role of a delivery that sends with one (a schedule) may send to ``dlq``."""
    sender = next((s for s in model.senders if s.address == d.address), None)
    if sender is None or sender.role is None:
        why = sender.role_why if sender is not None else "it has no role"
        return unknown(d.address, f"whether it may send to its DLQ {dlq.address} cannot be told: {why}")
    docs, managed, unread = role_documents(sender.role, model.documents, model.resolve, model.plan)
    if managed:
        return ok(d.address, f"role {sender.role.address} has {managed[0]}")
    got, where = may_send(docs, dlq, model.resolve)
    if got is True:
        return ok(d.address, f"role {sender.role.address} may send to {dlq.address} ({where})")
    if got is UNKNOWN or unread:
        return unknown(d.address, f"whether role {sender.role.address} may sqs:SendMessage on its DLQ {dlq.address} "
                                  f"cannot be told: {where or unread[0] + ' is not in this plan'}")
    return fail(d.address, f"its DLQ is {dlq.address}, but role {sender.role.address} may not sqs:SendMessage on it: "
                           "what it cannot deliver is lost there too",
                f"Allow sqs:SendMessage on {dlq.address}'s ARN in a policy of {sender.role.address}.",
                attrs=((sender.role.address, "inline_policy"),))


# ------------------------------------------------------------------------------------------
# S3
# ------------------------------------------------------------------------------------------
@rule("PRD007", "s3-queue-policy-admits-bucket", "error", "producers",
      "The queue policy lets the notifying bucket send (aws:SourceArn = that bucket); the queue is standard",
      why="""
S3 event notifications are sent as s3.amazonaws.com; the queue policy must allow it sqs:SendMessage
with aws:SourceArn equal to the bucket's ARN (and, better, aws:SourceAccount), or S3 refuses the
notification configuration at apply. Without aws:SourceArn, or with a wildcard, any bucket of any
account can write into the queue. S3 cannot send notifications to a FIFO queue.""",
      fix='Allow {"Service": "s3.amazonaws.com"} sqs:SendMessage on the queue with Condition '
          '{"ArnEquals": {"aws:SourceArn": "<bucket ARN>"}} (and StringEquals aws:SourceAccount) in the queue policy.',
      sources=("s3-notifications", "sqs-security"))
def s3_queue_policy(model: Model, opts):
    for d, q, res in _deliveries(model, "s3"):
        if res is not None:
            yield res
            continue
        if q.fifo is True:
            yield fail(d.address, f"S3 cannot send event notifications to FIFO queue {q.address}: the notification "
                                  "configuration is refused at apply", "Send the notifications to a standard queue "
                                  "(or through EventBridge).")
            continue
        adm = admits(q, d.service, d.source, model.documents, model.resolve)
        yield _judge_admission(d, q, adm, "the bucket's ARN")


# ------------------------------------------------------------------------------------------
# encryption on the path
# ------------------------------------------------------------------------------------------
@rule("PRD008", "producer-can-use-queue-key", "error", "producers",
      "A queue that SNS, EventBridge or S3 sends to is encrypted with a key they may use",
      why="""
A service that sends to a queue encrypted with SSE-KMS needs kms:GenerateDataKey* and kms:Decrypt on
the queue's key, granted by the key policy to its service principal. The AWS managed key
alias/aws/sqs has a key policy no one can change: SNS, EventBridge and S3 can never use it, and every
delivery fails. A customer managed key of the plan must allow the producing service; a key outside
the plan cannot be read, so the finding is unknown, naming it. SSE-SQS needs nothing.""",
      fix="Encrypt the queue with SSE-SQS (sqs_managed_sse_enabled = true) or a customer managed key whose key policy "
          "allows the producing service principal kms:GenerateDataKey* and kms:Decrypt.",
      sources=("sqs-key-management", "sns-sqs"), attrs=("kms_master_key_id",))
def producer_key(model: Model, opts):
    for kind in ("sns", "events", "s3"):
        for d, q, res in _deliveries(model, kind):
            if res is not None:
                yield res
                continue
            got = key_allows(q.res, "kms_master_key_id", "sqs", d.service, model.documents, model.resolve, model.plan)
            attrs = ((q.address, "kms_master_key_id"),) + (((got.key.address, "policy"),) if got.key else ())
            if got.verdict is True:
                yield ok(d.address, f"queue {q.address}: {got.what}", ref=got.ref)
            elif got.verdict is UNKNOWN:
                yield unknown(d.address, f"whether {service_name(d.service)} may use the key of queue {q.address} "
                                         f"cannot be told: {got.what}", ref=got.ref, attrs=attrs)
            else:
                yield fail(d.address, f"{service_name(d.service)} cannot deliver to queue {q.address}: {got.what}, so "
                                      "every message is refused", ref=got.ref, attrs=attrs)


@rule("PRD009", "alarm-topic-key", "error", "producers",
      "An alarm's SNS topic is encrypted with a key CloudWatch may use",
      why="""
CloudWatch publishes alarm notifications to SNS as cloudwatch.amazonaws.com. On a topic encrypted
with the AWS managed key alias/aws/sns it cannot (that key policy cannot be changed), and on a
customer managed key whose policy does not allow it kms:GenerateDataKey* and kms:Decrypt the
publish fails: the alarm fires and nobody is paged. Checked on each topic of the plan an alarm's
alarm_actions name.""",
      fix="Encrypt the alarm topic with a customer managed key whose key policy allows cloudwatch.amazonaws.com "
          "kms:GenerateDataKey* and kms:Decrypt (or leave it unencrypted).",
      sources=("cloudwatch-sns-encrypted", "sns-key-management"), attrs=("kms_master_key_id",))
def alarm_topic_key(model: Model, opts):
    plan_topics = [t for t in model.plan.of_type("aws_sns_topic") if t.mode == "managed"]
    if not plan_topics:
        return  # no topic of the plan for an alarm to notify
    by_name: dict = {}
    for t in plan_topics:
        by_name.setdefault(t.attr("name"), []).append(t)
    seen = set()
    for a in model.alarms:
        rv = model.resolve.value(a.res, "alarm_actions")
        acts = rv.value
        known = isinstance(acts, list) and all(isinstance(x, str) for x in acts)
        topics = [] if known else list(rv.linked("aws_sns_topic"))  # a known ARN is read as such
        for arn in acts if isinstance(acts, list) else ():
            if isinstance(arn, str) and ":sns:" in arn:
                topics += by_name.get(arn.rsplit(":", 1)[-1], [])
        for t in topics:
            if t.mode != "managed" or t.address in seen:
                continue
            seen.add(t.address)
            got = key_allows(t, "kms_master_key_id", "sns", CLOUDWATCH, model.documents, model.resolve, model.plan)
            attrs = ((t.address, "kms_master_key_id"),) + (((got.key.address, "policy"),) if got.key else ())
            if got.verdict is True:
                yield ok(t.address, f"alarm topic (of {a.address}): {got.what}", ref=got.ref)
            elif got.verdict is UNKNOWN:
                yield unknown(t.address, f"whether CloudWatch may publish to alarm topic {t.address} cannot be told: "
                                         f"{got.what}", ref=got.ref, attrs=attrs)
            else:
                yield fail(t.address, f"CloudWatch cannot publish the notifications of {a.address} to {t.address}: "
                                      f"{got.what}, so the alarm pages nobody", ref=got.ref, attrs=attrs)


# ------------------------------------------------------------------------------------------
# senders acting through a role
# ------------------------------------------------------------------------------------------
@rule("PRD010", "sender-role-may-send", "error", "producers",
      "The role of a Lambda destination, Scheduler schedule, pipe or API Gateway integration may sqs:SendMessage",
      why="""
A Lambda function's on-failure (or on-success) destination and dead-letter queue, an EventBridge
Scheduler schedule, an EventBridge pipe and an API Gateway SQS-SendMessage integration send to the
queue with an IAM role's permissions (the function's execution role, the schedule's, pipe's or
integration's role). Without sqs:SendMessage on that queue every send fails: the failed invocation's
record, the scheduled event, the request is lost. Read from the role's inline policies,
aws_iam_role_policy resources and attached policies of the plan (AmazonSQSFullAccess allows it); a
role or policy outside the plan is unknown, naming it.""",
      fix="Allow sqs:SendMessage on the queue's ARN in a policy of the role that sends (the function's execution role, "
          "the schedule's, pipe's or integration's role).",
      sources=("sqs-api-permissions", "lambda-sqs"))
def sender_role(model: Model, opts):
    for s in model.senders:
        q = s.queue.one
        if q is None:
            if not s.queue.external:
                yield unknown(s.address, f"which queue the {s.what} is cannot be told: {s.queue.unknown_reason}")
            continue
        if s.role is None:
            yield unknown(s.address, f"whether it may send to {q.address} cannot be told: {s.role_why}")
            continue
        docs, managed, unread = role_documents(s.role, model.documents, model.resolve, model.plan)
        if managed:
            yield ok(s.address, f"role {s.role.address} has {managed[0]}, which allows sqs:SendMessage on {q.address}")
            continue
        got, where = may_send(docs, q, model.resolve)
        if got is True:
            yield ok(s.address, f"role {s.role.address} may sqs:SendMessage on {q.address} ({where})")
        elif got is UNKNOWN or unread:
            why = where or f"{unread[0]} is not in this plan"
            yield unknown(s.address, f"whether role {s.role.address} may sqs:SendMessage on {q.address} cannot be "
                                     f"told: {why}")
        else:
            yield fail(s.address, f"the {s.what} is {q.address}, but role {s.role.address} may not sqs:SendMessage on "
                                  "it: every send fails and what it carries is lost",
                       f"Allow sqs:SendMessage on {q.address}'s ARN in a policy of {s.role.address}.",
                       attrs=((s.role.address, "inline_policy"),))
