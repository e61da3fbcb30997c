"""Producers (stage 5): the AWS services the plan links to a queue as a producer (an SNS topic
through a subscription, an EventBridge rule through a target, an S3 bucket through its event
notifications), each a :class:`Delivery`; and what a queue's access policy and a KMS key's
policy say about such a producer (:func:`admits`, :func:`key_allows`).

Every value is read through the resolver (policies/resolve.py): the ARN the plan knows; the
resources its references lead to; what the configuration source says it is (a placeholder for
a resource's ARN); else unknown with the reason."""
from __future__ import annotations

import re
from typing import Any

from .. import iamdoc, wildcard
from ..graph import UNKNOWN, Plan, Resource
from ..resolve import Resolver
from .documents import Documents, PolicyDoc
from .queues import KMS_KEYS, Queue, QueueIndex
from .values import Link, flag, loads

SNS, EVENTS, S3 = "sns.amazonaws.com", "events.amazonaws.com", "s3.amazonaws.com"
CLOUDWATCH = "cloudwatch.amazonaws.com"
SCHEDULER = "scheduler.amazonaws.com"
# the AWS managed keys whose key policy no one can change: only the owning service, in the
# account, may use them; SNS, EventBridge, S3 and CloudWatch cannot encrypt with them
MANAGED_KEYS = {"sqs": "alias/aws/sqs", "sns": "alias/aws/sns"}
_WHAT = {SNS: "SNS", EVENTS: "EventBridge", S3: "S3", CLOUDWATCH: "CloudWatch", SCHEDULER: "EventBridge Scheduler"}


def service_name(principal: str) -> str:
    return _WHAT.get(principal, principal)


class Source:
    """The producing resource: a topic, a rule or a bucket of the plan (``res``), or what is
    known of one outside it (``arn``). ``kind``: "sns", "events", "s3"; ``name`` its name where
    known (a rule's is ``rule/<name>`` or ``rule/<bus>/<name>``, as its ARN's resource part)."""

    def __init__(self, kind: str, res: Resource | None, arn: Any = None, name: Any = None, why: str | None = None):
        self.kind, self.res, self.arn, self.name, self.why = kind, res, arn, name, why
        self.location: tuple = (None, None)

    @property
    def label(self) -> str:
        if self.res is not None:
            return self.res.address
        return self.arn if isinstance(self.arn, str) else "a producer outside the plan"

    def resource_part(self):
        """What follows the region and account in the producer's ARN: the topic name, ``rule/...``,
        or the bucket name; None when not known."""
        return self.name if isinstance(self.name, str) and self.name else None


class Delivery:
    """One producer -> queue link: ``res`` (the subscription, target or notification that
    makes it), ``kind`` ("sns", "events", "s3"), ``service`` (the principal that sends),
    ``source`` (Source), ``queue`` (Link to a queue of the plan), and the path of the ARN
    attribute that names the queue (``at``)."""

    def __init__(self, kind: str, res: Resource, service: str, source: Source, queue: Link, at: tuple):
        self.kind, self.res, self.service, self.source, self.queue, self.at = kind, res, service, source, queue, at
        self.address = res.address

    def __repr__(self):
        return f"<Delivery {self.kind} {self.address}>"


def link_producers(plan: Plan, resolve: Resolver, index: QueueIndex) -> list[Delivery]:
    """Stage 5 (after the queues): every SNS subscription with protocol sqs, EventBridge target
    and S3 notification queue configuration, with the queue it delivers to and its producer."""
    out: list[Delivery] = []
    for r in plan.of_type("aws_sns_topic_subscription"):
        if r.mode != "managed" or r.attr("protocol") != "sqs":
            continue
        out.append(Delivery("sns", r, SNS, _topic(plan, resolve, r), queue_of(resolve, index, r, ("endpoint",)),
                            ("endpoint",)))
    for r in plan.of_type("aws_cloudwatch_event_target"):
        if r.mode != "managed":
            continue
        q = queue_of(resolve, index, r, ("arn",))
        if q.one is None and not q.candidates and not (isinstance(r.attr("arn"), str) and ":sqs:" in r.attr("arn")):
            continue  # a target that is not a queue (a function, a topic)
        out.append(Delivery("events", r, EVENTS, _rule(plan, resolve, r), q, ("arn",)))
    for r in plan.of_type("aws_scheduler_schedule"):
        if r.mode != "managed":
            continue
        at = ("target", 0, "arn")
        v = r.path(*at)
        q = queue_of(resolve, index, r, at)
        if q.one is None and not q.candidates and not (isinstance(v, str) and ":sqs:" in v):
            continue
        # Scheduler sends with the schedule's role (PRD010), not as a service principal
        out.append(Delivery("scheduler", r, SCHEDULER, Source("scheduler", r), q, at))
    for r in plan.of_type("aws_s3_bucket_notification"):
        if r.mode != "managed":
            continue
        blocks = r.attr("queue")
        for i, _ in enumerate(blocks if isinstance(blocks, list) else ()):
            at = ("queue", i, "queue_arn")
            out.append(Delivery("s3", r, S3, _bucket(plan, resolve, r), queue_of(resolve, index, r, at), at))
    return out


