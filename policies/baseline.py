"""Baselines: adopt the checker on an existing stack, and fail only on new findings.

``sqs-policy baseline PLAN -o FILE`` records the plan's findings (those that fail or cannot be
decided, not the waived ones) by their stable key (keys.py: rule, resource address, what is
wrong; not the message text). ``check --baseline FILE`` marks a finding whose key the baseline
records as ``unchanged`` (reported, not counted toward the exit code) and any other as ``new``;
a recorded finding no longer found is reported as fixed, and ``baseline --update`` drops it.
A key recorded n times covers n findings with that key; the (n+1)th is new. A plan whose
``moved`` blocks change addresses (``previous_address``) keeps the findings recorded at the old
ones covered (a pure refactor adds no new finding), and ``baseline --update`` records them at
their new addresses.

The baseline records whether the run that made it read the configuration source
(``source_read``: ``--source-dir`` given and its root module matching the plan): with the
source, values the plan leaves unknown are decided and ``# sqs-policy:ignore`` comments waive,
so the same plan has other findings without it. ``check --baseline`` says so in a note when its
own run differs (or, for a baseline from before the field, that it cannot be told), and
``baseline --update`` refuses to shrink a baseline made the other way (it would drop findings as
fixed that only changed kind).

File (JSON, sorted, one entry per key, so that it diffs well in review)::

    {"sqs-policy-baseline": "1.1", "tool": "sqs-policy X.Y.Z", "source_read": true,
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
from .keys import finding_key, related_addresses

FORMAT = "1.1"  # 1.1: source_read
MAJOR = 1
MAKE = "make one with `sqs-policy baseline PLAN.json -o FILE`"
_ENTRY_KEYS = {"rule", "address", "kind", "related", "count", "message", "slug"}


@dataclass
class Baseline:
    path: str
    counts: Counter  # key -> how many findings it covers
    messages: dict  # key -> the recorded message (for people)
    source_read: bool | None = None  # whether its run read the configuration source; None: not recorded (1.0)


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
    unknown = set(data) - {"sqs-policy-baseline", "tool", "findings", "source_read"}
    if unknown:
        raise InputError(f"{where}: unknown key {sorted(unknown)[0]!r} (known: findings, source_read, "
                         "sqs-policy-baseline, tool)")
    source_read = data.get("source_read")
    if "source_read" in data and not isinstance(source_read, bool):
        raise InputError(f"{where}: source_read {source_read!r} must be true or false (whether the run that made it "
                         f"read the configuration source); {MAKE}")
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
    return Baseline(path, counts, messages, source_read)


def source_read(report) -> bool:
    """Whether this run read the configuration source: ``--source-dir`` given (not
    ``--no-source``) and its root module matching the plan. A note the source gives while it is
    asked (the root module does not match) joins the report's notes."""
    source = getattr(report.model, "source", None)
    if source is None:
        return False
    seen = len(source.notes)
    got = source.module_source("") is not None
    report.notes.extend(n for n in source.notes[seen:] if n not in report.notes)
    return got


def _how(read: bool) -> str:
    return ("with the configuration source read (--source-dir, matching the plan)" if read else
            "without the configuration source (--no-source, or a --source-dir that does not match the plan)")


def mode_note(report, baseline: Baseline) -> str | None:
    """What the report says when the baseline was made another way than this check runs (or
    when the baseline does not say how it was made); None when both read the source alike."""
    now = source_read(report)
    if baseline.source_read is None:
        return (f"baseline {baseline.path} does not record whether the configuration source was read when it was made "
                f"(format 1.0, before sqs-policy recorded it), so whether it was made like this check ({_how(now)}) "
                "cannot be told; if not, findings the source decides (values known only after apply, "
                "# sqs-policy:ignore comments) show as new or fixed. `sqs-policy baseline PLAN --update -o "
                f"{baseline.path}`, run like this check, records it")
    if baseline.source_read == now:
        return None
    flipped = Counter(f.undecided for f in report.findings if f.baseline == "new" and
                      (f.rule_id, f.address, "fail" if f.undecided else "unknown",
                       tuple(related_addresses(f.message, f.address))) in baseline.counts)
    said = [f"{n} recorded as {was} {now_} here" for n, was, now_ in (
        (flipped[False], "undecided", "fail"), (flipped[True], "failing", "cannot be decided")) if n]
    return (f"baseline {baseline.path} was made {_how(baseline.source_read)}, and this check runs {_how(now)}: "
            "findings the source decides (values known only after apply, # sqs-policy:ignore comments) differ "
            "between the two, so some show as new or fixed"
            + (f" (of the new findings, {' and '.join(said)})" if said else "")
            + "; run the check as the baseline was made, or re-create the baseline as the check runs "
            f"(`sqs-policy baseline PLAN -o {baseline.path}` with the check's --source-dir or --no-source)")


def moves(doc: dict | None) -> dict[str, str]:
    """The address each resource instance had before this plan's ``moved`` blocks -> its address
    now (``resource_changes[].previous_address``: a renamed resource, a module call or for_each
    key renamed, count to for_each ...)."""
    out: dict[str, str] = {}
    for rc in (doc or {}).get("resource_changes") or ():
        pa, a = rc.get("previous_address"), rc.get("address")
        if isinstance(pa, str) and isinstance(a, str) and pa != a and rc.get("deposed") is None:
            out[pa] = a
    return out


