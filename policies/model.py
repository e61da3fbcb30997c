"""The messaging model the rules read: queues and their DLQs, consumers,
claim-check buckets, idempotency tables, alarms and policy documents, linked
from the plan graph."""
from __future__ import annotations

import json
import math
import re
from typing import Any

from . import iamdoc
from .graph import OPAQUE, UNKNOWN, Plan, Resource, Target, narrow
from .resolve import Resolver

AWS_DEFAULT_RETENTION = 345600  # SQS MessageRetentionPeriod when unset (4 days)
AWS_DEFAULT_VISIBILITY = 30
LAMBDA_DEFAULT_TIMEOUT = 3
ESM_DEFAULT_BATCH_SQS = 10

_UNSET = object()
_SQS_ARN = re.compile(r"^arn:([a-z-]+):sqs:([a-z0-9-]*):([0-9]*):(.+)$")
_LAMBDA_ARN = re.compile(r"^arn:([a-z-]+):lambda:([a-z0-9-]*):([0-9]*):function:([^:]+)(?::.+)?$")


def parse_sqs_arn(arn: Any) -> tuple[str | None, str | None, str] | None:
    """(region, account, name) of an SQS ARN, or None."""
    if not isinstance(arn, str):
        return None
    m = _SQS_ARN.match(arn)
    if not m:
        return None
    return (m.group(2) or None, m.group(3) or None, m.group(4))


def parse_sqs_url(url: Any) -> tuple[str | None, str | None, str] | None:
    """(region, account, name) of a queue URL such as https://sqs.us-east-1.amazonaws.com/123/name."""
    if not isinstance(url, str) or "://" not in url:
        return None
    rest = url.split("://", 1)[1]
    parts = rest.split("/")
    if len(parts) < 3 or not parts[-1]:
        return None
    host = parts[0]
    region = None
    m = re.match(r"^(?:sqs\.)?([a-z]{2}(?:-gov)?-[a-z]+-[0-9])\.", host)
    if m:
        region = m.group(1)
    return (region, parts[-2] or None, parts[-1])


def lambda_function_name(ref: Any) -> str | None:
    """The function name in a name, a partial ARN, a (qualified) ARN."""
    if not isinstance(ref, str) or not ref:
        return None
    m = _LAMBDA_ARN.match(ref)
    if m:
        return m.group(4)
    if ":function:" in ref:  # 123456789012:function:name[:alias]
        return ref.split(":function:", 1)[1].split(":", 1)[0]
    return ref.split(":", 1)[0]


def _pending_text():
    from .source import PendingText

    return PendingText


def show(v: Any) -> str:
    """A value quoted in a message: short, whatever its size."""
    try:
        text = repr(v) if not isinstance(v, (dict, list)) else json.dumps(v, default=str)
    except ValueError:  # an integer too long to print
        text = "a number too long to print"
    return text if len(text) <= 60 else text[:59] + "…"


class Invalid:
    """A planned value the AWS provider would not produce: the wrong type, not a finite
    number, or outside what AWS accepts. A rule that reads one reports it (a failing
    finding naming the attribute) instead of deciding on it or passing it silently."""

    __slots__ = ("what", "value", "expected")

    def __init__(self, what: str, value: Any, expected: str):
        self.what, self.value, self.expected = what, value, expected

    def __str__(self) -> str:
        return f"{self.what} is {show(self.value)}, not {self.expected}"

    def __repr__(self) -> str:
        return f"<Invalid {self}>"


def number(v: Any, what: str, lo: float | None = None, hi: float | None = None, integer: bool = True,
           unit: str = "") -> Any:
    """A numeric attribute as a rule may use it: the number, UNKNOWN, None (unset) or Invalid."""
    if v is UNKNOWN or v is None:
        return v
    of = f" of {'seconds' if unit == 's' else unit}" if unit else ""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return Invalid(what, v, ("a whole number" if integer else "a number") + of)
    if isinstance(v, float):
        if not math.isfinite(v):
            return Invalid(what, v, "a finite number" + of)
        if integer:
            if not v.is_integer():
                return Invalid(what, v, "a whole number" + of)
            v = int(v)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        rng = f"{lo:g}..{hi:g}" if lo is not None and hi is not None else (f">= {lo:g}" if lo is not None else f"<= {hi:g}")
        return Invalid(what, v, f"within {rng}{' ' + unit if unit else ''}, what AWS accepts")
    return v


def flag(v: Any, what: str) -> Any:
    """A boolean attribute: True, False, None (unset), UNKNOWN or Invalid."""
    if v is UNKNOWN or v is None or isinstance(v, bool):
        return v
    return Invalid(what, v, "true or false")


def str_list(v: Any, what: str) -> Any:
    """A list (or set) of strings: the list, None (unset), UNKNOWN or Invalid."""
    if v is UNKNOWN or v is None:
        return v
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        return Invalid(what, v, "a list of strings")
    return v


def invalid_of(*values: Any) -> Invalid | None:
    return next((v for v in values if isinstance(v, Invalid)), None)


def loads(text: str) -> Any:
    """JSON held in an attribute (a policy, a redrive policy): strict JSON, so NaN and
    Infinity, which no AWS API accepts, are errors rather than numbers. Raises ValueError."""
    return iamdoc.strict_loads(text)


def receive_count(v: Any) -> Any:
    """maxReceiveCount of a redrive policy: a whole number (SQS also accepts it as a
    decimal string), or Invalid. SQS accepts 1..1000."""
    if isinstance(v, str) and re.fullmatch(r"\s*[0-9]{1,9}\s*", v):
        v = int(v)
    got = number(v, "maxReceiveCount", 1, 1000)
    if v is None or (isinstance(got, Invalid) and not isinstance(v, (int, float))):
        # written by hand in the policy JSON (not typed by the provider): SQS refuses it
        return Invalid("maxReceiveCount", v, "a whole number within 1..1000, what SQS accepts")
    return got




class Link:
    """An outcome of following a link: the resources found, or why none could be."""

    __slots__ = ("items", "unknown_reason", "external", "candidates")

    def __init__(self, items=None, unknown_reason: str | None = None, external: str | None = None):
        self.items = items or []
        self.candidates = []  # when ambiguous: every resource it could be
        self.unknown_reason = unknown_reason
        self.external = external

    @property
    def one(self):
        return self.items[0] if len(self.items) == 1 else None


