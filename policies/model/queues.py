"""Queues (stage 1): each queue of the plan, the separate policy / redrive / redrive-allow
resources attached to it, its redrive policy and dead-letter queue, and the queues other
services name as their dead-letter queue or on-failure destination. :func:`link_queues`
returns the :class:`QueueIndex` the later stages receive to find a queue."""
from __future__ import annotations

from typing import Any

from ..graph import OPAQUE, UNKNOWN, Plan, Resource, Target, narrow
from ..resolve import Resolver
from .redrive import Redrive, read_redrive
from .values import (AWS_DEFAULT_RETENTION, AWS_DEFAULT_VISIBILITY, UNSET, Invalid, Link, flag, loads, number,
                     parse_sqs_arn, parse_sqs_url)

# what a queue's kms_master_key_id may reference: a key of the plan, whose ARN or ID comes at apply
KMS_KEYS = ("aws_kms_key", "aws_kms_alias", "aws_kms_replica_key")


class Queue:
    """An ``aws_sqs_queue`` of the plan as the rules read it: its name and place (region,
    account), the resources its redrive, redrive-allow and access policies come from (itself
    or separate ones), its redrive policy (``redrive``, a redrive.Redrive; None when it has
    none) and dead-letter queue (``dlq``), the queues it is the DLQ of (``sources``), other
    services it is the DLQ of, its consumers (``esms``, stage 2) and alarms (stage 3). Settings
    are read through methods that give a number, UNKNOWN, None (unset) or model.Invalid."""

    def __init__(self, res: Resource, plan: Plan, resolve: Resolver):
        self.res = res
        self.resolve = resolve
        self.address = res.address
        self.name = res.attr("name")
        fifo = flag(res.attr("fifo_queue"), "fifo_queue")
        if fifo is None and isinstance(self.name, str):
            fifo = self.name.endswith(".fifo")
        self.fifo = fifo
        # where it lives: known strings from its ARN or URL, else its provider configuration's
        # region and account (known strings or tokens that compare equal when shared)
        region, account = plan.resource_location(res)
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
        self.redrive: Redrive | None = None  # None: no redrive policy at all
        self.dlq: Queue | None = None  # the DLQ its redrive policy names (or clearly means: Redrive.intended)
        self._allow: Any = UNSET
        self.allow_ref = None
        self.allow_why: str | None = None
        self.sources: list[Queue] = []
        self.service_dlq_of: list[tuple[str, str]] = []  # (address, what) of other services it is the DLQ of
        # aws_sqs_queue_redrive_policy resources of queues the plan does not create (an existing
        # queue read by a data source, a URL) naming this queue as their DLQ
        self.external_sources: list[Resource] = []
        self.maybe: list[tuple[str, str]] = []  # (kind, why) of separate resources that may target it
        self.esms: list = []  # consumers.ESM reading it (stage 2)
        self.alarms: list = []  # alarms.Alarm watching it (stage 3)
        self.maybe_alarms: list[tuple] = []  # (alarm, why) of alarms on its name whose region/account may differ
        self._retention: Any = UNSET
        self.elsewhere_alarms: list[tuple] = []  # (alarm, metric) on its name in another region/account

    def __repr__(self):
        return f"<Queue {self.address}>"

    @property
    def is_dlq(self) -> bool:
        if self.sources or self.service_dlq_of or self.external_sources:
            return True
        allow = self.allow_value()
        if isinstance(allow, dict):
            return allow.get("redrivePermission") in ("byQueue", "allowAll")
        return False

    def retention(self):
        got = self._retention
        if got is UNSET:
            v = self.res.attr("message_retention_seconds")
            got = self._retention = number(AWS_DEFAULT_RETENTION if v is None else v, "message_retention_seconds",
                                           60, 1209600, unit="s")
        return got

    def visibility(self):
        v = self.res.attr("visibility_timeout_seconds")
        return number(AWS_DEFAULT_VISIBILITY if v is None else v, "visibility_timeout_seconds", 0, 43200, unit="s")

    def delay(self):
        v = self.res.attr("delay_seconds")
        return number(0 if v is None else v, "delay_seconds", 0, 900, unit="s")

    def wait_time(self):
        v = self.res.attr("receive_wait_time_seconds")
        return number(0 if v is None else v, "receive_wait_time_seconds", 0, 20, unit="s")

    def encryption(self):
        """'SSE-KMS', 'SSE-SQS', None (explicitly off or unset), UNKNOWN or Invalid."""
        kms = self.res.attr("kms_master_key_id")
        if isinstance(kms, str) and kms.strip():
            return "SSE-KMS"
        if kms is UNKNOWN:
            rv = self.resolve.value(self.res, "kms_master_key_id")
            # a reference to a KMS key of the plan: SSE-KMS, the key ARN comes at apply
            if rv.resources(*KMS_KEYS):
                return "SSE-KMS"
            # through locals, try()/coalesce(), a condition: the configuration source says
            kms = rv.scalar()
            if kms is UNKNOWN or (kms is not None and not isinstance(kms, str)):
                return UNKNOWN
            if kms:
                return "SSE-KMS"
        if kms is not None and not isinstance(kms, str):
            return Invalid("kms_master_key_id", kms, "a KMS key ID, ARN or alias")
        sse = self.res.attr("sqs_managed_sse_enabled")
        if sse is UNKNOWN:
            sse = self.resolve.value(self.res, "sqs_managed_sse_enabled").scalar()
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
        if self._allow is UNSET:
            self._allow = self._allow_value()
        return self._allow

    def _allow_value(self):
        raw = self.allow_raw()
        if raw is UNKNOWN:
            got = self.resolve.value(self.allow_res, self.allow_attr).json()
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


