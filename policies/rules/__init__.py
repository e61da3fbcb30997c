"""The rule catalog: every rule with its stable ID, slug, severity, options and check."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..references import REFERENCES

PASS, FAIL, UNDECIDED = "pass", "fail", "unknown"
SEVERITIES = ("error", "warning")


@dataclass(frozen=True)
class Option:
    name: str
    default: Any
    kind: type | tuple
    help: str
    # the rule whose setting of this option reaches every rule declaring it (unless set on
    # that rule itself): one setting for one fact, such as which tables are idempotency tables
    owner: str | None = None


@dataclass
class Result:
    """One outcome of a rule on one resource."""

    status: str
    address: str
    message: str
    remediation: str | None = None
    severity: str | None = None  # overrides the rule's severity for this outcome
    ref: Any = None  # source.SourceRef: decided from the configuration source at this file and line
    # (address, attribute) of what the remediation tells to change (as checkov's
    # get_evaluated_keys); None: the rule's own ``attrs``, on the finding's address
    attrs: tuple | None = None

    def judged(self, rule: "Rule") -> tuple:
        """(address, attribute) pairs this outcome's remediation names."""
        if self.attrs is not None:
            return self.attrs
        return tuple((self.address, a) for a in rule.attrs) if self.remediation is None else ()


@dataclass
class Rule:
    id: str
    slug: str
    severity: str
    area: str
    title: str
    why: str
    remediation: str
    sources: tuple[str, ...]  # keys of references.REFERENCES
    options: tuple[Option, ...] = ()
    check: Callable[..., Iterable[Result]] | None = field(default=None, repr=False)
    severity_note: str | None = None
    attrs: tuple[str, ...] = ()  # attributes its remediation (``fix``) tells to change

    def defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.options}


RULES: dict[str, Rule] = {}


def rule(id: str, slug: str, severity: str, area: str, title: str, *, why: str, fix: str, sources: tuple[str, ...],
         options: tuple[Option, ...] = (), severity_note: str | None = None, attrs: tuple[str, ...] = ()):
    """Register a rule. ``attrs``: the attributes ``fix`` tells to change, on the finding's resource."""
    def deco(fn):
        assert id not in RULES, id
        assert sources and all(k in REFERENCES for k in sources), (id, sources)
        RULES[id] = Rule(id, slug, severity, area, title, why.strip(), fix.strip(), sources, options, fn, severity_note,
                         attrs)
        return fn

    return deco


def ok(address: str, message: str, ref: Any = None) -> Result:
    return Result(PASS, address, message, ref=ref)


def fail(address: str, message: str, fix: str | None = None, severity: str | None = None, ref: Any = None,
         attrs: tuple | None = None) -> Result:
    """A failing outcome; ``attrs``: (address, attribute) pairs ``fix`` tells to change."""
    return Result(FAIL, address, message, fix, severity, ref, attrs)


def unknown(address: str, message: str, fix: str | None = None, ref: Any = None, attrs: tuple | None = None) -> Result:
    return Result(UNDECIDED, address, message, fix, ref=ref, attrs=attrs)


def invalid(address: str, bad: Any, fix: str | None = None) -> Result:
    """The finding for a planned value the AWS provider would not produce (model.Invalid):
    it fails rather than being decided on or passed."""
    why = ("AWS refuses it, so the apply will fail" if "within" in bad.expected
           else "Terraform's AWS provider never plans such a value (was the plan edited?)")
    return Result(FAIL, address, f"{bad}: {why}", fix or f"Set {bad.what} to {bad.expected.split(',')[0]}.",
                  attrs=((address, bad.what),))


def seconds(v: Any) -> str:
    """600 -> '600 s (10 min)'."""
    if not isinstance(v, (int, float)):
        return str(v)
    v = int(v) if float(v).is_integer() else v
    if v >= 86400 and v % 3600 == 0:
        days = v / 86400
        return f"{v} s ({days:g} d)"
    if v >= 3600 and v % 60 == 0:
        return f"{v} s ({v / 3600:g} h)"
    if v >= 120 and v % 60 == 0:
        return f"{v} s ({v // 60} min)"
    return f"{v} s"


# importing the areas registers their rules, in catalog order
from . import queue as _queue  # noqa: E402,F401
from . import consumer as _consumer  # noqa: E402,F401
from . import storage as _storage  # noqa: E402,F401
from . import alarms as _alarms  # noqa: E402,F401
from . import iam as _iam  # noqa: E402,F401
from . import producers as _producers  # noqa: E402,F401
from . import change as _change  # noqa: E402,F401

# findings the engine itself raises about the configuration file
CONFIG_RULES = {
    "CFG001": Rule("CFG001", "waiver-expired", "error", "config", "A waiver has expired",
                   "A waiver is a dated exception. Once its date has passed the exception is over: the "
                   "finding it covered is reported again, and the stale waiver itself fails the check so "
                   "that someone renews it with a new reason or fixes the resource.",
                   "Fix the resource, or renew the waiver with a new expiry and a current reason.",
                   ("sarif-suppressions",)),
    "CFG002": Rule("CFG002", "waiver-unused", "warning", "config", "A waiver matches no finding",
                   "A waiver that matches no failing or unknown finding is stale (the resource was fixed or "
                   "renamed). Stale waivers hide future regressions on the same address.",
                   "Remove the waiver from the configuration file.", ("sarif-suppressions",)),
    "CFG003": Rule("CFG003", "waiver-malformed", "error", "config", "A waiver comment cannot be read",
                   "A `# sqs-policy:ignore` comment in the .tf source that names no rule or an unknown one, "
                   "gives no reason, has a date that is not YYYY-MM-DD or an unknown key, or is not inside the "
                   "resource, data or module block it should waive, waives nothing. It fails the check so that "
                   "nobody believes a finding is waived when it is not.",
                   "Write it as `# sqs-policy:ignore RULE[,RULE] reason=\"why\" [expires=YYYY-MM-DD]` inside the "
                   "resource or module block.", ("sarif-suppressions",)),
}
