"""Read a plan file (``terraform show -json PLANFILE`` output) or refuse it with one clear line."""
from __future__ import annotations

import codecs
import json
import os
import re
import stat
import sys
import time

from .errors import InputError

HOWTO = "run `terraform plan -out=tfplan && terraform show -json tfplan > plan.json` and pass plan.json"

# The largest plan read (--max-input-mib). A plan of 1,000 queue pairs is about 25 MiB;
# the limit stops an endless input (/dev/zero, a runaway pipe) before it exhausts memory.
DEFAULT_MAX_MIB = 512
# How long a named pipe may wait for its writer to connect before the input is refused.
FIFO_WAIT_SECONDS = 10.0
_CHUNK = 1 << 20

# top-level members the engine never reads: dropped as soon as they are parsed
_SKIP = frozenset({"checks", "relevant_attributes", "output_changes", "timestamp"})

# format_version -> the Terraform versions that write it
SUPPORTED_FORMATS = "0.2 (Terraform 1.0.x) and 1.x (Terraform 1.1 and later)"


def _name(path: str) -> str:
    return "standard input" if path == "-" else path


def read_text(path: str, max_mib: float = DEFAULT_MAX_MIB) -> str:
    """The input as text: UTF-8 (with or without a byte-order mark) or UTF-16/32 with a
    byte-order mark (Windows PowerShell 5.1's `>` writes UTF-16). Files, standard input,
    named pipes and process substitution (`check <(terraform show -json tfplan)`) are read
    as streams, never seeked. Binary plan files, binary data, endless or oversized input
    are refused here, most of them from the first chunk."""
    name = _name(path)
    fd, first, close = _open(path)
    limit = int(max_mib * (1 << 20))
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode):
            if st.st_size > limit:
                raise InputError(_too_large(name, limit))
            first = os.read(fd, st.st_size + 1)  # the whole file in one read (a file may still grow)
        raw = _read_all(fd, first, path, name, limit)
    except OSError as e:
        raise InputError(f"{name}: cannot read it ({e.strerror or e})") from None
    finally:
        if close:
            os.close(fd)
    return decode_bytes(raw, name, path)


def _open(path: str) -> tuple[int, bytes, bool]:
    """(file descriptor, bytes already read, whether to close it)."""
    if path == "-":
        try:
            return sys.stdin.fileno(), b"", False
        except (AttributeError, ValueError, OSError):
            raise InputError("standard input is closed; pass the plan file's path instead of -") from None
    try:
        # O_NONBLOCK: opening a named pipe must not wait forever for a writer (see _first_from_pipe)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file; {HOWTO}") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a plan file; {HOWTO}") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied; make the file readable") from None
    except OSError as e:
        raise InputError(f"{path}: cannot open it ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{path}: is a directory, not a plan file; {HOWTO}")
        first = _first_from_pipe(fd, path) if stat.S_ISFIFO(st.st_mode) else b""
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, first, True


def _first_from_pipe(fd: int, path: str) -> bytes:
    """A pipe with a writer (process substitution, a running producer) is read like any
    stream, however long the writer takes to write. A named pipe that nobody opened for
    writing would block forever: wait FIFO_WAIT_SECONDS for a writer, then refuse."""
    import select

    deadline = time.monotonic() + FIFO_WAIT_SECONDS
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while True:
        try:
            data = os.read(fd, _CHUNK)
        except BlockingIOError:
            return b""  # a writer holds it open and has not written yet: read blocking from here
        except OSError as e:
            raise InputError(f"{path}: cannot read it ({e.strerror or e})") from None
        if data:
            return data
        left = deadline - time.monotonic()
        if left <= 0:
            raise InputError(f"{path}: is a named pipe that no process opened for writing within "
                             f"{FIFO_WAIT_SECONDS:g} s; start the writer (`terraform show -json tfplan > {path}`) "
                             "first, or pass a file")
        if poller.poll(min(left, 0.2) * 1000):
            try:
                data = os.read(fd, _CHUNK)
            except BlockingIOError:
                return b""
            return data  # data, or b"": a writer came and left without writing (empty input)


