"""Generated sections of the project's Markdown: inputs/outputs tables and the rule table.

terraform-docs is not installable here, so this is a small generator of our own.
A Markdown file holds marker pairs; the generator rewrites what is between them:

    <!-- BEGIN_TF_DOCS modules/queue -->      inputs/outputs of a Terraform module
    ...generated...                            (path relative to the Markdown file)
    <!-- END_TF_DOCS modules/queue -->

    <!-- BEGIN_RULES -->                       the plan checker's rule catalog
    ...generated...                            (resilient_sqs.policy.rules)
    <!-- END_RULES -->

    <!-- BEGIN_ACTION_DOCS -->                 inputs/outputs of the GitHub Action
    ...generated...                            (action.yml at the repository root)
    <!-- END_ACTION_DOCS -->

    <!-- BEGIN_SCENARIOS -->                   the behaviour scenarios (sqs-behave): name and
    ...generated...                            what each shows; `BEGIN_SCENARIOS detail` adds
    <!-- END_SCENARIOS -->                     what each needs and probes (resilient_sqs.testing.scenarios)

Types and long defaults are abbreviated (``map(object({...}))``); each name links to
the line of ``variables.tf``/``outputs.tf`` that declares it, where the full type is.
Output depends only on the files read, so it is the same on every machine.

``make docs`` (``python -m tooling.docs``) rewrites every marked section of the files
in ``doc_files()``; ``--check`` writes nothing, names the stale sections and exits 1
(the test suite runs the same comparison).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from tooling.terraform import REPO_ROOT

REGENERATE = "make docs"  # the exact command that rewrites every generated section

MARKER = re.compile(
    r"(<!-- BEGIN_TF_DOCS (?P<path>[^ ]+) -->\n)(?P<body>.*?)(<!-- END_TF_DOCS (?P=path) -->)", re.S
)
RULES_MARKER = re.compile(r"(<!-- BEGIN_RULES -->\n)(?P<body>.*?)(<!-- END_RULES -->)", re.S)
ACTION_MARKER = re.compile(r"(<!-- BEGIN_ACTION_DOCS -->\n)(?P<body>.*?)(<!-- END_ACTION_DOCS -->)", re.S)
CAPABILITIES_MARKER = re.compile(r"(<!-- BEGIN_CAPABILITIES -->\n)(?P<body>.*?)(<!-- END_CAPABILITIES -->)", re.S)
SCENARIOS_MARKER = re.compile(
    r"(<!-- BEGIN_SCENARIOS(?P<kind>(?: detail)?) -->\n)(?P<body>.*?)(<!-- END_SCENARIOS(?P=kind) -->)", re.S)
# types and defaults longer than this are abbreviated in the tables (the link leads to the full text)
ABBREVIATE_OVER = 50


@dataclass
class Block:
    kind: str
    name: str
    attrs: dict[str, str]
    line: int = 0  # 1-based line of the block's header


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
        line = text.count("\n", 0, m.start()) + 1
        blocks.append(Block(kind, m.group(1), _top_level_attrs(text[start + 1 : end]), line))
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
    if expr.startswith("<<"):  # heredoc description
        lines = expr.splitlines()[1:-1]
        return " ".join(ln.strip() for ln in lines)
    try:
        return json.loads(expr)
    except json.JSONDecodeError:
        return expr


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _flat(text: str) -> str:
    """A multi-line HCL expression on one line: attributes of an object type joined by commas."""
    parts = [ln.strip() for ln in text.strip().splitlines() if ln.strip() and not ln.strip().startswith("#")]
    flat = parts[0] if parts else ""
    for ln in parts[1:]:
        sep = "" if flat.endswith(("(", "{", "[", ",")) or ln.startswith((")", "}", "]")) else ", "
        flat += sep + ln
    return re.sub(r"\s+", " ", flat)


def abbreviate(expr: str, limit: int = ABBREVIATE_OVER) -> str:
    """``expr`` on one line; over ``limit`` characters, the contents of its outermost
    objects, tuples and lists are elided: ``map(object({...}))``, ``{...}``, ``[...]``."""
    flat = _flat(expr)
    if len(flat) <= limit:
        return flat
    out, i = [], 0
    while i < len(flat):
        c = flat[i]
        if c == '"':
            j = _skip_string(flat, i)
            out.append(flat[i:j])
            i = j
            continue
        if c in "{[":
            close = "}" if c == "{" else "]"
            j = _matching(flat, i, c, close)
            out.append(f"{c}...{close}" if j > i + 1 else flat[i : j + 1])
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _text(text: str) -> str:
    """A table cell of prose: ``*`` outside code spans escaped (``sqs:*`` is not emphasis)."""
    parts = _cell(text).split("`")
    return "`".join(p if i % 2 else p.replace("*", "\\*") for i, p in enumerate(parts))


def _code(text: str) -> str:
    return f"`{text}`".replace("|", "\\|")


def _link(name: str, target: Path, line: int, base: Path) -> str:
    rel = os.path.relpath(target, base).replace(os.sep, "/")
    return f"[`{name}`]({rel}#L{line})"


def render(module_dir: Path, base: Path | None = None) -> str:
    """Inputs and outputs tables of ``module_dir``; links relative to ``base`` (default: the module)."""
    base = base or module_dir
    vf, of = module_dir / "variables.tf", module_dir / "outputs.tf"
    variables = parse_blocks(vf.read_text(), "variable") if vf.exists() else []
    outputs = parse_blocks(of.read_text(), "output") if of.exists() else []
    lines = ["#### Inputs", ""]
    if variables:
        lines += ["| Name | Description | Type | Default | Required |", "|---|---|---|---|:---:|"]
        for v in variables:
            default = v.attrs.get("default")
            lines.append(
                f"| {_link(v.name, vf, v.line, base)} | {_cell(_string_value(v.attrs.get('description')))} "
                f"| {_code(abbreviate(v.attrs.get('type', 'any')))} "
                f"| {_code(abbreviate(default)) if default is not None else 'n/a'} | {'no' if default is not None else 'yes'} |"
            )
    else:
        lines.append("None.")
    lines += ["", "#### Outputs", ""]
    if outputs:
        lines += ["| Name | Description |", "|---|---|"]
        for o in outputs:
            lines.append(f"| {_link(o.name, of, o.line, base)} | {_cell(_string_value(o.attrs.get('description')))} |")
    else:
        lines.append("None.")
    return "\n".join(lines) + "\n"


def render_rules() -> str:
    """The rule table: every rule of the catalog (resilient_sqs.policy.rules), in catalog order."""
    from resilient_sqs.policy.rules import CONFIG_RULES, RULES

    rules = [*RULES.values(), *CONFIG_RULES.values()]
    lines = ["| ID | slug | severity | area | checks |", "|---|---|---|---|---|"]
    notes = []
    for r in rules:
        sev = r.severity
        if r.severity_note:
            notes.append(f"- `{r.id}`: {_text(r.severity_note)}")
            sev += " (see below)"
        lines.append(f"| `{r.id}` | {r.slug} | {sev} | {r.area} | {_text(r.title)} |")
    if notes:
        lines += ["", "Severity notes:", "", *notes]
    return "\n".join(lines) + "\n"


def render_action(action: Path) -> str:
    """Inputs and outputs of a GitHub Action (action.yml)."""
    import yaml

    spec = yaml.safe_load(action.read_text())
    lines = ["| Input | Description | Default | Required |", "|---|---|---|:---:|"]
    for name, i in (spec.get("inputs") or {}).items():
        default = i.get("default")
        shown = "n/a" if default is None else (_code(json.dumps(default)) if default == "" else _code(str(default)))
        lines.append(f"| `{name}` | {_cell(i.get('description', ''))} | {shown} | {'yes' if i.get('required') else 'no'} |")
    lines += ["", "| Output | Description |", "|---|---|"]
    for name, o in (spec.get("outputs") or {}).items():
        lines.append(f"| `{name}` | {_cell(o.get('description', ''))} |")
    return "\n".join(lines) + "\n"


def render_capabilities(folder: Path) -> str:
    """What each emulator can show: one column per probe record (docs/capabilities/<kind>.json,
    written by ``python -m tooling.probe_emulators``), one row per probe."""
    docs = [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"), key=lambda p: (p.stem != "localstack", p.stem))]
    if not docs:
        return "(no probe records in docs/capabilities/)\n"
    head = [f"{d['emulator']['kind']} {str(d['emulator'].get('version') or '').split(':')[0]}".strip() for d in docs]
    lines = ["| probe | " + " | ".join(head) + " |", "|---|" + "---|" * len(docs)]
    names = list(dict.fromkeys(f["name"] for d in docs for f in d["findings"]))
    for name in names:
        title = next(f["title"] for d in docs for f in d["findings"] if f["name"] == name)
        cells = []
        for d in docs:
            f = next((f for f in d["findings"] if f["name"] == name), None)
            if f is None or f["shown"] is None:
                cells.append("not probed")
            else:
                cells.append(("yes" if f["shown"] else "**no**") + (f": {_cell(f['detail'])}" if not f["shown"] else ""))
        lines.append(f"| `{name}`: {_cell(title)} | " + " | ".join(cells) + " |")
    lines += ["", "How each was started: " + "; ".join(f"{h}: `{d['emulator'].get('how', '')}`" for h, d in zip(head, docs)) + "."]
    return "\n".join(lines) + "\n"


def update(md: Path, check: bool = False, root: Path = REPO_ROOT) -> list[str]:
    """Rewrite (or, with check, only compare) every generated section of ``md``;
    return the stale sections (module paths as written in the markers, ``rules``)."""
    text = md.read_text()
    stale: list[str] = []

    def replace(m: re.Match) -> str:
        module_dir = (md.parent / m.group("path")).resolve()
        if not module_dir.is_dir():
            raise SystemExit(f"{md}: TF_DOCS marker names {m.group('path')!r}, which is not a directory")
        body = render(module_dir, md.parent)
        if body != m.group("body"):
            stale.append(m.group("path"))
        return m.group(1) + body + m.group(4)

    def replace_rules(m: re.Match) -> str:
        body = render_rules()
        if body != m.group("body"):
            stale.append("rules")
        return m.group(1) + body + m.group(3)

    def replace_action(m: re.Match) -> str:
        body = render_action(root / "action.yml")
        if body != m.group("body"):
            stale.append("action")
        return m.group(1) + body + m.group(3)

    def replace_scenarios(m: re.Match) -> str:
        from resilient_sqs.testing.scenarios import table_rows

        body = table_rows(detail=bool(m.group("kind")))
        if body != m.group("body"):
            stale.append("scenarios" + (m.group("kind") or ""))
        return m.group(1) + body + m.group(4)

    new = ACTION_MARKER.sub(replace_action, RULES_MARKER.sub(replace_rules, MARKER.sub(replace, text)))
    new = SCENARIOS_MARKER.sub(replace_scenarios, new)

    def replace_capabilities(m: re.Match) -> str:
        body = render_capabilities(root / "docs" / "capabilities")
        if body != m.group("body"):
            stale.append("capabilities")
        return m.group(1) + body + m.group(3)

    new = CAPABILITIES_MARKER.sub(replace_capabilities, new)
    if not check and new != text:
        md.write_text(new)
    return stale


def doc_files(root: Path = REPO_ROOT) -> list[Path]:
    """Every Markdown file that may hold generated sections."""
    found = [root / "README.md", root / "CONTRIBUTING.md", *sorted((root / "docs").glob("**/*.md")),
             *sorted(root.glob("modules/*/README.md")), *sorted(root.glob("examples/*/README.md"))]
    return [p for p in found if p.exists()]


readmes = doc_files  # older name


def stale_sections(root: Path = REPO_ROOT) -> list[str]:
    return [f"{md.relative_to(root)} ({path})" for md in doc_files(root) for path in update(md, check=True, root=root)]


def stale_message(stale: list[str]) -> str:
    return (f"generated documentation is stale in {', '.join(stale)}: run `{REGENERATE}` "
            "(or `.venv/bin/python -m tooling.docs`) and commit the result")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a generated section is stale")
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help=argparse.SUPPRESS)  # for the tests
    args = parser.parse_args(argv)
    root = args.root.resolve()
    if args.check:
        stale = stale_sections(root)
        if stale:
            print(stale_message(stale), file=sys.stderr)
            return 1
        return 0
    for md in doc_files(root):
        for path in update(md, root=root):
            print(f"updated {md.relative_to(root)} ({path})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
