"""Value helpers of the evaluator and the Terraform function library it implements
(``FUNCTIONS``): functions given an unknown argument give an unknown result, never a guess."""
from __future__ import annotations

import json
import re

from .scope import _Lazy
from .tree import MAX_TEXT, _Error, _TooLarge
from .values import JsonText, Pending, Template, Unknown, settled, first_unknown, is_unknown


class _TemplateOut:
    """A template being rendered: literal text and unknown parts, with HCL's whitespace stripping."""

    def __init__(self):
        self.parts: list = []
        self.strip_next = False
        self.failed: Unknown | None = None  # a directive not evaluated: the whole string is unknown

    def add(self, s: str):
        # HCL strips whitespace within the adjacent literal token, and a literal
        # token ends after a newline: ~} takes the rest of its line
        """Literal text (stripped if the previous directive asked to)."""
        if self.strip_next:
            s = re.sub(r"^[ \t]*\n?", "", s, count=1)
            self.strip_next = False
        if s:
            self.size = getattr(self, "size", 0) + len(s)
            if self.size > MAX_TEXT:
                raise _TooLarge(f"a string over {MAX_TEXT:,} characters")
            if self.parts and isinstance(self.parts[-1], str):
                self.parts[-1] += s
            else:
                self.parts.append(s)

    def add_value(self, v):
        """An interpolated value, as text, or as an unknown part."""
        v = _whole(v)
        if isinstance(v, Template):
            for p in v.parts:
                self.add(p) if isinstance(p, str) else self.parts.append(p)
            return
        if isinstance(v, Unknown):
            self.parts.append(v)
            return
        if isinstance(v, JsonText):
            self.parts.append(Unknown(f"jsonencode of a value known only after apply ({_why(v)})"))
            return
        if v is None:
            raise _Error("a null value in a string template")
        if isinstance(v, (dict, list)):
            raise _Error("a collection in a string template")
        self.add(_str(v))

    def strip_right(self):
        # %{~ takes the start of its line, or the whole previous line's end
        """Strip the whitespace before a ``%{~`` or ``${~``."""
        if self.parts and isinstance(self.parts[-1], str):
            self.parts[-1] = re.sub(r"[ \t]*\n?$" if self.parts[-1].endswith("\n") else r"[ \t]*$", "",
                                    self.parts[-1], count=1)

    def result(self):
        """The rendered string, a Template with unknown parts, or the Unknown that failed it."""
        if self.failed is not None:
            return self.failed
        if not self.parts:
            return ""
        if len(self.parts) == 1 and isinstance(self.parts[0], str):
            return self.parts[0]
        if len(self.parts) == 1 and isinstance(self.parts[0], Unknown):
            return self.parts[0]
        return Template(list(self.parts))


# -- value helpers ---------------------------------------------------------------------------------
def _why(v) -> str:
    """Why ``v`` (or its first unknown part) is unknown."""
    u = first_unknown(v) if not isinstance(v, Unknown) else v
    return u.why if u is not None else "unknown"


def _whole(v):
    """A lazy object as a plain value (one level)."""
    if isinstance(v, _Lazy):
        return v.value()
    return v


