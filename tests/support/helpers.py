"""Paths and small helpers shared by the tests."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tooling.redrive_scenario import load_dlq_redrive  # noqa: F401 - re-exported for the tests
from tooling.terraform import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples"
MODULES = REPO_ROOT / "modules"
FIXTURES = Path(__file__).parent.parent / "fixtures"
OFFLINE_ACCOUNT = "123456789012"

def offline_provider(region: str | None = "us-east-1", alias: str | None = None) -> str:
    """The provider block of a stack planned offline (dummy credentials, no STS, no metadata
    API), for ``region``; ``region=None`` leaves the Region to the environment, so the plan
    does not show it. ``alias`` names a further provider configuration."""
    lines = [f'  alias                       = "{alias}"'] if alias else []
    lines += [f'  region                      = "{region}"'] if region else []
    lines += ['  access_key                  = "offline-plan"',
              '  secret_key                  = "offline-plan"',
              "  skip_credentials_validation = true",
              "  skip_requesting_account_id  = true",
              "  skip_metadata_api_check     = true"]
    lines += [] if region else ["  skip_region_validation      = true"]
    lines += ["  max_retries                 = 1"]
    return 'provider "aws" {\n' + "\n".join(lines) + "\n}\n"


OFFLINE_PROVIDER = offline_provider()


def example_dirs() -> list[Path]:
    return sorted(p for p in EXAMPLES.iterdir() if p.is_dir() and list(p.glob("*.tf")))


def module_dirs() -> list[Path]:
    return sorted(p for p in MODULES.iterdir() if p.is_dir() and list(p.glob("*.tf")))



def sqs_policy_in_process(*args: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess:
    """`sqs-policy ARGS` through the CLI's own main() in this process, returned as
    `subprocess.run(..., capture_output=True)` returns it: exit code, stdout and stderr as
    bytes (read from files behind sys.stdout and sys.stderr, whose descriptors the CLI
    writes its report to); relative paths are relative to ``cwd``, as for the subprocess.

    For the many tests of what the checker answers (a report, a refusal's one line and
    exit 2): an interpreter per call costs 0.1-0.3 s of the fast tier, most of it importing
    the checker and parsing the same module sources again. What only a process shows
    (`python -m`, the console script, stdin, pipes, terminals, limits, the exit at the end
    of run()) stays tested through real processes in tests/policies/test_cli.py and
    test_surroundings.py."""
    import gc
    import io
    import os
    import sys
    import tempfile

    from resilient_sqs.policy.cli import main

    streams, here = (sys.stdout, sys.stderr), os.getcwd()
    gc_was_on = gc.isenabled()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
        sys.stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True)
        try:
            os.chdir(cwd)
            try:
                rc = main(list(args))
            except SystemExit as stop:  # argparse's usage errors
                rc = stop.code if isinstance(stop.code, int) else 2
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            for wrapper in (sys.stdout, sys.stderr):
                wrapper.detach()  # leave the files to the with block
            sys.stdout, sys.stderr = streams
            os.chdir(here)
            if gc_was_on:  # main() turns the collector off for its one-shot process
                gc.enable()
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(["sqs-policy", *args], rc, out.read(), err.read())


def resources_by_address(plan: dict) -> dict[str, dict]:
    """Every planned resource change keyed by address, with `after` values."""
    return {rc["address"]: rc for rc in plan.get("resource_changes", [])}



def documented_moves() -> str:
    """The `moved` blocks of docs/module.md 'Renaming a `queues` key', as written there (a
    call named `messaging`, the key `orders` renamed `orders_v2`)."""
    text = (REPO_ROOT / "docs" / "module.md").read_text()
    section = text.split("### Renaming a `queues` key", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```terraform\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 1, "docs/module.md 'Renaming a queues key' should hold one ```terraform block"
    return blocks[0]