def _read_all(fd: int, first: bytes, path: str, name: str, limit: int) -> bytes:
    chunks = [first] if first else []
    size = len(first)
    if size > limit:
        raise InputError(_too_large(name, limit))
    sniffed = False
    if size >= 4096:
        sniff(first[:4096], name, path)
        sniffed = True
    while True:
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if not sniffed and size >= 4096:
            sniff(b"".join(chunks)[:4096], name, path)  # /dev/urandom, /dev/zero: refused at once
            sniffed = True
        if size > limit:
            raise InputError(_too_large(name, limit))
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _too_large(name: str, limit: int) -> str:
    return (f"{name}: is larger than the input limit of {round(limit / (1 << 20), 3):g} MiB (an endless or runaway input?); "
            "pass --max-input-mib N to read a larger plan")


# byte-order marks, longest first (a UTF-32 LE BOM starts with the UTF-16 LE one)
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def _encoding(head: bytes) -> str:
    """The encoding of JSON text from its first bytes: a byte-order mark, else the pattern of
    zero bytes around the first ASCII character (RFC 4627 section 3), else UTF-8."""
    for bom, enc in _BOMS:
        if head.startswith(bom):
            return enc
    if len(head) >= 4:
        z = [b == 0 for b in head[:4]]
        if z == [True, True, True, False]:
            return "utf-32-be"
        if z == [False, True, True, True]:
            return "utf-32-le"
        if z[0] and not z[1] and z[2] and not z[3]:
            return "utf-16-be"
        if not z[0] and z[1] and not z[2] and z[3]:
            return "utf-16-le"
    return "utf-8"


def sniff(head: bytes, name: str, path: str) -> str:
    """Refuse what cannot be a plan from its first bytes; return the text encoding."""
    if head[:4] == b"PK\x03\x04":
        raise InputError(f"{name}: is a binary Terraform plan file, not JSON; convert it with "
                         f"`terraform show -json {path if path != '-' else 'tfplan'} > plan.json` and pass plan.json")
    enc = _encoding(head)
    text = head.decode(enc, "replace")
    start = text.lstrip(" \t\r\n\ufeff")
    if "\x00" in text or start[:1] == "\ufffd" or (start and not start[0].isprintable()):
        raise InputError(f"{name}: is binary data, not JSON; {HOWTO}")
    if start and start[0] not in "{[":
        raise InputError(f"{name}: is not JSON (it starts with {_clip(start, 20)!r}); {HOWTO}")
    return enc


def decode_bytes(raw: bytes, name: str, path: str = "-") -> str:
    if not raw.strip():
        raise InputError(f"{name}: is empty; {HOWTO}")
    enc = sniff(raw[:4096], name, path)
    try:
        text = raw.decode(enc)
    except UnicodeDecodeError as e:
        what = "UTF-8" if enc == "utf-8" else enc.upper().replace("-SIG", "")
        raise InputError(f"{name}: is not {what} JSON ({e.reason} at byte {e.start}); {HOWTO}") from None
    return text[1:] if text[:1] == "\ufeff" else text


def _clip(s: str, n: int = 80) -> str:
    return s if len(s) <= n else s[:n] + "…"


_WS = re.compile(r"[ \t\n\r]*")


class _NotJSONConstant(ValueError):
    """NaN, Infinity and -Infinity: Python's json accepts them, JSON (and Terraform) does not."""


def _reject_constant(name: str):
    raise _NotJSONConstant(name)


class _DuplicateKey(ValueError):
    """An object names a key twice: JSON parsers keep one of the values (Python's the last),
    so a bad value could hide behind a good one. Terraform never writes one."""


def _unique(pairs: list) -> dict:
    d = dict(pairs)
    if len(d) != len(pairs):
        raise _DuplicateKey(next(k for i, (k, _) in enumerate(pairs) if any(k == k2 for k2, _ in pairs[:i])))
    return d


class _Dups(dict):
    __slots__ = ("dups",)


def _marking(pairs: list) -> dict:
    d = _Dups(pairs)
    if len(d) != len(pairs):
        seen: set = set()
        d.dups = [k for k, _ in pairs if k in seen or seen.add(k)]
    return d