def _whole_deep(v):
    """A value with every lazy object in it made plain."""
    v = _whole(v)
    if isinstance(v, dict):
        return {k: _whole_deep(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_whole_deep(x) for x in v]
    return v


def _get(v, name):
    """Attribute ``name`` of a value (a lazy object, a placeholder, a map)."""
    if isinstance(v, _Lazy):
        return v.get(name)
    if isinstance(v, Pending):
        return Pending(v.res, v.path + (name,))
    if isinstance(v, Unknown):
        return v
    if isinstance(v, dict):
        if name in v:
            return v[name]
        raise _Error(f"no attribute {name!r}")
    if v is None:
        raise _Error(f"attribute {name!r} of null")
    raise _Error(f"attribute {name!r} of a {type(v).__name__}")


def _index(v, key):
    """Element ``key`` of a value (a lazy object, a placeholder, a list or map)."""
    if isinstance(v, _Lazy):
        return v.index(key)
    if isinstance(v, Pending):
        return Pending(v.res, v.path + (key,))
    if isinstance(v, Unknown):
        return v
    if isinstance(v, list):
        try:
            i = int(_num(key))
        except _Error:
            raise _Error(f"list index {key!r}") from None
        if 0 <= i < len(v):
            return v[i]
        raise _Error(f"index {i} out of range")
    if isinstance(v, dict):
        k = _num_str(key) if isinstance(key, (int, float)) and not isinstance(key, bool) else key
        if k in v:
            return v[k]
        raise _Error(f"no key {k!r}")
    raise _Error(f"cannot index a {type(v).__name__}")


def _pairs(coll):
    """(key, value) pairs of a map or list, as for expressions and dynamic blocks iterate them."""
    if isinstance(coll, dict):
        return list(coll.items())
    if isinstance(coll, list):
        return list(enumerate(coll))
    if coll is None:
        raise _Error("a for expression over null")
    raise _Error("a for expression over a non-collection")


def _num(v):
    """A number, as Terraform converts one (a numeric string included); _Error otherwise."""
    if isinstance(v, bool):
        raise _Error("a bool where a number is expected")
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            raise _Error(f"{v!r} is not a number") from None
        return int(f) if f.is_integer() else f
    raise _Error(f"a {type(v).__name__} where a number is expected")


def _norm_num(v):
    """A whole float as an int."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _num_str(v) -> str:
    """A number as Terraform prints it in a string."""
    v = _norm_num(v)
    return str(v)


def _bool(v):
    """A bool, as Terraform converts one ("true"/"false" included); _Error otherwise."""
    if isinstance(v, bool):
        return v
    if v in ("true", "false"):
        return v == "true"
    raise _Error(f"{v!r} is not a boolean")


def _str(v) -> str:
    """A scalar as Terraform converts it to a string; _Error for null or a collection."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return _num_str(v)
    if isinstance(v, str):
        return v
    raise _Error(f"a {type(v).__name__} where a string is expected")


def _plain(v):
    """A known value as JSON would carry it (whole floats as ints)."""
    v = _whole_deep(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


# -- functions -------------------------------------------------------------------------------------
def _unknown_arg(args):
    """The first unknown argument, if any."""
    for a in args:
        a = _whole(a)
        if isinstance(a, Unknown):
            return a
    return None


def _strict(fn):
    """A function whose result is unknown when an argument (even partly) is."""
    def wrapped(*args):
        args = [_whole_deep(a) for a in args]
        for a in args:
            u = first_unknown(a)
            if u is not None:
                return Unknown(u.why)
        return fn(*args)
    return wrapped


def _shallow(fn):
    """A function that only needs its arguments' shape: unknown elements pass through."""
    def wrapped(*args):
        args = [_whole(a) for a in args]
        u = _unknown_arg(args)
        if u is not None:
            return Unknown(u.why)
        args = [[_whole(x) for x in a] if isinstance(a, list) else
                ({k: _whole(x) for k, x in a.items()} if isinstance(a, dict) else a) for a in args]
        return fn(*args)
    return wrapped


def _jsonencode(v):
    """jsonencode(): the JSON text of a known value, a JsonText keeping the structure of a partly unknown one."""
    v = _whole_deep(v)
    if first_unknown(v) is None:
        return json.dumps(_plain(v), separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    if isinstance(v, Unknown):
        return v
    return JsonText(v)


def _format(fmt, *args):
    """format() with %s, %d, %q... and %%."""
    args = [_whole_deep(a) for a in args]
    if is_unknown(fmt):
        return Unknown(_why(fmt))
    out = _TemplateOut()
    i = 0
    n = 0
    spec = re.compile(r"%(?:\[(\d+)\])?([-+ #0]*)(\d*)(?:\.(\d+))?([a-zA-Z%])")
    while i < len(fmt):
        m = spec.match(fmt, i) if fmt[i] == "%" else None
        if not m:
            j = fmt.find("%", i + 1)
            j = len(fmt) if j < 0 else j
            out.add(fmt[i:j])
            i = j
            continue
        i = m.end()
        verb = m.group(5)
        if verb == "%":
            out.add("%")
            continue
        if m.group(1):
            n = int(m.group(1)) - 1
        if n >= len(args):
            raise _Error("format: too few arguments")
        a = args[n]
        n += 1
        if isinstance(a, (Unknown, Template)):
            if verb in ("s", "v") and not m.group(2) and not m.group(3):
                out.add_value(a)
            else:
                out.add_value(Unknown(_why(a)))
            continue
        if verb in ("s", "v"):
            s = json.dumps(_plain(a)) if isinstance(a, (dict, list)) else _str(a)
        elif verb == "d":
            s = str(int(_num(a)))
        elif verb == "q":
            s = json.dumps(_str(a))
        elif verb == "t":
            s = _str(_bool(a))
        elif verb in ("f", "g", "e"):
            prec = m.group(4)
            s = format(float(_num(a)), (f".{prec}" if prec else "") + verb)
        else:
            return Unknown(f"format verb %{verb} not evaluated")
        width = int(m.group(3)) if m.group(3) else 0
        if width > MAX_TEXT:
            raise _TooLarge(f"format() pads to {width:,} characters")
        if len(s) < width:
            s = s.ljust(width) if "-" in m.group(2) else s.rjust(width, "0" if "0" in m.group(2) else " ")
        out.add(s)
    return out.result()


def _distinct(v: list) -> list:
    """distinct(): the first of each equal element, in order; linear (a set of each element's
    canonical JSON), not a scan of every earlier element (quadratic over a long list)."""
    seen: set = set()
    out = []
    for x in v:
        if isinstance(x, (dict, list)):
            key = ("c", json.dumps(_plain(x), sort_keys=True, default=repr))
        else:  # Terraform's types: true is not 1, 1 is 1.0
            key = ("b", x) if isinstance(x, bool) else (("n", x) if isinstance(x, (int, float)) else ("o", x))
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out


def _concat(*lists):
    """concat()."""
    out = []
    for x in lists:
        if not isinstance(x, list):
            raise _Error("concat of a non-list")
        out.extend(x)
    return out


def _merge(*maps):
    """merge() of maps (null ignored)."""
    out = {}
    for m in maps:
        if m is None:
            continue
        if not isinstance(m, dict):
            raise _Error("merge of a non-map")
        out.update(m)
    return out


def _toset(v):
    """toset(): the distinct elements (strings sorted, as Terraform orders a set of strings)."""
    if not isinstance(v, list):
        raise _Error("toset of a non-list")
    out = []
    for x in v:
        if is_unknown(x):
            return Unknown(f"toset of a value known only after apply ({_why(x)})")
        if x not in out:
            out.append(x)
    if all(isinstance(x, str) for x in out):
        out.sort()
    return out


def _coalesce(*args):
    """coalesce(): the first argument not null nor "" (an identity attribute known after apply counts as one)."""
    for a in args:
        a = _whole(a)
        if is_unknown(a) and settled(a):
            return a  # an ARN, ID, URL... is never null nor ""
        if is_unknown(a):
            return Unknown(f"coalesce over a value known only after apply ({_why(a)})")
        if a is not None and a != "":
            return a
    raise _Error("coalesce: no non-null argument")


def _lookup(m, key, *default):
    """lookup(map, key[, default])."""
    m = _whole(m)
    key = _whole(key)
    if is_unknown(m) or is_unknown(key):
        return Unknown(_why(m if is_unknown(m) else key))
    if not isinstance(m, dict):
        raise _Error("lookup of a non-map")
    if key in m:
        return m[key]
    if default:
        return default[0]
    raise _Error(f"lookup: no key {key!r}")


def _element(lst, i):
    """element(list, index), wrapping around."""
    lst = _whole(lst)
    i = _whole(i)
    if is_unknown(lst) or is_unknown(i):
        return Unknown(_why(lst if is_unknown(lst) else i))
    if not isinstance(lst, list) or not lst:
        raise _Error("element of an empty or non-list")
    return lst[int(_num(i)) % len(lst)]


def _flatten(v):
    """flatten()."""
    out = []
    for x in v:
        x = _whole(x)
        if isinstance(x, Unknown):
            return Unknown(x.why)
        if isinstance(x, list):
            got = _flatten(x)
            if isinstance(got, Unknown):
                return got
            out.extend(got)
        else:
            out.append(x)
    return out


def _length(v):
    """length() of a list, map or string."""
    v = _whole(v)
    if is_unknown(v):
        return Unknown(_why(v))
    if isinstance(v, (list, dict, str)):
        return len(v)
    raise _Error("length of a non-collection")


def _keys(m):
    """keys(), sorted."""
    if not isinstance(m, dict):
        raise _Error("keys of a non-map")
    return sorted(m)


def _values(m):
    """values(), in key order."""
    if not isinstance(m, dict):
        raise _Error("values of a non-map")
    return [m[k] for k in sorted(m)]


def _one(v):
    """one(): the element of a list of at most one, or null."""
    v = _whole(v)
    if is_unknown(v):
        return Unknown(_why(v))
    if not isinstance(v, list) or len(v) > 1:
        raise _Error("one() of more than one element")
    return v[0] if v else None


def _tostring(v):
    """tostring()."""
    v = _whole(v)
    if isinstance(v, (Unknown, Template)) or v is None:
        return v
    if isinstance(v, (dict, list)):
        raise _Error("tostring of a collection")
    return _str(v)


def _tonumber(v):
    """tonumber()."""
    v = _whole(v)
    if is_unknown(v) or v is None:
        return v if not isinstance(v, Template) else Unknown(_why(v))
    return _num(v)


def _tobool(v):
    """tobool()."""
    v = _whole(v)
    if is_unknown(v) or v is None:
        return v if not isinstance(v, Template) else Unknown(_why(v))
    return _bool(v)


def _jsondecode(s):
    """jsondecode(): text that is not JSON fails the expression, as Terraform fails the plan
    (and try() / can() catch it)."""
    if not isinstance(s, str):
        raise _Error("jsondecode of a non-string")
    try:
        return json.loads(s)
    except ValueError as e:
        raise _Error(f"jsondecode: not valid JSON ({e})") from None


def _yamldecode(s):
    """yamldecode() as Terraform reads YAML (source.yamldecode), bounded against alias bombs
    and deep nesting; a value Terraform keeps but the checker does not decide (an infinite
    number) is unknown."""
    from .yamldecode import Infinite, YamlError, yamldecode

    if not isinstance(s, str):
        raise _Error("yamldecode of a non-string")
    try:
        v = yamldecode(s)
    except YamlError as e:
        raise _Error(f"yamldecode: {e}") from None

    def finite(x):
        if isinstance(x, Infinite):
            return Unknown("yamldecode gave an infinite number (.inf)")
        if isinstance(x, dict):
            return {k: finite(y) for k, y in x.items()}
        if isinstance(x, list):
            return [finite(y) for y in x]
        return x

    return finite(v)


def _basename(p: str) -> str:
    """basename(): the last element of a path, as Go's filepath.Base gives it."""
    if p == "":
        return "."
    q = p.rstrip("/")
    return q.rsplit("/", 1)[-1] if q else "/"


def _dirname(p: str) -> str:
    """dirname(): all but the last element of a path, as Go's filepath.Dir gives it."""
    import posixpath

    d = posixpath.dirname(p)
    return posixpath.normpath(d) if d else "."


def _identity(v):
    """tolist(), tomap(): the argument as it is."""
    return _whole(v)


FUNCTIONS = {
    "jsonencode": _jsonencode,
    "jsondecode": _strict(_jsondecode),
    "yamldecode": _strict(_yamldecode),
    "trimsuffix": _strict(lambda s, x: s[:-len(x)] if x and s.endswith(x) else s),
    "trimprefix": _strict(lambda s, x: s[len(x):] if s.startswith(x) else s),
    "basename": _strict(_basename),
    "dirname": _strict(_dirname),
    "format": _format,
    "concat": _shallow(_concat),
    "merge": _shallow(_merge),
    "tolist": _identity,
    "toset": _shallow(_toset),
    "tomap": _identity,
    "tostring": _tostring,
    "tonumber": _tonumber,
    "tobool": _tobool,
    "coalesce": _coalesce,
    "coalescelist": lambda *a: next((x for x in map(_whole, a) if is_unknown(x) or (isinstance(x, list) and x)), []),
    "lookup": _lookup,
    "element": _element,
    "length": _length,
    "keys": _shallow(_keys),
    "values": _shallow(_values),
    "flatten": _shallow(_flatten),
    "one": _one,
    "compact": _strict(lambda v: [x for x in v if x not in (None, "")]),
    "distinct": _strict(lambda v: _distinct(v)),
    "contains": _strict(lambda v, x: x in v),
    "zipmap": _shallow(lambda k, v: dict(zip(k, v))),
    "lower": _strict(lambda s: s.lower()),
    "upper": _strict(lambda s: s.upper()),
    "trimspace": _strict(lambda s: s.strip()),
    "join": _strict(lambda sep, *ls: sep.join(_str(x) for lst in ls for x in lst)),
    "split": _strict(lambda sep, s: s.split(sep)),
    "replace": _strict(lambda s, a, b: (_ for _ in ()).throw(_Error("regex replace")) if a.startswith("/") and a.endswith("/") and len(a) > 1 else s.replace(a, b)),
    "startswith": _strict(lambda s, p: s.startswith(p)),
    "endswith": _strict(lambda s, p: s.endswith(p)),
    "sort": _strict(lambda v: sorted(_str(x) for x in v)),
    "min": _strict(lambda *a: min(_num(x) for x in a)),
    "max": _strict(lambda *a: max(_num(x) for x in a)),
    "abs": _strict(lambda x: abs(_num(x))),
}


# How many arguments each function of FUNCTIONS takes, as Terraform declares them: (least,
# most), most None for a variadic one. Terraform checks the count before it looks at a value,
# so a wrong count fails the plan even when an argument is known only after apply; the
# evaluator checks it before calling (Evaluator._e_function_call). The least of a variadic
# function is the count below which Terraform fails it (concat() and join(sep) of no list,
# coalesce() and min() of nothing).
ARITY: dict[str, tuple[int, int | None]] = {
    "jsonencode": (1, 1), "jsondecode": (1, 1), "yamldecode": (1, 1), "trimsuffix": (2, 2), "trimprefix": (2, 2),
    "basename": (1, 1), "dirname": (1, 1), "format": (1, None), "concat": (1, None),
    "merge": (0, None), "tolist": (1, 1), "toset": (1, 1), "tomap": (1, 1), "tostring": (1, 1),
    "tonumber": (1, 1), "tobool": (1, 1), "coalesce": (1, None), "coalescelist": (1, None),
    "lookup": (2, 3), "element": (2, 2), "length": (1, 1), "keys": (1, 1), "values": (1, 1),
    "flatten": (1, 1), "one": (1, 1), "compact": (1, 1), "distinct": (1, 1), "contains": (2, 2),
    "zipmap": (2, 2), "lower": (1, 1), "upper": (1, 1), "trimspace": (1, 1), "join": (2, None),
    "split": (2, 2), "replace": (3, 3), "startswith": (2, 2), "endswith": (2, 2), "sort": (1, 1),
    "min": (1, None), "max": (1, None), "abs": (1, 1),
}
assert ARITY.keys() == FUNCTIONS.keys(), "every library function declares its arity"


def arity_error(name: str, n: int) -> str | None:
    """Why ``n`` arguments are wrong for library function ``name`` (None when they are not)."""
    least, most = ARITY[name]
    if least <= n and (most is None or n <= most):
        return None
    want = (f"exactly {least}" if least == most else f"at least {least}" if most is None
            else f"{least} to {most}")
    return f"takes {want} argument{'' if want.endswith(' 1') else 's'}, got {n}"