def queue_of(resolve: Resolver, index: QueueIndex, r: Resource, at: tuple) -> Link:
    """The queue an ARN attribute (``at``) names: the ARN the plan knows; the queues its
    references lead to; the queue whose ARN the source says it is; else unknown (or outside)."""
    rv = resolve.value(r, *at) if len(at) == 1 else resolve.in_block(r, *at)
    v = rv.value
    if isinstance(v, str) and v:
        found = index.for_arn(v)
        if len(found) == 1:
            return Link(found)
        return Link(external=v) if not found else _several(found, r)
    found = index.in_targets(rv.targets, r)
    if len(found) == 1:
        return Link(found)
    said = rv.named()
    if said is not None and said.pending is not None and said.pending.path == ("arn",):
        q = index.of_pending(said.pending)
        if q is not None:
            return Link([q])
    if said is not None and said.text:
        got = index.for_arn(said.text)
        if len(got) == 1:
            return Link(got)
        if not got:
            return Link(external=said.text)
    if found:
        return _several(found, r)
    return Link(unknown_reason=f"the queue ARN ({'.'.join(str(p) for p in at)}) is only known after apply and "
                               "its references lead to no queue of the plan")


def _several(found: list[Queue], r: Resource) -> Link:
    link = Link(unknown_reason=f"{r.address} could deliver to any of {len(found)} queues")
    link.candidates = found
    return link


def _resource_by(plan: Plan, resolve: Resolver, r: Resource, attr: str, typ: str, by: str) -> tuple:
    """(resource of ``typ``, known value) ``r.attr`` designates: through references, else the
    source's placeholder, else by the known value matched on the resources' ``by`` attribute."""
    rv = resolve.value(r, attr)
    found = rv.resources(typ)
    if len(found) == 1 and found[0].mode == "managed":
        return found[0], rv.value
    said = rv.named() if rv.value is UNKNOWN else None
    if said is not None and said.pending is not None and said.pending.res.type == typ:
        return said.pending.res, rv.value
    v = rv.value if rv.value is not UNKNOWN else (said.text if said is not None else None)
    if isinstance(v, str):
        key = v.rsplit(":", 1)[-1] if by == "name" and v.startswith("arn:") else v
        cands = [x for x in plan.of_type(typ) if x.mode == "managed" and x.attr(by) == key]
        if len(cands) == 1:
            return cands[0], v
    return None, v


def _topic(plan: Plan, resolve: Resolver, r: Resource) -> Source:
    res, v = _resource_by(plan, resolve, r, "topic_arn", "aws_sns_topic", "name")
    if res is not None:
        s = Source("sns", res, arn=res.attr("arn"), name=res.attr("name"))
        s.location = plan.resource_location(res)
        return s
    if isinstance(v, str) and v.startswith("arn:"):
        return Source("sns", None, arn=v, name=v.split(":", 5)[-1])
    return Source("sns", None, why="the subscription's topic_arn is only known after apply and names no topic of "
                                   "the plan")


def _rule(plan: Plan, resolve: Resolver, r: Resource) -> Source:
    res, v = _resource_by(plan, resolve, r, "rule", "aws_cloudwatch_event_rule", "name")
    if res is not None:
        name, bus = res.attr("name"), res.attr("event_bus_name")
        bus = bus.rsplit("/", 1)[-1] if isinstance(bus, str) else bus
        part = None
        if isinstance(name, str) and (bus in (None, "default") or isinstance(bus, str)):
            part = f"rule/{name}" if bus in (None, "default") else f"rule/{bus}/{name}"
        s = Source("events", res, arn=res.attr("arn"), name=part)
        s.location = plan.resource_location(res)
        return s
    return Source("events", None, name=f"rule/{v}" if isinstance(v, str) else None,
                  why=None if isinstance(v, str) else "the target's rule is only known after apply")


def _bucket(plan: Plan, resolve: Resolver, r: Resource) -> Source:
    res, v = _resource_by(plan, resolve, r, "bucket", "aws_s3_bucket", "bucket")
    if res is not None:
        return Source("s3", res, arn=res.attr("arn"), name=res.attr("bucket"))
    return Source("s3", None, arn=f"arn:aws:s3:::{v}" if isinstance(v, str) else None,
                  name=v if isinstance(v, str) else None,
                  why=None if isinstance(v, str) else "the notification's bucket is only known after apply")


