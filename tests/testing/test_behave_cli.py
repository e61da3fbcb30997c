"""sqs-behave and the pytest plugin without an endpoint: usage errors, the stack copy, the provider
override (no Terraform, no LocalStack: the fast tier)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from resilient_sqs.testing.stack import StackError, copy_stack, provider_aliases, provider_override

NO_ENDPOINT = {k: v for k, v in os.environ.items() if k not in ("LOCALSTACK_ENDPOINT", "AWS_ENDPOINT_URL")}


def _behave(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "resilient_sqs.testing.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=NO_ENDPOINT, timeout=120)


@pytest.fixture()
def stack(tmp_path):
    d = tmp_path / "infra"
    d.mkdir()
    (d / "main.tf").write_text('resource "aws_sqs_queue" "q" {\n  name = "q"\n}\n')
    return d


def test_no_endpoint_is_a_usage_error_naming_both_ways(stack, tmp_path):
    proc = _behave(str(stack), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "no endpoint" in proc.stderr and "--endpoint URL" in proc.stderr and "--embedded" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_endpoint_that_does_not_answer_is_exit_2(stack, tmp_path):
    proc = _behave(str(stack), "--endpoint", "http://127.0.0.1:9", cwd=tmp_path)
    assert proc.returncode == 2
    assert "http://127.0.0.1:9 does not answer the SQS API" in proc.stderr and "Traceback" not in proc.stderr


def test_localstack_endpoint_variable_that_does_not_answer_is_exit_2(stack, tmp_path):
    env = {**NO_ENDPOINT, "LOCALSTACK_ENDPOINT": "http://127.0.0.1:9"}
    proc = subprocess.run([sys.executable, "-m", "resilient_sqs.testing.cli", str(stack)], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 2 and "LOCALSTACK_ENDPOINT=http://127.0.0.1:9 does not answer" in proc.stderr


@pytest.mark.parametrize("args,message", [
    (["--var", "no-equals-sign"], "--var 'no-equals-sign': expected NAME=VALUE"),
    (["--var-file", "missing.tfvars"], "--sqs-var-file missing.tfvars: no such file"),
])
def test_bad_variables_are_exit_2(stack, tmp_path, args, message):
    proc = _behave(str(stack), "--endpoint", "http://127.0.0.1:9", *args, cwd=tmp_path)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_missing_stack_dir_is_exit_2(tmp_path):
    proc = _behave(str(tmp_path / "nope"), "--embedded", cwd=tmp_path)
    assert proc.returncode == 2 and "no such directory" in proc.stderr


def test_pytest_without_endpoint_is_a_pytest_usage_error(stack, tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--sqs-stack", str(stack), str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, env=NO_ENDPOINT, timeout=120)
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, proc.stdout + proc.stderr
    assert "--sqs-localstack=embedded" in proc.stderr and "--sqs-localstack=URL" in proc.stderr


def test_plugin_is_silent_without_sqs_stack(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_x.py").write_text("def test_x():\n    assert True\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, env=NO_ENDPOINT, timeout=120)
    assert proc.returncode == 0 and "1 passed" in proc.stdout
    helped = subprocess.run([sys.executable, "-m", "pytest", "--help"], capture_output=True, text=True, cwd=tmp_path,
                            env=NO_ENDPOINT, timeout=120)
    assert "--sqs-stack=DIR" in helped.stdout and "--sqs-localstack=URL|embedded|aws" in helped.stdout


def test_copy_keeps_relative_module_sources_working_and_never_writes_the_stack(tmp_path):
    shared = tmp_path / "repo" / "modules" / "queue"
    shared.mkdir(parents=True)
    stack = tmp_path / "repo" / "envs" / "dev"
    (stack / "modules" / "local").mkdir(parents=True)
    main = ('module "shared" {\n  source = "../../modules/queue"\n}\n'
            'module "local" {\n  source = "./modules/local"\n}\n'
            'module "registry" {\n  source  = "terraform-aws-modules/sqs/aws"\n  version = "4.3.1"\n}\n')
    (stack / "main.tf").write_text(main)
    (stack / "modules" / "local" / "main.tf").write_text('module "up" {\n  source = "../../../../modules/queue"\n}\n')
    (stack / "x.tf.json").write_text('{"module": {"j": {"source": "../../modules/queue"}}}')
    before = {p: p.read_bytes() for p in stack.rglob("*") if p.is_file()}

    work = copy_stack(stack, tmp_path / "work" / "deeper" / "still")
    text = (work / "main.tf").read_text()
    import json
    import re

    sources = dict(re.findall(r'module "(\w+)" \{\n  source\s*=\s*"([^"]+)"', text))
    assert (work / sources["shared"]).resolve() == shared.resolve()
    assert sources["local"] == "./modules/local" and (work / "modules" / "local").is_dir()
    assert sources["registry"] == "terraform-aws-modules/sqs/aws"
    up = re.search(r'source = "([^"]+)"', (work / "modules" / "local" / "main.tf").read_text()).group(1)
    assert (work / "modules" / "local" / up).resolve() == shared.resolve()
    j = json.loads((work / "x.tf.json").read_text())["module"]["j"]["source"]
    assert (work / j).resolve() == shared.resolve()
    assert {p: p.read_bytes() for p in stack.rglob("*") if p.is_file()} == before


def test_copy_refuses_a_directory_without_terraform(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(StackError, match="no \\*.tf files"):
        copy_stack(tmp_path / "empty", tmp_path / "work")


def test_override_points_every_provider_configuration_at_the_endpoint(tmp_path):
    (tmp_path / "p.tf").write_text('provider "aws" {\n  region = "eu-west-1"\n}\n'
                                   'provider "aws" {\n  alias  = "replica"\n  region = "eu-central-1"\n}\n')
    has_default, aliases = provider_aliases(tmp_path)
    assert has_default and aliases == ["replica"]
    files = provider_override("http://127.0.0.1:4566", has_default, aliases, "us-east-1")
    text = files["sqs_behave_override.tf"]
    assert list(files) == ["sqs_behave_override.tf"]
    assert text.count('provider "aws" {') == 2 and 'alias                       = "replica"' in text
    assert text.count("s3_use_path_style           = true") == 2
    for svc in ("sqs", "sns", "s3", "dynamodb", "cloudwatch", "lambda", "iam", "sts", "kms"):
        assert f'    {svc:<26} = "http://127.0.0.1:4566"' in text
    # no provider block of its own: one is added (an override needs something to override)
    (tmp_path / "p.tf").unlink()
    assert list(provider_override("http://x:1", *provider_aliases(tmp_path), "us-east-1")) == ["sqs_behave_provider.tf"]


def test_pytest_xdist_is_refused_with_sqs_stack(stack, tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "--sqs-stack", str(stack),
                           "--sqs-localstack=http://127.0.0.1:9", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, env=NO_ENDPOINT, timeout=120)
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR
    assert "run it without pytest-xdist's -n" in proc.stderr


def test_result_table_is_aligned_and_no_line_ends_in_spaces(capsys):
    from resilient_sqs.testing import cli

    rows = [
        {"scenario": "poison-to-dlq", "subject": "orders", "outcome": "passed", "message": ""},
        {"scenario": "fifo-order", "subject": "orders", "outcome": "skipped", "message": "not FIFO"},
        {"scenario": "poison-to-dlq", "subject": "a-much-longer-queue-name", "outcome": "failed", "message": "lost 1"},
        {"scenario": "idempotency-table", "subject": "idempotency", "outcome": "passed", "message": ""},
    ]
    cli._table(rows)
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert [ln for ln in lines if ln != ln.rstrip()] == [], out
    header, *body = lines[:4]
    # scenario columns in catalogue order; every cell starts where its header does
    assert header.split() == ["queue", "/", "table", "poison-to-dlq", "fifo-order", "idempotency-table"]
    starts = [header.index(name) for name in ("poison-to-dlq", "fifo-order", "idempotency-table")]
    by_subject = {ln.split()[0]: ln for ln in body}
    assert sorted(by_subject) == ["a-much-longer-queue-name", "idempotency", "orders"]
    assert [by_subject["orders"][i:].split()[0] for i in starts] == ["passed", "skipped", "-"]
    assert [by_subject["a-much-longer-queue-name"][i:].split()[0] for i in starts] == ["FAILED", "-", "-"]
    assert [by_subject["idempotency"][i:].split()[0] for i in starts] == ["-", "-", "passed"]
    # the last column is the one trailing spaces came from: a short cell there now ends the line
    assert by_subject["orders"].endswith("-") and by_subject["idempotency"].endswith("passed")
    assert "FAILED:\n  poison-to-dlq[a-much-longer-queue-name]: lost 1" in out
