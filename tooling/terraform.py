"""This repository's Terraform helpers: the shipped adapter over python-terraform
(``resilient_sqs/testing/terraform.py``: ``Terraform``, ``TerraformError``, the provider-mirror
CLI config) with the repository's cache directory, plus what only this repository's examples
need (copies at the same depth below the repository, the offline provider override).
"""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from typing import Mapping

from resilient_sqs.testing import terraform as _shipped
from resilient_sqs.testing.terraform import (  # noqa: F401 - re-exported
    MIRROR_DIR,
    TerraformError,
    extract_errors,
    mirrored_providers,
    terraform_bin,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
CACHE_DIR = REPO_ROOT / ".cache"  # the mirror CLI config: <repo>/.cache/terraform.rc (CONTRIBUTING)


class Terraform(_shipped.Terraform):
    """The shipped adapter, writing its mirror CLI config to the repository's ``.cache``."""

    cache_dir = CACHE_DIR


def cli_config_file(mirror: Path | None = None, cache_dir: Path | None = None) -> Path | None:
    return _shipped.cli_config_file(mirror, cache_dir if cache_dir is not None else CACHE_DIR)


def terraform_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    return _shipped.terraform_env(extra, cache_dir=CACHE_DIR)


def offline_provider_override() -> str:
    """An override file that lets a root configuration plan with no AWS access at all.

    Used by plan-only tests: dummy credentials and no STS/IMDS calls; the configuration
    itself gives the module its account ID (``account_id``), so no data source needs STS.
    """
    return (
        'provider "aws" {\n'
        '  region                      = "us-east-1"\n'
        '  access_key                  = "offline-plan"\n'
        '  secret_key                  = "offline-plan"\n'
        "  skip_credentials_validation = true\n"
        "  skip_requesting_account_id  = true\n"
        "  skip_metadata_api_check     = true\n"
        "  skip_region_validation      = true\n"
        "}\n"
    )


# Fixture configurations whose provider configuration is kept once per kind and added by the
# planning tooling (tests/policies/README.md): a directory directly under one of these roots
# plans with ``<root>/_provider/providers.tf`` as if that file lay in it as ``providers.tf``.
# Offline configurations (tests/policies/configs/*) and LocalStack update scenarios
# (tests/policies/updates/*, which also declares ``var.name_prefix`` there).
FIXTURE_ROOTS = (REPO_ROOT / "tests" / "policies" / "configs", REPO_ROOT / "tests" / "policies" / "updates")
SUPPLIED_PROVIDER = "providers.tf"


class FixtureProviderError(Exception):
    """A fixture configuration carries its own copy of the provider file the tooling supplies."""


def supplied_provider(directory: Path) -> Path | None:
    """The shared provider file the planning tooling adds to the fixture configuration
    ``directory`` as ``providers.tf`` (None for any other directory: examples, modules,
    ``_``-prefixed helper directories of a fixture root). Raises :class:`FixtureProviderError`
    when ``directory`` has a ``providers.tf`` of its own: it would clash with the supplied one."""
    directory = Path(directory).resolve()
    root = directory.parent
    if root not in FIXTURE_ROOTS or directory.name.startswith("_"):
        return None
    shared = root / "_provider" / SUPPLIED_PROVIDER
    own = directory / SUPPLIED_PROVIDER
    if own.exists() or own.is_symlink():
        raise FixtureProviderError(
            f"{own.relative_to(REPO_ROOT)}: fixture configurations under {root.relative_to(REPO_ROOT)}/ get their "
            f"provider configuration from {shared.relative_to(REPO_ROOT)}, which the planning tooling adds as "
            f"{SUPPLIED_PROVIDER}; remove this file, and put what only this fixture needs (provider aliases, "
            f"variables) in a file of another name, e.g. provider_aliases.tf")
    return shared


def offline_copy(source_dir: Path) -> Path:
    """Copy a root configuration's *.tf files beside the original (same depth, so
    relative module sources still resolve) and add the offline provider override.

    The copy lives in ``<repo>/.plans/<name>-<pid>-<n>`` and is the caller's to remove.
    """
    work = copy_config(source_dir)
    (work / "offline_override.tf").write_text(offline_provider_override())
    return work


def copy_config(source_dir: Path) -> Path:
    """Copy a root configuration as it is (no override) to ``<repo>/.plans/<name>-<n>``,
    at the same depth below the repo root so relative module sources still resolve.

    Used to apply an example without touching the example directory (its
    ``.terraform`` and state stay in the copy). A fixture configuration gets its kind's
    provider file (:func:`supplied_provider`). The copy is the caller's to remove.
    """
    source_dir = Path(source_dir).resolve()
    provider = supplied_provider(source_dir)
    rel = source_dir.relative_to(REPO_ROOT)
    depth = len(rel.parts)
    # keep the same depth below the repo root so "../../" still reaches it
    base = REPO_ROOT / ".plans"
    for _ in range(depth - 2):
        base = base / "_"
    base.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"{source_dir.name}-", dir=base))
    for f in source_dir.iterdir():
        if f.is_file() and not f.name.startswith(".terraform") and ".tfstate" not in f.name and f.suffix != ".tfplan":
            shutil.copy2(f, work / f.name)  # every file: a configuration reads templates, JSON, ... by path
        elif f.is_dir() and f.name not in {".terraform", "tests"}:
            shutil.copytree(f, work / f.name, ignore=shutil.ignore_patterns(".terraform*", "*.tfstate*"))
    if provider is not None:
        shutil.copy2(provider, work / SUPPLIED_PROVIDER)
    return work


def outcomes_of_terraform_test(stdout: str, by: str = "file", diagnostics: bool = False) -> dict[str, dict]:
    """What ``terraform test -json`` printed, per test file (``by="file"``: the file's stem) or per
    run block (``by="run"``): ``{name: {"status": ..., "errors": ["summary: detail", ...]}}``, with
    each error diagnostic itself under ``"diagnostics"`` when asked. ``status`` is absent for a run
    that never completed."""
    out: dict[str, dict] = {}

    def entry(name: str) -> dict:
        return out.setdefault(name, {"errors": [], **({"diagnostics": []} if diagnostics else {})})

    for line in stdout.splitlines():
        if not line.startswith("{"):
            continue
        event = json.loads(line)
        kind = event.get("type")
        if by == "file":
            name = Path(event["@testfile"]).name.removesuffix(".tftest.hcl") if event.get("@testfile") else None
        else:
            name = event["test_run"]["run"] if kind == "test_run" else event.get("@testrun")
        if not name:
            continue
        if kind == "test_run" and event["test_run"].get("progress") == "complete":
            entry(name)["status"] = event["test_run"]["status"]
        elif kind == "diagnostic" and event.get("@level") == "error":
            d = event["diagnostic"]
            got = entry(name)
            got["errors"].append(" ".join(f"{d.get('summary', '')}: {d.get('detail', '')}".split()))
            if diagnostics:
                got["diagnostics"].append(d)
    return out