# ------------------------------------------------------------------------------------------
# what a queue policy says about a producer
# ------------------------------------------------------------------------------------------
EXACT, WILD, OTHER, NONE = "exact", "wild", "other", "none"

_SOURCE_KEYS = ("aws:sourcearn",)
_SOURCE_OPS = ("arnequals", "arnlike", "stringequals", "stringlike")


class Admission:
    """What a queue's policies say about a producer: ``verdict`` one of EXACT (a statement
    allows the service sqs:SendMessage with aws:SourceArn equal to the producer), WILD (allowed
    only through a statement with no aws:SourceArn or a wildcard one: any such producer, of any
    account, may send), OTHER (statements for the service name other producers only), NONE (no
    statement lets the service send), or UNKNOWN (``why``); ``where``: the policy resources
    read; ``ref`` where the source said it; ``others``: what the statements name instead."""

    def __init__(self, verdict, why: str | None = None, where: tuple = (), ref=None, others: tuple = (), read: int = 0):
        self.verdict, self.why, self.where, self.ref, self.others = verdict, why, where, ref, others
        self.read = read  # how many policy documents the queue has


def admits(q: Queue, service: str, source: Source, documents: Documents, resolve: Resolver) -> Admission:
    """Whether the access policies of queue ``q`` let ``service`` send ``source``'s messages."""
    pds = documents.of_queue(q)
    where = tuple(sorted({r.address for r, _ in q.policy_sources}))
    if not pds and not any(kind == "policy" for kind, _ in q.maybe):
        return Admission(NONE, where=where)
    best, why, ref, others = NONE, None, None, []
    rank = {NONE: 0, OTHER: 1, UNKNOWN: 2, WILD: 3, EXACT: 4}
    for pd in pds:
        if pd.doc is None:
            got, w = UNKNOWN, pd.error or f"the queue policy of {pd.address} {pd.unknown_reason or 'is unknown'}"
        else:
            got, w, names = _doc_admits(pd, q, service, source, resolve)
            others.extend(names)
        if rank[got] > rank[best]:
            best, why, ref = got, w, pd.ref
    maybe = next((why for kind, why in q.maybe if kind == "policy"), None)
    if best in (NONE, OTHER) and maybe is not None:
        # a separate queue policy may be this queue's: what it says is not the queue's for sure
        return Admission(UNKNOWN, f"{maybe} (a queue policy that may be this queue's)", where, ref, read=len(pds))
    return Admission(best, why, where, ref, tuple(dict.fromkeys(others)), read=len(pds))


def _doc_admits(pd: PolicyDoc, q: Queue, service: str, source: Source, resolve: Resolver):
    verdict, why, names = NONE, None, []
    rank = {NONE: 0, OTHER: 1, UNKNOWN: 2, WILD: 3, EXACT: 4}
    for s in pd.doc.statements:
        got, w = _statement_admits(s, q, service, source, pd, resolve, names)
        if rank[got] > rank[verdict]:
            verdict, why = got, w
    return verdict, why, names


_ACCOUNT = re.compile(r"^(?:arn:aws[a-z-]*:iam::)?([0-9]{12})(?::root)?$")


def _principal_is(principals, service: str, account=None):
    """Whether the principals include ``service`` (or everyone); with ``account`` (a topic's
    account, UNKNOWN when the plan does not show it), also that account (SNS delivers for a
    topic of the queue's own account when the policy names the account)."""
    if principals is UNKNOWN:
        return UNKNOWN
    for t, ident in principals or ():
        if ident is UNKNOWN:
            return UNKNOWN
        if (t == "Service" and isinstance(ident, str) and ident.lower() == service) or (
                t in ("*", "AWS") and ident == "*"):
            return True
        if account is not None and t == "AWS" and isinstance(ident, str):
            m = _ACCOUNT.match(ident)
            if m and (account is UNKNOWN or m.group(1) == account):
                return True
    return False


def _allows_action(actions, action: str):
    if actions is UNKNOWN:
        return UNKNOWN
    for a in actions or ():
        if a is UNKNOWN:
            return UNKNOWN
        if isinstance(a, str) and wildcard.match(a.lower(), action.lower(), any_char=True):
            return True
    return False


