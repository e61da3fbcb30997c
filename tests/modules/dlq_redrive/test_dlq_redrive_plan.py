"""modules/dlq-redrive: the planned function configuration is what the handler reads,
and its role allows exactly the API calls the handler makes."""
from __future__ import annotations

import ast
import json
import zipfile

import pytest

from tests.support.helpers import FIXTURES, MODULES, load_dlq_redrive
from tooling import lambda_package

pytestmark = pytest.mark.plan

SRC = MODULES / "dlq-redrive" / "src" / "dlq_redrive.py"

# boto3 client method -> the IAM action it needs
IAM_ACTION = {
    ("sqs", "receive_message"): "sqs:ReceiveMessage",
    ("sqs", "delete_message_batch"): "sqs:DeleteMessage",
    ("sqs", "delete_message"): "sqs:DeleteMessage",
    ("sqs", "send_message_batch"): "sqs:SendMessage",
    ("sqs", "send_message"): "sqs:SendMessage",
    ("sqs", "change_message_visibility"): "sqs:ChangeMessageVisibility",
    ("sqs", "get_queue_attributes"): "sqs:GetQueueAttributes",
    ("s3", "put_object"): "s3:PutObject",
    # a claim-check payload's existence; ListBucket makes a missing one answer 404, not 403
    ("s3", "head_object"): ("s3:GetObject", "s3:ListBucket"),
}


def _actions(call: tuple[str, str]) -> set[str]:
    action = IAM_ACTION[call]
    return set(action) if isinstance(action, tuple) else {action}


def handler_api_calls() -> set[tuple[str, str]]:
    """(client, method) for every `self.sqs.x(...)` / `self.s3.x(...)` call in the handler."""
    calls = set()
    for node in ast.walk(ast.parse(SRC.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func.value
            # self.sqs.x(...) or, with a client from the budgeted pool, sqs.x(...)
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
            if name in ("sqs", "s3") and not node.func.attr.startswith("_") and node.func.attr != "client":
                calls.add((name, node.func.attr))
    return calls


@pytest.fixture(scope="module")
def planned(offline_planner):
    return offline_planner.plan(FIXTURES / "dlq-redrive", {})


def test_planned_environment_is_accepted_by_the_handler(planned):
    env = planned["planned_values"]["outputs"]["environment"]["value"]
    cfg = load_dlq_redrive().Config.from_env(env)
    assert cfg.dlq_url.endswith("/orders-dlq") and cfg.source_queue_url.endswith("/orders")
    assert cfg.rate_per_second == 25
    assert cfg.permanent_failure_reasons == frozenset({"VALIDATION_ERROR"})
    assert (cfg.archive_mode, cfg.archive_bucket, cfg.archive_prefix) == ("s3", "orders-payloads", "dlq-archive/")
    assert cfg.receive_visibility_timeout == 180  # default timeout 120 + 60


def test_role_allows_exactly_what_the_handler_calls(planned):
    policy = json.loads(planned["planned_values"]["outputs"]["policy_json"]["value"])
    allowed = set()
    for st in policy["Statement"]:
        assert st["Effect"] == "Allow"
        actions = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
        resources = st["Resource"] if isinstance(st["Resource"], list) else [st["Resource"]]
        assert "*" not in resources and not any(a.endswith("*") for a in actions), st
        allowed |= set(actions)
    calls = handler_api_calls()
    assert calls, "found no AWS calls in the handler: the scan is broken"
    unknown = [c for c in calls if c not in IAM_ACTION]
    assert not unknown, f"map these calls to IAM actions in IAM_ACTION: {unknown}"
    assert set().union(*map(_actions, calls)) == allowed


def test_logs_policy_is_known_at_plan_and_names_the_function_log_group(planned):
    """Writing its own log group only; built from the DLQ's region and account so a
    plan checker can decide it before apply."""
    logs = next(r for r in planned["resource_changes"] if r["address"] == "module.redrive.aws_iam_role_policy.logs")
    assert "policy" not in logs["change"]["after_unknown"], "the logs policy is only known after apply"
    (statement,) = json.loads(logs["change"]["after"]["policy"])["Statement"]
    assert sorted(statement["Action"]) == ["logs:CreateLogStream", "logs:PutLogEvents"]
    assert statement["Resource"] == "arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/orders-dlq-redrive:*"
    group = next(r for r in planned["resource_changes"] if r["address"] == "module.redrive.aws_cloudwatch_log_group.this")
    assert statement["Resource"].split(":log-group:")[1] == group["change"]["after"]["name"] + ":*"


def test_handler_refuses_a_broken_environment():
    mod = load_dlq_redrive()
    base = {"DLQ_URL": "https://q/dlq", "SOURCE_QUEUE_URL": "https://q/src", "ARCHIVE_BUCKET": "b"}
    with pytest.raises(mod.ConfigError, match="DLQ_URL is not set"):
        mod.Config.from_env({**base, "DLQ_URL": ""})
    with pytest.raises(mod.ConfigError, match="RATE_PER_SECOND='fast' is not a float"):
        mod.Config.from_env({**base, "RATE_PER_SECOND": "fast"})
    with pytest.raises(mod.ConfigError, match="ARCHIVE_MODE=queue needs POISON_QUEUE_URL"):
        mod.Config.from_env({**base, "ARCHIVE_MODE": "queue"})
    with pytest.raises(mod.ConfigError, match="ARCHIVE_MODE=s3 needs ARCHIVE_BUCKET"):
        mod.Config.from_env({**base, "ARCHIVE_BUCKET": ""})
    with pytest.raises(mod.ConfigError, match="MAX_REDRIVE_COUNT=0 is outside"):
        mod.Config.from_env({**base, "MAX_REDRIVE_COUNT": "0"})


def test_committed_package_matches_source():
    pkgs = lambda_package.packages()
    assert pkgs, "no modules/*/src found"
    for src, zip_path in pkgs:
        assert zip_path.exists(), f"{zip_path} missing: run `python -m tooling.lambda_package`"
        assert zip_path.read_bytes() == lambda_package.package_bytes(src), (
            f"{zip_path} does not match {src}: run `python -m tooling.lambda_package` and commit the result"
        )
        with zipfile.ZipFile(zip_path) as zf:
            for info in zf.infolist():
                assert info.filename and info.date_time == lambda_package.FIXED_DATE
                assert zf.read(info) == (src / info.filename).read_bytes()


def test_package_build_is_deterministic_and_sees_changes(tmp_path):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "b.py").write_text("B = 1\n")
    (src / "pkg" / "a.py").write_text("A = 1\n")
    (src / "pkg" / "__pycache__").mkdir()
    (src / "pkg" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"junk")
    first = lambda_package.package_bytes(src)
    (src / "b.py").touch()  # a new mtime changes nothing
    assert lambda_package.package_bytes(src) == first
    with zipfile.ZipFile(__import__("io").BytesIO(first)) as zf:
        assert zf.namelist() == ["b.py", "pkg/a.py"]
    (src / "b.py").write_text("B = 2\n")
    assert lambda_package.package_bytes(src) != first
