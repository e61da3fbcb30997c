"""Read a plan file (``terraform show -json PLANFILE`` output) or refuse it with one clear line."""
from __future__ import annotations

import json
import re
import sys

from .errors import InputError

TIMINGS: dict[str, float] = {}

HOWTO = "run `terraform plan -out=tfplan && terraform show -json tfplan > plan.json` and pass plan.json"


# top-level members the engine never reads: dropped as soon as they are parsed
_SKIP = frozenset({"checks", "relevant_attributes", "output_changes", "timestamp"})


def read_text(path: str) -> str:
    """The file as text. A binary plan file, binary data or bad UTF-8 is refused here."""
    name = "standard input" if path == "-" else path
    try:
        if path == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as fh:
                head = fh.read(8)
                _sniff(head, name, path)
                fh.seek(0)
                raw = fh.read()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file; {HOWTO}") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a plan file; {HOWTO}") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied; make the file readable") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read it ({e.strerror or e})") from None
    _sniff(raw[:8], name, path)
    if not raw.strip():
        raise InputError(f"{name}: is empty; {HOWTO}")
    if b"\x00" in raw[:4096]:
        raise InputError(f"{name}: is binary data, not JSON; {HOWTO}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{name}: is not UTF-8 JSON ({e.reason} at byte {e.start}); {HOWTO}") from None


def _sniff(head: bytes, name: str, path: str):
    if head[:4] == b"PK\x03\x04":
        raise InputError(f"{name}: is a binary Terraform plan file, not JSON; convert it with "
                         f"`terraform show -json {path if path != '-' else 'tfplan'} > plan.json` and pass plan.json")


_WS = re.compile(r"[ \t\n\r]*")


def _decode(text: str):
    """json.loads, member by member at the top level so that the large members
    the engine does not read are freed as soon as they are parsed (lower peak
    memory). Any irregularity falls back to json.loads for its error message."""
    dec = json.JSONDecoder()
    raw = dec.raw_decode
    ws = _WS.match
    try:
        i = ws(text, 0).end()
        if text[i] != "{":
            return json.loads(text)
        i = ws(text, i + 1).end()
        doc = {}
        if text[i] == "}":
            i += 1
        else:
            while True:
                key, i = raw(text, i)
                i = ws(text, i).end()
                if not isinstance(key, str) or text[i] != ":":
                    return json.loads(text)
                i = ws(text, i + 1).end()
                value, i = raw(text, i)
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
                return json.loads(text)
        if ws(text, i).end() != len(text):
            return json.loads(text)
        return doc
    except (IndexError, json.JSONDecodeError):
        return json.loads(text)


def parse(text: str, path: str) -> dict:
    name = "standard input" if path == "-" else path
    if not text.strip():
        raise InputError(f"{name}: is empty; {HOWTO}")
    head = text.lstrip()[:1]
    if head not in ("{", "["):
        raise InputError(f"{name}: is not JSON (it starts with {text.lstrip()[:20]!r}); {HOWTO}")
    import time

    t0 = time.perf_counter()
    try:
        doc = _decode(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{name}: is not valid JSON (line {e.lineno} column {e.colno}: {e.msg}); {HOWTO}") from None
    t1 = time.perf_counter()
    doc = check_document(doc, name)
    TIMINGS["parse"], TIMINGS["validate"] = t1 - t0, time.perf_counter() - t1
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
    if not fv.startswith("1.") or not fv[2:].isdigit():
        raise InputError(f"{name}: plan format_version {fv} is not supported (1.x is: Terraform 0.12 and later); "
                         "produce it with a Terraform version whose `terraform show -json` writes format 1.x")
    if doc.get("errored") is True:
        raise InputError(f"{name}: the plan is marked errored (Terraform stopped part-way), so it is incomplete; "
                         "fix the plan errors and plan again")
    from . import schema

    if not schema.is_valid(doc):
        why = schema.explain_invalid(doc) or "does not match the plan schema"
        raise InputError(f"{name}: not a well-formed Terraform plan: {why}; {HOWTO}")
    return doc


def load(path: str) -> dict:
    holder = [read_text(path)]
    return _parse_release(holder, path)


def _parse_release(holder: list, path: str) -> dict:
    text = holder.pop()  # the only reference: freed once parsed
    return parse(text, path)
