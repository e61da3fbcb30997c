"""The messaging model the rules read: queues and their DLQs, consumers,
claim-check buckets, idempotency tables, alarms and policy documents, linked
from the plan graph."""
from __future__ import annotations

import json
import re
from typing import Any

from . import iamdoc
from .graph import OPAQUE, UNKNOWN, Plan, Resource, Target, narrow

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


def _int(v: Any) -> Any:
    """maxReceiveCount and friends: number, numeric string, UNKNOWN or None."""
    if v is UNKNOWN or v is None:
        return v
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str):
        try:
            return int(v.strip())
        except ValueError:
            try:
                return float(v.strip())
            except ValueError:
                return None
    return None


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
        fifo = res.attr("fifo_queue")
        if fifo is None and isinstance(self.name, str):
            fifo = self.name.endswith(".fifo")
        self.fifo = fifo
        self.region = None
        self.account = None
        for attr, parse in (("arn", parse_sqs_arn), ("url", parse_sqs_url), ("id", parse_sqs_url)):
            got = parse(res.attr(attr))
            if got:
                self.region, self.account = got[0], got[1]
                break
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
        self.maybe: list[tuple[str, str]] = []  # (kind, why) of separate resources that may target it
        self.esms: list[ESM] = []
        self.alarms: list[Alarm] = []

    def __repr__(self):
        return f"<Queue {self.address}>"

    @property
    def is_dlq(self) -> bool:
        if self.sources:
            return True
        allow = self.allow_value()
        if isinstance(allow, dict):
            return allow.get("redrivePermission") in ("byQueue", "allowAll")
        return False

    def retention(self):
        v = self.res.attr("message_retention_seconds")
        return AWS_DEFAULT_RETENTION if v is None else v

    def visibility(self):
        v = self.res.attr("visibility_timeout_seconds")
        return AWS_DEFAULT_VISIBILITY if v is None else v

    def encryption(self):
        """'SSE-KMS', 'SSE-SQS', None (explicitly off or unset), or UNKNOWN."""
        kms = self.res.attr("kms_master_key_id")
        if isinstance(kms, str) and kms.strip():
            return "SSE-KMS"
        if kms is UNKNOWN:
            # a reference to a KMS key of the plan: SSE-KMS, the key ARN comes at apply
            for t in self.model.plan.expr_targets(self.res, "kms_master_key_id"):
                if t.res is not None and t.res.type in ("aws_kms_key", "aws_kms_alias", "aws_kms_replica_key"):
                    return "SSE-KMS"
            return UNKNOWN
        sse = self.res.attr("sqs_managed_sse_enabled")
        if sse is True:
            return "SSE-SQS"
        if sse is UNKNOWN:
            return UNKNOWN
        return None

    def allow_raw(self):
        return self.allow_res.attr(self.allow_attr)

    def allow_value(self):
        if self._allow is _UNSET:
            self._allow = self._allow_value()
        return self._allow

    def _allow_value(self):
        raw = self.allow_raw()
        if raw is UNKNOWN:
            got = self.model.json_from_source(self.allow_res, self.allow_attr)
            if got is not None:
                value, self.allow_ref, self.allow_why = got
                if value is not UNKNOWN:
                    return value if isinstance(value, dict) else "invalid"
            return UNKNOWN
        if raw is None or raw == "":
            return raw if raw is not None else None
        try:
            v = json.loads(raw)
        except (TypeError, ValueError):
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


class Function:
    """A Lambda function found in the plan (managed or data source)."""

    def __init__(self, res: Resource):
        self.res = res
        self.address = res.address

    def timeout(self):
        v = self.res.attr("timeout")
        return LAMBDA_DEFAULT_TIMEOUT if v is None else v


class ESM:
    def __init__(self, res: Resource):
        self.res = res
        self.address = res.address
        self.queue_link: Link = Link()
        self.function_link: Link = Link()
        self.function_label = None

    def batching_window(self):
        v = self.res.attr("maximum_batching_window_in_seconds")
        return 0 if v is None else v

    def batch_size(self):
        v = self.res.attr("batch_size")
        return ESM_DEFAULT_BATCH_SQS if v is None else v