class QueueIndex:
    """Stage 1's result, which the later stages receive: the plan's queues (``all``,
    ``by_res``, ``by_name``) and how to find one (by ARN, URL, name, among references, from a
    source placeholder); the separate queue resources no queue of the plan took
    (``unattached``: (kind, resource, Link)) and their redrive policies (``redrive_policy``);
    other services' DLQ settings whose queue the plan does not show (``unresolved_service_dlqs``)."""

    def __init__(self, queues: list[Queue]):
        self.all = queues
        self.by_res: dict[str, Queue] = {q.res.address: q for q in queues}
        self.by_name: dict[str, list[Queue]] = {}
        for q in queues:
            if isinstance(q.name, str):
                self.by_name.setdefault(q.name, []).append(q)
        # separate queue policy / redrive / redrive-allow resources whose queue is not one of
        # the plan's queues (an existing queue by URL) or cannot be told: their content is
        # still evaluated, on their own address
        self.unattached: list[tuple[str, Resource, Link]] = []
        # (address, what) of other services' DLQ settings whose queue the plan does not
        # show (through a local value): any queue without a DLQ of its own may be theirs
        self.unresolved_service_dlqs: list[tuple[str, str]] = []
        self._redrives: dict[str, Redrive] = {}  # redrive_policy() of the unattached redrive policies

    def for_arn(self, arn: Any) -> list[Queue]:
        got = parse_sqs_arn(arn)
        if not got:
            return []
        return [q for q in self.by_name.get(got[2], ()) if q.arn_matches(got) or q.res.attr("arn") == arn]

    def for_url(self, url: Any) -> list[Queue]:
        got = parse_sqs_url(url)
        if not got:
            return []
        return [q for q in self.by_name.get(got[2], ()) if q.arn_matches(got)]

    def named(self, name: str, referrer: Resource) -> list[Queue]:
        """The plan's queues named ``name``, the nearest to ``referrer`` when several."""
        found = self.by_name.get(name, [])
        if len(found) > 1:
            found = [self.by_res[x.address] for x in narrow([q.res for q in found], referrer)]
        return found

    def in_targets(self, targets: list[Target], referrer: Resource, exclude: Queue | None = None) -> list[Queue]:
        """The plan's queues among ``targets`` (a Resolved's targets), the nearest to ``referrer`` when several."""
        return self.among([t.res for t in targets if t.res is not None], referrer, exclude)

    def among(self, resources: list[Resource], referrer: Resource, exclude: Queue | None = None) -> list[Queue]:
        """The plan's queues among ``resources`` (a Resolved's ``linked()``), each once, the
        nearest to ``referrer`` when several."""
        res = []
        seen = set()
        for r in resources:
            if r.type == "aws_sqs_queue" and r.address not in seen:
                q = self.by_res.get(r.address)
                if q is not None and q is not exclude:
                    seen.add(r.address)
                    res.append(q.res)
        return [self.by_res[r.address] for r in narrow(res, referrer)]

    def of_pending(self, pending) -> Queue | None:
        """The plan's queue a source placeholder (source.Pending, resolve.Named.pending) is an attribute of."""
        return self.by_res.get(pending.res.address) if pending is not None else None

    def existing_queue_of(self, targets: list[Target]) -> Resource | None:
        """The one ``data "aws_sqs_queue"`` the references lead to, when it reads a queue the
        plan does not create: its name is known and names none of the plan's queues (a data
        source reading a queue of the plan by a name only known after apply is not told apart)."""
        data = {t.res.address: t.res for t in targets
                if t.res is not None and t.res.type == "aws_sqs_queue" and t.res.mode == "data"}
        if len(data) != 1:
            return None
        res = next(iter(data.values()))
        name = res.attr("name")
        if not isinstance(name, str) or name in self.by_name:
            return None
        return res

    def redrive_policy(self, res: Resource) -> Redrive:
        """The redrive policy of an unattached aws_sqs_queue_redrive_policy (its queue is not in
        the plan), read by redrive.read_redrive in stage 1; ``dlqs``: the plan's queues it names."""
        return self._redrives[res.address]


