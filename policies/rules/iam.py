"""IAM rules on every policy document in the plan (identity and resource policies)."""
from __future__ import annotations

import re

from .. import wildcard
from ..graph import UNKNOWN
from ..model import Model
from . import Option, fail, ok, rule, unknown

SERVICES = ("sqs", "s3", "dynamodb", "kms")

# actions that do not take a resource ARN: "*" is the only possible resource
NON_RESOURCE_ACTIONS = {
    "sqs:listqueues", "s3:listallmybuckets", "s3:getaccountpublicaccessblock", "dynamodb:listtables",
    "dynamodb:describelimits", "dynamodb:describereservedcapacity", "dynamodb:describereservedcapacityofferings",
    "dynamodb:listbackups", "dynamodb:listglobaltables", "dynamodb:liststreams", "dynamodb:describeendpoints",
    "kms:listkeys", "kms:listaliases", "kms:createkey", "kms:generaterandom", "kms:describecustomkeystores",
    "kms:createcustomkeystore", "kms:connectcustomkeystore",
}

_ARN = re.compile(r"^arn:[a-z-]+:([a-z0-9-]+):([^:]*):([^:]*):(.*)$")


def _wild(s: str) -> bool:
    return "*" in s or "?" in s


def _resource_name_wildcard(res: str) -> str | None:
    """Why a resource is not a named resource, or None when it is."""
    if res == "*":
        return '"*"'
    m = _ARN.match(res)
    if not m:
        return None
    svc, _region, _acct, rest = m.groups()
    if svc == "sqs" and _wild(rest):
        return f"{res} (queue name wildcard)"
    if svc == "s3" and _wild(rest.split("/", 1)[0]):
        return f"{res} (bucket name wildcard)"
    if svc == "dynamodb":
        parts = rest.split("/")
        if len(parts) < 2 or _wild(parts[1]):
            return f"{res} (table name wildcard)"
    if svc == "kms":
        parts = rest.split("/", 1)
        if len(parts) < 2 or _wild(parts[1]):
            return f"{res} (key wildcard)"
    return None


def covers_service(action: str, service: str) -> bool:
    """Whether the action pattern matches every action of ``service``: ``*``, ``sqs:*``, and
    the patterns IAM reads the same way (``sqs:**``, ``sqs:?*``, ``sq?:*``, ``s*``, ``*:*``).
    It does exactly when it matches ``<service>:`` followed by a name made of a character no
    pattern contains, longer than the pattern: its literals then all sit before the name,
    and a ``*`` takes the rest (IAM matches actions case-insensitively)."""
    return wildcard.match(action.lower(), f"{service}:" + "\x01" * (len(action) + 1), any_char=True)


def _of_service(action: str, services: set[str]) -> bool:
    """Whether the action pattern can match an action of one of ``services``."""
    svc = action.split(":", 1)[0].lower() if ":" in action else None
    if svc is None:
        return any(covers_service(action, s) for s in services)
    return any(wildcard.match(svc, s, any_char=True) for s in services)


@rule("IAM001", "iam-no-service-wildcards", "error", "IAM", "No sqs:* / s3:* / dynamodb:* / kms:* (or *) in an Allow",
      why="""
A producer needs sqs:SendMessage, a consumer ReceiveMessage/DeleteMessage/ChangeMessageVisibility/
GetQueueAttributes. sqs:* also grants PurgeQueue, DeleteQueue and SetQueueAttributes (rewrite the
redrive policy, the queue policy): a compromised or buggy producer can then destroy the pipeline.
Likewise s3:*, dynamodb:*, kms:*, "*" and NotAction in an Allow. Checked on identity policies,
policy documents and resource policies; Deny statements with wildcards narrow access and are fine.""",
      fix="List the actions the principal needs (producer: sqs:SendMessage; consumer: sqs:ReceiveMessage, "
          "sqs:DeleteMessage, sqs:ChangeMessageVisibility, sqs:GetQueueAttributes; claim check: s3:GetObject/PutObject).",
      sources=('iam-best-practices', 'sqs-api-permissions'),
      options=(Option("services", list(SERVICES), list, "services whose service-wide wildcard is refused"),))