class Alarm:
    def __init__(self, res: Resource):
        self.res = res
        self.address = res.address
        self.metrics: list[tuple[str, Any]] = []  # (metric name, QueueName value or UNKNOWN)
        self.queues: list[Queue] = []
        self.unresolved = False


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
        self.default_region = plan.region()
        self.queues: list[Queue] = [Queue(r, self) for r in plan.of_type("aws_sqs_queue") if r.mode == "managed"]
        self.queue_by_res = {q.res.address: q for q in self.queues}
        self.queues_by_name: dict[str, list[Queue]] = {}
        for q in self.queues:
            if q.region is None and self.default_region:
                q.region = self.default_region
            if isinstance(q.name, str):
                self.queues_by_name.setdefault(q.name, []).append(q)
        self._doc_cache: dict[str, iamdoc.Document | None] = {}
        self._docs_memo: dict[tuple, PolicyDoc | None] = {}
        self._consumed_docs: set[str] = set()
        self._attach_queue_resources()
        for q in self.queues:
            self._link_redrive(q)
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
        url = res.attr(attr)
        if isinstance(url, str):
            found = self.queue_for_url(url)
            if len(found) == 1:
                return Link(found)
            if not found:
                return Link(external=url)
        targets = self.plan.expr_targets(res, attr)
        found = self.queues_in(targets, res)
        if len(found) != 1 and url is UNKNOWN:
            q = self._queue_from_source(res, attr, ("id", "url"))
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
        candidate as ``maybe``: rules then say "unknown" rather than "missing"."""
        for typ, kind in (("aws_sqs_queue_redrive_policy", "redrive"), ("aws_sqs_queue_redrive_allow_policy", "allow"),
                          ("aws_sqs_queue_policy", "policy")):
            for r in self.plan.of_type(typ):
                if r.mode != "managed":
                    continue
                link = self._queue_of_url_attr(r, "queue_url")
                q = link.one
                for c in link.candidates:
                    c.maybe.append((kind, link.unknown_reason))
                if q is None:
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

    def _link_redrive(self, q: Queue):
        raw = q.redrive_res.attr(q.redrive_attr)
        if raw is None or raw == "":
            q.dlq_link = None
            return
        if raw is UNKNOWN and self._redrive_from_source(q):
            pass
        elif raw is UNKNOWN:
            q.max_receive_count = UNKNOWN
            targets = self.plan.expr_targets(q.redrive_res, q.redrive_attr)
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
            try:
                pol = json.loads(raw)
                if not isinstance(pol, dict):
                    raise ValueError("not an object")
            except (TypeError, ValueError) as e:
                q.redrive_error = f"redrive_policy is not a JSON object ({e})"
                q.dlq_link = Link(unknown_reason=q.redrive_error)
                return
            q.max_receive_count = _int(pol.get("maxReceiveCount"))
            arn = pol.get("deadLetterTargetArn")
            if not isinstance(arn, str) or not arn:
                q.redrive_error = "redrive_policy has no deadLetterTargetArn"
                q.dlq_link = Link(unknown_reason=q.redrive_error)
                return
            found = [x for x in self.queue_for_arn(arn) if x is not q]
            if len(found) == 1:
                q.dlq_link = Link(found)
            elif found:
                found = [self.queue_by_res[r.address] for r in narrow([x.res for x in found], q.redrive_res)]
                q.dlq_link = Link(found) if len(found) == 1 else Link(
                    unknown_reason=f"deadLetterTargetArn {arn} matches {len(found)} queues in the plan")
            else:
                q.dlq_link = Link(external=arn)
        dlq = q.dlq_link.one if q.dlq_link else None
        if dlq is not None:
            q.dlq = dlq
            dlq.sources.append(q)

    # -- values read from the configuration source ---------------------------------------
    def json_from_source(self, res: Resource, attr: str):
        """(plain value, SourceRef, why unknown) of a JSON attribute the plan leaves unknown,
        read from source; None when the source cannot say. The value is UNKNOWN when the
        source has the expression but not the value (``why`` says why)."""
        if self.source is None:
            return None
        from . import source as src

        ev = self.source.value(res, attr)
        if ev is None:
            return None
        doc = src.decode_json(ev.value)
        if isinstance(doc, src.Unknown):
            return UNKNOWN, ev.ref, doc.why
        plain = src.to_plain(doc)
        if isinstance(plain, dict) and isinstance(doc, dict):  # why each unknown member is unknown
            for k, v in doc.items():
                u = src.first_unknown(v)
                if plain.get(k) is UNKNOWN and u is not None:
                    plain.setdefault("__why__", {})[k] = u.why
        return plain, ev.ref, None

    def _queue_from_source(self, res: Resource, attr: str, attrs: tuple) -> Queue | None:
        """The queue whose ``attrs`` (e.g. its URL) the source says ``res.attr`` is."""
        if self.source is None:
            return None
        from . import source as src

        ev = self.source.value(res, attr)
        v = ev.value if ev is not None else None
        if isinstance(v, src.Pending) and len(v.path) == 1 and v.path[0] in attrs:
            return self.queue_by_res.get(v.res.address)
        return None

    def _redrive_from_source(self, q: Queue) -> bool:
        got = self.json_from_source(q.redrive_res, q.redrive_attr)
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
        q.max_receive_count = UNKNOWN if mrc is UNKNOWN or hasattr(mrc, "pending") else _int(mrc)
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
            targets = self.plan.expr_targets(q.redrive_res, q.redrive_attr)
            found = self.queues_in(targets, q.redrive_res, exclude=q)
            q.dlq_link = Link(found) if len(found) == 1 else Link(
                unknown_reason="its deadLetterTargetArn is only known after apply and leads to no single queue in the plan")
        return True

    # -- consumers ------------------------------------------------------------------------
    def _esm(self, r: Resource) -> ESM | None:
        e = ESM(r)
        src = r.attr("event_source_arn")
        if isinstance(src, str):
            if ":sqs:" not in src:
                return None  # a stream or broker, not a queue
            found = self.queue_for_arn(src)
            e.queue_link = Link(found) if len(found) == 1 else (
                Link(external=src) if not found else Link(unknown_reason=f"event_source_arn {src} matches {len(found)} queues"))
        elif src is UNKNOWN:
            found = self.queues_in(self.plan.expr_targets(r, "event_source_arn"), r)
            if len(found) != 1:
                q = self._queue_from_source(r, "event_source_arn", ("arn",))
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
        fn = r.attr("function_name")
        if isinstance(fn, str):
            e.function_label = fn
            name = lambda_function_name(fn)
            found = list(self.functions_by_name.get(name, ()))
            if not found:
                found = [Function(d) for d in self.plan.of_type("aws_lambda_function") if d.mode == "data"
                         and lambda_function_name(d.attr("function_name")) == name]
            if len(found) > 1:
                found = [self.functions.get(x.address) or x for x in found]
            e.function_link = Link(found[:1]) if found else Link(external=fn)
            return
        targets = self.plan.expr_targets(r, "function_name")
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
        else:
            e.function_link = Link(unknown_reason="function_name is only known after apply and leads to no function in the plan")

    # -- alarms ---------------------------------------------------------------------------
    def _alarm(self, r: Resource) -> Alarm:
        a = Alarm(r)
        metrics: list[tuple[Any, Any, Any]] = [(r.attr("namespace"), r.attr("metric_name"), r.attr("dimensions"))]
        mq = r.attr("metric_query")
        if isinstance(mq, list):
            for i, q in enumerate(mq):
                for j, m in enumerate((q or {}).get("metric") or ()):
                    metrics.append((m.get("namespace"), m.get("metric_name"),
                                    r.path("metric_query", i, "metric", j, "dimensions")))
        unresolved_metrics = []
        for ns, metric, dims in metrics:
            if ns != "AWS/SQS" or not isinstance(metric, str):
                continue
            qn = dims.get("QueueName") if isinstance(dims, dict) else UNKNOWN
            if isinstance(qn, str):
                found = self.queues_by_name.get(qn, [])
                if len(found) > 1:
                    found = [self.queue_by_res[x.address] for x in narrow([q.res for q in found], r)]
                a.metrics.extend((metric, q) for q in found)
            else:
                unresolved_metrics.append(metric)
        if unresolved_metrics:
            targets = self.plan.expr_targets(r, "dimensions") + self.plan.expr_targets(r, "metric_query")
            found = self.queues_in(targets, r)
            if found:
                a.metrics.extend((m, q) for m in unresolved_metrics for q in found)
            else:
                a.unresolved = True
        for _m, q in a.metrics:
            if a not in q.alarms:
                q.alarms.append(a)
        return a

    # -- claim check bucket ---------------------------------------------------------------
    def _buckets(self) -> list[Bucket]:
        buckets = [Bucket(r) for r in self.plan.of_type("aws_s3_bucket") if r.mode == "managed"]
        by_res = {b.address: b for b in buckets}
        by_name: dict[str, list[Bucket]] = {}
        for b in buckets:
            if isinstance(b.name, str):
                by_name.setdefault(b.name, []).append(b)

        def owner(r: Resource) -> Bucket | None:
            name = r.attr("bucket")
            if isinstance(name, str):
                got = by_name.get(name, [])
                return got[0] if len(got) == 1 else None
            for t in self.plan.expr_targets(r, "bucket"):
                if t.res is not None and t.res.address in by_res:
                    return by_res[t.res.address]
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

        for r, fn in docs_and_funcs():
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
        if raw is None or raw == "":
            return None
        targets = None
        if raw is UNKNOWN or isinstance(raw, str):
            targets = self.plan.expr_targets(res, attr)
            for t in targets:
                if t.res is not None and t.res.type == "aws_iam_policy_document":
                    self._consumed_docs.add(t.res.address)
        if isinstance(raw, str):
            try:
                return PolicyDoc(res.address, iamdoc.parse_json(raw, res.address))
            except iamdoc.PolicyParseError as e:
                return PolicyDoc(res.address, None, error=f"{attr} is not a valid policy document: {e}")
        got = self._document_from_source(res, attr) if self.source is not None else None
        if got is not None:
            return got
        docs = [t.res for t in targets or () if t.res is not None and t.res.type == "aws_iam_policy_document"]
        docs = narrow(list({d.address: d for d in docs}.values()), res)
        if len(docs) == 1:
            d = self.data_document(docs[0])
            if d is not None:
                return PolicyDoc(res.address, d, via=docs[0].address)
        return PolicyDoc(res.address, None, unknown_reason=f"{attr} is only known after apply")

    def _document_from_source(self, res: Resource, attr: str) -> PolicyDoc | None:
        from . import source as src

        ev = self.source.value(res, attr)
        if ev is None:
            return None
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
        got = self._doc_cache.get(r.address, False)
        if got is False:
            self._doc_cache[r.address] = None  # a document built from itself stays unknown
            text = r.attr("json")
            got = None
            if isinstance(text, str):
                try:
                    got = iamdoc.parse_json(text, r.address)
                except iamdoc.PolicyParseError:
                    got = None
            elif r.attr("source_policy_documents") in (None, []) and r.attr("override_policy_documents") in (None, []):
                got = iamdoc.from_document_data(r)
                if self.source is not None and (got is None or iamdoc.undecided(got)):
                    got = self._data_document_from_source(r) or got
            elif self.source is not None:
                got = self._data_document_from_source(r)
            self._doc_cache[r.address] = got
        return got

    def _data_document_from_source(self, r: Resource) -> iamdoc.Document | None:
        """An aws_iam_policy_document evaluated from its block: statements (dynamic ones
        expanded), merged with source_policy_documents / override_policy_documents by Sid."""
        from . import source as src

        got = self.source.block(r)
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
            for i, blk in enumerate(blocks if isinstance(blocks, list) else ()):
                if isinstance(blk, dict) and isinstance(blk.get("policy"), str) and blk["policy"]:
                    try:
                        out.append(PolicyDoc(r.address, iamdoc.parse_json(blk["policy"], r.address)))
                    except iamdoc.PolicyParseError as e:
                        out.append(PolicyDoc(r.address, None, error=f"inline_policy {i} is not valid: {e}"))
        for r in self.plan.of_type("aws_iam_policy_document"):
            for t in self.plan.expr_targets(r, "source_policy_documents") + self.plan.expr_targets(r, "override_policy_documents"):
                if t.res is not None and t.res.type == "aws_iam_policy_document":
                    self._consumed_docs.add(t.res.address)
        for r in self.plan.of_type("aws_iam_policy_document"):
            if r.address in self._consumed_docs:
                continue
            d = self.data_document(r)
            out.append(PolicyDoc(r.address, d, unknown_reason=None if d else "the document is only known after apply"))
        self._policy_docs = out
        return out

    def queue_policies(self, q: Queue) -> list[PolicyDoc]:
        out = []
        for res, attr in q.policy_sources:
            d = self.document_from(res, attr)
            if d is not None:
                out.append(d)
        return out