def _where_duplicate(text: str) -> str:
    """The path of the first object with a repeated key, e.g. ``resource_changes[3].change.after``:
    found by parsing again, marking (only when a duplicate was seen: no cost otherwise)."""
    try:
        doc = json.JSONDecoder(object_pairs_hook=_marking, parse_constant=_reject_constant).decode(text)
    except (ValueError, RecursionError):
        return ""
    stack = [(doc, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            if getattr(node, "dups", None):
                return f"{path or 'the top-level object'} repeats the key {_clip(node.dups[0], 60)!r}"
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((v, f"{path}[{i}]") for i, v in reversed(list(enumerate(node))))
    return ""


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_unique)


def _loads(text: str):
    return _DECODER.decode(text)


def _decode(text: str):
    """json.loads, member by member at the top level so that the large members
    the engine does not read are freed as soon as they are parsed (lower peak
    memory). Any irregularity falls back to json.loads for its error message."""
    raw = _DECODER.raw_decode
    ws = _WS.match
    try:
        i = ws(text, 0).end()
        if text[i] != "{":
            return _loads(text)
        i = ws(text, i + 1).end()
        doc = {}
        seen = set()
        if text[i] == "}":
            i += 1
        else:
            while True:
                key, i = raw(text, i)
                i = ws(text, i).end()
                if not isinstance(key, str) or text[i] != ":":
                    return _loads(text)
                i = ws(text, i + 1).end()
                value, i = raw(text, i)
                if key in seen:
                    raise _DuplicateKey(key)
                seen.add(key)
                if key not in _SKIP:
                    doc[key] = value
                del value
                i = ws(text, i).end()
                if text[i] == ",":
                    i = ws(text, i + 1).end()
                    continue
                if text[i] == "}":
                    i += 1
                    break
                return _loads(text)
        if ws(text, i).end() != len(text):
            return _loads(text)
        return doc
    except (IndexError, json.JSONDecodeError):
        return _loads(text)


def _line_col(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    return f"line {line} column {pos - (text.rfind(chr(10), 0, pos) + 1) + 1}"


def parse(text: str, path: str, timings: dict | None = None) -> dict:
    """The plan document of ``text`` (read from ``path``), checked; InputError naming what is wrong.
    ``timings``, when given, gets the seconds spent parsing (``parse``) and validating (``validate``)."""
    name = _name(path)
    if not text.strip():
        raise InputError(f"{name}: is empty; {HOWTO}")
    head = text.lstrip()[:1]
    if head not in ("{", "["):
        raise InputError(f"{name}: is not JSON (it starts with {_clip(text.lstrip(), 20)!r}); {HOWTO}")
    t0 = time.perf_counter()
    try:
        doc = _decode(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{name}: is not valid JSON ({_line_col(text, e.pos)}: {e.msg}); {HOWTO}") from None
    except _NotJSONConstant as e:
        m = re.search(rf"(?<![\w\"]){re.escape(str(e))}(?![\w\"])", text)
        where = f" at {_line_col(text, m.start())}" if m else ""
        raise InputError(f"{name}: is not valid JSON: {e}{where} is not a JSON number (Terraform never writes it); "
                         f"{HOWTO}") from None
    except RecursionError:
        raise InputError(f"{name}: nests too deeply to read; is it really `terraform show -json` output? {HOWTO}") from None
    except _DuplicateKey as e:
        where = _where_duplicate(text) or f"an object repeats the key {_clip(str(e), 60)!r}"
        raise InputError(f"{name}: {where}: JSON readers keep only one of the values, so a value may hide behind "
                         "another; Terraform never writes that, so the file was edited or made by another tool; "
                         f"{HOWTO}") from None
    except ValueError as e:  # int() refuses literals over sys.get_int_max_str_digits() digits
        m = re.search(r"[-0-9]{%d,}" % (sys.get_int_max_str_digits() or 4300), text)
        where = f" at {_line_col(text, m.start())}" if m else ""
        raise InputError(f"{name}: has a number{where} too long to read ({_clip(str(e).split(';')[0], 100)}); "
                         f"{HOWTO}") from None
    t1 = time.perf_counter()
    doc = check_document(doc, name)
    if timings is not None:
        timings["parse"], timings["validate"] = t1 - t0, time.perf_counter() - t1
    return doc


def check_document(doc, name: str) -> dict:
    if not isinstance(doc, dict):
        raise InputError(f"{name}: the top-level JSON value is {'a list' if isinstance(doc, list) else type(doc).__name__}, "
                         f"not a Terraform plan object; {HOWTO}")
    if "planned_values" not in doc and "resource_changes" not in doc:
        if "lineage" in doc and "resources" in doc and "serial" in doc:
            raise InputError(f"{name}: is a Terraform state file, not a plan; {HOWTO}")
        if "values" in doc or ("format_version" in doc and set(doc) <= {"format_version", "terraform_version"}):
            raise InputError(f"{name}: is state JSON (`terraform show -json` without a plan file), not a plan; {HOWTO}")
        if "provider_schemas" in doc:
            raise InputError(f"{name}: is a provider schema dump, not a plan; {HOWTO}")
        raise InputError(f"{name}: is JSON but not a Terraform plan (no planned_values or resource_changes); {HOWTO}")
    fv = doc.get("format_version")
    if not isinstance(fv, str):
        raise InputError(f"{name}: has no format_version string, so it is not `terraform show -json` output; {HOWTO}")
    if fv == "0.1":
        raise InputError(f"{name}: plan format_version 0.1 (Terraform 0.12 to 1.0.0) is not supported; supported: "
                         f"{SUPPORTED_FORMATS}; plan and show it with one of those")
    if fv != "0.2" and not re.fullmatch(r"1\.[0-9]{1,9}", fv):
        raise InputError(f"{name}: plan format_version {_clip(fv, 40)} is not supported; supported: {SUPPORTED_FORMATS}; "
                         "produce the plan with a Terraform version whose `terraform show -json` writes one of those")
    if doc.get("errored") is True:
        raise InputError(f"{name}: the plan is marked errored (Terraform stopped part-way), so it is incomplete; "
                         "fix the plan errors and plan again")
    from . import schema

    if not schema.is_valid(doc):
        why = schema.explain_invalid(doc) or "does not match the plan schema"
        raise InputError(f"{name}: not a well-formed Terraform plan: {why}; {HOWTO}")
    why = views_disagree(doc)
    if why:
        raise InputError(f"{name}: its two views of the plan disagree: {why}; Terraform writes them from the same "
                         "plan, so the file was edited or rewritten by another tool; check the plan as "
                         f"`terraform show -json` wrote it ({HOWTO})")
    drop_forgotten(doc)
    return doc


def _first_difference(a, b, path: str) -> str:
    """Where two JSON values first differ (a path under ``path``)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b or a[k] != b[k]:
                if k in a and k in b:
                    return _first_difference(a[k], b[k], f"{path}.{k}")
                return f"{path}.{k}"
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return path


def views_disagree(doc: dict) -> str | None:
    """Why ``planned_values`` (the state after apply) and ``resource_changes`` (what Terraform
    will do) do not describe the same plan, or None. Terraform writes each resource's planned
    values as its change's ``after``: the same resources (a delete has no planned values), the
    same values. The rules read planned_values, so a plan where a resource or a value is only in
    one view (a queue with SSE off only in resource_changes) is refused rather than judged on
    the other. What Terraform itself writes is accepted (internal/command/jsonplan):

    * a deposed object (``deposed`` key: left by a create_before_destroy replacement that did
      not finish) is a second change for the same address and never has planned values;
    * a ``forget`` (``removed { lifecycle { destroy = false } }``) has no planned values from
      Terraform 1.15.6 on, and is still listed in planned_values, without values, by every
      version before it (hashicorp/terraform#38641): both are read (:func:`forgotten`)."""
    changes = doc.get("resource_changes")
    pv = doc.get("planned_values")
    planned: dict[str, dict] = {}
    stack = [(pv or {}).get("root_module") or {}]
    while stack:
        m = stack.pop()
        for r in m.get("resources") or ():
            if r["address"] in planned:
                return f"planned_values lists {_clip(r['address'], 200)} twice"
            planned[r["address"]] = r
        stack.extend(m.get("child_modules") or ())
    if changes is None:
        return None  # one view only: nothing to compare
    seen: set = set()
    deposed: set = set()
    for i, rc in enumerate(changes):
        addr = rc["address"]
        ch = rc["change"]
        actions = ch.get("actions") or []
        if rc.get("deposed") is not None:
            key = (addr, rc["deposed"])
            if not isinstance(rc["deposed"], str) or key in deposed:
                return f"resource_changes lists the deposed object {_clip(str(rc['deposed']), 40)} of {_clip(addr, 200)} twice"
            deposed.add(key)
            if ch.get("after") is not None:
                return (f"resource_changes[{i}] ({_clip(addr, 200)}, deposed object {_clip(rc['deposed'], 40)}) has values "
                        "after the change, but a deposed object can only be destroyed")
            continue
        if addr in seen:
            return f"resource_changes lists {_clip(addr, 200)} twice"
        seen.add(addr)
        after = ch.get("after")
        r = planned.get(addr)
        if after is None:
            if r is not None and rc.get("mode") == r.get("mode"):
                if actions == ["forget"] and not r.get("values"):
                    continue  # Terraform < 1.15.6 lists a forgotten resource, without values
                return (f"resource_changes[{i}] ({_clip(addr, 200)}) will be {'/'.join(actions)} "
                        "with nothing after it, but planned_values still has it"
                        + (" with values" if actions == ["forget"] else ""))
            continue
        if r is None:
            return (f"resource_changes[{i}] ({_clip(addr, 200)}) will be {'/'.join(actions)}, but "
                    "planned_values does not have it")
        values = r.get("values") or {}
        if values != after and not (isinstance(after, dict) and not after and not values):
            where = _first_difference(values, after, "")
            return (f"{_clip(addr, 200)}{_clip(where, 200)} differs between planned_values and resource_changes[{i}]"
                    ".change.after")
    if changes or planned:
        missing = [a for a in planned if a not in seen]
        if missing:
            return (f"planned_values has {_clip(missing[0], 200)}, but resource_changes has no change for it"
                    + (f" (nor for {len(missing) - 1} more)" if len(missing) > 1 else ""))
    return None


def forgotten(doc: dict) -> set[str]:
    """The addresses a plan forgets (``removed`` with ``destroy = false``): action ``forget``."""
    return {rc["address"] for rc in doc.get("resource_changes") or ()
            if rc.get("deposed") is None and (rc.get("change") or {}).get("actions") == ["forget"]}


def drop_forgotten(doc: dict) -> None:
    """Read Terraform < 1.15.6's plan as later versions write it: a forgotten resource leaves
    the state, so it has no planned values (hashicorp/terraform#38641, fixed in 1.15.6: before,
    planned_values listed it without values, which the rules would read as a resource
    with every attribute unset). Empty modules left behind are dropped too, as Terraform does."""
    gone = forgotten(doc)
    root = (doc.get("planned_values") or {}).get("root_module")
    if not gone or not isinstance(root, dict):
        return

    def prune(m: dict) -> bool:
        if m.get("resources"):
            m["resources"] = [r for r in m["resources"] if r["address"] not in gone]
            if not m["resources"]:
                del m["resources"]
        if m.get("child_modules"):
            m["child_modules"] = [c for c in m["child_modules"] if prune(c)]
            if not m["child_modules"]:
                del m["child_modules"]
        return bool(m.get("resources") or m.get("child_modules"))

    prune(root)


def load(path: str, max_mib: float = DEFAULT_MAX_MIB, timings: dict | None = None) -> dict:
    """The plan at ``path`` (``-``: standard input), read within ``max_mib`` and checked (see parse)."""
    holder = [read_text(path, max_mib)]
    return _parse_release(holder, path, timings)


def _parse_release(holder: list, path: str, timings: dict | None = None) -> dict:
    text = holder.pop()  # the only reference: freed once parsed
    return parse(text, path, timings)
