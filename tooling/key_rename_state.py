"""The Terraform state of a stack with every per-queue resource of the module, for the
key-rename tests (tests/root_module/test_key_rename.py).

Applies STACK on an embedded LocalStack: two queue pairs, managed IAM policies, all six
alarm kinds, an event source mapping to a function created through the API, and the DLQ
redrive of both pairs. LocalStack cannot run a Lambda function: the module's redrive
functions are created but end in state Failed, so the first apply fails on them and
Terraform marks them tainted. They exist (LocalStack lists and describes them), so they
are untainted and a second apply creates what waits for them (schedule target,
permission, error alarm). The state it leaves (``terraform state pull``) is saved as
tests/fixtures/key-rename/terraform.tfstate; the stack is then destroyed. Dev tooling:
the test suite only reads the saved state, planning against it offline.

    .venv/bin/python -m tooling.key_rename_state
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from tooling.localstack import REGION, start
from tooling.terraform import REPO_ROOT, Terraform, TerraformError

OUT = REPO_ROOT / "tests" / "fixtures" / "key-rename" / "terraform.tfstate"
PREFIX = "kr"
ACCOUNT = "000000000000"  # LocalStack's

# the stack as a consumer writes it ({source}: the module); var.key is the key renamed
STACK = '''
variable "key" {
  type    = string
  default = "orders"
}

module "messaging" {
  source     = "{source}"
  account_id = "%(account)s"

  queues = {
    (var.key) = {
      name     = "%(prefix)s-orders"
      consumer = { timeout_seconds = 10, function_name = "%(prefix)s-consumer" }
    }
    invoices = { name = "%(prefix)s-invoices" }
  }
  claim_check_bucket = { enabled = true, name = "%(prefix)s-payloads", force_destroy = true }
  alarms = {
    create_sns_topic = true
    sns_topic_name   = "%(prefix)s-alarms"
    kinds            = ["dlq_depth", "dlq_influx", "dlq_stale", "age_warning", "age_critical", "backlog"]
  }
  iam         = { create_managed_policies = true }
  dlq_redrive = { enabled = true }
}
''' % {"account": ACCOUNT, "prefix": PREFIX}

LOCALSTACK_PROVIDER = '''
provider "aws" {
  region            = "%s"
  s3_use_path_style = true
}
''' % REGION


def create_function(endpoint: str, name: str) -> None:
    """A function for an event source mapping to point at, created through LocalStack's API
    (it exists, in state Failed: LocalStack cannot run it), as tooling/update_plans.py does."""
    import boto3

    kw = dict(endpoint_url=endpoint, aws_access_key_id="test", aws_secret_access_key="test", region_name=REGION)
    iam, lam = boto3.client("iam", **kw), boto3.client("lambda", **kw)
    role_name = f"{name}-role"[:64]
    with contextlib.suppress(iam.exceptions.EntityAlreadyExistsException):
        iam.create_role(RoleName=role_name, AssumeRolePolicyDocument=json.dumps({
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}))
    role = iam.get_role(RoleName=role_name)["Role"]["Arn"]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("handler.py", "def handler(event, context):\n    return {'batchItemFailures': []}\n")
    with contextlib.suppress(lam.exceptions.ResourceConflictException):
        lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="handler.handler",
                            Code={"ZipFile": buf.getvalue()}, Timeout=10)


def portable(state: str, source: str, endpoint: str) -> str:
    """The state as any checkout reads it: the module's path as the stack wrote it (Terraform
    records paths such as the redrive function's zip file relative to the stack) becomes
    ``{source}``, which the reader replaces by its own; LocalStack's port becomes its default
    one (4566), so a regenerated state differs only where the stack does."""
    port = endpoint.rstrip("/").rsplit(":", 1)[-1]
    state = state.replace(json.dumps(source)[1:-1] + "/", "{source}/")
    return re.sub(rf"(localhost\.localstack\.cloud|127\.0\.0\.1|localhost):{port}\b", r"\1:4566", state)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tooling.key_rename_state", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    ls = start(progress=lambda m: print(f"==> {m}", file=sys.stderr))
    # outside the repository, like a consumer's stack; the module by relative path
    work = Path(tempfile.mkdtemp(prefix="key-rename-state-"))
    try:
        source = os.path.relpath(REPO_ROOT, work)
        (work / "main.tf").write_text(LOCALSTACK_PROVIDER + STACK.replace("{source}", source))
        tf = Terraform(work, env={**ls.env(), "AWS_MAX_ATTEMPTS": "3"}, timeout=900)
        tf.init()
        create_function(ls.endpoint, f"{PREFIX}-consumer")
        try:
            tf.apply()
        except TerraformError as e:
            if "dlq-redrive) create: unexpected state 'Failed'" not in " ".join(e.errors):
                raise
        _, listed, _ = tf.cmd("state list")
        for address in listed.split():
            if address.endswith("aws_lambda_function.this") and "dlq_redrive" in address:
                tf.cmd(f"untaint {address}")
        tf.apply()
        _, state, _ = tf.cmd("state pull")
        doc = json.loads(portable(state, source, ls.endpoint))
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        managed = [r for r in doc["resources"] if r["mode"] == "managed"]
        print(f"wrote {os.path.relpath(args.out, Path.cwd())}: {sum(len(r['instances']) for r in managed)} resource instances")
        with contextlib.suppress(TerraformError):
            tf.destroy()
        return 0
    finally:
        ls.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
