"""`make demo` end to end (tooling.demo on examples/complete), on the run's LocalStack.

The demo is the README's first command: it plans, policy-checks, applies and exercises
the main example, then destroys it. It runs here as a user runs it (a process, the
module's real plan and outputs), against the shared LocalStack instead of starting its
own (LOCALSTACK_ENDPOINT, which the demo honours), so the suite notices when a change
to the module or its outputs breaks it.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support.helpers import REPO_ROOT

pytestmark = [pytest.mark.localstack, pytest.mark.xdist_group("localstack-demo")]


def test_demo_runs_end_to_end_and_leaves_nothing(localstack):
    env = {**os.environ, "LOCALSTACK_ENDPOINT": localstack.endpoint}
    env.pop("AWS_ENDPOINT_URL", None)
    proc = subprocess.run([sys.executable, "-m", "tooling.demo"], cwd=REPO_ROOT, env=env, text=True,
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=1200)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert "Traceback" not in out and "Warning" not in out, out[-4000:]
    for promise in ("0 error(s), 0 warning(s), 0 unknown", "where it waits for a fix and a redrive", "payload sha256 sent = received", "Charges: 1",
                    ": ALARM after", "left behind: 0 queues, 0 buckets, 0 tables, 0 alarms"):
        assert promise in out, f"the demo did not show {promise!r}:\n{out[-4000:]}"