def link_queues(plan: Plan, resolve: Resolver) -> QueueIndex:
    """Stage 1: the plan's queues, the separate resources that configure them, their
    dead-letter queues, and the queues other services use as theirs."""
    queues = [Queue(r, plan, resolve) for r in plan.of_type("aws_sqs_queue") if r.mode == "managed"]
    default_region = plan.region()
    for q in queues:
        if q.region is None and q.res.config is None and default_region:
            q.region = default_region
    index = QueueIndex(queues)
    _attach_queue_resources(plan, resolve, index)
    for q in queues:
        _link_redrive(q, resolve, index)
    _link_external_redrives(resolve, index)
    _link_service_dlqs(plan, resolve, index)
    return index


def _queue_of_url_attr(res: Resource, attr: str, resolve: Resolver, index: QueueIndex) -> Link:
    """The queue an aws_sqs_queue_* resource's queue_url designates: the URL the plan knows;
    the queues its references lead to, one; a source placeholder (the URL of a queue of the
    plan) when they lead to none or several; several: ambiguous; an existing queue read by a
    data source; else unknown."""
    rv = resolve.value(res, attr)
    url = rv.value
    if isinstance(url, str):
        found = index.for_url(url)
        if len(found) == 1:
            return Link(found)
        if not found:
            return Link(external=url)
    found = index.in_targets(rv.targets, res)
    if len(found) != 1 and url is UNKNOWN:
        q = index.of_pending(rv.pending(("id", "url")))
        if q is not None:
            return Link([q])
    if len(found) == 1:
        return Link(found)
    if found:
        link = Link(unknown_reason=f"{res.address} {attr} could designate any of {len(found)} queues")
        link.candidates = found
        return link
    data = index.existing_queue_of(rv.targets)
    if data is not None:
        return Link(external=f"{data.address} (an existing queue, read by a data source)")
    return Link(unknown_reason=f"{attr} is only known after apply and its references lead to no queue in the plan")


def _attach_queue_resources(plan: Plan, resolve: Resolver, index: QueueIndex):
    """Attach separate redrive / redrive-allow / policy resources to their queue.
    One whose queue cannot be told apart among several is recorded on each
    candidate as ``maybe``; one whose queue cannot be resolved at all (built from
    a local value, e.g. ``for_each`` over a local map) on every queue of the plan:
    rules then say "unknown" rather than "missing"."""
    for typ, kind in (("aws_sqs_queue_redrive_policy", "redrive"), ("aws_sqs_queue_redrive_allow_policy", "allow"),
                      ("aws_sqs_queue_policy", "policy")):
        for r in plan.of_type(typ):
            if r.mode != "managed":
                continue
            link = _queue_of_url_attr(r, "queue_url", resolve, index)
            q = link.one
            candidates = link.candidates
            if q is None and not candidates and not link.external:
                candidates = index.all
                link.unknown_reason = f"{r.address} targets a queue that cannot be told from the plan " \
                                      f"({link.unknown_reason})"
            for c in candidates:
                c.maybe.append((kind, link.unknown_reason))
            if q is None:
                index.unattached.append((kind, r, link))
                continue
            if kind == "redrive":
                q.redrive_res, q.redrive_attr = r, "redrive_policy"
            elif kind == "allow":
                q.allow_res, q.allow_attr = r, "redrive_allow_policy"
            else:
                q.policy_sources.append((r, "policy"))
    for q in index.all:
        if not q.policy_sources or q.res.configured("policy"):
            q.policy_sources.insert(0, (q.res, "policy"))