class Queue:
    def __init__(self, res: Resource, model: "Model"):
        self.res = res
        self.model = model
        self.address = res.address
        self.name = res.attr("name")
        fifo = flag(res.attr("fifo_queue"), "fifo_queue")
        if fifo is None and isinstance(self.name, str):
            fifo = self.name.endswith(".fifo")
        self.fifo = fifo
        # where it lives: known strings from its ARN or URL, else its provider configuration's
        # region and account (known strings or tokens that compare equal when shared)
        region, account = model.plan.resource_location(res)
        self.provider_place = (region, account)  # of its provider configuration (tokens where not shown)
        self.region = region if isinstance(region, str) else None
        self.account = account if isinstance(account, str) else None
        for attr, parse in (("arn", parse_sqs_arn), ("url", parse_sqs_url), ("id", parse_sqs_url)):
            got = parse(res.values.get(attr))
            if got:
                region, account = got[0] or region, got[1] or account
                self.region, self.account = got[0] or self.region, got[1] or self.account
                break
        self.location = (region, account)
        self.redrive_res = res  # where the redrive policy comes from
        self.redrive_attr = "redrive_policy"
        self.allow_res = res
        self.allow_attr = "redrive_allow_policy"
        self.policy_sources: list[tuple[Resource, str]] = []
        self.dlq: Queue | None = None
        self.dlq_link: Link | None = None  # None: no redrive policy at all
        self.max_receive_count: Any = None
        self.redrive_error: str | None = None
        self.redrive_ref = None  # SourceRef when the redrive policy was read from source
        self.redrive_why: str | None = None  # why maxReceiveCount stays unknown, from source
        self._allow: Any = _UNSET
        self.allow_ref = None
        self.allow_why: str | None = None
        self.sources: list[Queue] = []
        self.service_dlq_of: list[tuple[str, str]] = []  # (address, what) of other services it is the DLQ of
        self.maybe: list[tuple[str, str]] = []  # (kind, why) of separate resources that may target it
        self.esms: list[ESM] = []
        self.alarms: list[Alarm] = []
        self.maybe_alarms: list[tuple[Alarm, str]] = []  # alarms on its name whose region/account may differ
        self._retention: Any = _UNSET
        self.elsewhere_alarms: list[tuple[Alarm, str]] = []  # (alarm, metric) on its name in another region/account

    def __repr__(self):
        return f"<Queue {self.address}>"

    @property
    def is_dlq(self) -> bool:
        if self.sources or self.service_dlq_of:
            return True
        allow = self.allow_value()
        if isinstance(allow, dict):
            return allow.get("redrivePermission") in ("byQueue", "allowAll")
        return False

    def retention(self):
        got = self._retention
        if got is _UNSET:
            v = self.res.attr("message_retention_seconds")
            got = self._retention = number(AWS_DEFAULT_RETENTION if v is None else v, "message_retention_seconds",
                                           60, 1209600, unit="s")
        return got

    def visibility(self):
        v = self.res.attr("visibility_timeout_seconds")
        return number(AWS_DEFAULT_VISIBILITY if v is None else v, "visibility_timeout_seconds", 0, 43200, unit="s")

    def wait_time(self):
        v = self.res.attr("receive_wait_time_seconds")
        return number(0 if v is None else v, "receive_wait_time_seconds", 0, 20, unit="s")

    def encryption(self):
        """'SSE-KMS', 'SSE-SQS', None (explicitly off or unset), UNKNOWN or Invalid."""
        kms = self.res.attr("kms_master_key_id")
        if isinstance(kms, str) and kms.strip():
            return "SSE-KMS"
        if kms is UNKNOWN:
            # a reference to a KMS key of the plan: SSE-KMS, the key ARN comes at apply
            for t in self.model.plan.expr_targets(self.res, "kms_master_key_id"):
                if t.res is not None and t.res.type in ("aws_kms_key", "aws_kms_alias", "aws_kms_replica_key"):
                    return "SSE-KMS"
            # through locals, try()/coalesce(), a condition: the configuration source says
            kms = self.model.resolve.value(self.res, "kms_master_key_id").scalar()
            if kms is UNKNOWN or (kms is not None and not isinstance(kms, str)):
                return UNKNOWN
            if kms:
                return "SSE-KMS"
        if kms is not None and not isinstance(kms, str):
            return Invalid("kms_master_key_id", kms, "a KMS key ID, ARN or alias")
        sse = self.res.attr("sqs_managed_sse_enabled")
        if sse is UNKNOWN:
            sse = self.model.resolve.value(self.res, "sqs_managed_sse_enabled").scalar()
        sse = flag(sse, "sqs_managed_sse_enabled")
        if sse is True:
            return "SSE-SQS"
        if sse is UNKNOWN or isinstance(sse, Invalid):
            return sse
        return None

    def allow_raw(self):
        return self.allow_res.attr(self.allow_attr)

    def allow_value(self):
        """The redrive-allow policy: a dict, None (none), UNKNOWN, or "invalid"."""
        if self._allow is _UNSET:
            self._allow = self._allow_value()
        return self._allow

    def _allow_value(self):
        raw = self.allow_raw()
        if raw is UNKNOWN:
            got = self.model.resolve.value(self.allow_res, self.allow_attr).json()
            if got is not None:
                value, self.allow_ref, self.allow_why = got
                if value is not UNKNOWN:
                    return value if isinstance(value, dict) else "invalid"
            return UNKNOWN
        if raw is None:
            return None
        try:
            v = loads(raw) if isinstance(raw, str) else None
        except ValueError:
            return "invalid"
        return v if isinstance(v, dict) else "invalid"

    def arn_matches(self, arn_tuple) -> bool:
        region, account, name = arn_tuple
        if name != self.name:
            return False
        if region and self.region and region != self.region:
            return False
        if account and self.account and account != self.account:
            return False
        return True


def parse_arn(arn: Any) -> tuple[str | None, str | None] | None:
    """(region, account) of any ARN, or None."""
    if not isinstance(arn, str):
        return None
    m = re.match(r"^arn:[a-z-]+:[a-z0-9-]+:([a-z0-9-]*):([0-9]*):", arn)
    return (m.group(1) or None, m.group(2) or None) if m else None


def _place_difference(a: tuple, b: tuple) -> str:
    parts = []
    for what, x, y in (("region", a[0], b[0]), ("account", a[1], b[1])):
        if x != y or x is None:
            parts.append(what)
    return (f"its {' and '.join(parts) or 'location'} may differ from the queue's "
            "(another provider configuration, not known from the plan)")


def place_mismatch(a: tuple, b: tuple) -> str | None:
    """How two (region, account) locations known to differ differ ("region eu-west-1, not
    us-east-1"), for a message; None when they do not differ in a known value."""
    parts = []
    for what, x, y in (("region", a[0], b[0]), ("account", a[1], b[1])):
        if isinstance(x, str) and isinstance(y, str) and x != y:
            parts.append(f"{what} {x}, not {y}")
    return " and ".join(parts) or None


def same_place(a: tuple, b: tuple, providers: tuple | None = None):
    """Whether two (region, account) locations are the same: True, False, or UNKNOWN.
    ``providers``: the two resources' provider-configuration places; resources of one
    provider configuration are in one place even when only one of them has a known ARN
    (an existing queue beside a new one in an update plan)."""
    if a == b:
        return True
    if providers is not None and providers[0] == providers[1] and providers[0] != (None, None):
        return place_mismatch(a, b) is None
    verdict = True
    for x, y in zip(a, b):
        if x == y:  # the same value, the same provider setting, or neither shown
            continue
        if x is None or y is None:
            verdict = UNKNOWN
        elif isinstance(x, str) and isinstance(y, str):
            return False
        else:
            verdict = UNKNOWN
    return verdict


class Function:
    """A Lambda function found in the plan (managed or data source)."""

    def __init__(self, res: Resource):
        self.res = res
        self.address = res.address

    def timeout(self):
        v = self.res.attr("timeout")
        return number(LAMBDA_DEFAULT_TIMEOUT if v is None else v, "timeout", 1, 900, unit="s")


