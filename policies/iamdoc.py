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
    __slots__ = ("statements", "origin", "ref")

    def __init__(self, statements: list[Statement], origin: str, ref=None):
        self.statements = statements
        self.origin = origin  # address the document came from
        self.ref = ref  # SourceRef when read from the configuration source


class PolicyParseError(ValueError):
    pass


def _as_list(v) -> list | None:
    if v is None:
        return None
    if v is UNKNOWN:
        return UNKNOWN
    return v if isinstance(v, list) else [v]


def _principals(p) -> list | None:
    if p is None:
        return None
    if p is UNKNOWN:
        return UNKNOWN
    if p == "*":
        return [("*", "*")]
    if isinstance(p, dict):
        out = []
        for t, ids in p.items():
            ids = _as_list(ids)
            if ids is UNKNOWN:
                return UNKNOWN
            for i in ids or ():
                out.append((t, i))
        return out
    raise PolicyParseError(f"Principal must be \"*\" or an object, not {type(p).__name__}")


def _conditions(c) -> list:
    out = []
    if c is UNKNOWN:
        return UNKNOWN
    if not c:
        return out
    if not isinstance(c, dict):
        raise PolicyParseError("Condition must be an object")
    for op, kv in c.items():
        if kv is UNKNOWN:
            return UNKNOWN
        if not isinstance(kv, dict):
            raise PolicyParseError(f"Condition {op} must be an object")
        for k, v in kv.items():
            vals = _as_list(v)
            vals = [UNKNOWN] if vals is UNKNOWN else vals
            out.append((op, k, [str(x).lower() if isinstance(x, bool) else x for x in (vals or [])]))
    return out


def parse_json(text: str, origin: str) -> Document:
    """Parse IAM policy JSON text. Raises PolicyParseError."""
    try:
        doc = json.loads(text)
    except (TypeError, ValueError) as e:
        raise PolicyParseError(f"not valid JSON ({e})") from None
    return from_object(doc, origin)


def from_object(doc: Any, origin: str, ref=None) -> Document:
    """A policy document from its decoded JSON, where parts may be UNKNOWN
    (values known only after apply, read from the configuration source)."""
    if not isinstance(doc, dict):
        raise PolicyParseError("not a JSON object")
    sts = doc.get("Statement")
    if isinstance(sts, dict):
        sts = [sts]
    if sts is UNKNOWN:
        sts = [UNKNOWN]
    if not isinstance(sts, list):
        raise PolicyParseError("has no Statement list")
    out = []
    for s in sts:
        if s is UNKNOWN:
            out.append(Statement(None, UNKNOWN, UNKNOWN, None, UNKNOWN, None, UNKNOWN, None, UNKNOWN))
            continue
        if not isinstance(s, dict):
            raise PolicyParseError("a Statement is not an object")
        out.append(Statement(
            s.get("Sid"), s.get("Effect", "Allow"), _as_list(s.get("Action")), _as_list(s.get("NotAction")),
            _as_list(s.get("Resource")), _as_list(s.get("NotResource")), _principals(s.get("Principal")),
            _principals(s.get("NotPrincipal")), _conditions(s.get("Condition")),
        ))
    return Document(out, origin, ref)


def _block_principals(blocks):
    if blocks is UNKNOWN:
        return UNKNOWN
    if not blocks:
        return None
    out = []
    for b in blocks:
        if b is UNKNOWN or not isinstance(b, dict):
            return UNKNOWN
        ids = b.get("identifiers")
        if ids is UNKNOWN or b.get("type") is UNKNOWN:
            return UNKNOWN
        for i in ids or ():
            out.append((b.get("type"), i))
    return out


def from_blocks(blocks: Any) -> list[Statement]:
    """Statements from aws_iam_policy_document ``statement`` blocks evaluated from
    source (dicts of sid, effect, actions, resources, principals, condition ...)."""
    if blocks is UNKNOWN or not isinstance(blocks, list):
        raise PolicyParseError("statement blocks not known")
    out = []
    for b in blocks:
        if not isinstance(b, dict):
            raise PolicyParseError("a statement block not known")
        conds: Any = []
        cb = b.get("condition")
        if cb is UNKNOWN:
            conds = UNKNOWN
        else:
            for c in cb or ():
                if not isinstance(c, dict):
                    conds = UNKNOWN
                    break
                vals = c.get("values")
                vals = [UNKNOWN] if vals is UNKNOWN else (vals or [])
                conds.append((c.get("test"), c.get("variable"), [str(x).lower() if isinstance(x, bool) else x for x in vals]))
        effect = b.get("effect")
        out.append(Statement(
            b.get("sid"), "Allow" if effect is None else effect,
            _as_list(b.get("actions")), _as_list(b.get("not_actions")),
            _as_list(b.get("resources")), _as_list(b.get("not_resources")),
            _block_principals(b.get("principals")), _block_principals(b.get("not_principals")), conds,
        ))
    return out


def merge_by_sid(base: list[Statement], over: list[Statement]) -> list[Statement]:
    """aws_iam_policy_document's merge: a statement of ``over`` with a non-empty Sid
    replaces the one of ``base`` with that Sid; the others are appended."""
    out = list(base)
    for s in over:
        sid = s.sid if isinstance(s.sid, str) and s.sid else None
        i = next((k for k, b in enumerate(out) if sid is not None and b.sid == sid), None)
        if i is None:
            out.append(s)
        else:
            out[i] = s
    return out


def undecided(doc: Document) -> bool:
    """Whether parts the rules read are unknown (worth reading the source for)."""
    for s in doc.statements:
        if s.effect is UNKNOWN or s.actions is UNKNOWN or s.principals is UNKNOWN or s.conditions is UNKNOWN:
            return True
        if any(a is UNKNOWN for a in s.actions or ()):
            return True
        if s.principals and any(i is UNKNOWN for _, i in s.principals):
            return True
    return False


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
    if actions is UNKNOWN or not actions:
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