def _link_redrive(q: Queue, resolve: Resolver, index: QueueIndex):
    """The queue's redrive policy (redrive.read_redrive) and the DLQ it links."""
    q.redrive = rd = read_redrive(resolve.value(q.redrive_res, q.redrive_attr), index, q)
    dlq = rd.dlq if rd is not None else None
    if dlq is not None:
        q.dlq = dlq
        dlq.sources.append(q)


def _link_external_redrives(resolve: Resolver, index: QueueIndex):
    """A queue that a redrive policy of a queue outside the plan names as its DLQ is a DLQ
    (it needs no DLQ of its own, nor an age alarm, but a depth alarm): the DLQ as the plan
    tells it, else the source (redrive.read_redrive)."""
    for kind, r, _link in index.unattached:
        if kind != "redrive":
            continue
        rv = resolve.value(r, "redrive_policy")
        rp = read_redrive(rv, index)
        if rp is None:  # planned null: nothing names a DLQ but what it references
            rp = Redrive(None)
            rp.dlqs = index.in_targets(rv.targets, r)
        index._redrives[r.address] = rp
        if len(rp.dlqs) == 1:
            rp.dlqs[0].external_sources.append(r)
        elif (not rp.dlqs and rp.max_receive_count is UNKNOWN and rp.arn is None and not rp.external
              and not rp.error and OPAQUE in rv.targets):
            # its DLQ is named through a local value (and the source does not tell which
            # queue): any queue of the plan without a DLQ of its own may be it
            index.unresolved_service_dlqs.append((r.address, "dead-letter queue named by the redrive policy"))


def _link_service_dlqs(plan: Plan, resolve: Resolver, index: QueueIndex):
    """Queues that serve as the dead-letter queue (or on-failure destination) of an SNS
    subscription, a Lambda function, an asynchronous invocation configuration, an event
    source mapping, an EventBridge rule target or schedule: the ARN the plan knows; the
    queues its references lead to; what the source says it is (a queue's ARN, an ARN); else,
    through a local value, any queue of the plan."""
    for typ, path, what in SERVICE_DLQS:
        sns = typ == "aws_sns_topic_subscription"
        for r in plan.of_type(typ):
            if r.mode != "managed" or not (r.values.get(path[0]) or r.configured(path[0])):
                continue
            rv = resolve.value(r, *path)
            value = rv.value
            if sns and isinstance(value, str):
                try:
                    pol = loads(value)
                    value = pol.get("deadLetterTargetArn") if isinstance(pol, dict) else None
                except ValueError:
                    value = None
            found: list[Queue] = []
            if isinstance(value, str) and value:
                found = index.for_arn(value)
            elif value is UNKNOWN or (value is None and r.configured(path[0])):
                found = index.in_targets(rv.targets, r)
                if not found:
                    said = rv.named("deadLetterTargetArn", json=True) if sns else rv.named()
                    if said is not None and said.pending is not None:
                        q = index.of_pending(said.pending)
                        found = [q] if q is not None and said.pending.path == ("arn",) else []
                    elif said is not None:
                        found = index.for_arn(said.text) if said.text else []
                    elif value is UNKNOWN and not any(t.res is not None and t.res.type != "aws_sqs_queue"
                                                      for t in rv.targets):
                        # through a local value (or nothing the plan describes): it may be
                        # any queue of the plan
                        index.unresolved_service_dlqs.append((r.address, what))
            for q in found[:1] if len(found) == 1 else found:
                if (r.address, what) not in q.service_dlq_of:
                    q.service_dlq_of.append((r.address, what))
