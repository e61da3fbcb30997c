"""Read a plan file (``terraform show -json PLANFILE`` output) or refuse it with one clear line."""
from __future__ import annotations

import json
import sys

from policies.errors import InputError

HOWTO = "run `terraform plan -out=tfplan && terraform show -json tfplan > plan.json` and pass plan.json"


def read_bytes(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file; {HOWTO}") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a plan file; {HOWTO}") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied; make the file readable") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read it ({e.strerror or e})") from None


def parse(data: bytes, path: str) -> dict:
    name = "standard input" if path == "-" else path
    if not data.strip():
        raise InputError(f"{name}: is empty; {HOWTO}")
    if data[:4] == b"PK\x03\x04":
        raise InputError(f"{name}: is a binary Terraform plan file, not JSON; convert it with "
                         f"`terraform show -json {path if path != '-' else 'tfplan'} > plan.json` and pass plan.json")
    head = data.lstrip()[:1]
    if head not in (b"{", b"["):
        if b"\x00" in data[:4096]:
            raise InputError(f"{name}: is binary data, not JSON; {HOWTO}")
        raise InputError(f"{name}: is not JSON (it starts with {data.lstrip()[:20].decode('utf-8', 'replace')!r}); {HOWTO}")
    try:
        doc = json.loads(data)
    except UnicodeDecodeError as e:
        raise InputError(f"{name}: is not UTF-8 JSON ({e.reason} at byte {e.start}); {HOWTO}") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{name}: is not valid JSON (line {e.lineno} column {e.colno}: {e.msg}); {HOWTO}") from None
    return check_document(doc, name)


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
    from policies import schema

    if not schema.is_valid(doc):
        why = schema.explain_invalid(doc) or "does not match the plan schema"
        raise InputError(f"{name}: not a well-formed Terraform plan: {why}; {HOWTO}")
    return doc


def load(path: str) -> dict:
    return parse(read_bytes(path), path)
