"""What a new user reads first: --help with exit codes and formats, and a typo in the config."""
from __future__ import annotations

import pytest

from tests.support.policy_cli import _one_line_error, cli


@pytest.mark.parametrize("args", [["--help"], ["check", "--help"], ["baseline", "--help"]])
def test_help_states_exit_codes(args):
    proc = cli(*args)
    out = " ".join(proc.stdout.decode().split())
    assert proc.returncode == 0
    assert "exit codes: 0" in out and "2 input or usage error" in out
    if args[0] == "check":
        assert "1 violations" in out
        for fmt in ("text", "json", "sarif", "junit", "github", "gitlab", "markdown", "hcp-run-task", "atlantis", "spacelift"):
            assert f"{fmt}: " in out, fmt  # each format says what it is for
        assert "--report FORMAT=PATH" in out and "--baseline FILE" in out and "--changed-only" in out


@pytest.mark.parametrize("content,needle", [
    ("rules:\n  visibilty-timeout-covers-consumer: {severity: warning}\n",
     "unknown rule 'visibilty-timeout-covers-consumer' (did you mean 'visibility-timeout-covers-consumer'?)"),
    ("ignore: [dlq-retention-longr]\n", "'dlq-retention-longr' matches no rule (did you mean 'dlq-retention-longer'?)"),
    ("waivers:\n  - {address: x, reason: y, rules: [SQS0002]}\n", "unknown rule 'SQS0002' (did you mean 'SQS002'?)"),
    ("rules:\n  no-such-thing: {enabled: false}\n", "unknown rule 'no-such-thing'; `list-rules`"),
])
def test_config_typo_gets_did_you_mean(tmp_path, content, needle):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(content)
    _one_line_error(cli("check", "tests/policies/plans/queue-bad.json", "--config", str(cfg)), needle)
