"""Configuration file: rule selection, thresholds, severities and waivers (YAML or TOML).

Example (YAML)::

    select: ["SQS*", "ESM*"]        # optional allow-list of rule IDs or slugs (* wildcards)
    ignore: ["CW002"]               # optional deny-list
    rules:
      SQS003: {min: 3, max: 6}      # thresholds, by rule ID or slug
      dlq-depth-alarm: {severity: error}
      DDB003: {enabled: false}
    waivers:
      - address: module.legacy.aws_sqs_queue.jobs     # exact, or with * wildcards
        rules: [SQS002]                               # optional: all rules when absent
        reason: "consumer handles poison messages itself (TICKET-12)"
        expires: 2026-06-30                           # optional; after this date the waiver fails
"""
from __future__ import annotations

import datetime as _dt
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import wildcard
from .errors import InputError
from .rules import CONFIG_RULES, RULES, SEVERITIES

TOP_KEYS = {"select", "ignore", "rules", "waivers"}
COMMON_RULE_KEYS = {"enabled", "severity"}
WAIVER_KEYS = {"address", "rules", "reason", "expires"}


def glob_match(pattern: str, text: str) -> bool:
    """Only ``*`` is special (addresses contain [ ] and quotes); linear-time, whatever the pattern."""
    return wildcard.match(pattern, text)


@dataclass
class Waiver:
    address: str
    rules: list[str] | None
    reason: str
    expires: _dt.date | None
    index: int
    used: bool = False

    def matches(self, rule_id: str, address: str) -> bool:
        return (self.rules is None or rule_id in self.rules) and glob_match(self.address, address)

    def expired(self, today: _dt.date) -> bool:
        return self.expires is not None and today > self.expires


@dataclass
class Config:
    path: str | None = None
    enabled: dict[str, bool] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    severity: dict[str, str] = field(default_factory=dict)
    waivers: list[Waiver] = field(default_factory=list)

    def rule_enabled(self, rid: str) -> bool:
        return self.enabled.get(rid, True)

    def rule_options(self, rid: str) -> dict[str, Any]:
        opts = RULES[rid].defaults()
        for o in RULES[rid].options:  # an option one rule owns: its setting there reaches this rule
            if o.owner and o.owner != rid and o.name in self.options.get(o.owner, {}):
                opts[o.name] = self.options[o.owner][o.name]
        opts.update(self.options.get(rid, {}))
        return opts


def _rule_id(key: str, where: str) -> str:
    if key in RULES or key in CONFIG_RULES:
        return key
    for r in list(RULES.values()) + list(CONFIG_RULES.values()):
        if r.slug == key:
            return r.id
    raise InputError(f"{where}: unknown rule {key!r}{_did_you_mean(key)}; `list-rules` shows the IDs and slugs")