def _statement_admits(s: iamdoc.Statement, q: Queue, service: str, source: Source, pd: PolicyDoc,
                      resolve: Resolver, names: list):
    if s.effect != "Allow":
        return (UNKNOWN, "a statement's effect is only known after apply") if s.effect is UNKNOWN else (NONE, None)
    account = None
    if source.kind == "sns":  # "sns.amazonaws.com or the topic's account"
        account = source.location[1] if isinstance(source.location[1], str) else UNKNOWN
        if isinstance(source.arn, str) and len(source.arn.split(":")) > 4 and source.arn.split(":")[4]:
            account = source.arn.split(":")[4]
    p = _principal_is(s.principals, service, account)
    a = _allows_action(s.actions, "sqs:SendMessage") if not s.not_actions else False
    if p is False or a is False:
        return NONE, None
    if p is UNKNOWN or a is UNKNOWN:
        return UNKNOWN, f"the principal or actions of {s.label} of {pd.address} are only known after apply"
    if s.conditions is UNKNOWN:
        return UNKNOWN, f"the conditions of {s.label} of {pd.address} are only known after apply"
    values = [(op, v) for op, k, vals in s.conditions if isinstance(k, str) and k.lower() in _SOURCE_KEYS
              and isinstance(op, str) and op.lower().removeprefix("forallvalues:").removeprefix("foranyvalue:")
              .removesuffix("ifexists") in _SOURCE_OPS for v in vals]
    if not values:
        by_account = any(isinstance(k, str) and k.lower() == "aws:sourceaccount" for _, k, _ in s.conditions)
        return WILD, f"{s.label} of {pd.address} has no aws:SourceArn condition" + (
            " (aws:SourceAccount alone admits every producer of that account)" if by_account else "")
    verdict, why = OTHER, None
    for op, v in values:
        got = _names_source(v, op, source, pd, resolve, names)
        if got is True:
            return EXACT, None
        if got == WILD and verdict != UNKNOWN:
            verdict, why = WILD, f"aws:SourceArn {v!s} in {s.label} of {pd.address} is a wildcard"
        elif got is UNKNOWN:
            verdict = UNKNOWN
            why = why or (f"aws:SourceArn in {s.label} of {pd.address} is only known after apply"
                          + (f" ({source.why})" if source.why else ""))
        elif isinstance(v, str) and getattr(v, "pending", None) is None:
            names.append(str(v))
    return verdict, why


_PLACEHOLDER = re.compile(r"\$\{([^}:]+)\}")


def _names_source(v, op: str, source: Source, pd: PolicyDoc, resolve: Resolver, names: list):
    """Whether a condition value names the producer: True, False, WILD (a pattern that matches
    it and others), or UNKNOWN; ``names`` gets the producers it names instead, where told."""
    if v is UNKNOWN or v is None:
        return _by_references(source, pd, resolve, names)
    if not isinstance(v, str):
        return UNKNOWN
    pending = getattr(v, "pending", None)
    if pending is not None:  # exactly one resource's attribute (read from the source)
        if source.res is not None and pending.res.address == source.res.address:
            return True if pending.path[:1] == ("arn",) else UNKNOWN
        if source.res is not None and pending.res.type == source.res.type:
            names.append(pending.res.address)
            return False
        return UNKNOWN
    text = str(v)
    if _PLACEHOLDER.search(text):  # built from values known after apply
        if source.res is not None:
            for m in _PLACEHOLDER.finditer(text):
                inner = m.group(1)
                if inner.startswith(source.res.type + ".") and not inner.startswith(source.res.address + "."):
                    return False  # another topic's, rule's or bucket's
            name = source.res.attr("bucket" if source.kind == "s3" else "name")
            if isinstance(name, str):
                for attr in ("name", "id", "bucket"):
                    text = text.replace("${" + f"{source.res.address}.{attr}" + "}", name)
        if _PLACEHOLDER.search(text):
            return UNKNOWN
    like = op.lower().endswith("like") or "like" in op.lower()
    if like and ("*" in text or "?" in text):
        arn = _expected(source)
        if arn is None:
            return UNKNOWN
        return WILD if wildcard.match(text, arn, any_char=True) else False
    return _same_arn(text, source)


def _expected(source: Source) -> str | None:
    """The producer's ARN with the parts not known written as the characters no pattern holds."""
    if isinstance(source.arn, str):
        return source.arn
    part = source.resource_part()
    if part is None:
        return None
    if source.kind == "s3":
        return f"arn:aws:s3:::{part}"
    region = source.location[0] if isinstance(source.location[0], str) else "\x01region"
    account = source.location[1] if isinstance(source.location[1], str) else "\x01account"
    return f"arn:aws:{source.kind}:{region}:{account}:{part}"


