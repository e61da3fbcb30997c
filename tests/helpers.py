"""Paths and small helpers shared by the tests."""
from __future__ import annotations

from pathlib import Path

from tooling.redrive_scenario import load_dlq_redrive  # noqa: F401 - re-exported for the tests
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

