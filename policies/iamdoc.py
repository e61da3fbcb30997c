"""IAM policy documents, normalised from policy JSON or from the statement
blocks of an ``aws_iam_policy_document`` data source (whose JSON is unknown at
plan time when a statement names a resource created by the same apply)."""
from __future__ import annotations

import json
import re
from typing import Any

from . import wildcard
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
    __slots__ = ("statements", "origin", "ref", "incomplete", "open_sids")

    def __init__(self, statements: list[Statement], origin: str, ref=None, incomplete: str | None = None,
                 open_sids: bool = False):
        self.statements = statements
        self.origin = origin  # address the document came from
        self.ref = ref  # SourceRef when read from the configuration source
        # why some statements are only known after apply (a source or override document
        # that is): the known ones are still evaluated
        self.incomplete = incomplete
        # an override document only known after apply may replace any statement with a Sid
        self.open_sids = open_sids

    def settled(self, s: Statement) -> bool:
        """Whether statement s is certainly in the final document."""
        return not (self.open_sids and isinstance(s.sid, str) and s.sid)


def merge(source: list[Document | None], own: Document | None, override: list[Document | None],
          origin: str) -> Document:
    """An aws_iam_policy_document with source_policy_documents / override_policy_documents,
    merged as the AWS provider does: a statement of the document itself replaces a source
    statement with the same Sid, an override statement replaces any statement with its
    Sid, other statements are appended. None stands for a document only known after apply."""
    out: list[Statement] = []
    by_sid: dict[str, int] = {}

    def put(st: Statement, replace: bool):
        sid = st.sid if isinstance(st.sid, str) and st.sid else None
        if sid is not None and sid in by_sid and replace:
            out[by_sid[sid]] = st
            return
        if sid is not None:
            by_sid.setdefault(sid, len(out))
        out.append(st)

    missing = []
    for d in source:
        if d is None:
            missing.append("a source policy document")
            continue
        for st in d.statements:
            put(st, False)
    if own is None:
        missing.append("its own statements")
    else:
        for st in own.statements:
            put(st, True)
    open_sids = False
    for d in override:
        if d is None:
            missing.append("an override policy document")
            open_sids = True
            continue
        for st in d.statements:
            put(st, True)
    why = f"{' and '.join(dict.fromkeys(missing))} only known after apply" if missing else None
    return Document(out, origin, incomplete=why, open_sids=open_sids)


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
                if i is None or isinstance(i, _JSON_NON_STRINGS):
                    raise PolicyParseError(f"a {t} principal must be a string, not {type(i).__name__}")
                out.append((t, i))
        return out
    raise PolicyParseError(f"Principal must be \"*\" or an object, not {type(p).__name__}")


def _strings(v, what: str) -> list | None:
    """Action, Resource and their Not forms: a string or a list of strings."""
    if v is None or v is UNKNOWN:
        return v
    if v.__class__ is str:
        return [v]
    if v.__class__ is list:
        for x in v:
            if x.__class__ is not str and (x is None or isinstance(x, _JSON_NON_STRINGS)):
                raise PolicyParseError(f"{what} must be a string or a list of strings")
        return v
    if v is not None and not isinstance(v, _JSON_NON_STRINGS):
        return [v]  # a value read from the configuration source (a placeholder known after apply)
    raise PolicyParseError(f"{what} must be a string or a list of strings")


# what JSON holds besides strings: wrong types for Action, Resource and principals (values
# read from the configuration source may be placeholders of values known after apply)
_JSON_NON_STRINGS = (bool, int, float, dict, list)


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


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON value")


_STRICT = json.JSONDecoder(parse_constant=_reject_constant)


def strict_loads(text: str):
    """json.loads without NaN/Infinity (which no AWS API accepts). Raises ValueError."""
    if not isinstance(text, str):
        raise TypeError(f"not a JSON string but {type(text).__name__}")
    return _STRICT.decode(text)


