"""Fixtures for the policy tests: the committed plans of tests/policies/configs/*,
the examples and the module fixtures (tests/policies/plans/, no Terraform needed)."""
from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.policies import plans
from resilient_sqs.testing.processes import flock
from tests.support.helpers import REPO_ROOT


@pytest.fixture(scope="session")
def plan_files():
    """{subject: path of its committed plan JSON}."""
    return plans.ensure_all()


@pytest.fixture(scope="session")
def plan_doc(plan_files):
    import json

    cache: dict[str, dict] = {}

    def get(name: str) -> dict:
        if name not in cache:
            cache[name] = json.loads(plan_files[name].read_text())
        return cache[name]

    return get


@pytest.fixture(scope="session")
def fresh_plan_files():
    """{subject: path of a fresh plan JSON} (Terraform; planned once per content, in parallel)."""
    return plans.ensure_fresh()


MERMAID = REPO_ROOT / "tooling" / "mermaid_check"


@pytest.fixture(scope="session")
def mermaid_parser():
    """node + the pinned mermaid parser (npm ci once into .cache, keyed by the lock file)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip("node and npm are needed to run mermaid's parser")
    lock = (MERMAID / "package-lock.json").read_bytes()
    work = REPO_ROOT / ".cache" / f"mermaid-check-{hashlib.sha256(lock).hexdigest()[:12]}"
    done = work / ".installed"  # written last: a folder without it is a half-done install
    # xdist workers share .cache: one installs while the others wait for it
    work.parent.mkdir(parents=True, exist_ok=True)
    with flock(work.parent / f"{work.name}.lock"):
        if not done.is_file():
            tmp = Path(tempfile.mkdtemp(prefix=f"{work.name}.", dir=work.parent))
            try:
                for f in ("package.json", "package-lock.json", "parse.mjs"):
                    shutil.copy(MERMAID / f, tmp / f)
                proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=tmp,
                                      capture_output=True, text=True, timeout=600)
                assert proc.returncode == 0, proc.stderr[-2000:]
                (tmp / ".installed").write_text("npm ci\n")
                shutil.rmtree(work, ignore_errors=True)
                tmp.rename(work)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        if (work / "parse.mjs").read_bytes() != (MERMAID / "parse.mjs").read_bytes():
            shutil.copy(MERMAID / "parse.mjs", work / "parse.mjs")

    def parse(md: str) -> str:
        proc = subprocess.run([node, str(work / "parse.mjs")], input=md, capture_output=True, text=True, timeout=120)
        return proc.stdout + proc.stderr

    return parse
