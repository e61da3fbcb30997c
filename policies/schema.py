"""The plan JSON schema (plan.schema.json) and its precompiled validator.

Validating a multi-megabyte plan with the ``jsonschema`` library costs more
than evaluating every rule, so the schema is compiled ahead of time into plain
Python (``_plan_validator.py``, a yes/no answer). Only when that says no is
``jsonschema`` imported, to validate against the same schema and word the
error. A test keeps the generated file in sync with the schema, and another
checks both validators agree on valid and broken plans.

Regenerate after editing the schema::

    python -m resilient_sqs.policy.schema --generate
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

SCHEMA_PATH = Path(__file__).with_name("plan.schema.json")
GENERATED_PATH = Path(__file__).with_name("_plan_validator.py")

_ANNOTATIONS = {"$schema", "$id", "title", "description", "$defs", "$comment", "examples", "default"}
_SUPPORTED = {"type", "required", "properties", "additionalProperties", "items", "enum", "pattern", "$ref"}

_TYPE_TESTS = {
    "object": "type({v}) is dict",
    "array": "type({v}) is list",
    "string": "type({v}) is str",
    "integer": "(type({v}) is int or (type({v}) is float and {v}.is_integer()))",
    "number": "type({v}) in (int, float)",
    "boolean": "type({v}) is bool",
    "null": "{v} is None",
}


def load_schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


class _Gen:
    def __init__(self, schema: dict):
        self.schema = schema
        self.consts: list[str] = []
        self.funcs: list[str] = []

    def const(self, expr: str) -> str:
        name = f"_C{len(self.consts)}"
        self.consts.append(f"{name} = {expr}")
        return name

    def node(self, s: dict, v: str, depth: int, ind: str) -> list[str]:
        if not isinstance(s, dict):
            raise ValueError(f"unsupported schema node {s!r}")
        extra = set(s) - _SUPPORTED - _ANNOTATIONS
        if extra:
            raise ValueError(f"schema keyword(s) {sorted(extra)} not supported by the compiler")
        out: list[str] = []
        if "$ref" in s:
            ref = s["$ref"]
            if not ref.startswith("#/$defs/"):
                raise ValueError(f"only local #/$defs/ references are supported, not {ref}")
            out.append(f"{ind}if not v_{ref.split('/')[-1]}({v}): return False")
        if "type" in s:
            types = s["type"] if isinstance(s["type"], list) else [s["type"]]
            test = " or ".join(_TYPE_TESTS[t].format(v=v) for t in types)
            out.append(f"{ind}if not ({test}): return False")
        if "enum" in s:
            c = self.const(repr(tuple(s["enum"])))
            out.append(f"{ind}if {v} not in {c}: return False")
        if "pattern" in s:
            c = self.const(f"re.compile({s['pattern']!r})")
            out.append(f"{ind}if type({v}) is str and not {c}.search({v}): return False")
        obj = []
        ind2 = ind + "    "
        for key in s.get("required", ()):
            obj.append(f"{ind2}if {key!r} not in {v}: return False")
        for key, sub in (s.get("properties") or {}).items():
            body = self.node(sub, f"x{depth + 1}", depth + 1, ind2 + "    ")
            if body:
                obj.append(f"{ind2}x{depth + 1} = {v}.get({key!r}, _MISSING)")
                obj.append(f"{ind2}if x{depth + 1} is not _MISSING:")
                obj.extend(body)
        ap = s.get("additionalProperties")
        if isinstance(ap, dict):
            known = tuple((s.get("properties") or {}).keys())
            body = self.node(ap, f"x{depth + 1}", depth + 1, ind2 + "        " if known else ind2 + "    ")
            if body:
                if known:
                    c = self.const(f"frozenset({sorted(known)!r})")  # sorted: the same text under any hash seed
                    obj.append(f"{ind2}for k{depth + 1}, x{depth + 1} in {v}.items():")
                    obj.append(f"{ind2}    if k{depth + 1} not in {c}:")
                else:
                    obj.append(f"{ind2}for x{depth + 1} in {v}.values():")
                obj.extend(body)
        elif ap is False:
            raise ValueError("additionalProperties: false is not supported")
        if obj:
            out.append(f"{ind}if type({v}) is dict:")
            out.extend(obj)
        if "items" in s:
            body = self.node(s["items"], f"x{depth + 1}", depth + 1, ind2 + "    ")
            if body:
                out.append(f"{ind}if type({v}) is list:")
                out.append(f"{ind2}for x{depth + 1} in {v}:")
                out.extend(body)
        return out

    def function(self, name: str, s: dict):
        body = self.node(s, "x0", 0, "    ")
        self.funcs.append(f"def v_{name}(x0):\n" + "\n".join(body + ["    return True"]) + "\n")

    def render(self) -> str:
        for name, sub in (self.schema.get("$defs") or {}).items():
            self.function(name, sub)
        self.function("root", self.schema)
        head = [
            "# Generated from plan.schema.json by `python -m resilient_sqs.policy.schema --generate`. Do not edit.",
            "# fmt: off",
            "import re",
            "",
            "_MISSING = object()",
            *self.consts,
            "",
        ]
        return "\n".join(head) + "\n\n" + "\n\n".join(self.funcs) + "\n\ndef is_valid(doc):\n    return v_root(doc)\n"


def generate(schema: dict | None = None) -> str:
    return _Gen(schema or load_schema()).render()


def _fmt_path(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def explain_invalid(doc) -> str | None:
    """Validate with jsonschema (slow path) and word the most relevant error; None if valid."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema())
    err = jsonschema.exceptions.best_match(validator.iter_errors(doc))
    if err is None:
        return None
    msg = err.message
    if len(msg) > 200:
        msg = msg[:200] + "…"
    return f"{_fmt_path(err.absolute_path)}: {msg}"


def is_valid(doc) -> bool:
    from ._plan_validator import is_valid as fast

    return fast(doc)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--generate"]:
        GENERATED_PATH.write_text(generate())
        print(f"wrote {GENERATED_PATH}")
        return 0
    if argv == ["--check"]:
        if GENERATED_PATH.read_text() != generate():
            print(f"{GENERATED_PATH.name} is stale: run python -m resilient_sqs.policy.schema --generate", file=sys.stderr)
            return 1
        return 0
    print("usage: python -m resilient_sqs.policy.schema --generate | --check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
