"""Write the plumbing of the queue attributes from their one declaration.

``tooling/queue_settings.py`` declares every attribute of an entry of the root module's
`queues`. Terraform needs each spelled out in several places; this writes them:

    modules/queue/variables.tf     the attributes' variable blocks, between the
                                   ``# BEGIN GENERATED queue-variables`` / ``# END ...`` lines
                                   (`name`, which carries every validation, and the module's
                                   own inputs stay hand-written outside them)
    modules/queue/attributes.tf    ``local.n`` (how refusal messages name each input), the
                                   FIFO-only settings given, the settings of a created DLQ given
    internal/inputs/attributes.tf  the typed copy of `queue_defaults`, the attribute lists
                                   (what is refused as unknown, what `queue_defaults` takes)
                                   and the type each value is checked against
    main.tf                        the arguments of the `module "queue"` call (between markers)
    variables.tf                   the attribute list of the `queues` description (between markers)

The output is laid out as ``terraform fmt`` writes it and depends only on the declaration
and the hand-written parts of the files, so it is byte-stable: regenerating changes
nothing unless the declaration did. ``tests/tooling/test_plumbing.py`` fails when a
generated file or region differs from what this writes.

Usage::

    .venv/bin/python -m tooling.plumbing           # rewrite what is stale (make plumbing)
    .venv/bin/python -m tooling.plumbing --check   # write nothing; exit 1 if something is stale
"""
from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from tooling import queue_settings as DECLARATION
from tooling.queue_settings import Attribute, Variable

REPO_ROOT = Path(__file__).resolve().parent.parent
REGENERATE = "make plumbing"
SOURCE = "tooling/queue_settings.py"
HEADER = (f"# Generated from {SOURCE} by `{REGENERATE}` (python -m tooling.plumbing). Do not edit:\n"
          "# change the declaration there and regenerate (tests/tooling/test_plumbing.py fails while this is stale).\n")

# a generated region inside a hand-written file: the lines between these two
BEGIN = "# BEGIN GENERATED {id}: `" + REGENERATE + "` writes what follows from " + SOURCE + "; do not edit"
END = "# END GENERATED {id}"
REGION = re.compile(
    r"^(?P<indent>[ \t]*)# BEGIN GENERATED (?P<id>[a-z-]+):[^\n]*\n(?P<body>.*?)^[ \t]*# END GENERATED (?P=id)[ \t]*\n",
    re.M | re.S,
)

# file -> the ids of the regions it holds (files not listed here are generated whole)
REGIONS = {
    "modules/queue/variables.tf": ("queue-variables",),
    "main.tf": ("queue-arguments",),
    "variables.tf": ("queues-description",),
}
WHOLE = ("modules/queue/attributes.tf", "internal/inputs/attributes.tf")


class PlumbingError(Exception):
    """A file the generator writes into has lost or duplicated its region markers."""


# ------------------------------------------------------------------------------------------
# HCL text, as terraform fmt lays it out
# ------------------------------------------------------------------------------------------
def hcl_string(s: str) -> str:
    """A quoted HCL string whose value is exactly ``s`` (no interpolation)."""
    return '"' + (s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
                  .replace("${", "$${").replace("%{", "%%{")) + '"'


def attributes(items: Sequence[tuple[str, str]], indent: str) -> str:
    """``key = value`` lines with the ``=`` aligned as terraform fmt aligns them: across
    consecutive single-line values; a multi-line value stands alone and ends the run."""
    out: list[str] = []
    run: list[tuple[str, str]] = []

    def flush() -> None:
        width = max((len(k) for k, _ in run), default=0)
        out.extend(f"{indent}{k.ljust(width)} = {v}\n" for k, v in run)
        run.clear()

    for key, value in items:
        if "\n" in value:
            flush()
            out.append(f"{indent}{key} = {value}\n")
        else:
            run.append((key, value))
    flush()
    return "".join(out)


def string_list(names: Sequence[str], indent: str) -> str:
    return "".join(f'{indent}"{n}",\n' for n in names)


# ------------------------------------------------------------------------------------------
# what is generated
# ------------------------------------------------------------------------------------------
def _module_variables(attrs: Sequence[Attribute]) -> list[Attribute]:
    """The attributes whose modules/queue variable is generated."""
    return [a for a in attrs if isinstance(a.variable, Variable)]


