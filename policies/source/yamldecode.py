"""``yamldecode()`` as Terraform evaluates it (go-cty-yaml), bounded.

Terraform reads one YAML document into a value with these rules, which this decoder
follows (and ``tests/policies/test_file_functions.py`` compares with ``terraform console``):

- unquoted scalars: ``true``/``yes``/``y``/``on`` (and their ``True``, ``TRUE`` forms) are
  true, ``false``/``no``/``n``/``off`` false, ``null``/``~``/empty null; YAML 1.2 core
  numbers (``017`` is 17, ``0o17`` 15, ``0x1F`` 31, ``1e3`` 1000; ``1_000``, ``0b101``,
  ``-0x1F`` stay strings); ``2024-01-02`` and the other YAML timestamps become RFC 3339
  strings; ``.inf`` an infinite number; ``.nan`` fails; anything else is a string;
- quoted and block scalars are strings (``!!int "12"`` too); on unquoted ones the tags ``!!str``, ``!!int``, ``!!float``,
  ``!!bool``, ``!!null``, ``!!timestamp``, ``!!binary`` (kept as its base64) are read,
  any other tag fails;
- mapping keys are scalars converted to strings (``y: 1`` is the key ``"true"``); a key
  given twice keeps its last value; ``<<: *anchor`` merges a mapping in document order (a
  later key wins, merged or not); merging a sequence fails;
- one document only; an empty document fails; an alias of an anchor inside its own
  definition fails.

Unlike Terraform, the decoder is bounded: aliases are expanded into the value, so a
"billion laughs" document is refused once it expands past :data:`MAX_NODES` values, and
nesting past :data:`MAX_DEPTH` levels is refused too. Events are read from PyYAML's
parser (libyaml's when PyYAML has it: some ten times faster; both are event parsers that do
not recurse) and assembled with an explicit stack, so deep nesting never exhausts Python's
stack. A refusal raises :class:`YamlError` naming the line.
"""
from __future__ import annotations

import base64
import binascii
import copy
import math
import re

# a queue catalogue has tens to hundreds of values; 1 MiB of YAML without aliases at most
# some 500,000. Past these bounds the document is refused (an alias bomb, a nesting attack).
MAX_NODES = 200_000
MAX_DEPTH = 100


class YamlError(ValueError):
    """The document cannot be read as Terraform's yamldecode() reads it (or passes a bound)."""


_TRUE = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"}
_FALSE = {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"}
_NULL = {"", "~", "null", "Null", "NULL"}
_INF = {".inf": math.inf, ".Inf": math.inf, ".INF": math.inf, "+.inf": math.inf, "+.Inf": math.inf,
        "+.INF": math.inf, "-.inf": -math.inf, "-.Inf": -math.inf, "-.INF": -math.inf}
_NAN = {".nan", ".NaN", ".NAN"}
_DEC_INT = re.compile(r"[-+]?[0-9]+")
_OCT_INT = re.compile(r"0o[0-7]+")
_HEX_INT = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_TIMESTAMP = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d+)?(Z|[+-]\d{2}:\d{2}))"
    r"|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d+)?))?")

_TAG = "tag:yaml.org,2002:"
_KNOWN_TAGS = {_TAG + t for t in ("str", "int", "float", "bool", "null", "timestamp", "binary")}


class Infinite(float):
    """An infinite number (``.inf``): Terraform keeps it, but jsonencode and most uses fail;
    the evaluator treats it as a value it does not decide."""


def _number(src: str):
    """A YAML 1.2 core number, or None."""
    if _DEC_INT.fullmatch(src):
        return int(src)
    if _OCT_INT.fullmatch(src):
        return int(src[2:], 8)
    if _HEX_INT.fullmatch(src):
        return int(src[2:], 16)
    if _FLOAT.fullmatch(src):
        try:
            f = float(src)
        except ValueError:
            return None
        if math.isinf(f):
            return None  # too large for a float here; Terraform keeps it exactly: not decided
        return _whole(f)
    return None


def _whole(f: float):
    return int(f) if f.is_integer() and abs(f) < 2 ** 53 else f