def no_wildcards(model: Model, opts):
    services = {s.lower() for s in opts["services"]}
    for d in model.documents.all():
        if d.doc is None:
            if d.error:
                yield fail(d.address, d.error, ref=d.ref)
            else:
                yield unknown(d.address, f"policy document {d.unknown_reason}", ref=d.ref)
            continue
        bad, undecided = [], False
        for s in d.doc.statements:
            if s.effect != "Allow":
                if s.effect is UNKNOWN:
                    undecided = True
                continue
            if s.actions is UNKNOWN:
                undecided = True
                continue
            for a in s.actions or ():
                if a is UNKNOWN:
                    undecided = True
                if not isinstance(a, str):
                    continue
                if a == "*" or any(covers_service(a, svc) for svc in services):
                    bad.append(f"{a} in {s.label}")
            if s.not_actions is UNKNOWN:
                undecided = True
            elif s.not_actions:
                bad.append(f"NotAction in {s.label} (allows every other action)")
        via = f" (via {d.via})" if d.via else ""
        if bad:
            yield fail(d.address, f"Allow grants service-wide wildcards{via}: {'; '.join(bad)}", ref=d.ref)
        elif undecided:
            yield unknown(d.address, f"some statements{via} are only known after apply", ref=d.ref)
        else:
            yield ok(d.address, f"no wildcard actions{via}", ref=d.ref)


@rule("IAM002", "iam-scoped-resources", "error", "IAM", "Data actions scoped to named resources",
      why="""
sqs:SendMessage on "*" lets a producer write into every queue of the account, s3:GetObject on "*"
reads every bucket. Data actions on SQS, S3, DynamoDB and KMS must name their queues, buckets
(objects under a named bucket may use a key wildcard), tables and keys. Resources only known after
apply are references to resources of the plan, hence named.""",
      fix="Replace \"*\" and name wildcards with the ARNs of the queues, buckets, tables and keys the principal uses.",
      sources=('iam-best-practices', 'iam-resource'),
      options=(Option("services", list(SERVICES), list, "services whose data actions must name resources"),))
def scoped_resources(model: Model, opts):
    services = {s.lower() for s in opts["services"]}
    for d in model.documents.all():
        if d.doc is None:
            continue  # IAM001 already reports an unknown or broken document
        bad, undecided = [], False
        for s in d.doc.statements:
            if s.effect != "Allow":
                continue
            if s.actions is UNKNOWN or s.not_actions is UNKNOWN or s.resources is UNKNOWN:
                undecided = True
                continue
            data_actions = [a for a in s.actions or () if isinstance(a, str) and _of_service(a, services)
                            and a.lower() not in NON_RESOURCE_ACTIONS]
            if s.not_actions:
                # an Allow of every action but the listed ones grants every data action
                data_actions.append("NotAction (every other action)")
            if not data_actions:
                continue
            if s.not_resources is UNKNOWN:
                undecided = True
                continue
            if s.not_resources:
                bad.append(f"NotResource in {s.label}")
                continue
            if s.resources is None and s.principals is None:
                bad.append(f"{s.label} has no Resource")
                continue
            for r in s.resources or ():
                if r is UNKNOWN or not isinstance(r, str):
                    continue
                why = _resource_name_wildcard(r)
                if why:
                    bad.append(f"{', '.join(data_actions[:3]) or '*'} on {why} in {s.label}")
        via = f" (via {d.via})" if d.via else ""
        if bad:
            yield fail(d.address, f"data actions not scoped to named resources{via}: {'; '.join(bad)}", ref=d.ref)
        elif undecided:
            yield unknown(d.address, f"some statements{via} are only known after apply", ref=d.ref)
        else:
            yield ok(d.address, f"data actions scoped to named resources{via}", ref=d.ref)