def _same_arn(text: str, source: Source):
    """Whether a literal ARN is the producer's: its service and name (and region and account
    where both are known) equal."""
    if isinstance(source.arn, str):
        return text == source.arn
    part = source.resource_part()
    bits = text.split(":", 5)
    if len(bits) < 6 or bits[0] != "arn":
        return False
    if bits[2] != source.kind:
        return False
    if part is None:
        return UNKNOWN
    if bits[5] != part:
        return False
    for i, known in ((3, source.location[0]), (4, source.location[1])):
        if bits[i] and isinstance(known, str) and bits[i] != known:
            return False
    # same service and name, and region and account where both are known (offline plans show
    # no account: the one a literal ARN names is taken as the stack's own)
    return True


def _by_references(source: Source, pd: PolicyDoc, resolve: Resolver, names: list):
    """A condition value only known after apply, and no source: the producers of its kind the
    policy is built from (its references) tell: only this one, yes; others and not this one, no."""
    if source.res is None:
        return UNKNOWN
    plan = resolve.plan
    res = plan.by_address.get(pd.address)
    typ = source.res.type
    found: dict[str, Resource] = {}
    for r in [res] + ([plan.by_address[pd.via]] if pd.via in plan.by_address else []):
        if r is None:
            continue
        for x in resolve.references(r, typ):
            found[x.address] = x
    if set(found) == {source.res.address}:
        return True
    if found and source.res.address not in found:
        names.extend(found)
        return False
    return UNKNOWN


# ------------------------------------------------------------------------------------------
# encryption on the path
# ------------------------------------------------------------------------------------------
class KeyCheck:
    """Whether the key a queue (or topic) is encrypted with lets a service use it: ``verdict``
    True (SSE-SQS/SSE-SNS, none, or a key policy allowing it), False, or UNKNOWN; ``what`` says
    which key and why."""

    def __init__(self, verdict, what: str, key: Resource | None = None, ref=None):
        self.verdict, self.what, self.key, self.ref = verdict, what, key, ref


def key_of(res: Resource, attr: str, resolve: Resolver, plan: Plan) -> tuple:
    """(key resource of the plan or None, the key ID text or None, UNKNOWN when not told) of a
    queue's ``kms_master_key_id`` or a topic's."""
    rv = resolve.value(res, attr)
    v = rv.value
    keys = rv.resources(*KMS_KEYS)
    if isinstance(v, str):
        if not v.strip():
            return None, None
        by = [k for k in plan.of_type("aws_kms_key") if k.mode == "managed" and v in (k.attr("arn"), k.attr("key_id"))]
        return (by[0] if len(by) == 1 else None), v
    if v is None:
        return None, None
    if len(keys) == 1:
        return _key_behind(keys[0], resolve), None
    said = rv.named()
    if said is not None and said.pending is not None and said.pending.res.type in KMS_KEYS:
        return _key_behind(said.pending.res, resolve), None
    if said is not None and said.text:
        return None, said.text
    return None, UNKNOWN


def _key_behind(r: Resource, resolve: Resolver) -> Resource:
    """The key an alias of the plan points at (its target_key_id's references), else ``r``."""
    if r.type == "aws_kms_alias":
        got = resolve.value(r, "target_key_id").resources("aws_kms_key")
        if len(got) == 1:
            return got[0]
    return r


def key_allows(res: Resource, attr: str, owner: str, service: str, documents: Documents, resolve: Resolver,
               plan: Plan) -> KeyCheck:
    """Whether the encryption of ``res`` (a queue: ``owner`` "sqs"; a topic: "sns") lets
    ``service`` (the producer's principal) encrypt messages for it: kms:GenerateDataKey* and
    kms:Decrypt in the key policy."""
    key, text = key_of(res, attr, resolve, plan)
    svc = service_name(service)
    if key is None and text is None:
        return KeyCheck(True, "not encrypted with a KMS key")
    if text is UNKNOWN:
        return KeyCheck(UNKNOWN, f"its {attr} is only known after apply, so which key it uses is not known")
    managed = MANAGED_KEYS[owner]
    if key is None and isinstance(text, str) and text.endswith(managed):
        return KeyCheck(False, f"it is encrypted with the AWS managed key {managed}, whose key policy cannot be "
                               f"changed to let {svc} use it")
    if key is None:
        return KeyCheck(UNKNOWN, f"its key {text} is not created by this plan, so its key policy (which must let "
                                 f"{service} kms:GenerateDataKey* and kms:Decrypt) cannot be read")
    if key.type != "aws_kms_key":
        return KeyCheck(UNKNOWN, f"its key {key.address} ({key.type}) is not one whose key policy the plan holds")
    pol = _key_policy(key, documents, plan)
    if pol is None:
        return KeyCheck(False, f"its key {key.address} has no key policy: the default one lets only the account's "
                               f"IAM principals use it, not {svc}", key)
    if pol.doc is None:
        return KeyCheck(UNKNOWN, f"the key policy of {key.address} {pol.error or pol.unknown_reason}", key, pol.ref)
    need = {"kms:GenerateDataKey": None, "kms:Decrypt": None}
    undecided = False
    for s in pol.doc.statements:
        if s.effect != "Allow":
            continue
        p = _principal_is(s.principals, service)
        if p is UNKNOWN:
            undecided = True
            continue
        if p is not True:
            continue
        for action in need:
            got = _allows_action(s.actions, action) if not s.not_actions else False
            if got is True:
                need[action] = s
            elif got is UNKNOWN:
                undecided = True
    missing = [a + ("*" if a.endswith("DataKey") else "") for a, s in need.items() if s is None]
    if not missing:
        return KeyCheck(True, f"the key policy of {key.address} lets {service} use the key", key, pol.ref)
    if undecided:
        return KeyCheck(UNKNOWN, f"parts of the key policy of {key.address} are only known after apply", key, pol.ref)
    return KeyCheck(False, f"the key policy of {key.address} does not let {service} {' and '.join(missing)}", key,
                    pol.ref)