def _groups(attrs: Sequence[Attribute]) -> list[list[Attribute]]:
    unknown = sorted({a.group for a in attrs} - set(DECLARATION.GROUPS))
    if unknown:
        raise PlumbingError(f"{SOURCE}: unknown group {unknown}; groups are {list(DECLARATION.GROUPS)}")
    return [[a for a in attrs if a.group == g] for g in DECLARATION.GROUPS]


def render_queue_variables(attrs: Sequence[Attribute]) -> str:
    """modules/queue/variables.tf: a variable block per attribute, under its group's heading."""
    blocks: list[str] = []
    for group, members in zip(DECLARATION.GROUPS, _groups(_module_variables(attrs))):
        heading = DECLARATION.GROUPS[group][0]
        for i, a in enumerate(members):
            v: Variable = a.variable  # type: ignore[assignment]
            items = [("description", hcl_string(v.description)), ("type", v.type), ("default", v.default)]
            if not v.nullable:
                items.append(("nullable", "false"))
            text = f'variable "{a.name}" {{\n' + attributes(items, "  ") + "}\n"
            blocks.append((f"{heading}\n\n" if heading and i == 0 else "") + text)
    return "\n".join(blocks)


def render_queue_locals(attrs: Sequence[Attribute]) -> str:
    """modules/queue/attributes.tf."""
    module_inputs = [a for a in attrs if a.variable is not None]
    fifo = [(a.name, f"var.{a.name} == true ? true : null" if _type(a) == "bool" else f"var.{a.name}")
            for a in module_inputs if a.fifo_only]
    dlq = [(a.name, _given(a)) for a in module_inputs if a.dlq_only]
    return (
        HEADER + "\n"
        "locals {\n"
        "  # How refusal messages name each input: as itself, or as the caller says\n"
        "  # (the root module: queues[\"<key>\"].<attribute>, or queue_defaults.<attribute>).\n"
        "  n = { for v in [\n" + string_list([a.name for a in module_inputs], "    ") + "  ] : v => lookup(var.input_names, v, v) }\n"
        "\n"
        "  # FIFO-only settings given (each by how the caller names it, with its value)\n"
        "  fifo_options_given = [for a, v in {\n" + attributes(fifo, "    ")
        + '  } : "${local.n[a]} = ${jsonencode(v)}" if v != null]\n'
        "\n"
        "  # settings of a DLQ the module creates, given although the DLQ is an existing one (dlq_arn)\n"
        "  dlq_settings_given = [for k, given in {\n" + attributes(dlq, "    ") + "  } : local.n[k] if given]\n"
        "}\n"
    )


def _type(a: Attribute) -> str | None:
    return a.variable.type if isinstance(a.variable, Variable) else a.value_type


def _given(a: Attribute) -> str:
    """An expression true when the caller gave ``a`` (its value differs from the default)."""
    v = a.variable
    if not isinstance(v, Variable):
        raise PlumbingError(f"{SOURCE}: {a.name} is dlq_only, so its modules/queue variable must be declared here")
    if v.default == "null":
        return f"var.{a.name} != null"
    if v.default in ("[]", "{}"):
        return f"length(var.{a.name}) > 0"
    return f"var.{a.name} != {v.default}"


def render_inputs(attrs: Sequence[Attribute]) -> str:
    """internal/inputs/attributes.tf."""
    settings = [a.name for a in attrs if a.defaults]
    others = [a.name for a in attrs if not a.defaults]
    types = [(a.name, hcl_string(a.value_type)) for a in attrs if a.value_type]
    return (
        HEADER + "\n"
        "# Each attribute of the typed copy is `any`: a value of the wrong type is refused by\n"
        "# attribute_types naming the user's input, not by Terraform's conversion naming this\n"
        "# module's variable. An attribute not given is null.\n"
        'variable "queue_defaults" {\n'
        "  description = \"The root module's `queue_defaults`, typed.\"\n"
        "  type = object({\n" + attributes([(s, "optional(any)") for s in settings], "    ") + "  })\n"
        "  default  = {}\n"
        "  nullable = false\n"
        "}\n"
        "\n"
        "locals {\n"
        "  # the settings a queue takes from `queue_defaults` when it does not give them itself\n"
        "  queue_settings = [\n" + string_list(settings, "    ") + "  ]\n"
        "  # every attribute of a `queues` entry (any other is refused as unknown)\n"
        "  queue_attributes = concat(local.queue_settings, [\n" + string_list(others, "    ") + "  ])\n"
        "  # the type each is checked against (the rest are objects and lists checked apart)\n"
        "  queue_attribute_types = {\n" + attributes(types, "    ") + "  }\n"
        "}\n"
    )


