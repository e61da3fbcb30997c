"""Change rules: what an update plan does to queues, payloads, idempotency records and keys that exist.

Every other rule judges the end state. These read each resource's planned change
against the prior state (``resource_changes``: actions, ``before``/``after``,
``replace_paths``, ``action_reason``, ``previous_address``; see policies/changes.py).
A first apply has no prior objects, hence no change findings.

Severities: an *error* is a change that deletes data the stack holds today
(messages, dead letters, payloads, idempotency records) or makes it unreadable;
a *warning* is a change that stops protecting or consuming data without deleting
it (versioning or payload expiry removed, a consumer removed or paused) or that
deletes only a source queue's oldest backlog (see CHG009).
"""
from __future__ import annotations

import functools
import re

from .. import changes as _changes
from ..changes import Change, Changes
from ..graph import UNKNOWN
from ..model import Bucket, Model, opt_in
from . import Option, fail, ok, rule, seconds, unknown
from .storage import CLAIM_CHECK_OPT, TABLE_OPT, is_idempotency_table

DAY = 86400

# keys of references.REFERENCES
TF_JSON, TF_REFACTOR, SQS_DELETE, SQS_SET, SQS_DLQ = "tf-json", "tf-moved", "sqs-delete-queue", "sqs-set-attributes", "sqs-dlq"
SQS_LARGE, S3_LIFECYCLE, S3_VERSIONING, POWERTOOLS = "sqs-large-messages", "s3-lifecycle", "s3-versioning", "powertools-idempotency"
DDB_DELETE, KMS_DELETE, SQS_SSE, LAMBDA_SQS = "ddb-deletion-protection", "kms-delete", "sqs-sse", "lambda-sqs"

NAME_ATTR = {"aws_sqs_queue": "name", "aws_dynamodb_table": "name", "aws_s3_bucket": "bucket"}
KIND = {"aws_sqs_queue": "queue", "aws_dynamodb_table": "table", "aws_s3_bucket": "bucket"}


def _days(v) -> str:
    return f"{v / DAY:g} d" if isinstance(v, (int, float)) else str(v)


# ------------------------------------------------------------------------------------
# shared analysis, computed once per plan
# ------------------------------------------------------------------------------------
class _Queues:
    """The plan's queues as they were: DLQ links, groups, consumers, and which were moved."""

    def __init__(self, ch: Changes):
        self.ch = ch
        self.queues = [c for c in ch.of_type("aws_sqs_queue") if c.existed]
        self.dlq_of = ch.prior_redrive()  # source address -> DLQ address
        self.sources_of: dict[str, list[str]] = {}
        for s, d in self.dlq_of.items():
            self.sources_of.setdefault(d, []).append(s)
        self.consumers = ch.prior_consumers()
        self.moved = moved_without_block(ch)

    def is_dlq(self, c: Change) -> bool:
        if c.address in self.sources_of:
            return True
        raw = c.was("redrive_allow_policy")
        return isinstance(raw, str) and ('"byQueue"' in raw or '"allowAll"' in raw)

    def role(self, c: Change) -> str:
        return "DLQ" if self.is_dlq(c) else "queue"

    def group(self, c: Change) -> list[Change]:
        """The queue and every queue linked to it by a redrive policy (source/DLQ pairs, chains)."""
        seen, todo = {c.address}, [c.address]
        while todo:
            a = todo.pop()
            for b in [self.dlq_of.get(a), *self.sources_of.get(a, [])]:
                if b and b not in seen:
                    seen.add(b)
                    todo.append(b)
        return [self.ch.by_address[a] for a in sorted(seen)]

    def consumers_of(self, c: Change) -> list[Change]:
        arn = c.was("arn")
        return list(self.consumers.get(arn, [])) if isinstance(arn, str) else []


def moved_without_block(ch: Changes) -> dict[str, Change]:
    """{deleted address: created change} for a queue, table or bucket deleted at one
    address and created with the same name at another in the same plan."""
    created: dict[tuple[str, str], Change] = {}
    for c in ch.items:
        attr = NAME_ATTR.get(c.type)
        if attr and c.created:
            name = c.will(attr)
            if isinstance(name, str) and name:
                created[(c.type, name)] = c
    out = {}
    for c in ch.items:
        attr = NAME_ATTR.get(c.type)
        name = c.was(attr) if attr else None
        if isinstance(name, str) and c.deleted:
            d = created.get((c.type, name))
            if d is not None:
                out[c.address] = d
    return out


def _moved_fix(c: Change, d: Change) -> str:
    """A moved block for the resource, or for its module instance when only that changed address."""
    fix = f"Add: moved {{ from = {c.address}  to = {d.address} }}"
    if c.module and d.module and c.module != d.module and c.address[len(c.module):] == d.address[len(d.module):]:
        fix += (f" (or move the whole module instance, every resource in it: "
                f"moved {{ from = {c.module}  to = {d.module} }})")
    return fix


def _analysis(model: Model) -> tuple[Changes, _Queues] | None:
    ch = _changes.of(model)
    if not ch.update:
        return None
    got = getattr(ch, "_queues", None)
    if got is None:
        got = ch._queues = _Queues(ch)
    return ch, got


def _on_update(check):
    """A change rule's body, run with the plan's changes and queues; a plan without prior
    state (a first apply) has no change findings."""
    @functools.wraps(check)
    def run(model: Model, opts):
        got = _analysis(model)
        if got is not None:
            yield from check(model, opts, *got)
    return run


def _label(c: Change, attr: str = "name") -> str:
    n = c.was(attr)
    return f"{n!r}" if isinstance(n, str) else c.address


# ------------------------------------------------------------------------------------
# queues
# ------------------------------------------------------------------------------------
@rule("CHG001", "queue-replaced", "error", "change", "An existing queue is not replaced",
      why="""
A queue whose `name`, `name_prefix` or `fifo_queue` changes cannot be updated in place: Terraform
deletes it and creates an empty one (`replace_paths` in the plan say which attribute forces it).
DeleteQueue deletes every message in the queue, including messages in flight; for a DLQ that is
every dead letter kept for inspection and redrive. The plan cannot know whether the queue is empty,
so a replacement is an error. Create the new queue beside the old one instead, move producers to
it, drain the old one, then remove it (CHG002/CHG003 report that removal).""",
      fix="Keep the attribute that forces the replacement (see the message); to rename or switch to FIFO, create "
          "the new queue next to the old one, move producers, drain the old one, then delete it.",
      sources=(TF_JSON, SQS_DELETE))