def _key_policy(key: Resource, documents: Documents, plan: Plan) -> PolicyDoc | None:
    """The key policy of a key of the plan: a separate aws_kms_key_policy for it, else its own."""
    for r in plan.of_type("aws_kms_key_policy"):
        if r.mode != "managed":
            continue
        ids = documents.resolve.value(r, "key_id")
        if any(x.address == key.address for x in ids.resources("aws_kms_key")) or (
                isinstance(ids.value, str) and ids.value in (key.attr("key_id"), key.attr("arn"))):
            return documents.document_from(r, "policy")
    return documents.document_from(key, "policy")


def is_fifo_topic(res: Resource | None):
    """True, False or UNKNOWN (also for a value the provider would not plan)."""
    if res is None:
        return UNKNOWN
    f = flag(res.attr("fifo_topic"), "fifo_topic")
    if f is None:
        name = res.attr("name")
        return name.endswith(".fifo") if isinstance(name, str) else UNKNOWN
    return f if isinstance(f, bool) else UNKNOWN


def redrive_dlq(resolve: Resolver, index: QueueIndex, r: Resource) -> tuple:
    """(Link to the DLQ, raw) of an SNS subscription's redrive_policy: None when unset."""
    rv = resolve.value(r, "redrive_policy")
    v = rv.value
    if v is None or v == "":
        return None, v
    if isinstance(v, str):
        try:
            pol = loads(v)
        except ValueError:
            return Link(unknown_reason="its redrive_policy is not valid JSON"), v
        arn = pol.get("deadLetterTargetArn") if isinstance(pol, dict) else None
        if not isinstance(arn, str):
            return Link(unknown_reason="its redrive_policy names no deadLetterTargetArn"), v
        found = index.for_arn(arn)
        return (Link(found) if len(found) == 1 else Link(external=arn)), v
    found = index.in_targets(rv.targets, r)
    if len(found) == 1:
        return Link(found), v
    said = rv.named("deadLetterTargetArn", json=True)
    if said is not None and said.pending is not None:
        q = index.of_pending(said.pending)
        if q is not None:
            return Link([q]), v
    if said is not None and said.text:
        got = index.for_arn(said.text)
        return (Link(got) if len(got) == 1 else Link(external=said.text)), v
    return Link(unknown_reason="its redrive_policy is only known after apply"), v


# ------------------------------------------------------------------------------------------
# senders that act through an IAM role (Lambda destinations and DLQs, Scheduler, Pipes,
# API Gateway): the role must be allowed sqs:SendMessage on the queue
# ------------------------------------------------------------------------------------------
class Sender:
    """A resource that sends to a queue with an IAM role's permissions: ``res`` (the invoke
    config, function, schedule, pipe or integration), ``what`` it is, ``queue`` (Link), and
    ``role`` (the aws_iam_role of the plan, or None with ``role_why``)."""

    def __init__(self, res: Resource, what: str, queue: Link, role: Resource | None, role_why: str | None):
        self.res, self.what, self.queue, self.role, self.role_why = res, what, queue, role, role_why
        self.address = res.address