def parse_json(text: str, origin: str) -> Document:
    """Parse IAM policy JSON text. Raises PolicyParseError."""
    try:
        doc = strict_loads(text)
    except (TypeError, ValueError, RecursionError) as e:
        msg = str(e)
        raise PolicyParseError(f"not valid JSON ({msg if len(msg) < 80 else msg[:79] + '…'})") from None
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
        effect = s.get("Effect", "Allow")
        if effect is not UNKNOWN and effect not in ("Allow", "Deny"):
            raise PolicyParseError(f"Effect must be \"Allow\" or \"Deny\", not {str(effect)[:40]!r}")
        out.append(Statement(
            s.get("Sid"), effect, _strings(s.get("Action"), "Action"), _strings(s.get("NotAction"), "NotAction"),
            _strings(s.get("Resource"), "Resource"), _strings(s.get("NotResource"), "NotResource"),
            _principals(s.get("Principal")), _principals(s.get("NotPrincipal")), _conditions(s.get("Condition")),
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
    if not isinstance(v, list):
        v = [v]
    # an element may be unknown (a resource ARN created by the same apply)
    unk = res.unknown.get("statement")
    flags = None
    if isinstance(unk, list) and i < len(unk) and isinstance(unk[i], dict):
        flags = unk[i].get(key)
    out = []
    for j, x in enumerate(v):
        if x is None and isinstance(flags, list) and j < len(flags) and flags[j] is True:
            out.append(UNKNOWN)
        elif isinstance(x, str):
            out.append(x)
    return out


def from_document_data(res: Resource) -> Document | None:
    """A document from an aws_iam_policy_document's statement blocks (known parts);
    None when the blocks themselves are only known after apply."""
    blocks = res.attr("statement")
    if blocks is UNKNOWN or (blocks is None and "statement" not in res.values):
        return None
    out = []
    for i, b in enumerate(blocks if isinstance(blocks, list) else ()):
        if not isinstance(b, dict):
            continue
        effect = res.path("statement", i, "effect")
        principals: Any = None
        pb = res.path("statement", i, "principals")
        if pb is UNKNOWN:
            principals = UNKNOWN
        elif isinstance(pb, list) and pb:
            principals = []
            for k, p in enumerate(pb):
                ids = res.path("statement", i, "principals", k, "identifiers")
                if ids is UNKNOWN:
                    principals = UNKNOWN
                    break
                ptype = p.get("type") if isinstance(p, dict) else None
                for ident in ids if isinstance(ids, list) else ():
                    principals.append((ptype, ident if ident is not None else UNKNOWN))
        conds: Any = []
        cb = res.path("statement", i, "condition")
        if cb is UNKNOWN:
            conds = UNKNOWN
        else:
            for c in cb if isinstance(cb, list) else ():
                if not isinstance(c, dict):
                    continue
                vals = c.get("values")
                conds.append((c.get("test"), c.get("variable"),
                              [str(x).lower() if isinstance(x, bool) else x for x in (vals if isinstance(vals, list) else ())]))
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


# a placeholder the configuration source leaves in a string for a value known only after
# apply (source.PendingText: ``${aws_s3_bucket.b.arn}/*``); IAM's own policy variables
# (``${aws:username}``) have a colon
_PLACEHOLDER = re.compile(r"\$\{[^}:]+\}")


def _pending_text(r) -> bool:
    """Whether ``r`` is a string the configuration source built from values known only after apply."""
    from .source.values import PendingText  # imported only when a document came from source

    return isinstance(r, PendingText)


def covers(resources, arns: list[str], known: dict[str, str] | None = None):
    """Whether a statement's Resource patterns cover every ARN of ``arns`` (written with
    the partition "aws"; a pattern's own partition is used when it names one): True,
    False, or UNKNOWN when an element only known after apply might. ``known``: what
    placeholders of values known only after apply stand for (``${aws_s3_bucket.b.arn}``
    -> ``arn:aws:s3:::name``, the bucket's ARN built from its known name); a pattern with
    a placeholder left is unknown, never a miss."""
    if resources is UNKNOWN:
        return UNKNOWN
    if not resources:
        return False
    patterns = []
    for r in resources:
        if isinstance(r, str) and _pending_text(r):
            text = str(r)
            for placeholder, value in (known or {}).items():
                text = text.replace(placeholder, value)
            r = UNKNOWN if _PLACEHOLDER.search(text) else text
        patterns.append(r)
    verdict = True
    for arn in arns:
        hit = False
        for r in patterns:
            if r is UNKNOWN or not isinstance(r, str):
                continue
            m = re.match(r"^arn:([^:*?]*):", r)
            text = f"arn:{m.group(1)}:" + arn.split(":", 2)[2] if m else arn
            if wildcard.match(r, text, any_char=True):
                hit = True
                break
        if not hit:
            if any(r is UNKNOWN for r in patterns):
                verdict = UNKNOWN
            else:
                return False
    return verdict


def denies_insecure_transport(doc: Document, service: str, arns: list[str] | None = None,
                               known: dict[str, str] | None = None):
    """A Deny of all ``service`` actions to everyone when aws:SecureTransport is false, on
    every ARN of ``arns`` (None: whatever its resources). True, False, or UNKNOWN when such
    a Deny exists but its resources are only known after apply. ``known``: see covers."""
    verdict = False
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
                got = True if arns is None else covers(s.resources, arns, known)
                if got is True:
                    return True
                if got is UNKNOWN:
                    verdict = UNKNOWN
    return verdict
