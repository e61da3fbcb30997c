"""sqs-policy-hook: the pre-commit hook (.pre-commit-hooks.yaml, id `sqs-policy`).

    sqs-policy-hook PLAN.json [sqs-policy check options]

Runs `sqs-policy check PLAN.json ...` with the repository's configuration file when
there is one: `.sqs-policy.yaml`, `.sqs-policy.yml` or `.sqs-policy.toml` in the current
directory (pre-commit runs hooks at the repository root). Without one the default rules
apply; `--config FILE` in the hook's args names another file. Exit codes as for
`sqs-policy check`: 0 clean, 1 violations, 2 input or usage error (one line on stderr).

Every `sqs-policy check` option works in the hook's args, e.g.
`args: [plan.json, --baseline, .sqs-policy-baseline.json, --changed-only, --report, junit=sqs-policy.xml]`.
"""
from __future__ import annotations

import os
import sys

CONFIG_NAMES = (".sqs-policy.yaml", ".sqs-policy.yml", ".sqs-policy.toml")
MAKE_PLAN = "terraform plan -out=tfplan && terraform show -json tfplan > plan.json"


def _error(message: str) -> int:
    from .terminal import line

    sys.stderr.write(line(f"sqs-policy-hook: error: {' '.join(message.split())}") + "\n")
    return 2


def _plan_argument(argv: list[str]) -> str | None:
    """The positional PLAN among ``check``'s options (those that take a value skip it)."""
    takes_value = {"--format", "--config", "--fail-on", "--output", "-o", "--source-dir", "--report", "--baseline",
                   "--max-input-mib", "--source-root"}
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a in takes_value:
            skip = True
        elif a == "-" or not a.startswith("-"):
            return a
    return None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["-h"], ["--help"]):
        sys.stdout.write(__doc__.split("\n", 1)[1].lstrip("\n"))
        return 0
    plan = _plan_argument(argv)
    if plan is None:
        return _error("name the plan JSON to check in the hook's args, e.g. `args: [plan.json]` "
                      f"(make it with `{MAKE_PLAN}`)")
    if plan != "-" and not os.path.exists(plan):
        return _error(f"{plan} does not exist: make it before this hook runs (`{MAKE_PLAN}`), "
                      "e.g. in a local hook listed before this one")
    if not any(a == "--config" or a.startswith("--config=") for a in argv):
        found = [name for name in CONFIG_NAMES if os.path.isfile(name)]
        if len(found) > 1:
            return _error(f"found {' and '.join(found)}: keep one, or name it with --config in the hook's args")
        if found:
            argv += ["--config", found[0]]
    from .cli import main as check

    return check(["check", *argv])


def run() -> None:
    """Console-script entry."""
    rc = main()
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(rc)


if __name__ == "__main__":
    run()