# (resource type, path of the queue ARN, what, how its role is found: "function" (the
# function_name's execution role), "self" (its own role attribute), or a path to the role ARN)
SENDERS = (
    ("aws_lambda_function_event_invoke_config", ("destination_config", 0, "on_failure", 0, "destination"),
     "on-failure destination of the Lambda function", "function"),
    ("aws_lambda_function_event_invoke_config", ("destination_config", 0, "on_success", 0, "destination"),
     "on-success destination of the Lambda function", "function"),
    ("aws_lambda_function", ("dead_letter_config", 0, "target_arn"), "dead-letter queue of the Lambda function", "self"),
    ("aws_scheduler_schedule", ("target", 0, "arn"), "target of the EventBridge Scheduler schedule",
     ("target", 0, "role_arn")),
    ("aws_pipes_pipe", ("target",), "target of the EventBridge pipe", ("role_arn",)),
)


def link_senders(plan: Plan, resolve: Resolver, index: QueueIndex) -> list[Sender]:
    out = []
    for typ, at, what, how in SENDERS:
        for r in plan.of_type(typ):
            if r.mode != "managed" or not (r.values.get(at[0]) or r.configured(at[0])):
                continue
            v = r.path(*at) if len(at) > 1 else r.attr(at[0])
            if v is None or (isinstance(v, str) and ":sqs:" not in v):
                continue
            q = queue_of(resolve, index, r, at)
            if q.one is None and not q.candidates and not isinstance(v, str):
                continue  # not a queue of the plan (a function, a topic, an event bus)
            if how == "function":
                fn, why = _function(plan, resolve, r)
                role, role_why = _role(plan, resolve, fn, ("role",)) if fn is not None else (None, why)
            elif how == "self":
                role, role_why = _role(plan, resolve, r, ("role",))
            else:
                role, role_why = _role(plan, resolve, r, how)
            out.append(Sender(r, what, q, role, role_why))
    for r in plan.of_type("aws_api_gateway_integration"):
        uri = r.attr("uri")
        if r.mode != "managed" or not (uri is UNKNOWN or (isinstance(uri, str) and ":sqs:" in uri)):
            continue
        rv = resolve.value(r, "uri")
        found = index.in_targets(rv.targets, r)
        if isinstance(uri, str) and len(found) != 1:  # arn:aws:apigateway:REGION:sqs:path/ACCOUNT/NAME
            found = index.named(uri.rstrip("/").rsplit("/", 1)[-1], r) if ":sqs:path/" in uri else []
        if uri is UNKNOWN and not found:
            continue  # not shown to be a queue
        q = Link(found) if len(found) == 1 else Link(unknown_reason="its uri names no one queue of the plan")
        role, role_why = _role(plan, resolve, r, ("credentials",))
        out.append(Sender(r, "SQS integration of the REST API", q, role, role_why))
    for r in plan.of_type("aws_apigatewayv2_integration"):
        if r.mode != "managed" or r.attr("integration_subtype") not in ("SQS-SendMessage",):
            continue
        rv = resolve.value(r, "request_parameters")
        found = index.in_targets(rv.targets, r)
        params = rv.value
        url = params.get("QueueUrl") if isinstance(params, dict) else None
        q = Link(found) if len(found) == 1 else (Link(index.for_url(url)) if isinstance(url, str) and len(
            index.for_url(url)) == 1 else Link(unknown_reason="its request_parameters.QueueUrl names no queue of the plan"))
        role, role_why = _role(plan, resolve, r, ("credentials_arn",))
        out.append(Sender(r, "SQS-SendMessage integration of the HTTP API", q, role, role_why))
    return out


def _function(plan: Plan, resolve: Resolver, r: Resource) -> tuple:
    rv = resolve.value(r, "function_name")
    found = rv.resources("aws_lambda_function")
    if len(found) == 1 and found[0].mode == "managed":
        return found[0], None
    v = rv.value
    if isinstance(v, str):
        name = v.split(":function:", 1)[1].split(":", 1)[0] if ":function:" in v else v
        got = [f for f in plan.of_type("aws_lambda_function") if f.mode == "managed" and f.attr("function_name") == name]
        if len(got) == 1:
            return got[0], None
        return None, f"the function {v} is not in this plan"
    return None, "its function_name is only known after apply and names no function of the plan"


def _role(plan: Plan, resolve: Resolver, r: Resource, at: tuple) -> tuple:
    rv = resolve.value(r, *at) if len(at) == 1 else resolve.in_block(r, *at)
    found = [x for x in rv.resources("aws_iam_role") if x.mode == "managed"]
    if len(found) == 1:
        return found[0], None
    said = rv.named()
    if said is not None and said.pending is not None and said.pending.res.type == "aws_iam_role":
        return said.pending.res, None
    v = rv.value if isinstance(rv.value, str) else (said.text if said is not None else None)
    if isinstance(v, str) and ":role/" in v:
        name = v.rsplit("/", 1)[-1]
        got = [x for x in plan.of_type("aws_iam_role") if x.mode == "managed" and x.attr("name") == name]
        if len(got) == 1:
            return got[0], None
        return None, f"its role {v} is not created by this plan, so its permissions cannot be read"
    if v is None and rv.value is None:
        return None, "it has no role"
    return None, "its role is only known after apply and names no role of the plan"