def _timestamp(src: str) -> str | None:
    """A YAML timestamp as Terraform writes it (RFC 3339, seconds, ``Z`` for UTC), or None."""
    m = _TIMESTAMP.fullmatch(src)
    if not m:
        return None
    import datetime as dt

    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if m.group(4) is not None:
        h, mi, s, zone = int(m.group(4)), int(m.group(5)), int(m.group(6)), m.group(8)
    elif m.group(9) is not None:
        h, mi, s, zone = int(m.group(9)), int(m.group(10)), int(m.group(11)), "Z"
    else:
        h, mi, s, zone = 0, 0, 0, "Z"
    try:
        when = dt.datetime(y, mo, d, h, mi, s)
    except ValueError:
        return None
    if zone != "Z" and zone not in ("+00:00", "-00:00"):
        return when.strftime("%Y-%m-%dT%H:%M:%S") + zone
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _scalar(ev) -> object:
    """The value of a scalar event."""
    src, tag = ev.value, ev.tag
    plain = not ev.style  # None (PyYAML) or "" (libyaml) for a plain scalar
    if tag is not None and tag != "!" and tag not in _KNOWN_TAGS:
        raise YamlError(f"unsupported tag {tag.replace(_TAG, '!!')!r}")
    if not plain or tag in ("!", _TAG + "str"):
        return src  # quoted or block scalar (whatever its tag): a string, verbatim
        return src
    if tag == _TAG + "binary":
        try:
            base64.b64decode("".join(src.split()), validate=True)
        except (binascii.Error, ValueError):
            raise YamlError(f"cannot parse {src[:40]!r} as !!binary: not valid base64") from None
        return src
    if tag is None:  # plain: resolved by its shape
        if src in _TRUE:
            return True
        if src in _FALSE:
            return False
        if src in _NULL:
            return None
        if src in _INF:
            return Infinite(_INF[src])
        if src in _NAN:
            raise YamlError("floating point NaN is not supported")
        if src[:1] in "+-0123456789.":
            ts = _timestamp(src) if src[:1].isdigit() else None
            if ts is not None:
                return ts
            n = _number(src)
            if n is not None:
                return n
        return src
    kind = tag[len(_TAG):]
    if kind == "bool":
        if src in _TRUE:
            return True
        if src in _FALSE:
            return False
    elif kind == "null":
        return None
    elif kind == "timestamp":
        ts = _timestamp(src)
        if ts is not None:
            return ts
    elif kind in ("int", "float"):
        if src in _INF:
            return Infinite(_INF[src])
        n = _number(src)
        if n is None:
            for base, prefix in ((16, "0x"), (8, "0o"), (2, "0b")):
                body = src[1:] if src[:1] in "+-" else src
                if body.startswith(prefix):
                    try:
                        n = int(body[2:], base) * (-1 if src.startswith("-") else 1)
                    except ValueError:
                        n = None
                    break
        if n is not None:
            return n
    raise YamlError(f"cannot parse {src[:40]!r} as !!{kind}")


def _key(value, mark) -> str:
    """A mapping key as Terraform converts it to a string."""
    if value is None:
        raise YamlError(f"line {mark.line + 1}: mapping key cannot be null")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Infinite):
        return "+Inf" if value > 0 else "-Inf"
    if isinstance(value, float):
        return repr(value)
    return str(value)


class _Frame:
    __slots__ = ("kind", "anchor", "value", "key", "key_mark", "merge", "size", "mark")

    def __init__(self, kind, anchor, mark):
        self.kind = kind  # "map" | "seq"
        self.anchor = anchor
        self.value = {} if kind == "map" else []
        self.key = _NO_KEY
        self.key_mark = None
        self.merge = False
        self.size = 1
        self.mark = mark


_NO_KEY = object()


