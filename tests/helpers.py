"""Paths and small helpers shared by the tests."""
from __future__ import annotations

from pathlib import Path

from tooling.terraform import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples"
MODULES = REPO_ROOT / "modules"
FIXTURES = Path(__file__).parent / "fixtures"
OFFLINE_ACCOUNT = "123456789012"


def example_dirs() -> list[Path]:
    return sorted(p for p in EXAMPLES.iterdir() if p.is_dir() and list(p.glob("*.tf")))


def module_dirs() -> list[Path]:
    return sorted(p for p in MODULES.iterdir() if p.is_dir() and list(p.glob("*.tf")))



def resources_by_address(plan: dict) -> dict[str, dict]:
    """Every planned resource change keyed by address, with `after` values."""
    return {rc["address"]: rc for rc in plan.get("resource_changes", [])}


def load_dlq_redrive():
    """The dlq-redrive function's source as a module (Lambda cannot run here; tests call it in-process)."""
    import importlib.util
    import sys

    name = "dlq_redrive"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, MODULES / "dlq-redrive" / "src" / "dlq_redrive.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod  # dataclasses need the module registered
        spec.loader.exec_module(mod)
    return sys.modules[name]
