"""A root configuration of another stack that sources this checkout by relative path,
written to a temporary directory outside the repository (tests/root_module/)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from tests.support.helpers import OFFLINE_PROVIDER
from tooling.terraform import REPO_ROOT


def consumer_stack(main_tf: str, extra: dict[str, bytes] | None = None) -> Path:
    """A new directory outside the repository holding `main_tf`, whose `{source}`
    placeholder becomes the checkout's path relative to it."""
    work = Path(tempfile.mkdtemp(prefix="consumer-stack-"))
    assert not work.resolve().is_relative_to(REPO_ROOT), f"{work} is inside the repository"
    source = os.path.relpath(REPO_ROOT, work)
    assert source.startswith(".."), source
    (work / "main.tf").write_text(OFFLINE_PROVIDER + main_tf.replace("{source}", source))
    for name, data in (extra or {}).items():
        (work / name).write_bytes(data)
    return work
