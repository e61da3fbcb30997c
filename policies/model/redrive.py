"""A redrive policy, read once: :func:`read_redrive` gives the :class:`Redrive` of a queue's own
redrive policy (inline, or an ``aws_sqs_queue_redrive_policy`` attached to it) and of a redrive
policy resource whose queue is not in the plan, in one way.

The order it reads in is the resolver's chain (resolve.py) with one exception, said here:

1. the JSON the plan knows (its deadLetterTargetArn matched against the plan's queues by ARN);
2. where the plan leaves the JSON unknown (it embeds a new DLQ's ARN), the configuration
   source, BEFORE the plan's references: a redrive policy is one value with two members, and
   the references can tell only which queue it names, never its maxReceiveCount, nor whether
   it names the queue by ARN, by URL or its own ARN; the source's value answers all three at
   once (a placeholder, ``aws_sqs_queue.dlq.arn``, is the DLQ, exactly);
3. the plan's references, when the source cannot say (none given, not matching the plan, or
   the expression but not the value: then its ``ref`` and ``why`` are kept): the DLQ among
   the queues they lead to, maxReceiveCount unknown;
4. else unknown, with the reason (``link.unknown_reason``).
"""
from __future__ import annotations

from typing import Any

from ..graph import OPAQUE, UNKNOWN, Target, narrow
from .values import Link, loads, parse_sqs_url, receive_count, show


class Redrive:
    """A redrive policy as the rules read it.

    ``max_receive_count``: a number, UNKNOWN, model.Invalid, or None when unreadable;
    ``arn``: the literal deadLetterTargetArn; ``link``: the DLQ (a Link: the queue of the plan,
    a DLQ outside it, or why it cannot be told); ``dlqs``: every queue of the plan it may name
    (for a redrive policy resource whose queue is not in the plan), ``external``: a DLQ outside
    the plan read by a data source; ``error``: why it is broken (SQS rejects it), ``fix``: the
    exact change that mends that (None: the rule's own fix), ``intended``: the queue of the plan a
    broken deadLetterTargetArn clearly means (it names that one queue by its URL); ``ref``: where
    the source gave it (a SourceRef), ``why``: why maxReceiveCount stays unknown."""

    __slots__ = ("max_receive_count", "arn", "link", "dlqs", "external", "error", "ref", "why", "fix", "intended")

    def __init__(self, max_receive_count: Any, arn: Any = None, error: str | None = None, ref=None,
                 why: str | None = None):
        self.max_receive_count = max_receive_count
        self.arn = arn
        self.link: Link | None = None
        self.dlqs: list = []
        self.external: str | None = None
        self.error = error
        self.ref = ref
        self.why = why
        self.fix: str | None = None
        self.intended = None  # model.Queue

    @property
    def dlq(self):
        """The queue of the plan it links as the DLQ: the one it names, else the one a broken
        deadLetterTargetArn clearly means (SQS002 fails the policy all the same); else None."""
        one = self.link.one if self.link is not None else None
        return one if one is not None else self.intended


def read_redrive(rv, queues, own=None) -> Redrive | None:
    """The redrive policy ``rv`` (a resolve.Resolved of a ``redrive_policy`` attribute) reads,
    in the order the module docstring gives; None when it is unset. ``queues``: the plan's
    queue index (queues.QueueIndex); ``own``: the queue whose policy it is (it is never its own
    DLQ), None for a redrive policy resource whose queue is not in the plan."""
    if rv.value is UNKNOWN:
        got = _from_source(rv, queues, own)
        if got is not None and got.link is not None:
            return got
        out = _from_references(rv, queues, own)
        if got is not None:  # the source has the expression, not the value: it says why
            out.ref, out.why = got.ref, got.why
        return out
    if rv.value is None:
        return None
    return _from_plan(rv, queues, own)


def _from_plan(rv, queues, own) -> Redrive:
    """Step 1: the redrive policy JSON the plan knows."""
    mrc, arn, err = parse_policy(rv.value, rv.path[-1])
    out = Redrive(mrc, arn=arn, error=err)
    if err:
        out.link = Link(unknown_reason=err)
        if isinstance(arn, str) and parse_sqs_url(arn):
            out.intended = url_dlq(queues, arn, own)
            out.fix = literal_url_fix(arn, out.intended)
            out.dlqs = [out.intended] if out.intended else []
        else:
            out.dlqs = queues.for_arn(arn) if isinstance(arn, str) else queues.in_targets(rv.targets, rv.res)
        return out
    found = [x for x in queues.for_arn(arn) if x is not own]
    out.dlqs = found
    if len(found) == 1:
        out.link = Link(found)
    elif found:
        found = [queues.by_res[r.address] for r in narrow([x.res for x in found], rv.res)]
        out.link = Link(found) if len(found) == 1 else Link(
            unknown_reason=f"deadLetterTargetArn {show(arn)} matches {len(found)} queues in the plan")
    else:
        out.link = Link(external=arn)
    return out


