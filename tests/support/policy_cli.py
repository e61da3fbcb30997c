"""`sqs-policy` as a user runs it (a real process) and what a refusal must look like:
exit 2, nothing on stdout, one line on stderr (tests/policies/)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tooling.terraform import REPO_ROOT

MALFORMED = REPO_ROOT / "tests" / "policies" / "malformed"


def cli(*args: str, stdin: bytes | None = None, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "resilient_sqs.policy", *args], capture_output=True, cwd=cwd,
                          input=stdin, timeout=120)


def _one_line_error(proc: subprocess.CompletedProcess, *needles: str):
    err = proc.stderr.decode()
    assert proc.returncode == 2, (proc.returncode, err, proc.stdout[:500])
    assert proc.stdout == b""
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    for n in needles:
        assert n in err, f"{n!r} not in {err!r}"
    return err