def yamldecode(text: str, max_nodes: int = MAX_NODES, max_depth: int = MAX_DEPTH, pure: bool = False):
    """The value Terraform's ``yamldecode(text)`` gives; :class:`YamlError` when Terraform fails
    or the document passes a bound. ``pure``: PyYAML's Python parser even where libyaml's is there."""
    import yaml

    loader = yaml.SafeLoader if pure else getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    anchors: dict[str, tuple] = {}  # name -> (value, expanded size)
    pending: set[str] = set()
    stack: list[_Frame] = []
    total = 0
    result = _NO_KEY
    docs = 0

    def put(value, size, mark):
        nonlocal result, total
        total += size
        if total > max_nodes:
            raise YamlError(f"line {mark.line + 1}: the document expands to more than {max_nodes:,} values (aliases "
                            "repeating a large value?), which is more than a configuration needs; it is not read")
        if not stack:
            result = value
            return
        top = stack[-1]
        top.size += size
        if top.kind == "seq":
            top.value.append(value)
            return
        if top.key is _NO_KEY:  # this value is a key
            if isinstance(value, (dict, list)):
                raise YamlError(f"line {mark.line + 1}: only strings are allowed as mapping keys")
            top.key, top.key_mark = value, mark
            return
        key, top.key = top.key, _NO_KEY
        if top.merge:
            top.merge = False
            if not isinstance(value, dict):
                raise YamlError(f"line {mark.line + 1}: cannot merge {'tuple' if isinstance(value, list) else 'a scalar'} "
                                "into mapping")
            top.value.update(value)
            return
        top.value[_key(key, top.key_mark)] = value

    try:
        for ev in yaml.parse(text, Loader=loader):
            name = type(ev).__name__
            if name == "DocumentStartEvent":
                docs += 1
                if docs > 1:
                    raise YamlError(f"line {ev.start_mark.line + 1}: only a single document is allowed")
            elif name == "ScalarEvent":
                top = stack[-1] if stack else None
                if (top is not None and top.kind == "map" and top.key is _NO_KEY and not ev.style
                        and ev.tag is None and ev.value == "<<"):
                    top.key, top.key_mark, top.merge = "<<", ev.start_mark, True
                    continue
                value = _scalar(ev)
                if ev.anchor:
                    anchors[ev.anchor] = (value, 1)
                put(value, 1, ev.start_mark)
            elif name in ("MappingStartEvent", "SequenceStartEvent"):
                want = _TAG + ("map" if name == "MappingStartEvent" else "seq")
                if ev.tag is not None and ev.tag != "!" and ev.tag != want:
                    raise YamlError(f"line {ev.start_mark.line + 1}: can't interpret "
                                    f"{'mapping' if want.endswith('map') else 'sequence'} as {ev.tag.replace(_TAG, '!!')}")
                if len(stack) >= max_depth:
                    raise YamlError(f"line {ev.start_mark.line + 1}: nests more than {max_depth} levels deep, more than "
                                    "a configuration needs; it is not read")
                if ev.anchor:
                    pending.add(ev.anchor)
                stack.append(_Frame("map" if name == "MappingStartEvent" else "seq", ev.anchor, ev.start_mark))
            elif name in ("MappingEndEvent", "SequenceEndEvent"):
                frame = stack.pop()
                if frame.anchor:
                    pending.discard(frame.anchor)
                    anchors[frame.anchor] = (frame.value, frame.size)
                total -= frame.size - 1  # its members were counted as they came
                put(frame.value, frame.size, frame.mark)
            elif name == "AliasEvent":
                if ev.anchor in pending:
                    raise YamlError(f"line {ev.start_mark.line + 1}: cannot refer to anchor {ev.anchor!r} from inside "
                                    "its own definition")
                if ev.anchor not in anchors:
                    raise YamlError(f"line {ev.start_mark.line + 1}: reference to undefined anchor {ev.anchor!r}")
                value, size = anchors[ev.anchor]
                if total + size > max_nodes:
                    put(None, size, ev.start_mark)  # refused with the message above
                top = stack[-1] if stack else None
                if top is not None and top.kind == "map" and top.key is _NO_KEY and isinstance(value, (dict, list)):
                    raise YamlError(f"line {ev.start_mark.line + 1}: only strings are allowed as mapping keys")
                put(copy.deepcopy(value) if isinstance(value, (dict, list)) else value, size, ev.start_mark)
    except yaml.YAMLError as e:
        raise YamlError(" ".join(str(e).split())[:200]) from None
    except RecursionError:
        raise YamlError(f"nests more than {max_depth} levels deep") from None
    if docs == 0 or result is _NO_KEY:
        raise YamlError("missing start of document (the text is empty)")
    return result