@_on_update
def queue_replaced(model: Model, opts, ch: Changes, qs: _Queues):
    for c in qs.queues:
        if c.replaced:
            what = "every dead letter in it" if qs.is_dlq(c) else "every message in it (in flight included)"
            yield fail(c.address, f"{qs.role(c)} {_label(c)} is replaced ({'/'.join(c.actions)}) because {c.why_replaced()}: "
                                  f"SQS deletes the old queue with {what} and the new one starts empty")
        elif c.kept:
            yield ok(c.address, f"kept ({'/'.join(c.actions)})")


def _retired(qs: _Queues, c: Change) -> tuple[bool, list[str]]:
    """Whether c is removed together with its whole redrive group and consumers; else what stays."""
    stays = []
    for q in qs.group(c):
        if q.kept or q.replaced:
            rel = "its DLQ" if qs.dlq_of.get(c.address) == q.address else (
                "its source" if q.address in qs.sources_of.get(c.address, []) else "linked queue")
            stays.append(f"{rel} {q.address}")
        for e in qs.consumers_of(q):
            if e.kept or e.replaced:
                stays.append(f"consumer {e.address}")
    return not stays, stays


@rule("CHG002", "queue-deleted", "error", "change", "A queue is not deleted while its DLQ, sources or consumers stay",
      why="""
Deleting a queue deletes the messages in it. When its partner stays the loss is rarely intended: a
DLQ removed while its source stays loses the dead letters it holds (and the source's failures have
nowhere to go, or go nowhere visible); a source queue removed while its DLQ or its consumers stay
loses its backlog and messages in flight. Removing a whole pair together with its consumers is
reported by CHG003 instead; a queue deleted at one address and created at another is CHG004.""",
      fix="Drain the queue first (redrive or archive a DLQ's messages), or keep it; if it must go, remove the whole "
          "pair and its consumers in one change (CHG003), or move it with a moved block (CHG004).",
      sources=(SQS_DELETE, SQS_DLQ))
@_on_update
def queue_deleted(model: Model, opts, ch: Changes, qs: _Queues):
    for c in qs.queues:
        if c.deleted and c.address not in qs.moved:
            retired, stays = _retired(qs, c)
            if not retired:
                held = "the dead letters it holds are lost" if qs.is_dlq(c) else "every message in it (in flight included) is lost"
                yield fail(c.address, f"{qs.role(c)} {_label(c)} is deleted while {', '.join(stays)} stays: {held}")
        elif c.kept:
            yield ok(c.address, f"kept ({'/'.join(c.actions)})")


@rule("CHG003", "queue-retired", "error", "change", "A queue pair retired with its consumers is drained first",
      why="""
A queue removed together with its DLQ (or its sources) and its consumers looks intended: the whole
flow is being retired. It is still reported, because the plan cannot see whether messages are
still queued, in flight or dead-lettered; they are deleted with the queues. It has its own rule so
that a team retiring a flow can waive exactly this finding, with a reason ("both queues drained,
OPS-123") and an expiry, without waiving the other change rules.""",
      fix="Check that both queues are empty (ApproximateNumberOfMessages and ...NotVisible are 0, DLQ redriven or "
          "archived), then waive this finding for the retired queues with a reason and an expiry.",
      sources=(SQS_DELETE, SQS_DLQ))
@_on_update
def queue_retired(model: Model, opts, ch: Changes, qs: _Queues):
    for c in qs.queues:
        if c.deleted and c.address not in qs.moved:
            retired, _ = _retired(qs, c)
            if retired:
                others = [q.address for q in qs.group(c) if q is not c]
                cons = [e.address for q in qs.group(c) for e in qs.consumers_of(q)]
                detail = []
                if others:
                    detail.append(f"with {', '.join(others)}")
                if cons:
                    detail.append(f"and consumer(s) {', '.join(cons)}")
                what = "dead letters" if qs.is_dlq(c) else "messages still queued or in flight"
                yield fail(c.address, f"{qs.role(c)} {_label(c)} is deleted {' '.join(detail) or 'on its own'}: "
                                      f"a retirement; any {what} are deleted with it")
        elif c.kept:
            yield ok(c.address, "kept")


@rule("CHG004", "moved-without-moved-block", "error", "change",
      "A queue, table or bucket that changes address is moved, not deleted and re-created",
      why="""
Renaming a resource, changing its `for_each` key, or moving it into or out of a module changes its
address. Without a `moved` block Terraform does not know the new address is the same object: it
plans to delete the old one and create a new one with the same name, which deletes a queue's
messages, a table's records or a bucket's payloads (and SQS refuses to reuse a queue name for 60 s
after deleting it). A `moved` block turns it into a move with no change (the plan then shows
`previous_address`, and nothing is reported).""",
      fix="Add a moved block: moved { from = <old address>  to = <new address> }.",
      sources=(TF_REFACTOR, SQS_DELETE))
@_on_update
def moved_without_block_rule(model: Model, opts, ch: Changes, qs: _Queues):
    for c in ch.items:
        if c.type not in NAME_ATTR or not c.existed:
            continue
        d = qs.moved.get(c.address)
        if d is not None:
            what = {"aws_sqs_queue": "its messages", "aws_dynamodb_table": "its items",
                    "aws_s3_bucket": "its objects"}[c.type]
            yield fail(c.address, f"{KIND[c.type]} {_label(c, NAME_ATTR[c.type])} is deleted here and created again with "
                                  f"the same name at {d.address}: Terraform replaces it and {what} are lost",
                       _moved_fix(c, d))
        elif c.previous_address and not c.replaced:
            yield ok(c.address, f"moved from {c.previous_address} with a moved block")


