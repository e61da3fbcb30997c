"""What an applied stack holds, found from its state (not configured by the user).

The linking is the plan checker's (``resilient_sqs.policy.model``): the state of
``terraform show -json`` has the same ``values`` shape as a plan's ``planned_values``, and
the plan made before the apply gives the configuration (references, provider settings). So
the model is built from ``{"configuration": <plan's>, "planned_values": <state's values>}``:
every value known, every link the checker makes (redrive policy to DLQ, alarm dimension to
queue in its region and account, event source mapping to function, claim-check bucket to
queues, idempotency tables by the checker's ``table_pattern``).
"""
from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from resilient_sqs.facts import IDEMPOTENCY_TABLE_PATTERN
from resilient_sqs.policy.graph import Plan
from resilient_sqs.policy.model import Model, Queue

from .stack import state_resources

TABLE_PATTERN = re.compile(IDEMPOTENCY_TABLE_PATTERN)  # the plan checker's default table_pattern (DDB rules)
DEPTH_METRICS = {"ApproximateNumberOfMessagesVisible"}
AGE_METRIC = "ApproximateAgeOfOldestMessage"


@dataclass
class QueueInfo:
    name: str
    url: str | None
    arn: str | None
    address: str
    fifo: bool
    visibility: int
    retention: int
    region: str | None
    account: str | None


@dataclass
class AlarmInfo:
    name: str
    address: str
    metric: str
    queue_name: Any  # the QueueName dimension it watches
    period: int
    evaluation_periods: int
    datapoints: int
    threshold: float
    comparison: str
    statistic: str | None
    actions: list[str]
    region: str | None
    account: str | None
    why_not: str | None = None  # set when it does not watch this pair's DLQ (wrong name, region, account)
    actions_enabled: bool = True


@dataclass
class Consumer:
    address: str
    function: str | None
    timeout: int | None
    why_unknown: str | None = None


