"""Baselines: adopt the checker on an existing stack, and fail only on new findings.

``sqs-policy baseline PLAN -o FILE`` records the plan's findings (those that fail or cannot be
decided, not the waived ones) by their stable key (keys.py: rule, resource address, what is
wrong; not the message text). ``check --baseline FILE`` marks a finding whose key the baseline
records as ``unchanged`` (reported, not counted toward the exit code) and any other as ``new``;
a recorded finding no longer found is reported as fixed, and ``baseline --update`` drops it.
A key recorded n times covers n findings with that key; the (n+1)th is new.

File (JSON, sorted, one entry per key, so that it diffs well in review)::

    {"sqs-policy-baseline": "1.0", "tool": "sqs-policy X.Y.Z",
     "findings": [{"rule": "SQS002", "address": "aws_sqs_queue.jobs", "kind": "fail",
                   "related": [], "count": 1, "message": "<for people; not part of the key>"}]}
"""
from __future__ import annotations

import difflib
import json
import os
from collections import Counter
from dataclasses import dataclass

from .errors import InputError
from .keys import finding_key

FORMAT = "1.0"
MAJOR = 1
MAKE = "make one with `sqs-policy baseline PLAN.json -o FILE`"
_ENTRY_KEYS = {"rule", "address", "kind", "related", "count", "message", "slug"}


@dataclass
class Baseline:
    path: str
    counts: Counter  # key -> how many findings it covers
    messages: dict  # key -> the recorded message (for people)


def _rule_names() -> dict[str, str]:
    from .rules import CONFIG_RULES, RULES

    return {r.id: r.slug for r in list(RULES.values()) + list(CONFIG_RULES.values())}


def read_baseline(path: str) -> Baseline:
    where = f"baseline {path}"
    from .files import MAX_BASELINE_BYTES, Refused, read_regular

    try:  # a regular file within the cap, read without blocking (files.read_regular), as the config is
        raw = read_regular(path, MAX_BASELINE_BYTES, label=where)
    except Refused as e:
        msg = str(e)
        if msg.endswith("no such file"):
            msg += f" ({MAKE})"
        raise InputError(msg) from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"{where}: not valid JSON ({e}); {MAKE}") from None
    except RecursionError:
        raise InputError(f"{where}: nests too deeply to read; a baseline is a list of flat entries; {MAKE}") from None
    except ValueError as e:  # int() refuses literals over sys.get_int_max_str_digits() digits
        raise InputError(f"{where}: has a number too long to read ({str(e).split(';')[0][:100]}); {MAKE}") from None
    if not isinstance(data, dict) or "sqs-policy-baseline" not in data:
        raise InputError(f"{where}: not a sqs-policy baseline (no \"sqs-policy-baseline\" version key); {MAKE}")
    version = data["sqs-policy-baseline"]
    major = version.split(".", 1)[0] if isinstance(version, str) else None
    if not (isinstance(major, str) and major.isdigit()):
        raise InputError(f"{where}: version {version!r} is not MAJOR.MINOR; {MAKE}")
    if int(major) != MAJOR:
        raise InputError(f"{where}: format {version} is from another major version (this sqs-policy reads "
                         f"{MAJOR}.x); re-create it with the sqs-policy that will read it: "
                         "`sqs-policy baseline PLAN.json -o FILE`")
    unknown = set(data) - {"sqs-policy-baseline", "tool", "findings"}
    if unknown:
        raise InputError(f"{where}: unknown key {sorted(unknown)[0]!r} (known: findings, sqs-policy-baseline, tool)")
    entries = data.get("findings")
    if not isinstance(entries, list):
        raise InputError(f"{where}: findings must be a list")
    rules = _rule_names()
    counts: Counter = Counter()
    messages: dict = {}
    for i, e in enumerate(entries):
        w = f"{where}: findings[{i}]"
        if not isinstance(e, dict):
            raise InputError(f"{w}: must be a mapping with rule, address, kind, related, count")
        extra = set(e) - _ENTRY_KEYS
        if extra:
            raise InputError(f"{w}: unknown key {sorted(extra)[0]!r} (known: {', '.join(sorted(_ENTRY_KEYS))})")
        rule = e.get("rule")
        if not isinstance(rule, str) or rule not in rules:
            close = difflib.get_close_matches(str(rule), list(rules), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise InputError(f"{w}: unknown rule {rule!r}{hint}; `sqs-policy list-rules` shows the rules this "
                             "version has (a baseline from a newer sqs-policy can name rules this one lacks)")
        addr = e.get("address")
        if not isinstance(addr, str) or not addr:
            raise InputError(f"{w}: address must be a resource address")
        kind = e.get("kind", "fail")
        if kind not in ("fail", "unknown"):
            raise InputError(f"{w}: kind {kind!r} must be fail or unknown")
        related = e.get("related", [])
        if not isinstance(related, list) or not all(isinstance(x, str) for x in related):
            raise InputError(f"{w}: related must be a list of resource addresses")
        count = e.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise InputError(f"{w}: count {count!r} must be a whole number >= 1")
        key = (rule, addr, kind, tuple(sorted(related)))
        counts[key] += count
        if isinstance(e.get("message"), str):
            messages.setdefault(key, e["message"])
    return Baseline(path, counts, messages)


def apply(report, baseline: Baseline) -> None:
    """Mark each finding new or unchanged; record what the baseline has that is gone."""
    from .findings import order

    left = Counter(baseline.counts)
    for f in sorted(report.findings, key=order):
        if f.waiver is not None:
            continue
        key = finding_key(f)
        if left[key] > 0:
            left[key] -= 1
            f.baseline = "unchanged"
        else:
            f.baseline = "new"
    report.baseline_file = baseline.path
    rules = _rule_names()
    for key in sorted(k for k, n in left.items() if n > 0):
        rule, addr, kind, related = key
        report.fixed.append({"rule": rule, "slug": rules.get(rule, ""), "address": addr, "kind": kind,
                             "related": list(related), "count": left[key],
                             "message": baseline.messages.get(key, "")})


def _entries(report) -> tuple[Counter, dict]:
    counts: Counter = Counter()
    messages: dict = {}
    for f in report.findings:
        if f.waiver is None:
            key = finding_key(f)
            counts[key] += 1
            messages.setdefault(key, f.message)
    return counts, messages


def write_baseline(report, path: str, old: Baseline | None = None) -> str:
    """Write the baseline; return a one-line summary of what it holds."""
    from .. import __version__

    now, messages = _entries(report)
    if old is None:
        keep = now
        summary = f"baseline {path}: {sum(keep.values())} finding(s) recorded"
    else:
        keep = Counter({k: min(n, now[k]) for k, n in old.counts.items() if now[k] > 0})
        removed = sum(old.counts.values()) - sum(keep.values())
        added = sum(now.values()) - sum(keep.values())
        summary = (f"baseline {path}: {sum(keep.values())} finding(s) kept, {removed} fixed one(s) removed"
                   + (f", {added} new one(s) not added (`sqs-policy baseline` without --update records them)"
                      if added else ""))
    rules = _rule_names()
    data = {"sqs-policy-baseline": FORMAT, "tool": f"sqs-policy {__version__}", "findings": [
        {"rule": k[0], "slug": rules.get(k[0], ""), "address": k[1], "kind": k[2], "related": list(k[3]),
         "count": keep[k], "message": messages.get(k) or (old.messages.get(k, "") if old else "")}
        for k in sorted(keep)]}
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(text.encode("utf-8", "backslashreplace"))
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise InputError(f"baseline {path}: cannot write ({e.strerror or e})") from None
    return summary