def _from_source(rv, queues, own) -> Redrive | None:
    """Step 2: the redrive policy as the configuration source says it, when the plan leaves it
    unknown: None when the source cannot say; a Redrive whose ``link`` is None when the source
    has the expression but not the value (``why``)."""
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
    placeholder = hasattr(arn, "pending")  # a source.PendingText: a string of placeholders, never an ARN
    if pending is not None:
        target = pending.res
        if target.type == "aws_sqs_queue" and target.mode == "data" and pending.path == ("arn",):
            out.link = Link(external=f"{target.address} (an existing queue, read at apply)")
        elif target.type != "aws_sqs_queue" or target.address not in queues.by_res:
            out.error = f"deadLetterTargetArn is {pending.why.split(',')[0]}, not a queue's ARN"
        elif pending.path != ("arn",):
            out.error = (f"deadLetterTargetArn is {pending.why.split(',')[0]}, not its ARN "
                         "(SQS rejects the redrive policy)")
            if pending.path in (("url",), ("id",)):
                dlq = queues.by_res[target.address]
                out.fix = url_fix(dlq, pending.path[0])
                out.intended = dlq if own is None or dlq is not own else None
        elif own is not None and target is own.res:
            out.error = "deadLetterTargetArn is the queue's own ARN"
        else:
            out.link = Link([queues.by_res[target.address]])
    elif isinstance(arn, str) and arn and not placeholder and not_an_arn(arn):
        out.error = not_an_arn(arn)
        if parse_sqs_url(arn):
            out.intended = url_dlq(queues, arn, own)
            out.fix = literal_url_fix(arn, out.intended)
    elif isinstance(arn, str) and arn and not placeholder:
        out.arn = arn
        found = [x for x in queues.for_arn(arn) if x is not own]
        out.link = Link(found) if len(found) == 1 else (
            Link(external=arn) if not found else
            Link(unknown_reason=f"deadLetterTargetArn {arn} matches {len(found)} queues in the plan"))
    elif arn is None:
        out.error = "redrive_policy has no deadLetterTargetArn"
    else:  # built from parts not known before apply: follow the references, as without source
        found = queues.in_targets(rv.targets, rv.res, exclude=own)
        out.link = Link(found) if len(found) == 1 else Link(
            unknown_reason="its deadLetterTargetArn is only known after apply and leads to no single queue in the plan")
    if out.error:
        out.link = Link(unknown_reason=out.error)
    out.dlqs = (out.link.items if out.link.items else [out.intended] if out.intended else
                queues.for_arn(out.arn) if isinstance(out.arn, str) else [])
    out.external = out.link.external if out.link.external and out.arn is None else None
    return out


def _from_references(rv, queues, own) -> Redrive:
    """Step 3: the DLQ among the queues the plan's references lead to; maxReceiveCount unknown."""
    out = Redrive(UNKNOWN)
    targets = rv.targets
    found = queues.in_targets(targets, rv.res, exclude=own)
    out.dlqs = found
    bad = url_for_arn(targets, found)
    if bad:
        out.error, dlq, attr = bad
        out.link = Link(unknown_reason=out.error)
        out.fix = url_fix(dlq, attr)
        out.intended = dlq if len(found) == 1 else None
        out.dlqs = [out.intended] if out.intended else []
    elif len(found) == 1:
        out.link = Link(found)
    elif found:
        out.link = Link(unknown_reason=(
            f"its redrive policy is only known after apply and could name any of {len(found)} queues "
            f"({', '.join(x.address for x in found[:3])}{', …' if len(found) > 3 else ''})"))
    elif any(t is OPAQUE for t in targets):
        out.link = Link(unknown_reason="its redrive policy is only known after apply and is built from a local "
                                       "value the plan does not describe")
    else:
        out.link = Link(unknown_reason="its redrive policy is only known after apply and references no queue in "
                                       "the plan")
    return out


def parse_policy(raw: Any, attr: str = "redrive_policy") -> tuple[Any, Any, str | None]:
    """(maxReceiveCount, deadLetterTargetArn, error) of a known redrive policy JSON;
    (UNKNOWN, None, None) when only known after apply; (None, None, None) when unset."""
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


def url_for_arn(targets: list[Target], found: list) -> tuple[str, Any, str] | None:
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


def url_dlq(queues, arn: str, own):
    """The one queue of the plan (other than ``own``) a literal deadLetterTargetArn that is
    a queue URL names, by name, account and Region; None when none or several match."""
    found = [x for x in queues.for_url(arn) if x is not own] if parse_sqs_url(arn) else []
    return found[0] if len(found) == 1 else None


def not_an_arn(arn: str) -> str | None:
    """Why a known deadLetterTargetArn cannot be a queue's ARN (a queue URL, say): SQS
    rejects the redrive policy, so the apply fails; None when it is an ARN."""
    if arn.startswith("arn:"):
        return None
    what = "a queue URL" if parse_sqs_url(arn) else "not an ARN"
    return (f"deadLetterTargetArn \"{arn}\" is {what}, not the queue's ARN: SQS rejects the redrive policy, "
            "so the apply fails; use the DLQ's ARN (arn:aws:sqs:REGION:ACCOUNT:NAME, aws_sqs_queue.<dlq>.arn)")


def url_fix(dlq, attr: str) -> str:
    """The fix for a deadLetterTargetArn that references the queue ``dlq`` by its ``attr``
    (url or id: its URL)."""
    return (f"Set deadLetterTargetArn = {dlq.address}.arn (the queue's ARN) in place of {dlq.address}.{attr} "
            "(its URL) in the redrive policy.")


def literal_url_fix(url: str, dlq) -> str:
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