@dataclass
class Pair:
    """A source queue (not itself a DLQ) with what the stack links to it."""

    queue: QueueInfo
    dlq: QueueInfo | None
    max_receive_count: int | None
    redrive_allow: dict | None  # the DLQ's redrive-allow policy
    alarms: list[AlarmInfo] = field(default_factory=list)  # DLQ depth alarms watching the DLQ
    stray_alarms: list[AlarmInfo] = field(default_factory=list)  # meant for this DLQ (by name/module), watching another
    age_alarms: list[AlarmInfo] = field(default_factory=list)
    consumers: list[Consumer] = field(default_factory=list)
    buckets: list[dict] = field(default_factory=list)  # {"name", "address"}
    module_queue_key: str | None = None  # this project's module: the key of `queues`
    producers: list[dict] = field(default_factory=list)  # SNS, EventBridge, S3 wired to the queue (see producers())
    policy: dict | None = None  # the queue's resource policy (JSON), from the queue or an aws_sqs_queue_policy
    kms_key: str | None = None  # kms_master_key_id
    max_message_size: int = 262144

    @property
    def name(self) -> str:
        return self.queue.name

    # -- the fixture API ------------------------------------------------------------------
    def setting(self, what: str) -> str:
        """Where the user changes ``what`` (max_receive_count, visibility_timeout_seconds,
        dlq, redrive_allow, message_retention_seconds) in their configuration."""
        if self.module_queue_key is not None:
            key = json.dumps(self.module_queue_key)
            return {
                "max_receive_count": f"queues[{key}].max_receive_count",
                "dlq": f"queues[{key}] (the module creates a DLQ unless dlq_arn/create_dlq say otherwise)",
                "redrive_allow": f"queues[{key}].dlq_redrive_allow_policy",
                "visibility_timeout_seconds": f"queues[{key}].visibility_timeout_seconds (or consumer.timeout_seconds)",
                "dlq_message_retention_seconds": f"queues[{key}].dlq_message_retention_seconds",
                "policy": f"queues[{key}].queue_policy_statements (a statement allowing sqs:SendMessage to the "
                          "producer's service principal with aws:SourceArn)",
                "dlq_alarm": "alarms (kinds includes \"dlq_depth\", its threshold in alarms.thresholds; notified "
                             "through alarms.sns_topic_arn or alarms.create_sns_topic)",
            }.get(what, f"queues[{key}].{what}")
        addr = self.queue.address
        dlq_addr = self.dlq.address if self.dlq else addr
        return {
            "max_receive_count": f"{addr}: redrive_policy maxReceiveCount",
            "dlq": f"{addr}: redrive_policy (deadLetterTargetArn, maxReceiveCount)",
            "redrive_allow": f"{dlq_addr}: redrive_allow_policy",
            "visibility_timeout_seconds": f"{addr}: visibility_timeout_seconds",
            "dlq_message_retention_seconds": f"{dlq_addr}: message_retention_seconds",
            "policy": f"{addr}: policy (or its aws_sqs_queue_policy): allow sqs:SendMessage to the producer's service "
                      "principal with aws:SourceArn",
            "dlq_alarm": (f"an aws_cloudwatch_metric_alarm on AWS/SQS ApproximateNumberOfMessagesVisible with "
                          f"dimensions {{ QueueName = {self.dlq.name if self.dlq else '<the DLQ>'} }}, threshold 0, "
                          "GreaterThanThreshold, alarm_actions = [an SNS topic someone is subscribed to]"),
        }.get(what, f"{addr}: {what}")

    def expect(self, **wanted: Any) -> None:
        """Assert settings of the applied pair, e.g. ``pair.expect(max_receive_count=5)``; a
        difference fails naming the queue, what the stack has and the setting to change."""
        have = {
            "max_receive_count": self.max_receive_count,
            "fifo": self.queue.fifo,
            "visibility_timeout_seconds": self.queue.visibility,
            "message_retention_seconds": self.queue.retention,
            "dlq_message_retention_seconds": self.dlq.retention if self.dlq else None,
            "has_dlq": self.dlq is not None,
        }
        wrong = []
        for k, v in wanted.items():
            if k not in have:
                raise TypeError(f"expect(): unknown setting {k!r}; known: {', '.join(sorted(have))}")
            if have[k] != v:
                wrong.append(f"{k} is {have[k]!r}, expected {v!r} (change {self.setting(k if k != 'has_dlq' else 'dlq')})")
        if wrong:
            raise AssertionError(f"queue {self.name}: " + "; ".join(wrong))


@dataclass
class Table:
    name: str
    address: str
    hash_key: str | None
    ttl_attribute: str | None
    ttl_enabled: bool | None


@dataclass
class Discovery:
    pairs: list[Pair]
    tables: list[Table]
    dlqs: list[QueueInfo]
    notes: list[str] = field(default_factory=list)
    dropped_dimensions: list[str] = field(default_factory=list)  # alarms the endpoint read back without them

    def pair(self, name: str) -> Pair:
        """The pair whose source queue is ``name``, or the only one whose name ends with ``name``."""
        exact = [p for p in self.pairs if p.name == name]
        if exact:
            return exact[0]
        found = [p for p in self.pairs if p.name.endswith(name) or p.name.removesuffix(".fifo").endswith(name)]
        if len(found) == 1:
            return found[0]
        names = ", ".join(p.name for p in self.pairs) or "none"
        raise KeyError(f"{'several' if found else 'no'} queue pair named {name!r} in the stack (source queues: {names})")


def model_from(plan: dict | None, state: dict) -> Model:
    """The plan checker's model over the applied state (configuration from the plan)."""
    doc = {
        "format_version": (plan or {}).get("format_version", "1.2"),
        "terraform_version": state.get("terraform_version"),
        "configuration": (plan or {}).get("configuration") or {},
        "variables": (plan or {}).get("variables") or {},
        "planned_values": state.get("values") or {},
        "resource_changes": [],
    }
    return Model(Plan(doc))


def _int(v: Any, default: int) -> int:
    try:
        return int(v)
    except (TypeError, ValueError):
        return default


