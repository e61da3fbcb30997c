"""IAM policy documents, normalised from policy JSON or from the statement
blocks of an ``aws_iam_policy_document`` data source (whose JSON is unknown at
plan time when a statement names a resource created by the same apply)."""
from __future__ import annotations

import json
from typing import Any

from .graph import UNKNOWN, Resource


class Statement:
    __slots__ = ("sid", "effect", "actions", "not_actions", "resources", "not_resources",
                 "principals", "not_principals", "conditions")

    def __init__(self, sid, effect, actions, not_actions, resources, not_resources, principals,
                 not_principals, conditions):
        self.sid = sid
        self.effect = effect  # "Allow" | "Deny" | UNKNOWN
        self.actions = actions  # list[str] | UNKNOWN | None
        self.not_actions = not_actions
        self.resources = resources  # list[str | UNKNOWN] | UNKNOWN | None
        self.not_resources = not_resources
        self.principals = principals  # list[(type, id)] | UNKNOWN | None (None: identity policy)
        self.not_principals = not_principals
        self.conditions = conditions  # list[(operator, key, [values])] | UNKNOWN

    @property
    def label(self) -> str:
        return f"statement {self.sid!r}" if isinstance(self.sid, str) and self.sid else "a statement"


class Document:
    __slots__ = ("statements", "origin")

    def __init__(self, statements: list[Statement], origin: str):
        self.statements = statements
        self.origin = origin  # address the document came from


class PolicyParseError(ValueError):
    pass


def _as_list(v) -> list | None:
    if v is None:
        return None
    return v if isinstance(v, list) else [v]


def _principals(p) -> list | None:
    if p is None:
        return None
    if p == "*":
        return [("*", "*")]
    if isinstance(p, dict):
        out = []
        for t, ids in p.items():
            for i in _as_list(ids) or ():
                out.append((t, i))
        return out
    raise PolicyParseError(f"Principal must be \"*\" or an object, not {type(p).__name__}")


def _conditions(c) -> list:
    out = []
    if not c:
        return out
    if not isinstance(c, dict):
        raise PolicyParseError("Condition must be an object")
    for op, kv in c.items():
        if not isinstance(kv, dict):
            raise PolicyParseError(f"Condition {op} must be an object")
        for k, v in kv.items():
            out.append((op, k, [str(x).lower() if isinstance(x, bool) else x for x in (_as_list(v) or [])]))
    return out


def parse_json(text: str, origin: str) -> Document:
    """Parse IAM policy JSON text. Raises PolicyParseError."""
    try:
        doc = json.loads(text)
    except (TypeError, ValueError) as e:
        raise PolicyParseError(f"not valid JSON ({e})") from None
    if not isinstance(doc, dict):
        raise PolicyParseError("not a JSON object")
    sts = doc.get("Statement")
    if isinstance(sts, dict):
        sts = [sts]
    if not isinstance(sts, list):
        raise PolicyParseError("has no Statement list")
    out = []
    for s in sts:
        if not isinstance(s, dict):
            raise PolicyParseError("a Statement is not an object")
        out.append(Statement(
            s.get("Sid"), s.get("Effect", "Allow"), _as_list(s.get("Action")), _as_list(s.get("NotAction")),
            _as_list(s.get("Resource")), _as_list(s.get("NotResource")), _principals(s.get("Principal")),
            _principals(s.get("NotPrincipal")), _conditions(s.get("Condition")),
        ))
    return Document(out, origin)


def _blk_list(res: Resource, i: int, key: str):
    v = res.path("statement", i, key)
    if v is UNKNOWN:
        return UNKNOWN
    if not v:
        return None
    # an element may be unknown (a resource ARN created by the same apply)
    unk = res.unknown.get("statement")
    flags = None
    if isinstance(unk, list) and i < len(unk) and isinstance(unk[i], dict):
        flags = unk[i].get(key)
    out = []
    for j, x in enumerate(v):
        if x is None and isinstance(flags, list) and j < len(flags) and flags[j] is True:
            out.append(UNKNOWN)
        elif x is not None:
            out.append(x)
    return out


def from_document_data(res: Resource) -> Document | None:
    """A document from an aws_iam_policy_document's statement blocks (known parts)."""
    blocks = res.attr("statement")
    if blocks is UNKNOWN or blocks is None:
        return None
    out = []
    for i, b in enumerate(blocks):
        if not isinstance(b, dict):
            continue
        effect = res.path("statement", i, "effect")
        principals: Any = None
        pb = res.path("statement", i, "principals")
        if pb is UNKNOWN:
            principals = UNKNOWN
        elif pb:
            principals = []
            for k, p in enumerate(pb):
                ids = res.path("statement", i, "principals", k, "identifiers")
                if ids is UNKNOWN:
                    principals = UNKNOWN
                    break
                for ident in ids or ():
                    principals.append((p.get("type"), ident if ident is not None else UNKNOWN))
        conds: Any = []
        cb = res.path("statement", i, "condition")
        if cb is UNKNOWN:
            conds = UNKNOWN
        else:
            for c in cb or ():
                vals = c.get("values")
                conds.append((c.get("test"), c.get("variable"), [str(x).lower() if isinstance(x, bool) else x for x in (vals or [])]))
        out.append(Statement(
            b.get("sid"), effect if effect is not None else "Allow",
            _blk_list(res, i, "actions"), _blk_list(res, i, "not_actions"),
            _blk_list(res, i, "resources"), _blk_list(res, i, "not_resources"),
            principals, None, conds,
        ))
    return Document(out, res.address)


def is_public_principal(principals) -> bool:
    if principals is None or principals is UNKNOWN:
        return False
    for t, ident in principals:
        if ident == "*" and t in ("*", "AWS"):
            return True
    return False


_RESTRICTING_KEYS = {
    "aws:sourcearn", "aws:sourceaccount", "aws:sourceowner", "aws:principalorgid", "aws:principalaccount",
    "aws:principalarn", "aws:sourcevpc", "aws:sourcevpce", "aws:principalorgpaths", "aws:userid",
    "aws:username", "aws:sourceorgid", "aws:sourceorgpaths", "aws:principalservicename",
}


def has_restricting_condition(conditions) -> bool:
    if conditions is UNKNOWN:
        return True  # cannot tell: do not call it public
    return any(isinstance(k, str) and k.lower() in _RESTRICTING_KEYS for _, k, _ in conditions)


def action_covers_all(actions, service: str) -> bool:
    if not actions or actions is UNKNOWN:
        return False
    for a in actions:
        if isinstance(a, str) and a.lower() in ("*", f"{service}:*"):
            return True
    return False


def denies_insecure_transport(doc: Document, service: str) -> bool:
    """A Deny of all ``service`` actions to everyone when aws:SecureTransport is false."""
    for s in doc.statements:
        if s.effect != "Deny" or not is_public_principal(s.principals):
            continue
        if not action_covers_all(s.actions, service):
            continue
        if s.conditions is UNKNOWN:
            continue
        for op, key, vals in s.conditions:
            if isinstance(key, str) and key.lower() == "aws:securetransport" and isinstance(op, str) \
                    and op.lower() in ("bool", "boolifexists") and "false" in [str(v).lower() for v in vals]:
                return True
    return False