def _forward(key: tuple, moved: dict[str, str]) -> tuple:
    """A key recorded before the plan's moves, as the finding it covers is keyed after them."""
    rule, addr, kind, related = key
    return (rule, moved.get(addr, addr), kind, tuple(sorted(moved.get(r, r) for r in related)))


def match(findings, counts: Counter, moved: dict[str, str]) -> dict[int, tuple]:
    """Which recorded key covers each finding (by id(finding)); a finding no key covers is absent.

    A key covers the finding with that key and, when the plan moves the resources it names
    (``moved``), the finding keyed with their new addresses: a baseline made before a pure
    refactor keeps covering its findings. A moved key is preferred (the baseline predates the
    refactor), the key as recorded next (a baseline made from the refactor's own plan); one
    exchange then lets a finding take a key another finding holds when that one can take its
    other key, so that each key covers as many findings as it records wherever possible."""
    from .findings import order

    left = Counter(counts)
    by_new: dict[tuple, list[tuple]] = {}
    if moved:
        for k in sorted(counts):
            fk = _forward(k, moved)
            if fk != k:
                by_new.setdefault(fk, []).append(k)
    got: dict[int, tuple] = {}
    holders: dict[tuple, list] = {}
    cands: dict[int, list[tuple]] = {}
    ordered = sorted(findings, key=order)
    for f in ordered:
        key = finding_key(f)
        cands[id(f)] = [*by_new.get(key, ()), key]
    missed = []
    for moved_only in (True, False):  # the moved keys first, for every finding; then the keys as recorded
        for f in ordered:
            if id(f) in got:
                continue
            for k in cands[id(f)][:-1] if moved_only else cands[id(f)]:
                if left[k] > 0:
                    left[k] -= 1
                    got[id(f)] = k
                    holders.setdefault(k, []).append(f)
                    break
            else:
                if not moved_only:
                    missed.append(f)
    for f in missed:  # one exchange: a holder of one of f's keys moves to another key with room
        for k in cands[id(f)]:
            g = next((g for g in holders.get(k, ()) if any(left[o] > 0 for o in cands[id(g)] if o != k)), None)
            if g is None:
                continue
            other = next(o for o in cands[id(g)] if o != k and left[o] > 0)
            left[other] -= 1
            holders[k].remove(g)
            holders.setdefault(other, []).append(g)
            got[id(g)] = other
            holders[k].append(f)
            got[id(f)] = k
            break
    return got


def apply(report, baseline: Baseline) -> None:
    """Mark each finding new or unchanged; record what the baseline has that is gone. A
    finding whose resource this plan moves (``moved`` blocks) is covered by the entry recorded
    at its old address (:func:`match`)."""
    moved = moves(getattr(getattr(report.model, "plan", None), "doc", None))
    live = [f for f in report.findings if f.waiver is None]
    got = match(live, baseline.counts, moved)
    left = Counter(baseline.counts)
    for f in live:
        k = got.get(id(f))
        if k is None:
            f.baseline = "new"
            continue
        left[k] -= 1
        f.baseline = "unchanged"
        if k[1] != f.address:
            f.baseline_address = k[1]
    report.baseline_file = baseline.path
    rules = _rule_names()
    for key in sorted(k for k, n in left.items() if n > 0):
        rule, addr, kind, related = _forward(key, moved)
        entry = {"rule": rule, "slug": rules.get(rule, ""), "address": addr, "kind": kind, "related": list(related),
                 "count": left[key], "message": baseline.messages.get(key, "")}
        if addr != key[1]:
            entry["moved_from"] = key[1]
        report.fixed.append(entry)
    note = mode_note(report, baseline)
    if note:
        report.notes.append(note)


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
    read = source_read(report)
    if old is not None and old.source_read is not None and old.source_read != read:
        raise InputError(f"baseline {path}: made {_how(old.source_read)}, and this run is {_how(read)}; --update would "
                         "drop as fixed the findings that only changed kind (decided from the source or not, waived "
                         "by a comment or not): run it as the baseline was made, or re-create the baseline without "
                         "--update")
    if old is None:
        keep = now
        summary = (f"baseline {path}: {sum(keep.values())} finding(s) recorded, "
                   f"{'with' if read else 'without'} the configuration source")
    else:  # the findings the old baseline covers, at their addresses now (after the plan's moves)
        live = [f for f in report.findings if f.waiver is None]
        got = match(live, old.counts, moves(getattr(getattr(report.model, "plan", None), "doc", None)))
        keep = Counter(finding_key(f) for f in live if id(f) in got)
        moved = {f.address for f in live if id(f) in got and got[id(f)] != finding_key(f)}
        removed = sum(old.counts.values()) - sum(keep.values())
        added = sum(now.values()) - sum(keep.values())
        summary = (f"baseline {path}: {sum(keep.values())} finding(s) kept"
                   + (f" ({len(moved)} resource(s) recorded at their new address)" if moved else "")
                   + f", {removed} fixed one(s) removed"
                   + (f", {added} new one(s) not added (`sqs-policy baseline` without --update records them)"
                      if added else ""))
    rules = _rule_names()
    data = {"sqs-policy-baseline": FORMAT, "tool": f"sqs-policy {__version__}", "source_read": read, "findings": [
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