def _queue_info(q: Queue) -> QueueInfo:
    v = q.res.values
    return QueueInfo(
        name=q.name, url=v.get("url") or v.get("id"), arn=v.get("arn"), address=q.address, fifo=bool(q.fifo),
        visibility=_int(v.get("visibility_timeout_seconds"), 30), retention=_int(v.get("message_retention_seconds"), 345600),
        region=q.region, account=q.account,
    )


def _alarm_info(a, metric: str, why_not: str | None = None) -> AlarmInfo:
    v = a.res.values
    dims = v.get("dimensions") or {}
    arn = v.get("arn") or ""
    parts = arn.split(":")
    return AlarmInfo(
        name=v.get("alarm_name"), address=a.address, metric=metric, queue_name=dims.get("QueueName"),
        period=_int(v.get("period"), 60), evaluation_periods=_int(v.get("evaluation_periods"), 1),
        datapoints=_int(v.get("datapoints_to_alarm"), _int(v.get("evaluation_periods"), 1)),
        threshold=float(v.get("threshold") or 0), comparison=v.get("comparison_operator") or "GreaterThanThreshold",
        statistic=v.get("statistic"), actions=list(v.get("alarm_actions") or []),
        region=parts[3] if len(parts) > 4 else None, account=parts[4] if len(parts) > 4 else None, why_not=why_not,
        actions_enabled=v.get("actions_enabled") is not False,
    )


_MODULE_QUEUE = re.compile(r'^(?P<parent>(?:module\.[^.\[]+(?:\["[^"]*"\]|\[\d+\])?\.)*)module\.queue\["(?P<key>[^"]+)"\]'
                           r'\.aws_sqs_queue\.(?:this|dlq)$')
_MODULE_STEP = re.compile(r'module\.([^.\[]+)(?:\["[^"]*"\]|\[\d+\])?\.')


def this_module_queue_key(address: str, configuration: dict | None) -> str | None:
    """The ``queues`` key when ``address`` is a queue this project's root module creates (its
    ``module "queue"`` call of ``./modules/queue``, in a module that takes ``queues``), else None:
    an in-house module that happens to call a module "queue" is not this one, and its fixes name
    the resource's own attributes."""
    m = _MODULE_QUEUE.match(address)
    if not m:
        return None
    mod = (configuration or {}).get("root_module") or {}
    for name in _MODULE_STEP.findall(m.group("parent")):
        mod = ((mod.get("module_calls") or {}).get(name) or {}).get("module") or {}
    call = (mod.get("module_calls") or {}).get("queue") or {}
    source = str(call.get("source", "")).rstrip("/")
    if source.endswith("modules/queue") and "queues" in (mod.get("variables") or {}) \
            and "account_id" in (mod.get("variables") or {}):
        return m.group("key")
    return None