class ESM:
    def __init__(self, res: Resource):
        self.res = res
        self.address = res.address
        self.queue_link: Link = Link()
        self.function_link: Link = Link()
        self.function_label = None

    def batching_window(self):
        v = self.res.attr("maximum_batching_window_in_seconds")
        return number(0 if v is None else v, "maximum_batching_window_in_seconds", 0, 300, unit="s")

    def batch_size(self):
        v = self.res.attr("batch_size")
        return number(ESM_DEFAULT_BATCH_SQS if v is None else v, "batch_size", 1, 10000)

    def response_types(self):
        return str_list(self.res.attr("function_response_types"), "function_response_types")

    def maximum_concurrency(self):
        return number(self.res.path("scaling_config", 0, "maximum_concurrency"), "scaling_config.maximum_concurrency", 2, 1000)


class Alarm:
    def __init__(self, res: Resource):
        self.res = res
        self.address = res.address
        self.metrics: list[tuple[str, Any]] = []  # (metric name, queue it watches)
        self.maybe: list[tuple[str, Any, str]] = []  # (metric name, queue, why it may be another queue)
        self.queues: list[Queue] = []
        self.unresolved = False

    def threshold(self):
        return number(self.res.attr("threshold"), "threshold", integer=False)


class Bucket:
    def __init__(self, res: Resource):
        self.res = res
        self.address = res.address
        self.name = res.attr("bucket")
        self.sse: list[Resource] = []
        self.pab: list[Resource] = []
        self.policies: list[tuple[Resource, str]] = []
        self.lifecycles: list[Resource] = []
        self.queues: list[Queue] = []  # queues whose payloads it holds (claim check)
        self.claim_check = False


# (resource type, attribute path, what) of the places another service names a queue
# as its dead-letter queue or on-failure destination
SERVICE_DLQS = (
    ("aws_sns_topic_subscription", ("redrive_policy",), "dead-letter queue of the SNS subscription"),
    ("aws_lambda_function", ("dead_letter_config", 0, "target_arn"), "dead-letter queue of the Lambda function"),
    ("aws_lambda_function_event_invoke_config", ("destination_config", 0, "on_failure", 0, "destination"),
     "on-failure destination of the Lambda function"),
    ("aws_lambda_event_source_mapping", ("destination_config", 0, "on_failure", 0, "destination_arn"),
     "on-failure destination of the event source mapping"),
    ("aws_cloudwatch_event_target", ("dead_letter_config", 0, "arn"), "dead-letter queue of the EventBridge target"),
    ("aws_scheduler_schedule", ("target", 0, "dead_letter_config", 0, "arn"), "dead-letter queue of the EventBridge schedule"),
)

POLICY_ATTRS = {
    "aws_iam_policy": "policy",
    "aws_iam_role_policy": "policy",
    "aws_iam_user_policy": "policy",
    "aws_iam_group_policy": "policy",
    "aws_sqs_queue": "policy",
    "aws_sqs_queue_policy": "policy",
    "aws_s3_bucket_policy": "policy",
    "aws_s3_bucket": "policy",
    "aws_sns_topic_policy": "policy",
}


# attachments of managed policies: (resource type, attribute holding the policy ARN(s))
ATTACHMENTS = (
    ("aws_iam_role_policy_attachment", "policy_arn"), ("aws_iam_user_policy_attachment", "policy_arn"),
    ("aws_iam_group_policy_attachment", "policy_arn"), ("aws_iam_policy_attachment", "policy_arn"),
    ("aws_iam_role", "managed_policy_arns"), ("aws_iam_role_policy_attachments_exclusive", "policy_arns"),
)


class PolicyDoc:
    """A policy document as evaluated by the IAM rules (one per resource that carries it)."""

    def __init__(self, address: str, doc: iamdoc.Document | None, unknown_reason: str | None = None,
                 error: str | None = None, via: str | None = None, ref=None):
        self.address = address
        self.doc = doc
        self.unknown_reason = unknown_reason
        self.error = error
        self.via = via
        # SourceRef when the document (or what it says) was read from the configuration source
        self.ref = ref if ref is not None else (doc.ref if doc is not None else None)


