"""Inputs/outputs tables for README.md, generated from variables.tf / outputs.tf.

terraform-docs is not installable here, so this is a small generator of our own.
README.md holds marker pairs::

    <!-- BEGIN_TF_DOCS modules/queue -->
    ...generated...
    <!-- END_TF_DOCS modules/queue -->

``python -m tooling.docs`` rewrites every marked section; ``--check`` exits 1 and
names the stale sections instead (the test suite runs the check).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from tooling.terraform import REPO_ROOT

MARKER = re.compile(
    r"(<!-- BEGIN_TF_DOCS (?P<path>[^ ]+) -->\n)(?P<body>.*?)(<!-- END_TF_DOCS (?P=path) -->)", re.S
)


@dataclass
class Block:
    kind: str
    name: str
    attrs: dict[str, str]


def _skip_string(text: str, i: int) -> int:
    """Index just past the quoted string starting at text[i] == '"'."""
    i += 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        if text.startswith("${", i):  # template interpolation may contain quotes
            i = _matching(text, i + 1, "{", "}") + 1
            continue
        i += 1
    raise ValueError("unterminated string")


def _matching(text: str, i: int, open_: str, close: str) -> int:
    """Index of the bracket closing the one at text[i]."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            i = _skip_string(text, i)
            continue
        if c == "#" or text.startswith("//", i):
            i = text.index("\n", i)
            continue
        if text.startswith("<<", i):
            m = re.match(r"<<-?([A-Z_]+)\n", text[i:])
            if m:
                end = re.compile(rf"^\s*{m.group(1)}\s*$", re.M).search(text, i + m.end())
                i = end.end()
                continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError(f"unbalanced {open_}{close}")


def parse_blocks(text: str, kind: str) -> list[Block]:
    """Top-level ``kind "name" { ... }`` blocks with their top-level attribute expressions."""
    blocks = []
    for m in re.finditer(rf'^{kind}\s+"([^"]+)"\s*\{{', text, re.M):
        start = m.end() - 1
        end = _matching(text, start, "{", "}")
        blocks.append(Block(kind, m.group(1), _top_level_attrs(text[start + 1 : end])))
    return blocks


def _top_level_attrs(body: str) -> dict[str, str]:
    attrs: dict[str, str] = {}
    i = 0
    n = len(body)
    while i < n:
        m = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_-]*)\s*(=|\{)").match(body, i)
        if not m:
            nl = body.find("\n", i)
            i = n if nl < 0 else nl + 1
            continue
        name, op = m.group(1), m.group(2)
        j = m.end()
        if op == "{":  # nested block (validation, ...): skip
            i = _matching(body, j - 1, "{", "}") + 1
            continue
        # expression runs to the end of the line, or further while brackets are open
        k = j
        depth = 0
        while k < n:
            c = body[k]
            if c == '"':
                k = _skip_string(body, k)
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            elif c == "\n" and depth == 0:
                break
            k += 1
        attrs[name] = body[j:k].strip()
        i = k + 1
    return attrs


def _string_value(expr: str | None) -> str:
    if not expr:
        return ""
    try:
        return json.loads(expr)
    except json.JSONDecodeError:
        return expr


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _code(text: str) -> str:
    """A multi-line HCL expression on one line: attributes of an object type joined by commas."""
    parts = [ln.strip() for ln in text.strip().splitlines() if ln.strip() and not ln.strip().startswith("#")]
    flat = parts[0] if parts else ""
    for ln in parts[1:]:
        sep = "" if flat.endswith(("(", "{", "[", ",")) or ln.startswith((")", "}", "]")) else ", "
        flat += sep + ln
    flat = re.sub(r"\s+", " ", flat)
    return f"`{flat}`".replace("|", "\\|")


def render(module_dir: Path) -> str:
    variables = parse_blocks((module_dir / "variables.tf").read_text(), "variable") if (module_dir / "variables.tf").exists() else []
    outputs = parse_blocks((module_dir / "outputs.tf").read_text(), "output") if (module_dir / "outputs.tf").exists() else []
    lines = ["#### Inputs", "", "| Name | Description | Type | Default | Required |", "|---|---|---|---|:---:|"]
    for v in variables:
        default = v.attrs.get("default")
        lines.append(
            f"| `{v.name}` | {_cell(_string_value(v.attrs.get('description')))} | {_code(v.attrs.get('type', 'any'))} "
            f"| {_code(default) if default is not None else 'n/a'} | {'no' if default is not None else 'yes'} |"
        )
    lines += ["", "#### Outputs", "", "| Name | Description |", "|---|---|"]
    for o in outputs:
        lines.append(f"| `{o.name}` | {_cell(_string_value(o.attrs.get('description')))} |")
    return "\n".join(lines) + "\n"


def update(readme: Path, check: bool = False) -> list[str]:
    """Rewrite (or, with check, only compare) every marked section; return stale section paths."""
    text = readme.read_text()
    stale: list[str] = []

    def replace(m: re.Match) -> str:
        module_dir = (readme.parent / m.group("path")).resolve()
        if not module_dir.is_dir():
            raise SystemExit(f"{readme}: TF_DOCS marker names {m.group('path')!r}, which is not a directory")
        body = render(module_dir)
        if body != m.group("body"):
            stale.append(m.group("path"))
        return m.group(1) + body + m.group(4)

    new = MARKER.sub(replace, text)
    if not check and new != text:
        readme.write_text(new)
    return stale


def readmes() -> list[Path]:
    return [p for p in [REPO_ROOT / "README.md", *sorted(REPO_ROOT.glob("modules/*/README.md"))] if p.exists()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="do not write; exit 1 if a table is stale")
    args = parser.parse_args(argv)
    bad = []
    for readme in readmes():
        for path in update(readme, check=args.check):
            bad.append(f"{readme.relative_to(REPO_ROOT)}: {path}")
    if args.check and bad:
        print("stale input/output tables (run `python -m tooling.docs`): " + ", ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
