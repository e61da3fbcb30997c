"""Reading planned values as the rules use them: ARNs, URLs and function names parsed,
numbers, flags and lists checked against what AWS accepts (:class:`Invalid` otherwise),
regions and accounts compared, values quoted for messages."""
from __future__ import annotations

import json
import math
import re
from typing import Any

from .. import iamdoc
from ..graph import UNKNOWN


AWS_DEFAULT_RETENTION = 345600  # SQS MessageRetentionPeriod when unset (4 days)
AWS_DEFAULT_VISIBILITY = 30
LAMBDA_DEFAULT_TIMEOUT = 3
ESM_DEFAULT_BATCH_SQS = 10

UNSET = object()
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


class Link:
    """What following a link (a queue's DLQ, a mapping's queue or function) came to: the
    resources found (``items``; ``one`` when exactly one), a place outside the plan
    (``external``), or why none could be told (``unknown_reason``; ``candidates``: every
    resource it could be, when several)."""

    __slots__ = ("items", "unknown_reason", "external", "candidates")

    def __init__(self, items=None, unknown_reason: str | None = None, external: str | None = None):
        self.items = items or []
        self.candidates = []
        self.unknown_reason = unknown_reason
        self.external = external

    @property
    def one(self):
        return self.items[0] if len(self.items) == 1 else None


def show(v: Any) -> str:
    """A value quoted in a message: short, whatever its size."""
    try:
        text = repr(v) if not isinstance(v, (dict, list)) else json.dumps(v, default=str)
    except ValueError:  # an integer too long to print
        text = "a number too long to print"
    return text if len(text) <= 60 else text[:59] + "…"


class Invalid:
    """A planned value the AWS provider would not produce: the wrong type, not a finite
    number, or outside what AWS accepts. A rule that reads one reports it (a failing
    finding naming the attribute) instead of deciding on it or passing it silently."""

    __slots__ = ("what", "value", "expected")

    def __init__(self, what: str, value: Any, expected: str):
        self.what, self.value, self.expected = what, value, expected

    def __str__(self) -> str:
        return f"{self.what} is {show(self.value)}, not {self.expected}"

    def __repr__(self) -> str:
        return f"<Invalid {self}>"


def number(v: Any, what: str, lo: float | None = None, hi: float | None = None, integer: bool = True,
           unit: str = "") -> Any:
    """A numeric attribute as a rule may use it: the number, UNKNOWN, None (unset) or Invalid."""
    if v is UNKNOWN or v is None:
        return v
    of = f" of {'seconds' if unit == 's' else unit}" if unit else ""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return Invalid(what, v, ("a whole number" if integer else "a number") + of)
    if isinstance(v, float):
        if not math.isfinite(v):
            return Invalid(what, v, "a finite number" + of)
        if integer:
            if not v.is_integer():
                return Invalid(what, v, "a whole number" + of)
            v = int(v)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        rng = f"{lo:g}..{hi:g}" if lo is not None and hi is not None else (f">= {lo:g}" if lo is not None else f"<= {hi:g}")
        return Invalid(what, v, f"within {rng}{' ' + unit if unit else ''}, what AWS accepts")
    return v


def flag(v: Any, what: str) -> Any:
    """A boolean attribute: True, False, None (unset), UNKNOWN or Invalid."""
    if v is UNKNOWN or v is None or isinstance(v, bool):
        return v
    return Invalid(what, v, "true or false")


def str_list(v: Any, what: str) -> Any:
    """A list (or set) of strings: the list, None (unset), UNKNOWN or Invalid."""
    if v is UNKNOWN or v is None:
        return v
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        return Invalid(what, v, "a list of strings")
    return v


def invalid_of(*values: Any) -> Invalid | None:
    return next((v for v in values if isinstance(v, Invalid)), None)


def loads(text: str) -> Any:
    """JSON held in an attribute (a policy, a redrive policy): strict JSON, so NaN and
    Infinity, which no AWS API accepts, are errors rather than numbers. Raises ValueError."""
    return iamdoc.strict_loads(text)


def receive_count(v: Any) -> Any:
    """maxReceiveCount of a redrive policy: a whole number (SQS also accepts it as a
    decimal string), or Invalid. SQS accepts 1..1000."""
    if isinstance(v, str) and re.fullmatch(r"\s*[0-9]{1,9}\s*", v):
        v = int(v)
    got = number(v, "maxReceiveCount", 1, 1000)
    if v is None or (isinstance(got, Invalid) and not isinstance(v, (int, float))):
        # written by hand in the policy JSON (not typed by the provider): SQS refuses it
        return Invalid("maxReceiveCount", v, "a whole number within 1..1000, what SQS accepts")
    return got


def parse_arn(arn: Any) -> tuple[str | None, str | None] | None:
    """(region, account) of any ARN, or None."""
    if not isinstance(arn, str):
        return None
    m = re.match(r"^arn:[a-z-]+:[a-z0-9-]+:([a-z0-9-]*):([0-9]*):", arn)
    return (m.group(1) or None, m.group(2) or None) if m else None


def place_difference(a: tuple, b: tuple) -> str:
    parts = []
    for what, x, y in (("region", a[0], b[0]), ("account", a[1], b[1])):
        if x != y or x is None:
            parts.append(what)
    return (f"its {' and '.join(parts) or 'location'} may differ from the queue's "
            "(another provider configuration, not known from the plan)")


def place_mismatch(a: tuple, b: tuple) -> str | None:
    """How two (region, account) locations known to differ differ ("region eu-west-1, not
    us-east-1"), for a message; None when they do not differ in a known value."""
    parts = []
    for what, x, y in (("region", a[0], b[0]), ("account", a[1], b[1])):
        if isinstance(x, str) and isinstance(y, str) and x != y:
            parts.append(f"{what} {x}, not {y}")
    return " and ".join(parts) or None


def same_place(a: tuple, b: tuple, providers: tuple | None = None):
    """Whether two (region, account) locations are the same: True, False, or UNKNOWN.
    ``providers``: the two resources' provider-configuration places; resources of one
    provider configuration are in one place even when only one of them has a known ARN
    (an existing queue beside a new one in an update plan)."""
    if a == b:
        return True
    if providers is not None and providers[0] == providers[1] and providers[0] != (None, None):
        return place_mismatch(a, b) is None
    verdict = True
    for x, y in zip(a, b):
        if x == y:  # the same value, the same provider setting, or neither shown
            continue
        if x is None or y is None:
            verdict = UNKNOWN
        elif isinstance(x, str) and isinstance(y, str):
            return False
        else:
            verdict = UNKNOWN
    return verdict