# ------------------------------------------------------------------------------------
# what a moved queue leaves behind
# ------------------------------------------------------------------------------------
# one step of a resource address: `module.NAME`, `TYPE.NAME` or `data.TYPE.NAME`, with its key
_STEP = re.compile(r'(module\.[^.\[]+|data\.[^.\[]+\.[^.\[]+|[^.\[]+\.[^.\[]+)(\[(?:"(?:[^"\\]|\\.)*"|[0-9]+)\])?\.?')

# the attributes that name an object of each type: a deleted and a created object with the
# same values are the same object at two addresses (a moved block keeps it)
_IDENTITY = {
    "aws_cloudwatch_metric_alarm": ("alarm_name",),
    "aws_iam_policy": ("name", "path"),
    "aws_iam_role": ("name",),
    "aws_iam_role_policy": ("name", "role"),
    "aws_iam_role_policy_attachment": ("role", "policy_arn"),
    "aws_lambda_function": ("function_name",),
    "aws_lambda_event_source_mapping": ("function_name", "event_source_arn"),
    "aws_lambda_permission": ("function_name", "statement_id"),
    "aws_cloudwatch_log_group": ("name",),
    "aws_cloudwatch_event_rule": ("name",),
    "aws_cloudwatch_event_target": ("rule", "target_id"),
    "aws_scheduler_schedule": ("name",),
    "aws_sns_topic_subscription": ("topic_arn", "endpoint"),
}
# what is lost when such an object is deleted and created again
_LOST = {
    "aws_cloudwatch_metric_alarm": "its state and history go, and a firing alarm starts again from INSUFFICIENT_DATA",
    "aws_iam_policy": ("the roles using it lose its permissions until it is created again, and IAM refuses to delete "
                       "a policy still attached to a role outside this plan (DeleteConflict: the apply stops part-way)"),
    "aws_iam_role": "whatever assumes it fails until it is created again, and trust policies elsewhere that name "
                    "it stop matching the new role",
    "aws_iam_role_policy": "the role lacks these permissions until it is created again",
    "aws_lambda_event_source_mapping": "nobody receives from the queue between the delete and the create",
    "aws_lambda_function": "it cannot run between the delete and the create, and its versions are deleted",
    "aws_cloudwatch_log_group": "every log event in it is deleted",
}


def _steps(address: str) -> list[tuple[str, str | None]] | None:
    """[(step, key or None)] of an address, or None when it does not parse."""
    out, pos = [], 0
    while pos < len(address):
        m = _STEP.match(address, pos)
        if not m or m.end() == pos:
            return None
        out.append((m.group(1), m.group(2)))
        pos = m.end()
    return out


def _join(steps) -> str:
    return ".".join(s + (k or "") for s, k in steps)


def _renamed_keys(old: str, new: str) -> set[tuple[str, str]]:
    """The instance keys that differ between two addresses of the same shape: {(old key, new key)}."""
    a, b = _steps(old), _steps(new)
    if not a or not b or len(a) != len(b) or [s for s, _ in a] != [s for s, _ in b]:
        return set()
    return {(ka, kb) for (_, ka), (_, kb) in zip(a, b) if ka and kb and ka != kb}


def _queue_renames(ch: Changes, qs: _Queues) -> dict[tuple[str, str], tuple[str, str]]:
    """{(old key, new key): (old queue address, new queue address)} of every queue whose address
    changed by an instance key: moved with a moved block, or deleted and created again (CHG004)."""
    pairs = [(c.previous_address, c.address) for c in ch.of_type("aws_sqs_queue") if c.previous_address and not c.replaced]
    pairs += [(old, d.address) for old, d in qs.moved.items()]
    out = {}
    # a source queue names the rename better than its DLQ
    dlq = {c.address for c in ch.of_type("aws_sqs_queue") if qs.is_dlq(c)}
    for old, new in sorted(pairs, key=lambda p: (p[0] in dlq or p[1] in dlq, p)):
        for keys in _renamed_keys(old, new):
            out.setdefault(keys, (old, new))
    return out


def _function(v):
    """A Lambda function named by name or ARN (the provider stores the ARN it reads back): its name."""
    if isinstance(v, str) and v.startswith("arn:") and ":function:" in v:
        return v.split(":function:", 1)[1].split(":", 1)[0]
    return v


def _same_object(gone: Change, made: Change) -> bool:
    for attr in _IDENTITY.get(gone.type, ()):
        was, will = gone.was(attr), made.will(attr)
        if will is UNKNOWN or was is None and will is None:
            continue
        if attr == "function_name":
            was, will = _function(was), _function(will)
        if was != will:
            return False
    return True


def _left_behind_fix(gone_steps, made_steps) -> str:
    """The moved block for the first step whose key changed: a module instance (every resource
    in it moves) or the resource instance itself."""
    for i, ((step, ka), (_, kb)) in enumerate(zip(gone_steps, made_steps)):
        if ka != kb:
            old, new = _join(gone_steps[:i + 1]), _join(made_steps[:i + 1])
            what = "the module instance, every resource in it" if step.startswith("module.") else "the resource"
            return f"moved {{ from = {old}  to = {new} }} ({what})"
    return f"moved {{ from = {_join(gone_steps)}  to = {_join(made_steps)} }}"


@rule("CHG013", "moved-queue-leaves-resources", "error", "change",
      "A queue's alarms, policies, consumers and functions move with it when its key is renamed",
      why="""
A `for_each` key usually reaches every resource made for one queue: its alarms, the IAM policies
its producers and consumers use, its event source mapping, a redrive function with its role and
log group. A `moved` block (or `terraform state mv`) for the queue alone moves the queue; every
other resource of the old key is deleted and created again under the new one. Nothing of the
queue is lost, but an alarm loses its state and history, the roles lose a policy's permissions
until it is back (and IAM refuses to delete a policy still attached to a role outside the plan,
stopping the apply part-way), the queue has no consumer in between, and a deleted log group
takes its logs. Reported for each resource deleted at an address with the old key and created
with the same name at the same address with the new key, in a plan where a queue's key changes
that way.""",
      fix="Add a moved block for each resource (or the module instance holding it) from the old key to the new one, "
          "as for the queue; with this project's module, the blocks of docs/module.md 'Renaming a queues key'.",
      sources=(TF_REFACTOR,))
