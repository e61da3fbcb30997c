"""The capability table in docs/behave.md is what the emulators show when probed (issue 35 §5)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from resilient_sqs.testing.probes import PROBES
from tests.support.helpers import REPO_ROOT

RECORDS = REPO_ROOT / "docs" / "capabilities"


def _recorded(kind: str) -> dict[str, bool | None]:
    doc = json.loads((RECORDS / f"{kind}.json").read_text())
    return {f["name"]: f["shown"] for f in doc["findings"]}


def test_every_probe_is_recorded_for_every_emulator():
    for kind in ("localstack", "ministack"):
        assert set(_recorded(kind)) == set(PROBES), f"docs/capabilities/{kind}.json: run python -m tooling.probe_emulators"


@pytest.mark.localstack
def test_an_endpoint_that_is_not_an_sqs_api_is_refused_with_the_reason(tmp_path):
    stack = tmp_path / "s"
    stack.mkdir()
    (stack / "main.tf").write_text('resource "aws_sqs_queue" "q" {\n  name = "q"\n}\n')
    # a web server that is not an emulator
    server = subprocess.Popen([sys.executable, "-m", "http.server", "0", "--bind", "127.0.0.1"], cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = server.stdout.readline()
        port = int(line.split("port ")[1].split()[0])
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "LOCALSTACK_"))}
        proc = subprocess.run([sys.executable, "-m", "resilient_sqs.testing.cli", str(stack), "--endpoint",
                               f"http://127.0.0.1:{port}"], capture_output=True, text=True, env=env, timeout=120)
    finally:
        server.terminate()
        server.wait()
    assert proc.returncode == 2, proc.stderr
    assert f"http://127.0.0.1:{port} does not answer the SQS API" in proc.stderr and "Traceback" not in proc.stderr
