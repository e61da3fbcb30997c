"""The Terraform state a stack using terraform-aws-modules/sqs leaves behind, for the
migration tests (tests/root_module/test_migration.py).

Applies a stack that calls terraform-aws-modules/sqs (a local checkout of it,
``--module``; v4.3.1 is what the committed state came from) on an embedded
LocalStack: one queue with its DLQ, a redrive policy, and a queue policy
statement as a user of that module writes it. Saves the state it leaves
(``terraform state pull``) as tests/fixtures/migration/terraform-aws-sqs.tfstate,
then destroys the stack. Dev tooling: the test suite only reads the saved state.

    python -m tooling.migration_state --module ../shared/anchors/terraform-aws-sqs-v4.3.1
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from tooling.localstack import REGION, start
from tooling.terraform import REPO_ROOT, Terraform

OUT = REPO_ROOT / "tests" / "fixtures" / "migration" / "terraform-aws-sqs.tfstate"

# what the migration test writes in our module's terms (tests/root_module/test_migration.py)
STACK = '''
provider "aws" {
  region                      = "%(region)s"
  access_key                  = "test"
  secret_key                  = "test"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  max_retries                 = 2
}

module "orders_queue" {
  source = "%(source)s"

  name       = "orders"
  create_dlq = true
  redrive_policy = {
    maxReceiveCount = 4
  }

  create_queue_policy = true
  queue_policy_statements = {
    sns = {
      sid     = "AllowOrdersTopic"
      actions = ["sqs:SendMessage"]
      principals = [{
        type        = "Service"
        identifiers = ["sns.amazonaws.com"]
      }]
      conditions = [{
        test     = "ArnEquals"
        variable = "aws:SourceArn"
        values   = ["arn:aws:sns:%(region)s:000000000000:orders"]
      }]
    }
  }

  tags = { team = "orders" }
}
'''


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tooling.migration_state", description=__doc__.split("\n\n")[0])
    ap.add_argument("--module", required=True, type=Path, help="a checkout of terraform-aws-modules/sqs")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    module = args.module.resolve()
    if not (module / "main.tf").exists():
        print(f"{module}: not a Terraform module (no main.tf)", file=sys.stderr)
        return 2
    ls = start(progress=lambda m: print(f"==> {m}", file=sys.stderr))
    work = Path(tempfile.mkdtemp(prefix="tf-aws-sqs-"))
    try:
        shutil.copytree(module, work / "module", ignore=shutil.ignore_patterns(".terraform*", "examples", "tests"))
        (work / "main.tf").write_text(STACK % {"region": REGION, "source": "./module"})
        tf = Terraform(work, env=ls.env())
        tf.init()
        tf.apply()
        _, state, _ = tf.cmd("state pull")
        doc = json.loads(state)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        print(f"wrote {os.path.relpath(args.out, Path.cwd())}: "
              f"{sorted(r['module'] + '.' + r['type'] + '.' + r['name'] for r in doc['resources'] if r['mode'] == 'managed')}")
        tf.destroy()
        return 0
    finally:
        ls.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