# AWS managed policies that allow sqs:SendMessage on every queue
_MANAGED_SENDERS = ("AmazonSQSFullAccess", "AdministratorAccess", "PowerUserAccess")


def role_documents(role: Resource, documents: Documents, resolve: Resolver, plan: Plan) -> tuple:
    """(policy documents of the role: inline, aws_iam_role_policy, attached aws_iam_policy of the
    plan; AWS managed policies attached that allow SendMessage everywhere; attachments not read)."""
    docs = [d for d in documents.all() if d.address == role.address]
    managed, unread = [], []

    def is_role(r: Resource, attr: str) -> bool:
        rv = resolve.value(r, attr)
        if any(x.address == role.address for x in rv.resources("aws_iam_role")):
            return True
        return isinstance(rv.value, str) and rv.value in (role.attr("name"), role.attr("id"), role.attr("arn"))

    for r in plan.of_type("aws_iam_role_policy"):
        if r.mode == "managed" and is_role(r, "role"):
            d = documents.document_from(r, "policy")
            if d is not None:
                docs.append(d)
    arns = []
    for r in plan.of_type("aws_iam_role_policy_attachment"):
        if r.mode == "managed" and is_role(r, "role"):
            arns.append((r, resolve.value(r, "policy_arn")))
    rv = resolve.value(role, "managed_policy_arns")
    if isinstance(rv.value, list) or rv.value is UNKNOWN:
        arns.append((role, rv))
    for r, pv in arns:
        pols = [p for p in pv.resources("aws_iam_policy") if p.mode == "managed"]
        for p in pols:
            d = documents.document_from(p, "policy")
            if d is not None:
                docs.append(d)
        vals = pv.value if isinstance(pv.value, list) else [pv.value]
        for v in vals:
            if isinstance(v, str) and ":policy/" in v:
                name = v.rsplit("/", 1)[-1]
                if v.startswith("arn:") and v.split(":")[4:5] == ["aws"] and name in _MANAGED_SENDERS:
                    managed.append(v)
                elif not any(p.attr("arn") == v for p in pols):
                    unread.append(v)
            elif v is UNKNOWN and not pols:
                unread.append(f"a policy attached by {r.address}")
    return docs, managed, unread


def may_send(docs: list[PolicyDoc], q: Queue, resolve: Resolver):
    """Whether an Allow of the documents grants sqs:SendMessage on queue ``q``: (True, where),
    (False, None), or (UNKNOWN, why)."""
    why = None
    for pd in docs:
        if pd.doc is None:
            why = why or f"the policy of {pd.address} {pd.unknown_reason or pd.error or 'is unknown'}"
            continue
        for s in pd.doc.statements:
            if s.effect != "Allow" or s.not_actions:
                continue
            a = _allows_action(s.actions, "sqs:SendMessage")
            if a is UNKNOWN:
                why = why or f"the actions of {s.label} of {pd.address} are only known after apply"
                continue
            if a is not True:
                continue
            got = _covers_queue(s.resources, q, pd, resolve)
            if got is True:
                return True, f"{s.label} of {pd.address}"
            if got is UNKNOWN:
                why = why or f"the resources of {s.label} of {pd.address} are only known after apply"
    return (UNKNOWN, why) if why else (False, None)


def _covers_queue(resources, q: Queue, pd: PolicyDoc, resolve: Resolver):
    if resources is UNKNOWN:
        return UNKNOWN
    verdict = False
    for r in resources or ():
        if r is UNKNOWN or r is None:
            plan = resolve.plan
            res = [x for x in (plan.by_address.get(pd.address), plan.by_address.get(pd.via or "")) if x is not None]
            if any(x.address == q.address for y in res for x in resolve.references(y, "aws_sqs_queue")):
                return True
            verdict = UNKNOWN
            continue
        if not isinstance(r, str):
            continue
        pending = getattr(r, "pending", None)
        if pending is not None:
            if pending.res.address == q.address:
                return True
            continue
        if r == "*":
            return True
        bits = r.split(":", 5)
        if len(bits) == 6 and bits[0] == "arn" and wildcard.match(bits[2], "sqs", any_char=True) and isinstance(
                q.name, str) and wildcard.match(bits[5], q.name, any_char=True):
            if (not bits[3] or not q.region or wildcard.match(bits[3], q.region, any_char=True)) and (
                    not bits[4] or not q.account or wildcard.match(bits[4], q.account, any_char=True)):
                return True
    return verdict