class Model:
    def __init__(self, plan: Plan, source=None):
        self.plan = plan
        self.source = source  # source.Source: values the plan leaves unknown, read from the configuration
        self.resolve = Resolver(plan, source)  # every link asks it (see resolve.py)
        self.default_region = plan.region()
        self.queues: list[Queue] = [Queue(r, self) for r in plan.of_type("aws_sqs_queue") if r.mode == "managed"]
        self.queue_by_res = {q.res.address: q for q in self.queues}
        self.queues_by_name: dict[str, list[Queue]] = {}
        for q in self.queues:
            if q.region is None and q.res.config is None and self.default_region:
                q.region = self.default_region
            if isinstance(q.name, str):
                self.queues_by_name.setdefault(q.name, []).append(q)
        self._doc_cache: dict[str, iamdoc.Document | None] = {}
        self._docs_memo: dict[tuple, PolicyDoc | None] = {}
        self._consumed_docs: set[str] = set()
        # separate queue policy / redrive / redrive-allow resources whose queue is not
        # one of the plan's queues (an existing queue by URL) or cannot be told: their
        # content is still evaluated, on their own address
        self.unattached: list[tuple[str, Resource, Link]] = []
        # (address, what) of other services' DLQ settings whose queue the plan does not
        # show (through a local value): any queue without a DLQ of its own may be theirs
        self.unresolved_service_dlqs: list[tuple[str, str]] = []
        self._attach_queue_resources()
        for q in self.queues:
            self._link_redrive(q)
        self._link_service_dlqs()
        self.functions_by_name: dict[str, list[Function]] = {}
        self.functions: dict[str, Function] = {}
        for r in self.plan.of_type("aws_lambda_function"):
            f = self.functions[r.address] = Function(r)
            n = r.attr("function_name")
            if isinstance(n, str):
                self.functions_by_name.setdefault(n, []).append(f)
        self.esms = [self._esm(r) for r in plan.of_type("aws_lambda_event_source_mapping") if r.mode == "managed"]
        self.esms = [e for e in self.esms if e is not None]
        self.alarms = [self._alarm(r) for r in plan.of_type("aws_cloudwatch_metric_alarm") if r.mode == "managed"]
        self.buckets = self._buckets()
        self.tables = [r for r in plan.of_type("aws_dynamodb_table") if r.mode == "managed"]
        self._policy_docs: list[PolicyDoc] | None = None

    # -- queue identity ---------------------------------------------------------------
    def queue_for_arn(self, arn: Any) -> list[Queue]:
        got = parse_sqs_arn(arn)
        if not got:
            return []
        return [q for q in self.queues_by_name.get(got[2], ()) if q.arn_matches(got) or q.res.attr("arn") == arn]

    def queue_for_url(self, url: Any) -> list[Queue]:
        got = parse_sqs_url(url)
        if not got:
            return []
        return [q for q in self.queues_by_name.get(got[2], ()) if q.arn_matches(got)]

    def queues_in(self, targets: list[Target], referrer: Resource, exclude: Queue | None = None) -> list[Queue]:
        res = []
        seen = set()
        for t in targets:
            if t.res is not None and t.res.type == "aws_sqs_queue" and t.res.address not in seen:
                q = self.queue_by_res.get(t.res.address)
                if q is not None and q is not exclude:
                    seen.add(t.res.address)
                    res.append(q.res)
        return [self.queue_by_res[r.address] for r in narrow(res, referrer)]

    def _queue_of_url_attr(self, res: Resource, attr: str) -> Link:
        """The queue an aws_sqs_queue_* resource's queue_url designates."""
        rv = self.resolve.value(res, attr)
        url = rv.value
        if isinstance(url, str):
            found = self.queue_for_url(url)
            if len(found) == 1:
                return Link(found)
            if not found:
                return Link(external=url)
        found = self.queues_in(rv.targets, res)
        if len(found) != 1 and url is UNKNOWN:
            q = self._queue_of(rv.pending(("id", "url")))
            if q is not None:
                return Link([q])
        if len(found) == 1:
            return Link(found)
        if found:
            link = Link(unknown_reason=f"{res.address} {attr} could designate any of {len(found)} queues")
            link.candidates = found
            return link
        return Link(unknown_reason=f"{attr} is only known after apply and its references lead to no queue in the plan")

    def _attach_queue_resources(self):
        """Attach separate redrive / redrive-allow / policy resources to their queue.
        One whose queue cannot be told apart among several is recorded on each
        candidate as ``maybe``; one whose queue cannot be resolved at all (built from
        a local value, e.g. ``for_each`` over a local map) on every queue of the plan:
        rules then say "unknown" rather than "missing"."""
        for typ, kind in (("aws_sqs_queue_redrive_policy", "redrive"), ("aws_sqs_queue_redrive_allow_policy", "allow"),
                          ("aws_sqs_queue_policy", "policy")):
            for r in self.plan.of_type(typ):
                if r.mode != "managed":
                    continue
                link = self._queue_of_url_attr(r, "queue_url")
                q = link.one
                candidates = link.candidates
                if q is None and not candidates and not link.external:
                    candidates = self.queues
                    link.unknown_reason = f"{r.address} targets a queue that cannot be told from the plan " \
                                          f"({link.unknown_reason})"
                for c in candidates:
                    c.maybe.append((kind, link.unknown_reason))
                if q is None:
                    self.unattached.append((kind, r, link))
                    continue
                if kind == "redrive":
                    q.redrive_res, q.redrive_attr = r, "redrive_policy"
                elif kind == "allow":
                    q.allow_res, q.allow_attr = r, "redrive_allow_policy"
                else:
                    q.policy_sources.append((r, "policy"))
        for q in self.queues:
            if not q.policy_sources or q.res.configured("policy"):
                q.policy_sources.insert(0, (q.res, "policy"))

    def redrive_of(self, res: Resource, attr: str = "redrive_policy") -> tuple[Any, Any, str | None]:
        """(maxReceiveCount, deadLetterTargetArn, error) of a known redrive policy JSON;
        (UNKNOWN, None, None) when only known after apply; (None, None, None) when unset."""
        raw = res.attr(attr)
        if raw is None:
            return None, None, None
        if raw is UNKNOWN:
            return UNKNOWN, None, None
        try:
            pol = loads(raw) if isinstance(raw, str) else raw
            if not isinstance(pol, dict):
                raise ValueError(f"a JSON {type(pol).__name__}, not an object")
        except ValueError as e:
            return None, None, f"{attr} is not a JSON object ({show(str(e))})"
        arn = pol.get("deadLetterTargetArn")
        if not isinstance(arn, str) or not arn:
            return receive_count(pol.get("maxReceiveCount")), None, f"{attr} has no deadLetterTargetArn"
        return receive_count(pol.get("maxReceiveCount")), arn, None

    def _link_redrive(self, q: Queue):
        rv = self.resolve.value(q.redrive_res, q.redrive_attr)
        raw = rv.value
        if raw is None:
            q.dlq_link = None
            return
        if raw is UNKNOWN and self._redrive_from_source(q, rv):
            pass
        elif raw is UNKNOWN:
            q.max_receive_count = UNKNOWN
            targets = rv.targets
            found = self.queues_in(targets, q.redrive_res, exclude=q)
            if len(found) == 1:
                q.dlq_link = Link(found)
            elif found:
                q.dlq_link = Link(unknown_reason=(
                    f"its redrive policy is only known after apply and could name any of {len(found)} queues "
                    f"({', '.join(x.address for x in found[:3])}{', …' if len(found) > 3 else ''})"))
            elif any(t is OPAQUE for t in targets):
                q.dlq_link = Link(unknown_reason="its redrive policy is only known after apply and is built from a local value the plan does not describe")
            else:
                q.dlq_link = Link(unknown_reason="its redrive policy is only known after apply and references no queue in the plan")
        else:
            mrc, arn, err = self.redrive_of(q.redrive_res, q.redrive_attr)
            q.max_receive_count = mrc
            if err:
                q.redrive_error = err
                q.dlq_link = Link(unknown_reason=err)
                return
            found = [x for x in self.queue_for_arn(arn) if x is not q]
            if len(found) == 1:
                q.dlq_link = Link(found)
            elif found:
                found = [self.queue_by_res[r.address] for r in narrow([x.res for x in found], q.redrive_res)]
                q.dlq_link = Link(found) if len(found) == 1 else Link(
                    unknown_reason=f"deadLetterTargetArn {show(arn)} matches {len(found)} queues in the plan")
            else:
                q.dlq_link = Link(external=arn)
        dlq = q.dlq_link.one if q.dlq_link else None
        if dlq is not None:
            q.dlq = dlq
            dlq.sources.append(q)

    # -- other services' dead-letter queues ---------------------------------------------------
    def _link_service_dlqs(self):
        """Queues that serve as the dead-letter queue (or on-failure destination) of an
        SNS subscription, a Lambda function, an asynchronous invocation configuration,
        an event source mapping, an EventBridge rule target or schedule, or a pipe."""
        for typ, path, what in SERVICE_DLQS:
            for r in self.plan.of_type(typ):
                if r.mode != "managed" or not (r.values.get(path[0]) or r.configured(path[0])):
                    continue
                rv = self.resolve.value(r, *path)
                value = rv.value
                if typ == "aws_sns_topic_subscription" and isinstance(value, str):
                    try:
                        pol = loads(value)
                        value = pol.get("deadLetterTargetArn") if isinstance(pol, dict) else None
                    except ValueError:
                        value = None
                found: list[Queue] = []
                if isinstance(value, str) and value:
                    found = self.queue_for_arn(value)
                elif value is UNKNOWN or (value is None and r.configured(path[0])):
                    targets = rv.targets
                    found = self.queues_in(targets, r)
                    if not found:
                        got = self._service_dlq_from_source(rv, typ == "aws_sns_topic_subscription")
                        if got is not None:
                            found = got
                        elif value is UNKNOWN and not any(t.res is not None and t.res.type != "aws_sqs_queue"
                                                          for t in targets):
                            # through a local value (or nothing the plan describes): it may be
                            # any queue of the plan
                            self.unresolved_service_dlqs.append((r.address, what))
                for q in found[:1] if len(found) == 1 else found:
                    if (r.address, what) not in q.service_dlq_of:
                        q.service_dlq_of.append((r.address, what))

    def _service_dlq_from_source(self, rv, redrive_json: bool) -> list[Queue] | None:
        """The queue another service's DLQ setting (``rv``, resolve.Resolved) names, from the
        configuration source: [queue], [] (names no queue of the plan), None (the source cannot say)."""
        if self.source is None:
            return None
        if redrive_json:
            got = rv.json()
            arn = got[0].get("deadLetterTargetArn") if got is not None and isinstance(got[0], dict) else UNKNOWN
        else:
            if rv.evaluated is None:
                return None
            arn = rv.plain()
        pending = getattr(arn, "pending", None)
        if pending is not None:
            q = self.queue_by_res.get(pending.res.address)
            return [q] if q is not None and pending.path == ("arn",) else []
        if isinstance(arn, str) and arn:
            return self.queue_for_arn(arn)
        return None if arn is UNKNOWN else []

    def _queue_of(self, pending) -> Queue | None:
        """The plan's queue a source placeholder (source.Pending) is an attribute of."""
        return self.queue_by_res.get(pending.res.address) if pending is not None else None

    def _redrive_from_source(self, q: Queue, rv) -> bool:
        got = rv.json()
        if got is None:
            return False
        pol, q.redrive_ref, why = got
        if pol is UNKNOWN:
            q.redrive_why = why  # SQS003 says why; the DLQ is still found through the references
            return False
        if not isinstance(pol, dict):
            q.redrive_error = f"redrive_policy is not a JSON object ({q.redrive_ref})"
            q.dlq_link = Link(unknown_reason=q.redrive_error)
            return True
        mrc = pol.get("maxReceiveCount")
        q.max_receive_count = UNKNOWN if mrc is UNKNOWN or hasattr(mrc, "pending") else receive_count(mrc)
        if q.max_receive_count is UNKNOWN:
            q.redrive_why = (pol.get("__why__") or {}).get("maxReceiveCount") or \
                "it is built from a value known only after apply"
        arn = pol.get("deadLetterTargetArn")
        pending = getattr(arn, "pending", None)
        if pending is not None:
            target = pending.res
            if target.type == "aws_sqs_queue" and target.mode == "data" and pending.path == ("arn",):
                q.dlq_link = Link(external=f"{target.address} (an existing queue, read at apply)")
            elif target.type != "aws_sqs_queue" or target.address not in self.queue_by_res:
                q.redrive_error = f"deadLetterTargetArn is {pending.why.split(',')[0]}, not a queue's ARN"
                q.dlq_link = Link(unknown_reason=q.redrive_error)
            elif pending.path != ("arn",):
                q.redrive_error = (f"deadLetterTargetArn is {pending.why.split(',')[0]}, not its ARN "
                                   "(SQS rejects the redrive policy)")
                q.dlq_link = Link(unknown_reason=q.redrive_error)
            elif target is q.res:
                q.redrive_error = "deadLetterTargetArn is the queue's own ARN"
                q.dlq_link = Link(unknown_reason=q.redrive_error)
            else:
                q.dlq_link = Link([self.queue_by_res[target.address]])
        elif isinstance(arn, str) and arn and not isinstance(arn, _pending_text()):
            found = [x for x in self.queue_for_arn(arn) if x is not q]
            q.dlq_link = Link(found) if len(found) == 1 else (
                Link(external=arn) if not found else Link(unknown_reason=f"deadLetterTargetArn {arn} matches {len(found)} queues in the plan"))
        elif arn is None:
            q.redrive_error = "redrive_policy has no deadLetterTargetArn"
            q.dlq_link = Link(unknown_reason=q.redrive_error)
        else:  # built from parts not known before apply: follow the references, as without source
            found = self.queues_in(rv.targets, q.redrive_res, exclude=q)
            q.dlq_link = Link(found) if len(found) == 1 else Link(
                unknown_reason="its deadLetterTargetArn is only known after apply and leads to no single queue in the plan")
        return True

    # -- consumers ------------------------------------------------------------------------
    def _esm(self, r: Resource) -> ESM | None:
        e = ESM(r)
        rv = self.resolve.value(r, "event_source_arn")
        src = rv.value
        if isinstance(src, str):
            if ":sqs:" not in src:
                return None  # a stream or broker, not a queue
            found = self.queue_for_arn(src)
            e.queue_link = Link(found) if len(found) == 1 else (
                Link(external=src) if not found else Link(unknown_reason=f"event_source_arn {src} matches {len(found)} queues"))
        elif src is UNKNOWN:
            found = self.queues_in(rv.targets, r)
            if len(found) != 1:
                q = self._queue_of(rv.pending(("arn",)))
                found = [q] if q is not None else found
            if len(found) == 1:
                e.queue_link = Link(found)
            elif found:
                e.queue_link = Link(unknown_reason=f"event_source_arn could be any of {len(found)} queues")
            else:
                # not resolvable: is it a queue at all? Streams need a starting position.
                if r.attr("starting_position") is not None or any(
                        v is UNKNOWN or bool(v) for v in (r.attr("self_managed_event_source"), r.attr("topics"))):
                    return None
                e.queue_link = Link(unknown_reason="event_source_arn is only known after apply and leads to no queue in the plan")
        else:
            return None
        q = e.queue_link.one
        if q is not None:
            q.esms.append(e)
        self._link_function(e)
        return e

    def _link_function(self, e: ESM):
        r = e.res
        rv = self.resolve.value(r, "function_name")
        fn = rv.value
        if isinstance(fn, str):
            self._link_function_named(e, fn)
            return
        targets = rv.targets
        found: list[Function] = []
        for t in targets:
            if t.res is None:
                continue
            if t.res.type == "aws_lambda_function":
                found.append(self.functions.get(t.res.address) or Function(t.res))
            elif t.res.type == "aws_lambda_alias":
                for t2 in self.plan.expr_targets(t.res, "function_name"):
                    if t2.res is not None and t2.res.type == "aws_lambda_function":
                        found.append(self.functions.get(t2.res.address) or Function(t2.res))
        uniq = {f.address: f for f in found}
        picked = narrow([f.res for f in uniq.values()], r)
        if len(picked) == 1:
            e.function_link = Link([uniq[picked[0].address]])
            e.function_label = picked[0].address
        elif picked:
            e.function_link = Link(unknown_reason=f"function_name could be any of {len(picked)} functions")
        elif not self._function_from_source(e, rv):
            e.function_link = Link(unknown_reason="function_name is only known after apply and leads to no function in the plan")

    def _link_function_named(self, e: ESM, fn: str):
        """Link ``e`` to the function a name, partial ARN or ARN ``fn`` designates."""
        e.function_label = fn
        name = lambda_function_name(fn)
        found = list(self.functions_by_name.get(name, ()))
        if not found:
            found = [Function(d) for d in self.plan.of_type("aws_lambda_function") if d.mode == "data"
                     and lambda_function_name(d.attr("function_name")) == name]
        if len(found) > 1:
            found = [self.functions.get(x.address) or x for x in found]
        e.function_link = Link(found[:1]) if found else Link(external=fn)

    def _function_from_source(self, e: ESM, rv) -> bool:
        """Link ``e`` through what the configuration source says its function_name (``rv``)
        is: a name or ARN, or the name or ARN of a function of the plan known after apply.
        False when the source cannot say."""
        if rv.value is not UNKNOWN:
            return False
        pending = rv.pending(("function_name", "arn", "qualified_arn"), ("aws_lambda_function",))
        if pending is not None:
            f = self.functions.get(pending.res.address) or Function(pending.res)
            e.function_link = Link([f])
            e.function_label = f.address
            return True
        v = rv.partial if rv.evaluated is not None else None
        if isinstance(v, str) and v and not hasattr(v, "pending"):
            self._link_function_named(e, v)
            return True
        return False

    # -- alarms ---------------------------------------------------------------------------
    def _alarm(self, r: Resource) -> Alarm:
        a = Alarm(r)
        # (namespace, metric, dimensions, where the dimensions are)
        metrics: list[tuple[Any, Any, Any, tuple]] = [
            (r.attr("namespace"), r.attr("metric_name"), r.attr("dimensions"), ("dimensions",))]
        mq = r.attr("metric_query")
        if isinstance(mq, list):
            for i, q in enumerate(mq):
                ms = q.get("metric") if isinstance(q, dict) else None
                for j, m in enumerate(ms if isinstance(ms, list) else ()):
                    if isinstance(m, dict):
                        at = ("metric_query", i, "metric", j, "dimensions")
                        metrics.append((m.get("namespace"), m.get("metric_name"), r.path(*at), at))
        # the alarm watches QueueName in its own region and account
        where = provider = self.plan.resource_location(r)
        got = parse_arn(r.values.get("arn"))
        if got:
            where = (got[0] or where[0], got[1] or where[1])
        unresolved_metrics = []
        for ns, metric, dims, at in metrics:
            if ns != "AWS/SQS" or not isinstance(metric, str):
                continue
            qn = dims.get("QueueName") if isinstance(dims, dict) else UNKNOWN
            if isinstance(qn, str):
                self._add_watch(a, metric, self._queues_named(qn, r), where, provider)
            elif qn is UNKNOWN:
                unresolved_metrics.append((metric, at))
        if unresolved_metrics:
            targets = self.resolve.value(r, "dimensions").targets + self.resolve.value(r, "metric_query").targets
            found = self.queues_in(targets, r)
            if found:
                for m, _at in unresolved_metrics:
                    self._add_watch(a, m, found, where, provider)
            else:
                # through a local value: the configuration source may name the queue
                for m, at in unresolved_metrics:
                    found = self._alarm_queue_from_source(r, at)
                    if found is None:
                        a.unresolved = True
                    else:
                        self._add_watch(a, m, found, where, provider)
        for _m, q in a.metrics:
            if a not in q.alarms:
                q.alarms.append(a)
        return a

    def _queues_named(self, name: str, referrer: Resource) -> list[Queue]:
        """The plan's queues named ``name``, the nearest to ``referrer`` when several."""
        found = self.queues_by_name.get(name, [])
        if len(found) > 1:
            found = [self.queue_by_res[x.address] for x in narrow([q.res for q in found], referrer)]
        return found

    def _alarm_queue_from_source(self, r: Resource, at: tuple) -> list[Queue] | None:
        """The queues an alarm's QueueName dimension (at ``at``) names, from the configuration
        source: a name (the plan's queues of that name), the name of a queue of the plan known
        after apply (that queue), [] when it names no queue of the plan; None when the source
        cannot say."""
        rv = self.resolve.value(r, *at)
        if rv.evaluated is None:
            return None
        dims = rv.partial
        from .source import Pending

        qn = dims.get("QueueName") if isinstance(dims, dict) else None
        if isinstance(qn, Pending) and qn.path == ("name",):
            q = self._queue_of(qn)
            return [q] if q is not None else []
        if isinstance(qn, str) and qn:
            return self._queues_named(qn, r)
        return None

    @staticmethod
    def _add_watch(a: Alarm, metric: str, queues: list[Queue], where: tuple, provider: tuple):
        for q in queues:
            same = same_place(where, q.location, (provider, q.provider_place))
            if same is True:
                a.metrics.append((metric, q))
            elif same is UNKNOWN:
                why = _place_difference(where, q.location)
                a.maybe.append((metric, q, why))
                q.maybe_alarms.append((a, why))
            else:
                q.elsewhere_alarms.append((a, metric))

    def declared_function_timeout(self, e: ESM):
        """The function timeout a module was told for the mapping's function when the
        function is not in the plan (this project's modules/lambda-consumer takes it as
        `function_timeout_seconds` and refuses a queue whose visibility does not cover
        it): (seconds, input) or None."""
        mod = e.res.module
        cfg = self.plan.module_config(mod) if mod else None
        if cfg is None or "function_timeout_seconds" not in cfg.variables:
            return None
        v = self.resolve.variable(mod, "function_timeout_seconds")
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return None
        return v, f"function_timeout_seconds of {mod}"

    # -- claim check bucket ---------------------------------------------------------------
    def _buckets(self) -> list[Bucket]:
        buckets = [Bucket(r) for r in self.plan.of_type("aws_s3_bucket") if r.mode == "managed"]
        by_res = {b.address: b for b in buckets}
        by_name: dict[str, list[Bucket]] = {}
        for b in buckets:
            if isinstance(b.name, str):
                by_name.setdefault(b.name, []).append(b)

        def owner(r: Resource) -> Bucket | None:
            rv = self.resolve.value(r, "bucket")
            name = rv.value
            if isinstance(name, str):
                got = by_name.get(name, [])
                return got[0] if len(got) == 1 else None
            for t in rv.targets:
                if t.res is not None and t.res.address in by_res:
                    return by_res[t.res.address]
            if name is UNKNOWN:  # through a local value: the configuration source may name the bucket
                pending = rv.pending(("id", "bucket"), ("aws_s3_bucket",))
                if pending is not None:
                    return by_res.get(pending.res.address)
                v = rv.partial if rv.evaluated is not None else None
                if isinstance(v, str) and v:
                    got = by_name.get(v, [])
                    return got[0] if len(got) == 1 else None
            return None

        for typ, slot in (("aws_s3_bucket_server_side_encryption_configuration", "sse"),
                          ("aws_s3_bucket_public_access_block", "pab"),
                          ("aws_s3_bucket_lifecycle_configuration", "lifecycles")):
            for r in self.plan.of_type(typ):
                if r.mode != "managed":
                    continue
                b = owner(r)
                if b is not None:
                    getattr(b, slot).append(r)
        for r in self.plan.of_type("aws_s3_bucket_policy"):
            b = owner(r)
            if b is not None:
                b.policies.append((r, "policy"))
        for b in buckets:
            if b.res.configured("policy") and b.res.attr("policy") is not None:
                b.policies.insert(0, (b.res, "policy"))
        self._associate_buckets(buckets, by_res, by_name)
        return buckets

    def _associate_buckets(self, buckets: list[Bucket], by_res, by_name):
        """Which queues' payloads a bucket holds. Linked by (1) a policy document
        granting access to both the bucket and a queue, (2) a Lambda function that
        references the bucket and consumes a queue, (3) the nearest enclosing
        (non-root) module instance that holds both."""
        if not buckets or not self.queues:
            return
        bucket_arn = re.compile(r"^arn:[a-z-]+:s3:::([^/]+)")

        def docs_and_funcs():
            for r in self.plan.resources:
                if r.type == "aws_iam_policy_document" or r.type in POLICY_ATTRS and r.type not in (
                        "aws_sqs_queue", "aws_sqs_queue_policy", "aws_s3_bucket_policy", "aws_s3_bucket"):
                    yield r, None
                elif r.type == "aws_lambda_function" and r.mode == "managed":
                    yield r, self.functions.get(r.address)

        def resource_policy(r: Resource) -> bool:
            """A document whose statements all name principals: a resource policy (a queue's
            policy letting S3 send a bucket's notifications), not a role's access to both."""
            if r.type == "aws_sns_topic_policy":
                return True
            if r.type != "aws_iam_policy_document":
                return False
            pd = self.document_from(r, "json")
            doc = pd.doc if pd is not None else None
            if doc is None or not doc.statements:
                return False
            return all(s.principals not in (None, UNKNOWN) and s.principals for s in doc.statements)

        for r, fn in docs_and_funcs():
            if fn is None and resource_policy(r):
                continue
            targets = self.plan.all_targets(r)
            bs = {t.res.address for t in targets if t.res is not None and t.res.address in by_res}
            qs = {t.res.address for t in targets if t.res is not None and t.res.address in self.queue_by_res}
            # known ARNs in a known policy JSON
            text = r.attr("json") if r.type == "aws_iam_policy_document" else r.attr("policy")
            if isinstance(text, str):
                for m in re.finditer(r'"(arn:[^"]+)"', text):
                    arn = m.group(1)
                    bm = bucket_arn.match(arn)
                    if bm:
                        for b in by_name.get(bm.group(1), ()):
                            bs.add(b.address)
                    for q in self.queue_for_arn(arn):
                        qs.add(q.address)
            if fn is not None:
                for e in self.esms:
                    if e.function_link.one is not None and e.function_link.one.address == fn.address and e.queue_link.one:
                        qs.add(e.queue_link.one.address)
            if bs and qs:
                for ba in bs:
                    b = by_res[ba]
                    b.claim_check = True
                    for qa in qs:
                        q = self.queue_by_res[qa]
                        if q not in b.queues:
                            b.queues.append(q)
        for b in buckets:
            if b.queues:
                continue
            mod = b.res.module
            while mod:
                qs = [q for q in self.queues if q.res.module == mod or q.res.module.startswith(mod + ".")]
                if qs:
                    b.queues = qs
                    b.claim_check = True
                    break
                mod = mod[: mod.rfind(".module.")] if ".module." in mod else ""

    # -- policy documents -------------------------------------------------------------------
    def document_from(self, res: Resource, attr: str) -> PolicyDoc | None:
        """The policy document carried by ``res.attr``; None when there is none (memoized)."""
        key = (res.address, attr)
        if key not in self._docs_memo:
            self._docs_memo[key] = self._document_from(res, attr)
        return self._docs_memo[key]

    def _document_from(self, res: Resource, attr: str) -> PolicyDoc | None:
        raw = res.attr(attr)
        if raw is None:
            return None
        if isinstance(raw, str):
            self._consume(res, attr)
            try:
                return PolicyDoc(res.address, iamdoc.parse_json(raw, res.address))
            except iamdoc.PolicyParseError as e:
                return PolicyDoc(res.address, None, error=f"{attr} is not a valid policy document: {e}")
        if raw is not UNKNOWN:
            return PolicyDoc(res.address, None, error=f"{attr} is {show(raw)}, not a policy document (a JSON string)")
        rv = self.resolve.value(res, attr)
        got = self._document_from_source(rv)
        if got is not None:
            self._consume(res, attr)
            return got
        return self._document_via(res, rv.targets, attr)

    def _consume(self, res: Resource, attr: str):
        for t in self.plan.expr_targets(res, attr):
            if t.res is not None and t.res.type == "aws_iam_policy_document":
                self._consumed_docs.add(t.res.address)

    def _document_via(self, res: Resource, targets: list[Target], what: str) -> PolicyDoc:
        """A document only known after apply, read from the policy document data source
        (or managed policy data source) its expression refers to."""
        docs = [t.res for t in targets if t.res is not None and t.res.type in ("aws_iam_policy_document", "aws_iam_policy")
                and (t.res.type == "aws_iam_policy_document" or t.res.mode == "data")]
        for d in docs:
            if d.type == "aws_iam_policy_document":
                self._consumed_docs.add(d.address)
        docs = narrow(list({d.address: d for d in docs}.values()), res)
        if len(docs) == 1:
            d = self.data_document(docs[0])
            if d is not None:
                return PolicyDoc(res.address, d, via=docs[0].address)
        return PolicyDoc(res.address, None, unknown_reason=f"{what} is only known after apply")

    def _document_from_source(self, rv) -> PolicyDoc | None:
        """The document of ``rv`` (resolve.Resolved) from the configuration source, None when it cannot say."""
        from . import source as src

        ev = rv.evaluated
        if ev is None:
            return None
        res, attr = rv.res, rv.path[0]
        v = ev.value
        if isinstance(v, src.Pending) and v.res.type == "aws_iam_policy_document" and v.path == ("json",):
            self._consumed_docs.add(v.res.address)
            d = self.data_document(v.res)
            if d is None:
                return PolicyDoc(res.address, None, unknown_reason=f"{attr} is the JSON of {v.res.address}, which is "
                                 "only known after apply", via=v.res.address)
            return PolicyDoc(res.address, d, via=v.res.address)
        doc = src.decode_json(v)
        if isinstance(doc, src.Unknown):
            return PolicyDoc(res.address, None, unknown_reason=f"{attr} is only known after apply: {doc.why}", ref=ev.ref)
        try:
            return PolicyDoc(res.address, iamdoc.from_object(src.to_plain(doc), res.address, ref=ev.ref))
        except iamdoc.PolicyParseError as e:
            return PolicyDoc(res.address, None, error=f"{attr} is not a valid policy document ({ev.ref}): {e}", ref=ev.ref)

    def data_document(self, r: Resource) -> iamdoc.Document | None:
        """The document of an aws_iam_policy_document data source (or the policy of a
        data aws_iam_policy): from its JSON when known, else from its statement blocks
        merged with its source and override documents; None when nothing is known."""
        got = self._doc_cache.get(r.address, False)
        if got is False:
            self._doc_cache[r.address] = None  # a document built from itself stays unknown
            text = r.attr("json" if r.type == "aws_iam_policy_document" else "policy")
            got = None
            if isinstance(text, str):
                try:
                    got = iamdoc.parse_json(text, r.address)
                except iamdoc.PolicyParseError:
                    got = None
            elif r.type == "aws_iam_policy_document":
                own = iamdoc.from_document_data(r)
                sources = self._doc_list(r, "source_policy_documents")
                overrides = self._doc_list(r, "override_policy_documents")
                got = own if not sources and not overrides else iamdoc.merge(sources, own, overrides, r.address)
                if self.source is not None and (got is None or got.incomplete or iamdoc.undecided(got)):
                    got = self._data_document_from_source(r) or got
            self._doc_cache[r.address] = got
        return got

    def _doc_list(self, r: Resource, attr: str) -> list[iamdoc.Document | None]:
        """The documents of source_policy_documents / override_policy_documents; None for
        one only known after apply (resolved through references where the plan shows them)."""
        raw = r.attr(attr)
        if raw is None:
            return []
        known: list[iamdoc.Document | None] = []
        unknown = 0
        if isinstance(raw, list):
            flags = r.unknown.get(attr)
            for j, x in enumerate(raw):
                if isinstance(x, str):
                    if not x:
                        continue
                    try:
                        known.append(iamdoc.parse_json(x, r.address))
                    except iamdoc.PolicyParseError:
                        known.append(iamdoc.Document([], r.address, incomplete=f"{attr} element {j} is not a valid policy"))
                elif x is None and isinstance(flags, list) and j < len(flags) and flags[j] is True:
                    unknown += 1
        elif raw is UNKNOWN:
            unknown = -1  # how many is not known either
        if unknown == 0:
            return known
        refs = [t.res for t in self.plan.expr_targets(r, attr) if t.res is not None and t.res.type == "aws_iam_policy_document"]
        refs = list({d.address: d for d in refs if d is not r}.values())
        pending = [d for d in refs if not isinstance(d.attr("json"), str)]
        if unknown == len(pending) or (unknown == -1 and refs and len(refs) == len(pending)):
            for d in pending:
                self._consumed_docs.add(d.address)
            return known + [self.data_document(d) for d in pending]
        return known + [None] * max(unknown, 1)

    def _data_document_from_source(self, r: Resource) -> iamdoc.Document | None:
        """An aws_iam_policy_document evaluated from its block: statements (dynamic ones
        expanded), merged with source_policy_documents / override_policy_documents by Sid."""
        from . import source as src

        got = self.resolve.block(r)
        if got is None:
            return None
        body, ref = got
        if not isinstance(body, dict) or isinstance(body.get("statement", []), src.Unknown):
            return None

        def docs(key):
            out = []
            for v in body.get(key) or ():
                if isinstance(v, src.Pending) and v.res.type == "aws_iam_policy_document" and v.path == ("json",):
                    d = self.data_document(v.res)
                else:
                    obj = src.decode_json(v)
                    try:
                        d = None if isinstance(obj, src.Unknown) else iamdoc.from_object(src.to_plain(obj), r.address)
                    except iamdoc.PolicyParseError:
                        d = None
                if d is None:
                    return None
                out.append(d)
            return out

        if isinstance(body.get("source_policy_documents"), src.Unknown) or isinstance(
                body.get("override_policy_documents"), src.Unknown):
            return None
        sources, overrides = docs("source_policy_documents"), docs("override_policy_documents")
        if sources is None or overrides is None:
            return None
        try:
            own = iamdoc.from_blocks(src.to_plain(body.get("statement") or []))
        except iamdoc.PolicyParseError:
            return None
        statements = iamdoc.merge_by_sid([s for d in sources for s in d.statements], own)
        for d in overrides:
            statements = iamdoc.merge_by_sid(statements, d.statements)
        return iamdoc.Document(statements, r.address, ref=ref)

    def policy_documents(self) -> list[PolicyDoc]:
        """Every policy document in the plan, once: on the resource that carries it,
        managed policies read by a data source and attached to a role, user or group,
        and standalone aws_iam_policy_document data sources no resource consumes."""
        if self._policy_docs is not None:
            return self._policy_docs
        out: list[PolicyDoc] = []
        for typ, attr in POLICY_ATTRS.items():
            for r in self.plan.of_type(typ):
                if r.mode != "managed":
                    continue
                d = self.document_from(r, attr)
                if d is not None:
                    out.append(d)
        for r in self.plan.of_type("aws_iam_role"):
            if r.mode != "managed":
                continue
            blocks = r.attr("inline_policy")
            if blocks is UNKNOWN:
                out.append(self._document_via(r, self.plan.expr_targets(r, "inline_policy"), "inline_policy"))
                continue
            for i, blk in enumerate(blocks if isinstance(blocks, list) else ()):
                pol = r.path("inline_policy", i, "policy")
                if isinstance(pol, str) and pol:
                    try:
                        out.append(PolicyDoc(r.address, iamdoc.parse_json(pol, r.address)))
                    except iamdoc.PolicyParseError as e:
                        out.append(PolicyDoc(r.address, None, error=f"inline_policy {i} is not valid: {e}"))
                elif pol is UNKNOWN:
                    out.append(self._document_via(r, self.plan.expr_targets_at(r, ("inline_policy", i, "policy")),
                                                  f"inline_policy {i}"))
        out.extend(self._attached_managed_policies())
        for r in self.plan.of_type("aws_iam_policy_document"):
            for attr in ("source_policy_documents", "override_policy_documents"):
                for t in self.plan.expr_targets(r, attr):
                    if t.res is not None and t.res.type == "aws_iam_policy_document" and t.res is not r:
                        self._consumed_docs.add(t.res.address)
        for r in self.plan.of_type("aws_iam_policy_document"):
            if r.address in self._consumed_docs:
                continue
            d = self.data_document(r)
            out.append(PolicyDoc(r.address, d, unknown_reason=None if d else "the document is only known after apply"))
        self._policy_docs = out
        return out

    def _attached_managed_policies(self) -> list[PolicyDoc]:
        """Existing managed policies (data aws_iam_policy, content read while planning)
        that the plan attaches to a role, user or group."""
        data = [r for r in self.plan.of_type("aws_iam_policy") if r.mode == "data"]
        if not data:
            return []
        by_arn = {r.attr("arn"): r for r in data if isinstance(r.attr("arn"), str)}
        attached: dict[str, Resource] = {}
        for typ, attr in ATTACHMENTS:
            for r in self.plan.of_type(typ):
                if r.mode != "managed":
                    continue
                v = r.attr(attr)
                for arn in v if isinstance(v, list) else [v]:
                    if isinstance(arn, str) and arn in by_arn:
                        attached[by_arn[arn].address] = by_arn[arn]
                for t in self.plan.expr_targets(r, attr):
                    if t.res is not None and t.res.type == "aws_iam_policy" and t.res.mode == "data":
                        attached[t.res.address] = t.res
        out = []
        for r in attached.values():
            text = r.attr("policy")
            if isinstance(text, str):
                try:
                    out.append(PolicyDoc(r.address, iamdoc.parse_json(text, r.address)))
                except iamdoc.PolicyParseError as e:
                    out.append(PolicyDoc(r.address, None, error=f"policy is not a valid policy document: {e}"))
            else:
                out.append(PolicyDoc(r.address, None, unknown_reason="its policy is only known after apply"))
        return out

    def queue_policies(self, q: Queue) -> list[PolicyDoc]:
        out = []
        for res, attr in q.policy_sources:
            d = self.document_from(res, attr)
            if d is not None:
                out.append(d)
        return out
