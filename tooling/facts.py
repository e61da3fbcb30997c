"""Generate the copies of resilient_sqs/facts.py that cannot import it.

The facts (the 6 x visibility rule, the maxReceiveCount bounds and recommendation, the
max_redrive_count and maximum_concurrency bounds) are stated once, in
``resilient_sqs/facts.py``. The Terraform modules and the checkov checks (loaded by path,
in checkov's own venv) cannot import it, so this writes their side:

    modules/queue/facts.tf            locals the queue module's expressions and refusals use
    modules/lambda-consumer/facts.tf  locals of the consumer module
    modules/dlq-redrive/facts.tf      locals of the redrive module
    policies/checkov/_facts.py        constants the checkov checks import

``tests/resilient_sqs/test_facts.py`` fails when a generated file differs from what this would write, and
proves the declared copies (the redrive function's constants, HCL literals) agree.

Usage::

    .venv/bin/python -m tooling.facts           # rewrite the generated files (make facts)
    .venv/bin/python -m tooling.facts --check   # write nothing; exit 1 if one is stale
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import ModuleType

from resilient_sqs import facts as FACTS

REPO_ROOT = Path(__file__).resolve().parent.parent
REGENERATE = "make facts"
HCL_HEADER = (f"# Generated from resilient_sqs/facts.py by `{REGENERATE}` (python -m tooling.facts). Do not edit:\n"
              "# change the fact there and regenerate (tests/resilient_sqs/test_facts.py fails while this is stale).\n")
PY_HEADER = (f'"""Generated from resilient_sqs/facts.py by `{REGENERATE}` (python -m tooling.facts). Do not edit.\n\n'
             "The checkov checks are loaded by path in checkov's own venv and cannot import the package;\n"
             'tests/resilient_sqs/test_facts.py fails while this is stale."""\n')

# generated file -> {local / constant name: the fact's name in resilient_sqs/facts.py}
HCL_LOCALS: dict[str, dict[str, str]] = {
    "modules/queue/facts.tf": {
        "visibility_timeout_multiplier": "VISIBILITY_TIMEOUT_MULTIPLIER",
        "max_receive_count_min": "MAX_RECEIVE_COUNT_MIN",
        "max_receive_count_max": "MAX_RECEIVE_COUNT_MAX",
        "max_receive_count_recommended_min": "MAX_RECEIVE_COUNT_RECOMMENDED_MIN",
        "max_receive_count_recommended_max": "MAX_RECEIVE_COUNT_RECOMMENDED_MAX",
    },
    "modules/lambda-consumer/facts.tf": {
        "visibility_timeout_multiplier": "VISIBILITY_TIMEOUT_MULTIPLIER",
        "maximum_concurrency_min": "MAXIMUM_CONCURRENCY_MIN",
        "maximum_concurrency_max": "MAXIMUM_CONCURRENCY_MAX",
    },
    "modules/dlq-redrive/facts.tf": {
        "max_redrive_count_min": "MAX_REDRIVE_COUNT_MIN",
        "max_redrive_count_max": "MAX_REDRIVE_COUNT_MAX",
    },
}
PY_CONSTANTS: dict[str, tuple[str, ...]] = {
    "policies/checkov/_facts.py": (
        "MAX_RECEIVE_COUNT_RECOMMENDED_MIN",
        "MAX_RECEIVE_COUNT_RECOMMENDED_MAX",
        "MAXIMUM_CONCURRENCY_MIN",
        "IDEMPOTENCY_TABLE_PATTERN",
        "IDEMPOTENCY_EXPIRY_ATTRIBUTE",
    ),
}


def _hcl_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    raise TypeError(f"fact of type {type(v).__name__} has no HCL rendering: {v!r}")


def render_hcl(names: dict[str, str], facts: ModuleType = FACTS) -> str:
    """A ``locals`` block laid out as ``terraform fmt`` writes it (aligned ``=``)."""
    width = max(len(n) for n in names)
    body = "".join(f"  {n.ljust(width)} = {_hcl_value(getattr(facts, f))}\n" for n, f in names.items())
    return HCL_HEADER + "\nlocals {\n" + body + "}\n"


def render_py(names: tuple[str, ...], facts: ModuleType = FACTS) -> str:
    return PY_HEADER + "\n" + "".join(f"{n} = {getattr(facts, n)!r}\n" for n in names)


def outputs(facts: ModuleType = FACTS) -> dict[str, str]:
    """Every generated file (repo-relative path) with the text it must have."""
    out = {path: render_hcl(names, facts) for path, names in HCL_LOCALS.items()}
    out.update({path: render_py(names, facts) for path, names in PY_CONSTANTS.items()})
    return out


def stale(root: Path = REPO_ROOT, facts: ModuleType = FACTS) -> list[str]:
    """The generated files that are missing or differ from what :func:`outputs` renders."""
    return [p for p, text in outputs(facts).items()
            if not (root / p).is_file() or (root / p).read_text() != text]


def stale_message(paths: list[str]) -> str:
    return (f"generated fact files are stale: {', '.join(paths)}: run `{REGENERATE}` "
            "(or `.venv/bin/python -m tooling.facts`) and commit the result")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a generated file is stale")
    args = parser.parse_args(argv)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