def render_queue_arguments(attrs: Sequence[Attribute]) -> str:
    """main.tf, inside `module "queue"`: the attributes passed to modules/queue."""
    runs = [[(a.name, a.root_expression) for a in members if a.root_expression]
            for members in _groups(attrs)]
    return "\n".join(attributes(r, "  ") for r in runs if r)


def queues_description(attrs: Sequence[Attribute]) -> str:
    """The root module's `queues` description, its attribute list written from the declaration."""
    parts = []
    for group, members in zip(DECLARATION.GROUPS, _groups(attrs)):
        listed = [f"`{a.name}`" + (f" ({a.doc})" if a.doc else "") for a in members if a.doc is not None]
        if listed:
            parts.append(DECLARATION.GROUPS[group][1] + ", ".join(listed))
    before, after = DECLARATION.QUEUES_DESCRIPTION
    return before + "; ".join(parts) + after


def render_queues_description(attrs: Sequence[Attribute]) -> str:
    return f"  description = {hcl_string(queues_description(attrs))}\n"


RENDER_REGION = {
    "queue-variables": render_queue_variables,
    "queue-arguments": render_queue_arguments,
    "queues-description": render_queues_description,
}
RENDER_WHOLE = {
    "modules/queue/attributes.tf": render_queue_locals,
    "internal/inputs/attributes.tf": render_inputs,
}


# ------------------------------------------------------------------------------------------
# files
# ------------------------------------------------------------------------------------------
def fill_regions(path: str, text: str, attrs: Sequence[Attribute]) -> str:
    """``text`` with each generated region of ``path`` rewritten."""
    found = [m.group("id") for m in REGION.finditer(text)]
    expected = list(REGIONS[path])
    if found != expected:
        raise PlumbingError(
            f"{path}: expected the generated region{'s' if len(expected) > 1 else ''} {', '.join(expected)} once each "
            f"between '# BEGIN GENERATED <id>: ...' and '# END GENERATED <id>' lines, found {found or 'none'}; "
            f"restore the marker lines (from git) and run `{REGENERATE}`")

    def replace(m: re.Match) -> str:
        indent, rid = m.group("indent"), m.group("id")
        return (f"{indent}{BEGIN.format(id=rid)}\n" + RENDER_REGION[rid](attrs) + f"{indent}{END.format(id=rid)}\n")

    return REGION.sub(replace, text)


def outputs(root: Path | None = None, attrs: Sequence[Attribute] | None = None) -> dict[str, str]:
    """Every generated file (repo-relative path) with the text it must have."""
    root = REPO_ROOT if root is None else root
    attrs = DECLARATION.ATTRIBUTES if attrs is None else attrs
    out = {path: render(attrs) for path, render in RENDER_WHOLE.items()}
    for path in REGIONS:
        f = root / path
        if not f.is_file():
            raise PlumbingError(f"{path}: missing; it holds generated regions {', '.join(REGIONS[path])}")
        out[path] = fill_regions(path, f.read_text(), attrs)
    return out


def stale(root: Path | None = None, attrs: Sequence[Attribute] | None = None) -> list[str]:
    """The generated files that are missing or differ from what :func:`outputs` writes."""
    root = REPO_ROOT if root is None else root
    return [p for p, text in outputs(root, attrs).items()
            if not (root / p).is_file() or (root / p).read_text() != text]


def stale_message(paths: list[str]) -> str:
    return (f"generated queue-attribute plumbing is stale: {', '.join(paths)}: run `{REGENERATE}` "
            f"(or `.venv/bin/python -m tooling.plumbing`) and commit the result")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a generated file is stale")
    args = parser.parse_args(argv)
    try:
        bad = stale()
        if args.check:
            if bad:
                print(stale_message(bad), file=sys.stderr)
                return 1
            return 0
        for path, text in outputs().items():
            if path in bad:
                (REPO_ROOT / path).write_text(text)
                print(f"updated {path}")
    except PlumbingError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