def discover(plan: dict | None, state: dict, tables: list[str] | None = None) -> Discovery:
    """``tables``: names of idempotency tables the user names (others are found by the table pattern)."""
    model = model_from(plan, state)
    named = set(tables or [])
    notes: list[str] = []
    pairs: list[Pair] = []
    for q in model.queues:
        if q.is_dlq:
            continue
        dlq = q.dlq if isinstance(q.dlq, Queue) else None
        if q.redrive is not None and dlq is None:
            notes.append(f"{q.name}: its redrive policy names a DLQ that is not in the stack "
                         f"({q.redrive.link.external or q.redrive.link.unknown_reason}); its scenarios use it by ARN where they can")
        mrc = q.redrive.max_receive_count if q.redrive is not None else None
        mrc = mrc if isinstance(mrc, int) else None
        allow = dlq.allow_value() if dlq is not None else None
        pair = Pair(queue=_queue_info(q), dlq=_queue_info(dlq) if dlq else None, max_receive_count=mrc,
                    redrive_allow=allow if isinstance(allow, dict) else None,
                    module_queue_key=this_module_queue_key(q.address, (plan or {}).get("configuration")))
        if dlq is not None:
            for a in dlq.alarms:
                for metric, watched in a.metrics:
                    if watched is dlq and metric in DEPTH_METRICS:
                        pair.alarms.append(_alarm_info(a, metric))
                    elif watched is dlq and metric == AGE_METRIC:
                        pair.age_alarms.append(_alarm_info(a, metric))
            for a, metric in dlq.elsewhere_alarms:
                if metric in DEPTH_METRICS:
                    info = _alarm_info(a, metric)
                    info.why_not = (f"it watches QueueName={dlq.name} in region {info.region}, account {info.account}; "
                                    f"the DLQ is in region {dlq.region}, account {dlq.account}")
                    pair.stray_alarms.append(info)
        for e in q.esms:
            fn = e.function_link.one
            if fn is not None and hasattr(fn, "timeout"):
                t = fn.timeout()
                pair.consumers.append(Consumer(e.address, fn.res.attr("function_name"), t if isinstance(t, int) else None))
            else:
                pair.consumers.append(Consumer(e.address, e.res.attr("function_name"), None,
                                               e.function_link.unknown_reason or "the function is not in the stack"))
        for b in model.buckets:
            if b.claim_check and q in b.queues and isinstance(b.name, str):
                pair.buckets.append({"name": b.name, "address": b.address})
        pair.producers, pair.policy = producers(state_resources(state), pair.queue)
        pair.kms_key = q.res.values.get("kms_master_key_id") or None
        pair.max_message_size = _int(q.res.values.get("max_message_size"), 262144)
        pairs.append(pair)

    # alarms on SQS depth that watch no queue of the stack: attributed to the pair whose DLQ they
    # most resemble (by queue name, then alarm name), so the pair's check names them
    dlq_pairs = [p for p in pairs if p.dlq is not None]
    for a in model.alarms:
        if a.metrics or a.maybe:
            continue
        v = a.res.values
        if v.get("namespace") != "AWS/SQS" or v.get("metric_name") not in DEPTH_METRICS:
            continue
        qn = (v.get("dimensions") or {}).get("QueueName")
        if not isinstance(qn, str) or model.index.by_name.get(qn):
            continue
        best, score = None, 0.0
        for p in dlq_pairs:
            s = max(difflib.SequenceMatcher(None, qn, p.dlq.name).ratio(),
                    difflib.SequenceMatcher(None, v.get("alarm_name") or "", p.dlq.name).ratio())
            if a.res.module and a.res.module == p.dlq.address.rsplit(".aws_sqs_queue", 1)[0]:
                s += 0.5
            if s > score:
                best, score = p, s
        info = _alarm_info(a, v.get("metric_name"), why_not=f"it watches QueueName={qn}, a queue that does not exist")
        if best is not None and score >= 0.5:
            best.stray_alarms.append(info)
        else:
            notes.append(f"alarm {info.name} ({a.address}) watches QueueName={qn}, a queue that is not in the stack")

    found = []
    for t in model.tables:
        name = t.attr("name")
        if not isinstance(name, str):
            continue
        if not (name in named or TABLE_PATTERN.search(t.address) or TABLE_PATTERN.search(name)):
            notes.append(f"table {name} ({t.address}) is not checked as an idempotency table: neither its name nor its "
                         f"address matches {TABLE_PATTERN.pattern}; if it is one, name it with --idempotency-table "
                         f"{name} (pytest: --sqs-idempotency-table)")
            continue
        ttl = t.path("ttl", 0) or {}
        found.append(Table(name=name, address=t.address, hash_key=t.attr("hash_key"),
                           ttl_attribute=ttl.get("attribute_name") if isinstance(ttl, dict) else None,
                           ttl_enabled=ttl.get("enabled") if isinstance(ttl, dict) else None))
    dlqs = [_queue_info(q) for q in model.queues if q.is_dlq]
    dropped = _dropped_dimensions(plan, state)
    if dropped:
        notes.append(f"the endpoint read back alarm(s) {', '.join(dropped)} without their dimensions")
    missing = named - {t.name for t in found}
    if missing:
        notes.append(f"--idempotency-table {', '.join(sorted(missing))}: no such DynamoDB table in the applied stack "
                     f"(tables: {', '.join(sorted(str(t.attr('name')) for t in model.tables)) or 'none'})")
    return Discovery(pairs=sorted(pairs, key=lambda p: p.name), tables=found, dlqs=dlqs, notes=notes,
                     dropped_dimensions=dropped)