@_on_update
def moved_queue_leaves_resources(model: Model, opts, ch: Changes, qs: _Queues):
    renames = _queue_renames(ch, qs)
    if not renames:
        return
    created = {c.address: c for c in ch.items if c.created}
    # module instances whose move CHG004 already gives for a queue in them (a resource there is
    # moved by the same block)
    covered = [ch.by_address[old].module for old, d in qs.moved.items()
               if "module instance" in _moved_fix(ch.by_address[old], d)]
    for c in ch.items:
        if c.type == "aws_sqs_queue" or not c.existed:
            continue
        if any(c.module == m or c.module.startswith(m + ".") for m in covered):
            continue
        if c.previous_address and not c.replaced and any(_renamed_keys(c.previous_address, c.address) & set(renames)):
            yield ok(c.address, f"moved from {c.previous_address} with its queue")
            continue
        if not c.deleted:
            continue
        steps = _steps(c.address)
        if not steps:
            continue
        for (ka, kb), (qold, qnew) in renames.items():
            hits = [i for i, (_, k) in enumerate(steps) if k == ka]
            made = None
            for i in hits:
                cand = steps[:i] + [(steps[i][0], kb)] + steps[i + 1:]
                d = created.get(_join(cand))
                if d is not None and d.type == c.type and _same_object(c, d):
                    made = (cand, d)
                    break
            if made is None:
                continue
            ident = next((_function(c.was(a)) for a in _IDENTITY.get(c.type, ()) if isinstance(c.was(a), str)), None)
            label = f"{c.type} {ident!r}" if ident else c.type
            lost = _LOST.get(c.type, "it is a new object with the same settings")
            yield fail(c.address, f"{label} is deleted here and created again at {made[1].address}, while queue "
                                  f"{qold} moves to {qnew}: {lost}",
                       f"Add: {_left_behind_fix(steps, made[0])}")
            break


# ------------------------------------------------------------------------------------
# idempotency table
# ------------------------------------------------------------------------------------
@rule("CHG005", "idempotency-table-replaced", "error", "change", "The idempotency table is not deleted or replaced",
      why="""
The idempotency table remembers which messages were already processed. A new table (its `name`,
`hash_key` or `range_key` changed, or the table removed) starts empty: every message delivered again
after the change (a retry, a redrive, a duplicate send, a consumer that died before deleting) runs
its side effects a second time. DynamoDB deletion protection, when on, makes the delete fail at
apply time, part-way through the apply. Tables count as idempotency tables when their address or
name matches `table_pattern`.""",
      fix="Keep the table's name and keys; to change them, create the new table beside the old one and let the "
          "consumer read both until the old records' TTL has passed, then remove the old one.",
      sources=(POWERTOOLS, DDB_DELETE),
      options=(TABLE_OPT,))
@_on_update
def table_replaced(model: Model, opts, ch: Changes, qs: _Queues):
    for c in ch.of_type("aws_dynamodb_table"):
        name = c.was("name")
        if not c.existed or not is_idempotency_table(opts["table_pattern"], c.address, name):
            continue
        if c.address in qs.moved:
            continue  # CHG004
        guard = " (deletion protection is on: AWS refuses the delete and the apply fails part-way)" \
            if c.was("deletion_protection_enabled") is True else ""
        if c.replaced:
            yield fail(c.address, f"idempotency table {name!r} is replaced because {c.why_replaced()}: every idempotency "
                                  f"record is forgotten, so messages delivered again after the change are processed again{guard}")
        elif c.deleted:
            yield fail(c.address, f"idempotency table {name!r} is deleted: every idempotency record is forgotten, so "
                                  f"messages delivered again are processed again{guard}")
        else:
            yield ok(c.address, f"kept ({'/'.join(c.actions)})")


# ------------------------------------------------------------------------------------
# claim-check bucket
# ------------------------------------------------------------------------------------
def _claim_check_buckets(model: Model, ch: Changes, patterns=()) -> dict[str, tuple[Change, Bucket | None]]:
    """{address: (change, end-state bucket or None)} of the buckets that hold payloads of
    queues, now or in the prior state; ``patterns``: the buckets the configuration names as
    claim-check buckets (option claim_check_buckets, model.opt_in)."""
    opt_in(model.buckets, model.index, patterns)
    after = {b.address: b for b in model.buckets}
    out = {}
    prior = None
    for c in ch.of_type("aws_s3_bucket"):
        if not c.existed:
            continue
        b = after.get(c.address)
        if b is not None and b.claim_check:
            out[c.address] = (c, b)
            continue
        if prior is None:
            pm = ch.prior_model()
            opt_in(pm.buckets, pm.index, patterns)
            prior = {x.address: x for x in pm.buckets}
        pb = prior.get(c.address)
        if pb is not None and pb.claim_check:
            out[c.address] = (c, b)
    return out


@rule("CHG006", "claim-check-bucket-replaced", "error", "change", "A claim-check bucket is not deleted or replaced",
      why="""
A claim-check message carries only a pointer to its payload in S3. Deleting or replacing the bucket
(its name changed, or the bucket removed) deletes every payload: messages still queued, in flight or
in a DLQ then point at nothing and their work is lost. With `force_destroy = false` S3 refuses to
delete a bucket that still holds objects, so the apply fails part-way instead. A bucket is a
claim-check bucket when it is linked to queues (see S3004) now or in the prior state.""",
      fix="Keep the bucket's name; to move payloads to a new bucket, create it beside the old one, switch producers, "
          "and delete the old one only after the longest DLQ retention has passed.",
      sources=(SQS_LARGE, TF_JSON),
      options=(CLAIM_CHECK_OPT,))
@_on_update
def bucket_replaced(model: Model, opts, ch: Changes, qs: _Queues):
    for addr, (c, _b) in _claim_check_buckets(model, ch, opts["claim_check_buckets"]).items():
        if addr in qs.moved:
            continue
        name = c.was("bucket")
        refuse = " (force_destroy is false: S3 refuses to delete a bucket holding objects and the apply fails part-way)" \
            if c.was("force_destroy") is False else ""
        if c.replaced:
            yield fail(addr, f"claim-check bucket {name!r} is replaced because {c.why_replaced()}: every payload is "
                             f"deleted, and queued or dead-lettered messages point at nothing{refuse}")
        elif c.deleted:
            yield fail(addr, f"claim-check bucket {name!r} is deleted: every payload is deleted, and queued or "
                             f"dead-lettered messages point at nothing{refuse}")
        else:
            yield ok(addr, f"kept ({'/'.join(c.actions)})")


