"""Queues and their redrive: each queue, the separate policy / redrive / redrive-allow
resources attached to it, its dead-letter queue, and the queues other services name as
their dead-letter queue or on-failure destination."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..graph import OPAQUE, UNKNOWN, Resource, Target, narrow
from .values import (AWS_DEFAULT_RETENTION, AWS_DEFAULT_VISIBILITY, UNSET, Invalid, flag, loads, number, parse_sqs_arn,
                     parse_sqs_url, pending_text_type, receive_count, show)

if TYPE_CHECKING:
    from . import Model
    from .alarms import Alarm
    from .consumers import ESM


# what a queue's kms_master_key_id may reference: a key of the plan, whose ARN or ID comes at apply
KMS_KEYS = ("aws_kms_key", "aws_kms_alias", "aws_kms_replica_key")


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


class Redrive:
    """A redrive policy as the rules read it: ``max_receive_count`` (a number, UNKNOWN,
    model.Invalid, or None when unset or unreadable), the literal ``arn`` of its DLQ, the DLQ
    (``link``; for a redrive policy resource whose queue is not in the plan, ``dlqs``: the
    plan's queues it names, ``external``: a DLQ outside the plan), why it is broken
    (``error``) and how to mend it (``fix``), where the source gave it (``ref``, a SourceRef)
    and why maxReceiveCount stays unknown (``why``). ``intended``: the queue of the plan a
    broken deadLetterTargetArn clearly means (it names that one queue by its URL)."""

    __slots__ = ("max_receive_count", "arn", "link", "dlqs", "external", "error", "ref", "why", "fix", "intended")

    def __init__(self, max_receive_count: Any, arn: Any = None, error: str | None = None, ref=None,
                 why: str | None = None):
        self.max_receive_count = max_receive_count
        self.arn = arn
        self.link: Link | None = None
        self.dlqs: list[Queue] = []
        self.external: str | None = None
        self.error = error
        self.ref = ref
        self.why = why
        self.fix: str | None = None
        self.intended: Queue | None = None


class Queue:
    """An ``aws_sqs_queue`` of the plan as the rules read it: its name and place (region,
    account), the resources its redrive, redrive-allow and access policies come from (itself
    or separate ones), its dead-letter queue (``dlq``, ``dlq_link``: why not, when unknown),
    the queues it is the DLQ of (``sources``), other services it is the DLQ of, its consumers
    (``esms``) and alarms. Settings are read through methods that give a number, UNKNOWN,
    None (unset) or model.Invalid."""

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
        # the exact change that mends redrive_error, when the model can tell it (None: the rule's own fix)
        self.redrive_fix: str | None = None
        self.redrive_ref = None  # SourceRef when the redrive policy was read from source
        self.redrive_why: str | None = None  # why maxReceiveCount stays unknown, from source
        self._allow: Any = UNSET
        self.allow_ref = None
        self.allow_why: str | None = None
        self.sources: list[Queue] = []
        self.service_dlq_of: list[tuple[str, str]] = []  # (address, what) of other services it is the DLQ of
        # aws_sqs_queue_redrive_policy resources of queues the plan does not create (an existing
        # queue read by a data source, a URL) naming this queue as their DLQ
        self.external_sources: list[Resource] = []
        self.maybe: list[tuple[str, str]] = []  # (kind, why) of separate resources that may target it
        self.esms: list[ESM] = []
        self.alarms: list[Alarm] = []
        self.maybe_alarms: list[tuple[Alarm, str]] = []  # alarms on its name whose region/account may differ
        self._retention: Any = UNSET
        self.elsewhere_alarms: list[tuple[Alarm, str]] = []  # (alarm, metric) on its name in another region/account

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

    def wait_time(self):
        v = self.res.attr("receive_wait_time_seconds")
        return number(0 if v is None else v, "receive_wait_time_seconds", 0, 20, unit="s")

    def encryption(self):
        """'SSE-KMS', 'SSE-SQS', None (explicitly off or unset), UNKNOWN or Invalid."""
        kms = self.res.attr("kms_master_key_id")
        if isinstance(kms, str) and kms.strip():
            return "SSE-KMS"
        if kms is UNKNOWN:
            rv = self.model.resolve.value(self.res, "kms_master_key_id")
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
        if self._allow is UNSET:
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


class QueueLinks:
    """Model stages of queues: identity lookups, attaching separate queue resources, redrive and
    other services' DLQs (see Model for the order)."""

    def _link_queues(self):
        """Stage 1: the plan's queues, the separate resources that configure them, their
        dead-letter queues, and the queues other services use as theirs."""
        plan = self.plan
        self.queues: list[Queue] = [Queue(r, self) for r in plan.of_type("aws_sqs_queue") if r.mode == "managed"]
        self.queue_by_res = {q.res.address: q for q in self.queues}
        self.queues_by_name: dict[str, list[Queue]] = {}
        for q in self.queues:
            if q.region is None and q.res.config is None and self.default_region:
                q.region = self.default_region
            if isinstance(q.name, str):
                self.queues_by_name.setdefault(q.name, []).append(q)
        # separate queue policy / redrive / redrive-allow resources whose queue is not
        # one of the plan's queues (an existing queue by URL) or cannot be told: their
        # content is still evaluated, on their own address
        self.unattached: list[tuple[str, Resource, Link]] = []
        # (address, what) of other services' DLQ settings whose queue the plan does not
        # show (through a local value): any queue without a DLQ of its own may be theirs
        self.unresolved_service_dlqs: list[tuple[str, str]] = []
        self._redrive_policies: dict[str, Redrive] = {}  # redrive_policy() of unattached resources
        self._attach_queue_resources()
        for q in self.queues:
            self._link_redrive(q)
        self._link_external_redrives()
        self._link_service_dlqs()

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
        """The plan's queues among ``targets`` (a Resolved's targets), the nearest to ``referrer`` when several."""
        return self.queues_among([t.res for t in targets if t.res is not None], referrer, exclude)

    def queues_among(self, resources: list[Resource], referrer: Resource, exclude: Queue | None = None) -> list[Queue]:
        """The plan's queues among ``resources`` (a Resolved's ``linked()``), each once, the
        nearest to ``referrer`` when several."""
        res = []
        seen = set()
        for r in resources:
            if r.type == "aws_sqs_queue" and r.address not in seen:
                q = self.queue_by_res.get(r.address)
                if q is not None and q is not exclude:
                    seen.add(r.address)
                    res.append(q.res)
        return [self.queue_by_res[r.address] for r in narrow(res, referrer)]

    def _queue_of(self, pending) -> Queue | None:
        """The plan's queue a source placeholder (source.Pending) is an attribute of."""
        return self.queue_by_res.get(pending.res.address) if pending is not None else None

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
        data = self.existing_queue_of(rv.targets)
        if data is not None:
            return Link(external=f"{data.address} (an existing queue, read by a data source)")
        return Link(unknown_reason=f"{attr} is only known after apply and its references lead to no queue in the plan")

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
        if not isinstance(name, str) or name in self.queues_by_name:
            return None
        return res

    def dlqs_of_redrive(self, res: Resource) -> list[Queue]:
        """The plan's queues an aws_sqs_queue_redrive_policy resource names as its DLQ: by the
        known deadLetterTargetArn (from the plan, else the source), else through the
        references of its redrive_policy."""
        return self.redrive_policy(res).dlqs

    def _link_external_redrives(self):
        """A queue that a redrive policy of a queue outside the plan names as its DLQ is a DLQ
        (it needs no DLQ of its own, nor an age alarm, but a depth alarm): the DLQ as the plan
        tells it, else the source (redrive_policy)."""
        for kind, r, _link in self.unattached:
            if kind != "redrive":
                continue
            rp = self.redrive_policy(r)
            if len(rp.dlqs) == 1:
                rp.dlqs[0].external_sources.append(r)
            elif (not rp.dlqs and rp.max_receive_count is UNKNOWN and rp.arn is None and not rp.external
                  and not rp.error and OPAQUE in self.resolve.value(r, "redrive_policy").targets):
                # its DLQ is named through a local value (and the source does not tell which
                # queue): any queue of the plan without a DLQ of its own may be it
                self.unresolved_service_dlqs.append((r.address, "dead-letter queue named by the redrive policy"))

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
        return receive_count(pol.get("maxReceiveCount")), arn, not_an_arn(arn)

    @staticmethod
    def url_for_arn(targets: list[Target], found: list[Queue]) -> tuple[str, Queue, str] | None:
        """Why a redrive policy known only after apply names its DLQ by URL, from the
        references the plan records: the queues it leads to (``found``) are referenced only
        through their ``url`` or ``id`` (both the queue's URL), never their ``arn``, as in
        ``jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.url, ... })``. SQS rejects a URL
        there, so the apply fails: (why, the queue so named, the attribute: url or id); None
        when an ARN is referenced or nothing says."""
        if not found:
            return None
        by_attr: dict[str, set] = {}
        for t in targets:
            if t.res is not None and t.res.type == "aws_sqs_queue" and t.attr:
                by_attr.setdefault(t.res.address, set()).add(t.attr)
        for q in found:
            attrs = by_attr.get(q.address, set())
            used = sorted(attrs & {"url", "id"})
            if used and "arn" not in attrs:
                return (f"deadLetterTargetArn is {q.address}.{used[0]}, the queue's URL, not its ARN: SQS rejects "
                        f"the redrive policy, so the apply fails; use {q.address}.arn", q, used[0])
        return None

    def url_dlq(self, arn: str, own: "Queue | None") -> "Queue | None":
        """The one queue of the plan (other than ``own``) a literal deadLetterTargetArn that is
        a queue URL names, by name, account and Region; None when none or several match."""
        found = [x for x in self.queue_for_url(arn) if x is not own] if parse_sqs_url(arn) else []
        return found[0] if len(found) == 1 else None

    def _named_by_url(self, q: Queue, dlq: "Queue | None", fix: str | None):
        """A redrive policy of q broken because it names its DLQ by URL (q.redrive_error):
        the fix, and the queue it clearly means linked as q's intended DLQ, so that queue is
        judged as a DLQ (no DLQ or age alarm of its own; depth alarm, retention...), while
        SQS002 keeps failing q."""
        q.redrive_fix = fix
        if dlq is not None and dlq is not q:
            q.dlq = dlq
            dlq.sources.append(q)

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
            got = self.url_for_arn(targets, found)
            if got:
                err, dlq, attr = got
                q.redrive_error = err
                q.dlq_link = Link(unknown_reason=err)
                self._named_by_url(q, dlq if len(found) == 1 else None, url_fix(dlq, attr))
                return
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
                if isinstance(arn, str) and parse_sqs_url(arn):
                    dlq = self.url_dlq(arn, q)
                    self._named_by_url(q, dlq, literal_url_fix(arn, dlq))
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

    def _redrive_from_source(self, q: Queue, rv) -> bool:
        got = self._source_redrive(rv, q.redrive_res, q)
        if got is None:
            return False
        q.redrive_ref, q.redrive_why = got.ref, got.why
        if got.link is None:
            return False  # SQS003 says why; the DLQ is still found through the references
        q.max_receive_count, q.redrive_error, q.dlq_link = got.max_receive_count, got.error, got.link
        if got.fix:
            self._named_by_url(q, got.intended, got.fix)
        return True

    def _source_redrive(self, rv, res: Resource, own: Queue | None) -> "Redrive | None":
        """The redrive policy ``rv`` (of ``res``; the policy of queue ``own``, None for a
        redrive policy resource whose queue is not in the plan) as the configuration source
        says it, when the plan leaves it unknown: None when the source cannot say; a Redrive
        whose ``link`` is None when the source has the expression but not the value (``why``)."""
        got = rv.json()
        if got is None:
            return None
        pol, ref, why = got
        out = Redrive(UNKNOWN, ref=ref, why=why)
        if pol is UNKNOWN:
            return out
        if not isinstance(pol, dict):
            out.max_receive_count = None
            out.error = f"redrive_policy is not a JSON object ({ref})"
            out.link = Link(unknown_reason=out.error)
            return out
        mrc = pol.get("maxReceiveCount")
        out.max_receive_count = UNKNOWN if mrc is UNKNOWN or hasattr(mrc, "pending") else receive_count(mrc)
        if out.max_receive_count is UNKNOWN:
            out.why = (pol.get("__why__") or {}).get("maxReceiveCount") or \
                "it is built from a value known only after apply"
        arn = pol.get("deadLetterTargetArn")
        pending = getattr(arn, "pending", None)
        if pending is not None:
            target = pending.res
            if target.type == "aws_sqs_queue" and target.mode == "data" and pending.path == ("arn",):
                out.link = Link(external=f"{target.address} (an existing queue, read at apply)")
            elif target.type != "aws_sqs_queue" or target.address not in self.queue_by_res:
                out.error = f"deadLetterTargetArn is {pending.why.split(',')[0]}, not a queue's ARN"
            elif pending.path != ("arn",):
                out.error = (f"deadLetterTargetArn is {pending.why.split(',')[0]}, not its ARN "
                             "(SQS rejects the redrive policy)")
                if pending.path in (("url",), ("id",)):
                    dlq = self.queue_by_res[target.address]
                    out.fix = url_fix(dlq, pending.path[0])
                    out.intended = dlq if own is None or dlq is not own else None
            elif own is not None and target is own.res:
                out.error = "deadLetterTargetArn is the queue's own ARN"
            else:
                out.link = Link([self.queue_by_res[target.address]])
        elif isinstance(arn, str) and arn and not isinstance(arn, pending_text_type()) and not_an_arn(arn):
            out.error = not_an_arn(arn)
            if parse_sqs_url(arn):
                out.intended = self.url_dlq(arn, own)
                out.fix = literal_url_fix(arn, out.intended)
        elif isinstance(arn, str) and arn and not isinstance(arn, pending_text_type()):
            out.arn = arn
            found = [x for x in self.queue_for_arn(arn) if x is not own]
            out.link = Link(found) if len(found) == 1 else (
                Link(external=arn) if not found else Link(unknown_reason=f"deadLetterTargetArn {arn} matches {len(found)} queues in the plan"))
        elif arn is None:
            out.error = "redrive_policy has no deadLetterTargetArn"
        else:  # built from parts not known before apply: follow the references, as without source
            found = self.queues_in(rv.targets, res, exclude=own)
            out.link = Link(found) if len(found) == 1 else Link(
                unknown_reason="its deadLetterTargetArn is only known after apply and leads to no single queue in the plan")
        if out.error:
            out.link = Link(unknown_reason=out.error)
        return out

    def redrive_policy(self, res: Resource) -> "Redrive":
        """The redrive policy of an aws_sqs_queue_redrive_policy resource whose queue is not in
        the plan (``unattached``), as the plan knows it or, where the plan leaves the JSON
        unknown (it embeds a DLQ's ARN), as the configuration source says it (resolve.Resolver)."""
        got = self._redrive_policies.get(res.address)
        if got is None:
            got = self._redrive_policies[res.address] = self._redrive_policy(res)
        return got

    def _redrive_policy(self, res: Resource) -> "Redrive":
        rv = self.resolve.value(res, "redrive_policy")
        if rv.value is UNKNOWN:
            got = self._source_redrive(rv, res, None)
            if got is None or got.link is None:  # the DLQ through the references, as the plan records them
                out = Redrive(UNKNOWN, ref=got.ref if got else None, why=got.why if got else None)
                out.dlqs = self.queues_in(rv.targets, res)
                bad = self.url_for_arn(rv.targets, out.dlqs)
                if bad:
                    out.error, dlq, attr = bad
                    out.fix = url_fix(dlq, attr)
                    out.intended = dlq if len(out.dlqs) == 1 else None
                    out.dlqs = [out.intended] if out.intended else []
                return out
            got.dlqs = (got.link.items if got.link.items else [got.intended] if got.intended else
                        self.queue_for_arn(got.arn) if isinstance(got.arn, str) else [])
            got.external = got.link.external if got.link.external and got.arn is None else None
            return got
        mrc, arn, err = self.redrive_of(res)
        out = Redrive(mrc, arn=arn, error=err)
        out.dlqs = self.queue_for_arn(arn) if isinstance(arn, str) else self.queues_in(rv.targets, res)
        if err and isinstance(arn, str) and parse_sqs_url(arn):
            out.intended = self.url_dlq(arn, None)
            out.fix = literal_url_fix(arn, out.intended)
            out.dlqs = [out.intended] if out.intended else []
        return out

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


def not_an_arn(arn: str) -> str | None:
    """Why a known deadLetterTargetArn cannot be a queue's ARN (a queue URL, say): SQS
    rejects the redrive policy, so the apply fails; None when it is an ARN."""
    if arn.startswith("arn:"):
        return None
    what = "a queue URL" if parse_sqs_url(arn) else "not an ARN"
    return (f"deadLetterTargetArn \"{arn}\" is {what}, not the queue's ARN: SQS rejects the redrive policy, "
            "so the apply fails; use the DLQ's ARN (arn:aws:sqs:REGION:ACCOUNT:NAME, aws_sqs_queue.<dlq>.arn)")


def url_fix(dlq: Queue, attr: str) -> str:
    """The fix for a deadLetterTargetArn that references the queue ``dlq`` by its ``attr``
    (url or id: its URL)."""
    return (f"Set deadLetterTargetArn = {dlq.address}.arn (the queue's ARN) in place of {dlq.address}.{attr} "
            "(its URL) in the redrive policy.")


def literal_url_fix(url: str, dlq: "Queue | None") -> str:
    """The fix for a literal deadLetterTargetArn that is a queue URL: the queue of the plan
    it names (``dlq``), else the ARN its region, account and name spell when the URL has them."""
    if dlq is not None:
        shown = url if len(url) <= 200 else url[:199] + "…"
        return f"Set deadLetterTargetArn = {dlq.address}.arn (the queue's ARN) in place of the URL \"{shown}\"."
    region, account, name = parse_sqs_url(url)
    if region and account:
        return f"Set deadLetterTargetArn to the queue's ARN, arn:aws:sqs:{region}:{account}:{name}, in place of its URL."
    return ("Set deadLetterTargetArn to the DLQ's ARN (arn:aws:sqs:REGION:ACCOUNT:NAME, aws_sqs_queue.<dlq>.arn) "
            "in place of its URL.")