def _did_you_mean(key: str) -> str:
    import difflib

    names = [n for r in list(RULES.values()) + list(CONFIG_RULES.values()) for n in (r.id, r.slug)]
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.75) or difflib.get_close_matches(
        key.upper(), names, n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _select(patterns: Any, where: str) -> set[str]:
    if isinstance(patterns, str):
        patterns = [patterns]
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise InputError(f"{where}: must be a list of rule IDs or slugs (with * wildcards)")
    out = set()
    for p in patterns:
        hits = {r.id for r in RULES.values() if glob_match(p, r.id) or glob_match(p, r.slug)}
        if not hits:
            raise InputError(f"{where}: {p!r} matches no rule{_did_you_mean(p)}; `list-rules` shows the IDs and "
                             "slugs")
        out |= hits
    return out


def _date(v: Any, where: str) -> _dt.date:
    if isinstance(v, _dt.datetime):
        return v.date()
    if isinstance(v, _dt.date):
        return v
    if isinstance(v, str) and re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", v.strip()):  # not 20270331, 2027-W13-3
        try:
            return _dt.date.fromisoformat(v.strip())
        except ValueError:
            pass
    raise InputError(f"{where}: {v!r} is not a date; write it as YYYY-MM-DD")


def _read(path: str) -> dict:
    from .files import MAX_CONFIG_BYTES, Refused, read_regular

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".toml", ".yaml", ".yml"):
        raise InputError(f"config {path}: unknown format; name it *.yaml, *.yml or *.toml")
    try:
        text = read_regular(path, MAX_CONFIG_BYTES, label=f"config {path}")
    except Refused as e:
        raise InputError(str(e)) from None
    try:
        if suffix == ".toml":
            import tomllib

            try:
                data = tomllib.loads(text.decode("utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
                raise InputError(f"config {path}: not valid TOML ({e})") from None
        else:
            import yaml

            try:
                data = yaml.load(text, Loader=_unique_keys_loader())  # noqa: S506 - a SafeLoader subclass
            except _RepeatedKey as e:
                raise InputError(f"config {path}: {e}: YAML readers keep only one of the values, so a setting may "
                                 "hide behind another; keep one") from None
            except yaml.YAMLError as e:
                msg = " ".join(str(e).split())
                raise InputError(f"config {path}: not valid YAML ({msg})") from None
    except RecursionError:
        raise InputError(f"config {path}: nests too deeply to read; a configuration needs a few levels at most") from None
    except ValueError as e:  # int() refuses literals over sys.get_int_max_str_digits() digits
        raise InputError(f"config {path}: has a number too long to read ({str(e).split(';')[0][:100]}); no setting "
                         "takes one") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError(f"config {path}: the top level must be a mapping with keys {sorted(TOP_KEYS)}")
    return data


class _RepeatedKey(Exception):
    pass


_LOADER = None


def _unique_keys_loader():
    """yaml.SafeLoader that refuses a mapping repeating a key (safe_load keeps the last silently)."""
    global _LOADER
    if _LOADER is None:
        import yaml

        class Loader(yaml.SafeLoader):
            def construct_mapping(self, node, deep=False):
                seen = set()
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *anchor`: overriding it is the point
                        continue
                    key = self.construct_object(key_node, deep=deep)
                    try:
                        repeated = key in seen
                        seen.add(key)
                    except TypeError:  # an unhashable key: construct_mapping says so
                        break
                    if repeated:
                        raise _RepeatedKey(f"line {key_node.start_mark.line + 1} repeats the key {key!r}")
                return super().construct_mapping(node, deep=deep)

        _LOADER = Loader
    return _LOADER


def _key_list(keys) -> list[str]:
    """Unknown keys, for a message: YAML keys need not be strings (``1: x``)."""
    return sorted((k if isinstance(k, str) else repr(k)) for k in keys)


def _check_type(v: Any, kind, where: str):
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(v, bool) and bool not in kinds:
        ok = False
    elif float in kinds and isinstance(v, int):
        ok = True
    else:
        ok = isinstance(v, kinds)
    if not ok:
        names = " or ".join({int: "an integer", float: "a number", str: "a string", list: "a list", bool: "true/false"}[k] for k in kinds)
        raise InputError(f"{where}: {v!r} must be {names}")
    if isinstance(v, float) and not math.isfinite(v):  # TOML's inf and nan
        raise InputError(f"{where}: {v!r} must be a finite number")


def load_config(path: str | None) -> Config:
    cfg = Config(path=path)
    if path is None:
        return cfg
    data = _read(path)
    where = f"config {path}"
    unknown_keys = set(data) - TOP_KEYS
    if unknown_keys:
        raise InputError(f"{where}: unknown key {_key_list(unknown_keys)[0]!r} (known: {', '.join(sorted(TOP_KEYS))})")
    if "select" in data:
        chosen = _select(data["select"], f"{where}: select")
        for rid in RULES:
            cfg.enabled[rid] = rid in chosen
    if "ignore" in data:
        for rid in _select(data["ignore"], f"{where}: ignore"):
            cfg.enabled[rid] = False
    rules = data.get("rules") or {}
    if not isinstance(rules, dict):
        raise InputError(f"{where}: rules must be a mapping of rule ID or slug to options")
    for key, opts in rules.items():
        rid = _rule_id(str(key), f"{where}: rules")
        w = f"{where}: rules.{key}"
        if opts is None:
            continue
        if not isinstance(opts, dict):
            raise InputError(f"{w}: must be a mapping of options")
        r = RULES.get(rid) or CONFIG_RULES[rid]
        known = {o.name: o for o in r.options}
        for k, v in opts.items():
            if k == "enabled":
                _check_type(v, bool, f"{w}.enabled")
                cfg.enabled[rid] = v
            elif k == "severity":
                if v not in SEVERITIES:
                    raise InputError(f"{w}.severity: {v!r} must be one of {', '.join(SEVERITIES)}")
                cfg.severity[rid] = v
            elif k in known:
                _check_type(v, known[k].kind, f"{w}.{k}")
                if known[k].kind is str and k.endswith("pattern"):
                    from .rules.storage import compile_pattern

                    try:  # RE2: linear time, whatever the pattern (no backreferences, no lookarounds)
                        compile_pattern(v)
                    except Exception as e:  # noqa: BLE001 - re2.error, and ValueError/TypeError for odd input
                        raise InputError(f"{w}.{k}: not a regular expression RE2 reads ({' '.join(str(e).split())[:160]}"
                                         "; RE2 syntax: no backreferences or lookarounds)") from None
                if known[k].kind is list:
                    for j, x in enumerate(v):
                        if not isinstance(x, str) or not x.strip():
                            raise InputError(f"{w}.{k}[{j}]: {x!r} must be a non-empty string "
                                             f"({known[k].help})")
                cfg.options.setdefault(rid, {})[k] = v
            else:
                allowed = sorted(COMMON_RULE_KEYS | set(known))
                raise InputError(f"{w}: unknown option {k!r} (known: {', '.join(allowed)})")
    waivers = data.get("waivers") or []
    if not isinstance(waivers, list):
        raise InputError(f"{where}: waivers must be a list")
    for i, wv in enumerate(waivers):
        w = f"{where}: waivers[{i}]"
        if not isinstance(wv, dict):
            raise InputError(f"{w}: must be a mapping with address, reason and optional rules, expires")
        extra = set(wv) - WAIVER_KEYS
        if extra:
            raise InputError(f"{w}: unknown key {_key_list(extra)[0]!r} (known: {', '.join(sorted(WAIVER_KEYS))})")
        addr = wv.get("address")
        if not isinstance(addr, str) or not addr.strip():
            raise InputError(f"{w}: address is required (a resource address, * allowed)")
        reason = wv.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise InputError(f"{w}: reason is required: say why the exception is acceptable")
        rids = wv.get("rules")
        if rids is not None:
            if isinstance(rids, str):
                rids = [rids]
            if not isinstance(rids, list) or not rids:
                raise InputError(f"{w}: rules must be a list of rule IDs or slugs")
            rids = [_rule_id(str(x), f"{w}: rules") for x in rids]
        expires = _date(wv["expires"], f"{w}: expires") if wv.get("expires") is not None else None
        cfg.waivers.append(Waiver(addr.strip(), rids, reason.strip(), expires, i))
    return cfg