def _expirations(rules, prefix_wanted: str) -> list:
    """Expiration days of the enabled rules covering the payload prefix (UNKNOWN inside when unknown)."""
    if rules is UNKNOWN:
        return [UNKNOWN]
    out = []
    for r in rules if isinstance(rules, list) else ():
        if not isinstance(r, dict):
            continue
        status = r.get("status", "Enabled" if r.get("enabled", True) else "Disabled")
        if status not in ("Enabled", True):
            continue
        filt = r.get("filter")
        prefix = r.get("prefix") or ""
        if isinstance(filt, list) and filt and isinstance(filt[0], dict):
            f0 = filt[0]
            and_ = f0.get("and") if isinstance(f0.get("and"), list) else []
            if f0.get("tag") or any(isinstance(a, dict) and a.get("tags") for a in and_):
                continue  # only tagged objects
            prefix = f0.get("prefix") or next((a.get("prefix") for a in and_ if isinstance(a, dict)), "") or ""
        if prefix_wanted and not prefix_wanted.startswith(prefix):
            continue
        for e in r.get("expiration") if isinstance(r.get("expiration"), list) else ():
            days = e.get("days") if isinstance(e, dict) else None
            if isinstance(days, (int, float)) and not isinstance(days, bool) and days > 0:
                out.append(days)
    return out


def _lifecycle(ch: Changes, bucket: Change) -> list[Change]:
    name = bucket.was("bucket")
    return [c for c in ch.of_type("aws_s3_bucket_lifecycle_configuration")
            if c.existed and c.was("bucket") == name]


def _longest_lifetime(b: Bucket | None):
    """(seconds, queue) the longest a message pointing into the bucket can live before its DLQ deletes it.
    A standard message keeps its enqueue time in the DLQ; SQS resets a FIFO message's when it moves."""
    longest, who = 0, None
    for q in (b.queues if b else ()):
        d = q if q.is_dlq else q.dlq
        if d is None:
            continue
        r = d.retention()
        if q is not d and q.fifo is True:
            src = q.retention()
            r = UNKNOWN if src is UNKNOWN or r is UNKNOWN else r + src
        if r is UNKNOWN:
            return UNKNOWN, d
        if isinstance(r, (int, float)) and r > longest:
            longest, who = r, d
    return longest, who


@rule("CHG007", "claim-check-expiry-shortened", "error", "change",
      "Payload expiry is not shortened below the longest DLQ retention it serves",
      why="""
S3 applies a changed lifecycle rule to the objects already in the bucket: shortening the payload
expiry from 20 to 7 days deletes, on the next lifecycle run, every payload older than 7 days. If a
queue the bucket serves keeps messages longer than that (a DLQ with 14-day retention), a message
redriven after day 7 finds its payload gone. Shortening the expiry while it still covers the
longest DLQ retention is safe and not reported; S3004 judges the end state either way.""",
      fix="Keep the expiry at least the longest DLQ retention (in days, rounded up) of the queues the bucket serves.",
      sources=(S3_LIFECYCLE, SQS_LARGE, SQS_DLQ),
      options=(Option("payload_prefix", "", str,
                      "key prefix of the payloads; empty: every expiration rule of the bucket counts"), CLAIM_CHECK_OPT))