def producers(resources: list[dict], queue: QueueInfo) -> tuple[list[dict], dict | None]:
    """What the applied state wires to ``queue``: SNS subscriptions (protocol sqs), EventBridge rule
    targets and S3 bucket notifications whose target is the queue's ARN; and the queue's policy.

    Each producer: {"kind": "sns"|"events"|"s3", "address", "principal" (the service that sends), and
    topic_arn / rule, bus, pattern / bucket, events, prefix, suffix}."""
    out: list[dict] = []
    rules = {((r.get("values") or {}).get("event_bus_name") or "default", (r.get("values") or {}).get("name")): r
             for r in resources if r.get("type") == "aws_cloudwatch_event_rule"}
    policy_text = None
    for r in resources:
        v = r.get("values") or {}
        kind = r.get("type")
        if kind == "aws_sqs_queue" and v.get("arn") == queue.arn and v.get("policy"):
            policy_text = v.get("policy")
        elif kind == "aws_sqs_queue_policy" and v.get("queue_url") == queue.url:
            policy_text = v.get("policy")
        elif kind == "aws_sns_topic_subscription" and v.get("protocol") == "sqs" and v.get("endpoint") == queue.arn:
            out.append({"kind": "sns", "address": r["address"], "principal": "sns.amazonaws.com",
                        "source_arn": v.get("topic_arn"), "raw": bool(v.get("raw_message_delivery")),
                        "filter_policy": v.get("filter_policy") or None})
        elif kind == "aws_cloudwatch_event_target" and v.get("arn") == queue.arn:
            bus = v.get("event_bus_name") or "default"
            rule = rules.get((bus, v.get("rule")))
            rv = (rule or {}).get("values") or {}
            out.append({"kind": "events", "address": r["address"], "principal": "events.amazonaws.com",
                        "source_arn": rv.get("arn"), "rule": v.get("rule"), "bus": bus,
                        "pattern": rv.get("event_pattern"), "schedule": rv.get("schedule_expression") or None,
                        "message_group_id": (v.get("sqs_target") or [{}])[0].get("message_group_id")
                        if v.get("sqs_target") else None})
        elif kind == "aws_s3_bucket_notification":
            for qn in v.get("queue") or []:
                if qn.get("queue_arn") == queue.arn:
                    out.append({"kind": "s3", "address": r["address"], "principal": "s3.amazonaws.com",
                                "source_arn": f"arn:aws:s3:::{v.get('bucket')}", "bucket": v.get("bucket"),
                                "events": list(qn.get("events") or []), "prefix": qn.get("filter_prefix") or "",
                                "suffix": qn.get("filter_suffix") or ""})
    policy = None
    if isinstance(policy_text, str) and policy_text.strip():
        try:
            policy = json.loads(policy_text)
        except ValueError:
            policy = None
    return out, policy


def _dropped_dimensions(plan: dict | None, state: dict) -> list[str]:
    """Alarm names whose planned dimensions were known and non-empty but are empty in the state."""
    planned = {r["address"]: (r.get("values") or {}).get("dimensions")
               for r in state_resources({"values": (plan or {}).get("planned_values") or {}})
               if r.get("type") == "aws_cloudwatch_metric_alarm"}
    out = []
    for r in state_resources(state):
        v = r.get("values") or {}
        if r.get("type") == "aws_cloudwatch_metric_alarm" and not v.get("dimensions") and planned.get(r["address"]):
            out.append(str(v.get("alarm_name")))
    return out
