"""The checkout as pip sees it, and commands run from a virtual environment without
this process's PYTHONPATH (packaging, plugin and behave tests)."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tooling.terraform import REPO_ROOT


def _source_copy(dest: Path) -> Path:
    """The checkout as pip sees it, without venvs, caches and Terraform state."""
    ignore = shutil.ignore_patterns(".git", ".venv*", ".cache", ".plans", ".localstack", ".terraform", "__pycache__",
                                    "*.egg-info", "build", ".pytest_cache", "*.tfstate*")
    shutil.copytree(REPO_ROOT, dest, ignore=ignore, symlinks=True)
    return dest


def _run(venv: Path, *args: str, cwd: Path, **kw) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(venv / "bin" / args[0]), *args[1:]], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120, **kw)