@_on_update
def expiry_shortened(model: Model, opts, ch: Changes, qs: _Queues):
    for addr, (c, b) in _claim_check_buckets(model, ch, opts["claim_check_buckets"]).items():
        if not c.kept:
            continue
        for lc in _lifecycle(ch, c):
            if not lc.kept or lc.after is None:
                continue  # removed (CHG008) or forgotten
            before = _expirations(lc.was("rule"), opts["payload_prefix"])
            after = _expirations(lc.will("rule"), opts["payload_prefix"])
            if not before:
                continue
            if any(a is UNKNOWN for a in after):
                yield unknown(addr, f"the payload expiry of {lc.address} is only known after apply")
                continue
            if not after:
                continue  # no expiry left: CHG008
            old, new = min(before), min(after)
            longest, who = _longest_lifetime(b)
            if new >= old:
                yield ok(addr, f"payload expiry {old:g} d -> {new:g} d (not shortened)")
            elif longest is UNKNOWN:
                yield unknown(addr, f"payload expiry shortened from {old:g} d to {new:g} d; the retention of {who.address} "
                                    "is only known after apply")
            elif new * DAY >= longest:
                yield ok(addr, f"payload expiry shortened from {old:g} d to {new:g} d, still >= the longest DLQ retention "
                               f"{_days(longest)}" + (f" ({who.address})" if who else ""))
            else:
                need = -(-longest // DAY)
                yield fail(addr, f"payload expiry shortened from {old:g} d to {new:g} d ({lc.address}): S3 deletes the "
                                 f"payloads older than {new:g} d on its next lifecycle run, while {who.address} keeps "
                                 f"messages up to {_days(longest)}: a message redriven after day {new:g} finds its payload gone",
                           f"Keep expiration.days at least {need:g} in {lc.address}.")


@rule("CHG008", "claim-check-protection-removed", "warning", "change",
      "A claim-check bucket keeps its versioning and payload expiry",
      why="""
Versioning keeps a payload that was overwritten or deleted by mistake recoverable; suspending it (the
aws_s3_bucket_versioning resource removed or set to Suspended) removes that protection for every
later write. Removing the payload expiry (the lifecycle configuration or its expiration rule) leaves
payloads in the bucket forever (cost, and data kept longer than intended). Neither deletes a payload
now, hence a warning; S3004 reports the missing expiry in the end state as an error.""",
      fix="Keep versioning enabled and the lifecycle expiration rule on the payload prefix.",
      sources=(S3_VERSIONING, S3_LIFECYCLE),
      options=(CLAIM_CHECK_OPT,))
@_on_update
def protection_removed(model: Model, opts, ch: Changes, qs: _Queues):
    for addr, (c, _b) in _claim_check_buckets(model, ch, opts["claim_check_buckets"]).items():
        if not c.kept:
            continue
        name = c.was("bucket")
        lost = []
        for v in ch.of_type("aws_s3_bucket_versioning"):
            if not v.existed or v.was("bucket") != name or v.was_path("versioning_configuration", 0, "status") != "Enabled":
                continue
            if v.deleted:
                lost.append(f"versioning is suspended ({v.address} removed)")
            elif v.kept and v.will_path("versioning_configuration", 0, "status") in ("Suspended", "Disabled"):
                lost.append(f"versioning is suspended ({v.address})")
        for lc in _lifecycle(ch, c):
            if not _expirations(lc.was("rule"), ""):
                continue
            if lc.deleted:
                lost.append(f"the payload expiry is removed ({lc.address} deleted): payloads are never deleted")
            elif lc.kept and lc.after is not None and lc.will("rule") is not UNKNOWN and not _expirations(lc.will("rule"), ""):
                lost.append(f"the payload expiry is removed from {lc.address}: payloads are never deleted")
        if lost:
            yield fail(addr, f"claim-check bucket {name!r}: {'; '.join(lost)}")
        else:
            yield ok(addr, "versioning and payload expiry kept")


# ------------------------------------------------------------------------------------
# retention
# ------------------------------------------------------------------------------------
@rule("CHG009", "queue-retention-lowered", "error", "change", "An existing queue's retention is not lowered",
      why="""
SQS applies a lowered MessageRetentionPeriod to the messages already in the queue: within about 15
minutes it deletes every message older than the new value. On a DLQ those are the dead letters kept
longest, still waiting for someone to inspect or redrive them: an error. On a source queue they are
the oldest backlog (in steady state a source queue holds seconds or minutes of messages; old ones
exist during an outage, exactly when they matter): a warning. The message says how many days of
messages are cut off.""",
      fix="Keep the retention; if it must go down, first drain or redrive the messages older than the new value.",
      sources=(SQS_SET, SQS_DLQ),
      severity_note="error on a DLQ (dead letters deleted); warning on a source queue (oldest backlog deleted)")
@_on_update
def retention_lowered(model: Model, opts, ch: Changes, qs: _Queues):
    for c in qs.queues:
        if not c.kept:
            continue
        if c.after is None:  # forget: the queue stays as it is, managed elsewhere
            yield ok(c.address, "no longer managed by this configuration (forget); unchanged")
            continue
        old = c.was("message_retention_seconds", 345600)
        new = c.will("message_retention_seconds", 345600)
        if new is UNKNOWN:
            yield unknown(c.address, "the new message_retention_seconds is only known after apply")
        elif not isinstance(old, (int, float)) or not isinstance(new, (int, float)) or new >= old:
            yield ok(c.address, f"retention {seconds(old)} -> {seconds(new)}")
        else:
            dlq = qs.is_dlq(c)
            held = "dead letters" if dlq else "messages"
            yield fail(c.address, f"{'DLQ' if dlq else 'queue'} {_label(c)}: retention lowered from {seconds(old)} to "
                                  f"{seconds(new)}: within 15 minutes SQS deletes the {held} already in it that are older "
                                  f"than {_days(new)} (those aged {_days(new)} to {_days(old)}: up to {_days(old - new)} "
                                  f"of {held})",
                       severity=None if dlq else "warning")


# ------------------------------------------------------------------------------------
# KMS keys
# ------------------------------------------------------------------------------------
def _key_users(ch: Changes, key: Change) -> list[tuple[Change, str]]:
    """(resource, what) that the prior state shows encrypted with ``key``."""
    def strs(*vals) -> set:
        return {v for v in vals if isinstance(v, str) and v}

    refs = strs(key.was("arn"), key.was("key_id"), key.was("id"))
    for a in ch.of_type("aws_kms_alias"):
        if a.existed and strs(a.was("target_key_id"), a.was("target_key_arn")) & refs:
            refs |= strs(a.was("name"), a.was("arn"))
    if not refs:
        return []
    out = []
    for q in ch.of_type("aws_sqs_queue"):
        if q.existed and strs(q.was("kms_master_key_id")) & refs:
            out.append((q, "its messages"))
    for s in ch.of_type("aws_s3_bucket_server_side_encryption_configuration"):
        rules = s.was("rule")
        for i, _r in enumerate(rules if isinstance(rules, list) else ()):
            if strs(s.was_path("rule", i, "apply_server_side_encryption_by_default", 0, "kms_master_key_id")) & refs:
                b = next((x for x in ch.of_type("aws_s3_bucket") if x.was("bucket") == s.was("bucket")), s)
                out.append((b, "its objects"))
                break
    for t in ch.of_type("aws_dynamodb_table"):
        if t.existed and strs(t.was_path("server_side_encryption", 0, "kms_key_arn")) & refs:
            out.append((t, "its items"))
    return out


@rule("CHG010", "kms-key-deleted-in-use", "error", "change",
      "A customer-managed KMS key is not deleted or disabled while queues, buckets or tables use it",
      why="""
SQS, S3 and DynamoDB keep the data keys that encrypt messages, objects and items encrypted under the
KMS key. Terraform's destroy of an aws_kms_key schedules its deletion (7 to 30 days); once deleted,
what was encrypted under it can never be decrypted. Disabling it (is_enabled = false) stops every
decrypt at once. Switching a queue or bucket to another key does not re-encrypt what is already
stored, so the old key must live until that data is gone. Reported when the key is deleted, replaced
or disabled while a queue, bucket or table the plan keeps was encrypted with it.""",
      fix="Keep the key (and enabled) until nothing encrypted under it remains: drain the queues, let payloads "
          "expire; a key pending deletion can still be recovered with CancelKeyDeletion.",
      sources=(KMS_DELETE, SQS_SSE))
@_on_update
def kms_in_use(model: Model, opts, ch: Changes, qs: _Queues):
    for k in ch.of_type("aws_kms_key"):
        if not k.existed:
            continue
        window = k.was("deletion_window_in_days")
        after = f" after {window} days" if window else ""
        if k.deleted:
            doing = f"deleted (KMS deletes it{after})"
        elif k.replaced:
            doing = f"replaced (KMS deletes the old key{after})"
        elif k.kept and k.was("is_enabled") is True and k.will("is_enabled") is False:
            doing = "disabled (no decrypt succeeds until it is enabled again)"
        else:
            yield ok(k.address, f"kept ({'/'.join(k.actions)})")
            continue
        users = [(u, what) for u, what in _key_users(ch, k) if u.kept]
        if not users:
            yield ok(k.address, f"{doing.split(' (')[0]}, but nothing the plan keeps was encrypted with it")
            continue
        names = []
        for u, what in users:
            note = ""
            if u.type == "aws_sqs_queue" and u.will("kms_master_key_id") != u.was("kms_master_key_id"):
                note = "; it switches key, but what it holds now stays encrypted under this one"
            names.append(f"{u.address} ({what}{note})")
        yield fail(k.address, f"KMS key {k.was('key_id') or k.address} is {doing} while the plan keeps "
                              f"{', '.join(names)}: what they stored encrypted under it becomes unreadable")


# ------------------------------------------------------------------------------------
# consumers
# ------------------------------------------------------------------------------------
def _still_consumed(model: Model, ch: Changes, arn: str, qchange: Change | None, gone: Change) -> bool:
    for e in ch.of_type("aws_lambda_event_source_mapping"):
        if e is gone or "delete" in e.actions and "create" not in e.actions:
            continue
        src = e.will("event_source_arn")
        if src == arn:
            return True
    if qchange is not None:
        for e in model.esms:
            if e.address != gone.address and e.queue_link.one is not None and e.queue_link.one.address == qchange.address:
                return True
    return False


@rule("CHG011", "consumer-removed", "warning", "change", "A queue that stays keeps a consumer",
      why="""
Deleting (or disabling) the event source mapping of a queue that stays leaves messages arriving with
nobody receiving them: they accumulate and retention deletes them unread. Often that is a planned
hand-over (another consumer outside this plan takes over), hence a warning; the queue-age alarm
(CW002) is what catches it if not.""",
      fix="Keep a consumer for the queue (a new mapping in the same change, or one elsewhere), or delete the queue "
          "once it is drained.",
      sources=(LAMBDA_SQS,))
@_on_update
def consumer_removed(model: Model, opts, ch: Changes, qs: _Queues):
    for e in ch.of_type("aws_lambda_event_source_mapping"):
        arn = e.was("event_source_arn")
        if not e.existed or not isinstance(arn, str) or ":sqs:" not in arn:
            continue
        q = ch.queue_for_arn(arn)
        if q is not None and not q.kept:
            continue  # the queue goes too: the queue rules report it
        where = q.address if q is not None else f"{arn} (not in this plan)"
        if e.deleted:
            if _still_consumed(model, ch, arn, q, e):
                yield ok(e.address, f"deleted, but another mapping consumes {where}")
            else:
                yield fail(e.address, f"event source mapping of {where} is deleted while the queue stays: messages "
                                      "accumulate unread until retention deletes them")
        elif e.kept and e.was("enabled") is True and e.will("enabled") is False:
            yield fail(e.address, f"event source mapping of {where} is disabled while the queue stays: messages "
                                  "accumulate unread until it is enabled again or retention deletes them")
        elif e.kept:
            yield ok(e.address, f"kept ({'/'.join(e.actions)})")



# ------------------------------------------------------------------------------------
# producers
# ------------------------------------------------------------------------------------
def _delivery_queue_arns(c: Change, when: str) -> list:
    """The queue ARNs a subscription, target or notification delivers to, as it was or will be."""
    get = c.was if when == "was" else c.will
    if c.type == "aws_sns_topic_subscription":
        return [get("endpoint")] if get("protocol") == "sqs" else []
    if c.type == "aws_cloudwatch_event_target":
        arn = get("arn")
        return [arn] if isinstance(arn, str) and ":sqs:" in arn else []
    blocks = get("queue")
    return [b.get("queue_arn") for b in blocks if isinstance(b, dict)] if isinstance(blocks, list) else []


def _producer_kept(ch: Changes, c: Change) -> tuple:
    """(whether the producer of a delivery stays, its label): the topic, rule or bucket it was."""
    if c.type == "aws_sns_topic_subscription":
        typ, attr, key = "aws_sns_topic", "arn", c.was("topic_arn")
    elif c.type == "aws_cloudwatch_event_target":
        typ, attr, key = "aws_cloudwatch_event_rule", "name", c.was("rule")
    else:
        typ, attr, key = "aws_s3_bucket", "bucket", c.was("bucket")
    for p in ch.of_type(typ):
        if p.existed and p.was(attr) == key:
            return p.kept, p.address
    return True, str(key)  # not in this plan: it stays


@rule("CHG014", "producer-delivery-removed", "error", "change",
      "A queue that stays keeps the deliveries of the producers that stay",
      why="""
Deleting an SNS subscription, an EventBridge target or an S3 notification's queue configuration
while the topic, rule or bucket and the queue both stay: the producer keeps publishing and the queue
receives nothing; SNS drops a message no subscription takes, EventBridge an event no target takes.
Its consumers starve silently (the queue's age alarm sees nothing: the queue is empty). An error when
the queue still has a consumer in the plan; a warning when it has none (it may be on its way out).""",
      fix="Keep the subscription or target (or add its replacement in the same change); to retire the path, remove "
          "the queue and its consumers with it once drained.",
      sources=("sns-sqs", "eventbridge-permissions"))
@_on_update
def producer_delivery_removed(model: Model, opts, ch: Changes, qs: _Queues):
    live = {}  # queue ARN -> the deliveries to it in the end state, by producer label
    for c in ch.of_type("aws_sns_topic_subscription", "aws_cloudwatch_event_target", "aws_s3_bucket_notification"):
        if c.after is not None:
            for arn in _delivery_queue_arns(c, "will"):
                live.setdefault(arn, []).append(c)
    for c in ch.of_type("aws_sns_topic_subscription", "aws_cloudwatch_event_target", "aws_s3_bucket_notification"):
        if not c.existed:
            continue
        before = [a for a in _delivery_queue_arns(c, "was") if isinstance(a, str)]
        after = set(_delivery_queue_arns(c, "will")) if not c.deleted else set()
        gone = [a for a in before if a not in after and not any(x is not c for x in live.get(a, ()))]
        if not before:
            continue
        kept, producer = _producer_kept(ch, c)
        lost = []
        for arn in gone:
            q = ch.queue_for_arn(arn)
            if q is None or not q.kept or not kept:
                continue  # the queue or the producer goes too
            consumed = _still_consumed(model, ch, arn, q, c)
            lost.append((q, consumed))
        if not lost:
            yield ok(c.address, "its deliveries stay" if not c.deleted else
                     "deleted with its queue or producer, or another delivery takes over")
            continue
        q, consumed = lost[0]
        what = "deleted" if c.deleted else "no longer delivers to it"
        msg = (f"{c.address} is {what}" if c.deleted else f"{c.address} {what}") + \
              f" while {producer} and queue {q.address} stay: {producer} keeps publishing and {q.address} receives " \
              "nothing of it"
        if consumed:
            yield fail(c.address, msg + ": its consumers starve and the messages are dropped")
        else:
            yield fail(c.address, msg + " (it has no consumer in this plan)", severity="warning")


@rule("CHG015", "producer-statement-dropped", "error", "change",
      "A queue policy keeps admitting the producers that still deliver to it",
      why="""
A queue policy change that drops the statement letting a live producer (an SNS topic, an EventBridge
rule, an S3 bucket whose subscription, target or notification stays) send, or narrows its
aws:SourceArn to another producer: from the apply on, every delivery is refused and lost (SNS and
EventBridge retry, then drop it or move it to their DLQ). PRD001/PRD004/PRD007 judge the end state;
this rule names the change that breaks a path that worked.""",
      fix="Keep the statement that admits the producer (service principal, sqs:SendMessage, aws:SourceArn the producer) "
          "in the queue policy, or remove the subscription, target or notification in the same change.",
      sources=("sns-sqs", "eventbridge-permissions", "s3-notifications"))
@_on_update
def producer_statement_dropped(model: Model, opts, ch: Changes, qs: _Queues):
    from ..model.producers import EXACT, NONE, OTHER, WILD, admits

    changed = {c.address: c for c in ch.of_type("aws_sqs_queue", "aws_sqs_queue_policy")}
    pm = None
    for d in model.producers:
        q = d.queue.one
        dc = ch.by_address.get(d.address)
        if q is None or dc is None or not dc.existed or not dc.kept:
            continue
        policies = [r.address for r, _ in q.policy_sources]
        touched = [changed[a] for a in policies if a in changed and changed[a].existed]
        if not touched or not any(t.kept and t.was("policy") != t.will("policy") for t in touched):
            continue
        if pm is None:
            pm = ch.prior_model()
        prior = next((x for x in pm.producers if x.address == d.address and x.at == d.at), None)
        pq = prior.queue.one if prior is not None else None
        if pq is None or pq.address != q.address:
            continue
        was = admits(pq, prior.service, prior.source, pm.documents, pm.resolve)
        if was.verdict not in (EXACT, WILD):
            continue  # it did not admit the producer before either (PRD001/PRD004/PRD007)
        now = admits(q, d.service, d.source, model.documents, model.resolve)
        if now.verdict in (NONE, OTHER):
            yield fail(d.address, f"the policy change of {q.address} drops what let {d.service} send for "
                                  f"{d.source.label}, which still delivers to it: from the apply on, every delivery is "
                                  "refused and lost", attrs=tuple((a, "policy") for a in policies))
        elif now.verdict is UNKNOWN:
            yield unknown(d.address, f"{q.address}'s policy changes; whether it still admits {d.source.label} cannot be "
                                     f"told: {now.why}")
        else:
            yield ok(d.address, f"{q.address}'s policy changes and still admits {d.source.label}")


# ------------------------------------------------------------------------------------
# alarm notifications
# ------------------------------------------------------------------------------------
@rule("CHG012", "alarm-topic-replaced", "error", "change",
      "An SNS topic that the plan's alarms notify is not deleted or replaced",
      why="""
An SNS topic's subscriptions (the on-call email, the pager, the chat hook) belong to the topic: when
Terraform deletes or replaces it (a new `name` forces replacement) they are deleted with it, and
subscriptions made outside Terraform are not re-created. The alarms that notify it then publish to a
topic nobody listens to, and the first failure nobody hears about is the next one. Reported when an
existing topic whose ARN is in the alarm_actions or ok_actions of an alarm of the plan is deleted or
replaced.""",
      fix="Keep the topic's name (with this project's module: alarms.sns_topic_name = the topic's current name), "
          "or move it with a `moved` block; if a new topic is intended, re-create its subscriptions.",
      sources=("sqs-dlq-alarms", TF_REFACTOR))
@_on_update
def alarm_topic_replaced(model: Model, opts, ch: Changes, qs: _Queues):
    alarms = ch.of_type("aws_cloudwatch_metric_alarm")
    for t in ch.of_type("aws_sns_topic"):
        if not t.existed:
            continue
        if not (t.deleted or t.replaced):
            yield ok(t.address, f"kept ({'/'.join(t.actions)})")
            continue
        arn = t.was("arn")
        users = [a for a in alarms
                 if isinstance(arn, str) and any(arn in (a.was(attr) or []) or arn in _listed(a.will(attr))
                                                 for attr in ("alarm_actions", "ok_actions"))]
        if not users:
            yield ok(t.address, f"{'deleted' if t.deleted else 'replaced'}, but no alarm of the plan notifies it")
            continue
        doing = "deleted" if t.deleted else f"replaced ({t.why_replaced()})"
        more = f" and {len(users) - 3} more" if len(users) > 3 else ""
        yield fail(t.address, f"SNS topic {t.was('name') or t.address} is {doing}, and "
                              f"{', '.join(a.address for a in users[:3])}{more} notify it: its subscriptions are "
                              "deleted with it, so those alarms page nobody until they are made again")


def _listed(v) -> list:
    return v if isinstance(v, list) else []
