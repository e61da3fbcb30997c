"""The module as another stack consumes it.

Each test writes a root configuration into a temporary directory outside the
repository that sources this checkout by relative path (as a stack beside a
clone would), and plans it for real: Terraform, the AWS provider from the
mirror, no AWS access (dummy credentials, account ID given unless a test says
otherwise).

* refusals: every case is one file of ONE `terraform test` of the consumer
  stack (Terraform skips the rest of a file after an error); the diagnostics of
  each must name the queue and carry the message fragments;
* a stack with its own consumer Lambda function wired to the module plans
  without a cycle, and the mapping waits for the function;
* a statement written with `condition` keeps its condition;
* a plan without `account_id` and without AWS access says what to set.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests import plan_cache
from tests.helpers import OFFLINE_ACCOUNT
from tests.test_queue_refusals import CASES as QUEUE_CASES
from tooling.terraform import REPO_ROOT, Terraform, TerraformError

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("consumer-stack")]

OFFLINE_PROVIDER = f'''provider "aws" {{
  region                      = "us-east-1"
  access_key                  = "offline-plan"
  secret_key                  = "offline-plan"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  max_retries                 = 1
}}
'''


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


def _hcl(value) -> str:
    return json.dumps(value)  # JSON is valid HCL expression syntax: types survive


# --- refusals ------------------------------------------------------------------------------

REFUSALS_STACK = '''
variable "queues" {
  type    = any
  default = {}
}
variable "queue_defaults" {
  type    = any
  default = {}
}
module "messaging" {
  source         = "{source}"
  account_id     = "%s"
  alarms         = { create_sns_topic = false }
  queues         = var.queues
  queue_defaults = var.queue_defaults
}
''' % OFFLINE_ACCOUNT

STATEMENT = {"sid": "Sns", "actions": ["sqs:SendMessage"], "principals": [{"type": "Service", "identifiers": ["sns.amazonaws.com"]}]}

# (id, variables, fragments every one of which must appear in Terraform's errors)
CONSUMER_CASES = [
    (
        "typo-in-a-queue-attribute",
        {"queues": {"orders": {}, "emails": {"visibility_timeout": 600}}},
        ['queues["emails"]: unknown attribute "visibility_timeout"; did you mean "visibility_timeout_seconds"?'],
    ),
    (
        "statement-attribute-named-not-dropped",
        {"queues": {"orders": {"queue_policy_statements": [{**STATEMENT, "Condition": {"ArnEquals": {}}}]}}},
        ['queues["orders"].queue_policy_statements[0]: unknown attribute "Condition"; did you mean "condition"?'],
    ),
    (
        "statement-resources-refused-by-name",
        {"queues": {"orders": {"queue_policy_statements": [{**STATEMENT, "resources": ["*"]}]}}},
        ['queues["orders"].queue_policy_statements[0] (sid "Sns"): resources/not_resources: the resource of this policy is always the source queue itself'],
    ),
    (
        "dlq-name-equal-to-name",
        {"queues": {"orders": {"dlq_name": "orders"}}},
        ['queue name "orders" is used by queues["orders"] and queues["orders"] (its DLQ)', "its own DLQ"],
    ),
    (
        "duplicate-names-across-keys",
        {"queues": {"orders": {}, "orders-copy": {"name": "orders"}}},
        ['queue name "orders" is used by queues["orders"] and queues["orders-copy"]'],
    ),
    (
        "default-blamed-as-a-default",
        {"queues": {"orders": {}}, "queue_defaults": {"max_receive_count": 1}},
        ['queue_defaults.max_receive_count (used by queues["orders"]): 1 must be a whole number from 2 to 1000'],
    ),
]

# Every refusal of modules/queue (tests/test_queue_refusals.py), reached through a
# queues entry: the message must name queues["orders"] and say what it says there.
ROOT_LEVEL_INPUTS = {"account_id", "partition", "region"}  # root-module inputs, not queue attributes
# where the root module refuses before modules/queue sees the value, with its own words
THROUGH_ROOT = {
    "dlq-name-is-queue-name": ['queue name "orders" is used by queues["orders"] and queues["orders"] (its DLQ)'],
}
for case, inputs, fragments in QUEUE_CASES:
    if ROOT_LEVEL_INPUTS & set(inputs):
        continue
    CONSUMER_CASES.append((f"queue:{case}", {"queues": {"orders": inputs}}, THROUGH_ROOT.get(case, fragments)))

BASELINE = ("baseline", {"queues": {"orders": {}, "emails": {"fifo": True}}}, [])


def _run_file(name: str, variables: dict) -> str:
    body = "".join(f"    {k} = {_hcl(v)}\n" for k, v in variables.items())
    return f'run "{name}" {{\n  command = plan\n  variables {{\n{body}  }}\n}}\n'


@pytest.fixture(scope="module")
def refusals():
    """{case id: {"status", "errors"}} from one `terraform test` of the consumer stack."""
    work = consumer_stack(REFUSALS_STACK)
    try:
        (work / "tests").mkdir()
        files = {}
        for case, variables, _ in [*CONSUMER_CASES, BASELINE]:
            stem = case.replace(":", "--")
            files[stem] = case
            (work / "tests" / f"{stem}.tftest.hcl").write_text(_run_file("case", variables))
        tf = Terraform(work)
        tf.init(backend=False)
        result = tf.test()
        got: dict[str, dict] = {}
        for line in result.stdout.splitlines():
            if not line.startswith("{"):
                continue
            event = json.loads(line)
            stem = Path(event.get("@testfile") or "x").name.removesuffix(".tftest.hcl")
            case = files.get(stem)
            if case is None:
                continue
            if event.get("type") == "test_run" and event["test_run"].get("progress") == "complete":
                got.setdefault(case, {"errors": []})["status"] = event["test_run"]["status"]
            elif event.get("type") == "diagnostic" and event.get("@level") == "error":
                d = event["diagnostic"]
                got.setdefault(case, {"errors": []})["errors"].append(" ".join(f"{d.get('summary', '')}: {d.get('detail', '')}".split()))
        assert got, f"terraform test reported no runs:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
        return got
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.parametrize("case,fragments", [pytest.param(c, f, id=c) for c, _, f in CONSUMER_CASES])
def test_refused_naming_the_queue(refusals, case, fragments):
    got = refusals.get(case)
    assert got is not None and got.get("status") == "error", f"the plan was not refused: {got}"
    message = " ".join(got["errors"])
    assert 'queues["orders"]' in message or 'queues["emails"]' in message, f"the refusal does not name the queue:\n{message}"
    # the submodule's own words, once the queue's path in front of the input is set aside
    plain = message.replace('queues["orders"].', "")
    for fragment in fragments:
        assert fragment in message or fragment in plain, f"expected {fragment!r} in:\n{message}"


def test_baseline_plans_cleanly(refusals):
    """The stack itself is valid: each refusal above comes from its own inputs."""
    assert refusals["baseline"] == {"errors": [], "status": "pass"}


# --- a consumer function of the same stack -----------------------------------------------

SAME_STACK = '''
locals {
  consumer_timeout = 30
}

data "aws_iam_policy_document" "assume" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["lambda.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "consumer" {
  name               = "orders-consumer"
  assume_role_policy = data.aws_iam_policy_document.assume.json
}

resource "aws_iam_role_policy" "consumer" {
  role   = aws_iam_role.consumer.id
  policy = module.messaging.iam_policies["orders"].consumer_policy_json
}

resource "aws_lambda_function" "consumer" {
  function_name = "orders-consumer"
  role          = aws_iam_role.consumer.arn
  runtime       = "python3.12"
  handler       = "handler.handler"
  filename      = "${path.module}/function.zip"
  timeout       = local.consumer_timeout

  environment {
    variables = {
      QUEUE_URL = module.messaging.queues["orders"].url
      DLQ_URL   = module.messaging.queues["orders"].dlq_url
    }
  }

  depends_on = [aws_iam_role_policy.consumer]
}

module "messaging" {
  source     = "{source}"
  account_id = "%s"
  alarms     = { create_sns_topic = false }

  queues = {
    orders = {
      consumer = { timeout_seconds = local.consumer_timeout, batch_size = 5 }
      # written as aws_iam_policy_document and terraform-aws-modules/sqs spell it
      queue_policy_statements = [{
        sid        = "AllowOrdersTopic"
        actions    = ["sqs:SendMessage"]
        principals = [{ type = "Service", identifiers = ["sns.amazonaws.com"] }]
        condition  = [{ test = "ArnEquals", variable = "aws:SourceArn", values = ["arn:aws:sns:us-east-1:%s:orders"] }]
      }]
    }
  }

  consumer_functions = {
    orders = {
      function_name   = aws_lambda_function.consumer.function_name
      timeout_seconds = aws_lambda_function.consumer.timeout
    }
  }
}
''' % (OFFLINE_ACCOUNT, OFFLINE_ACCOUNT)


@pytest.fixture(scope="module")
def same_stack_plan():
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(zipfile.ZipInfo("handler.py", date_time=(1980, 1, 1, 0, 0, 0)), "def handler(event, context):\n    return {}\n")
    work = consumer_stack(SAME_STACK, {"function.zip": buf.getvalue()})
    try:
        return plan_cache.load(work, offline=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _changes(plan: dict) -> dict[str, dict]:
    return {rc["address"]: rc for rc in plan["resource_changes"]}


def test_same_stack_lambda_plans_without_a_cycle(same_stack_plan):
    rcs = _changes(same_stack_plan)
    esm = rcs['module.messaging.module.consumer["orders"].aws_lambda_event_source_mapping.this']["change"]["after"]
    fn = rcs["aws_lambda_function.consumer"]["change"]["after"]
    assert esm["function_name"] == fn["function_name"] == "orders-consumer"
    assert esm["batch_size"] == 5 and esm["function_response_types"] == ["ReportBatchItemFailures"]
    # the queue's visibility comes from the consumer's timeout: 6 x 30 s
    queue = rcs['module.messaging.module.queue["orders"].aws_sqs_queue.this']["change"]["after"]
    assert queue["visibility_timeout_seconds"] == 180


def test_mapping_waits_for_the_function_and_the_queue_does_not(same_stack_plan):
    """Terraform orders creation by references: the mapping's function comes from
    consumer_functions, which refers to the function; the queues input does not."""
    calls = same_stack_plan["configuration"]["root_module"]["module_calls"]["messaging"]
    refs = calls["expressions"]["consumer_functions"]["references"]
    assert "aws_lambda_function.consumer" in refs
    assert not any("aws_lambda_function" in r for r in calls["expressions"]["queues"].get("references", []))
    inner = calls["module"]["module_calls"]["consumer"]["expressions"]["function_name"]["references"]
    assert "var.consumer_functions" in inner
    # and the function reads the queue's URL from the module
    fn = next(r for r in same_stack_plan["configuration"]["root_module"]["resources"] if r["address"] == "aws_lambda_function.consumer")
    assert "module.messaging.queues" in json.dumps(fn["expressions"]["environment"])


def test_condition_spelling_is_kept_in_the_queue_policy(same_stack_plan):
    rcs = _changes(same_stack_plan)
    policy = json.loads(rcs['module.messaging.module.queue["orders"].aws_sqs_queue.this']["change"]["after"]["policy"])
    statement = next(s for s in policy["Statement"] if s.get("Sid") == "AllowOrdersTopic")
    assert statement["Condition"] == {"ArnEquals": {"aws:SourceArn": f"arn:aws:sns:us-east-1:{OFFLINE_ACCOUNT}:orders"}}
    assert statement["Principal"] == {"Service": "sns.amazonaws.com"}


def test_plan_checker_decides_the_consumer(same_stack_plan):
    """sqs-policy links the mapping to the function of the same stack and decides it:
    nothing fails, nothing is left undecided, and the visibility rule passed."""
    from resilient_sqs.policy.engine import evaluate

    report = evaluate(same_stack_plan)
    assert report.findings == [], [(f.rule_id, f.status, f.address, f.message) for f in report.findings]
    assert any(f.rule_id == "ESM001" for f in report.passed)


# --- values known only after apply ------------------------------------------------------------

# A stack that passes the module values of its own new resources: an SNS topic's ARN in a
# statement's condition (list and map forms), a policy document that embeds it, a KMS
# key, a DLQ shared by the stack's queues (create_dlq = false: its ARN is unknown at
# plan), tags. Everything the module must decide at plan (which resources exist, the
# refusals of unknown attributes) is read from what is known.
UNKNOWN_VALUES = '''
resource "aws_sns_topic" "orders" {
  name = "orders-events"
}
resource "aws_kms_key" "queues" {}
resource "aws_sqs_queue" "shared_dlq" {
  name                      = "shared-dlq"
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true
}
data "aws_iam_policy_document" "from_topic" {
  statement {
    actions   = ["sqs:SendMessage"]
    resources = ["*"]
    principals {
      type        = "Service"
      identifiers = ["sns.amazonaws.com"]
    }
    condition {
      test     = "ArnEquals"
      variable = "aws:SourceArn"
      values   = [aws_sns_topic.orders.arn]
    }
  }
}
locals {
  from_topic = {
    actions    = ["sqs:SendMessage"]
    principals = [{ type = "Service", identifiers = ["sns.amazonaws.com"] }]
    condition  = [{ test = "ArnEquals", variable = "aws:SourceArn", values = [aws_sns_topic.orders.arn] }]
  }
}
resource "aws_s3_bucket" "access_logs" {
  bucket = "stack-access-logs"
}
module "messaging" {
  source     = "{source}"
  account_id = "%s"
  alarms     = { sns_topic_arn = aws_sns_topic.orders.arn }
  iam        = { kms_key_arns = [aws_kms_key.queues.arn] }
  claim_check_bucket = {
    enabled           = true
    name              = "stack-claim-check"
    kms_key_arn       = aws_kms_key.queues.arn
    access_log_bucket = aws_s3_bucket.access_logs.bucket
  }
  idempotency_table = { enabled = true, name = "stack-idempotency", kms_key_arn = aws_kms_key.queues.arn }
  queues = {
    listed   = { queue_policy_statements = [local.from_topic] }
    keyed    = { queue_policy_statements = { topic = local.from_topic } }
    document = { source_queue_policy_documents = [data.aws_iam_policy_document.from_topic.json] }
    keyed_by = { kms_master_key_id = aws_kms_key.queues.arn, tags = { topic = aws_sns_topic.orders.arn } }
    shared   = { dlq_arn = aws_sqs_queue.shared_dlq.arn, create_dlq = false }
  }
}
''' % OFFLINE_ACCOUNT


@pytest.fixture(scope="module")
def unknown_values_plan():
    work = consumer_stack(UNKNOWN_VALUES)
    try:
        return plan_cache.load(work, offline=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_values_known_only_after_apply_plan(unknown_values_plan):
    rcs = _changes(unknown_values_plan)
    queues = {a for a, rc in rcs.items() if rc["type"] == "aws_sqs_queue" and a.startswith("module.messaging.")}
    keys = ("listed", "keyed", "document", "keyed_by", "shared")
    assert {f'module.messaging.module.queue["{k}"].aws_sqs_queue.this' for k in keys} <= queues
    # every queue but the one using the stack's shared DLQ has its own
    assert {a for a in queues if ".dlq" in a} == {f'module.messaging.module.queue["{k}"].aws_sqs_queue.dlq[0]' for k in keys if k != "shared"}
    shared = rcs['module.messaging.module.queue["shared"].aws_sqs_queue.this']["change"]
    assert shared["after_unknown"].get("redrive_policy") is True  # names the shared DLQ, known after apply
    # the statements and the document are in the policies (read at apply: they embed the topic's ARN)
    for k in ("listed", "keyed", "document"):
        data = rcs[f'module.messaging.module.queue["{k}"].data.aws_iam_policy_document.queue[0]']
        assert data["change"]["actions"] == ["read"], data["change"]["actions"]
        assert rcs[f'module.messaging.module.queue["{k}"].aws_sqs_queue.this']["change"]["after_unknown"].get("policy") is True
    # the alarms watch the DLQs the module creates, not the stack's own shared DLQ
    alarms = {a for a in rcs if a.startswith("module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.dlq_depth")}
    assert alarms == {f'module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.dlq_depth["{k}"]' for k in keys if k != "shared"}
    # switches fed by the stack's own key, topic and log bucket
    assert rcs["module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.dlq_depth[\"listed\"]"]["change"]["after_unknown"].get("alarm_actions")
    assert any(a.startswith("module.messaging.module.claim_check_bucket[0].aws_s3_bucket_logging.this") for a in rcs)
    assert any(a.startswith("module.messaging.module.idempotency_table[0].aws_dynamodb_table.") for a in rcs)


def test_unknown_attributes_are_refused_next_to_values_known_only_after_apply():
    stack = UNKNOWN_VALUES.replace('variable = "aws:SourceArn", values', 'variabel = "aws:SourceArn", values')
    stack = stack.replace("    kms_key_arn       = aws_kms_key.queues.arn", "    kms_key           = aws_kms_key.queues.arn")
    assert stack.count("variabel") == 1 and "kms_key    " in stack
    work = consumer_stack(stack)
    try:
        tf = Terraform(work)
        tf.init(backend=False)
        with pytest.raises(TerraformError) as err:
            tf.plan()
        text = " ".join(str(err.value).split())
        for k in ("listed", "keyed"):
            assert f'queues["{k}"].queue_policy_statements' in text and 'unknown attribute "variabel"' in text, text[-3000:]
        assert 'claim_check_bucket: unknown attribute "kms_key"; did you mean "kms_key_arn"?' in text, text[-3000:]
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --- a plan without account_id and without AWS access ------------------------------------------

NO_ACCOUNT = '''
module "messaging" {
  source = "{source}"
  alarms = { create_sns_topic = false }
  queues = { orders = {} }
}
'''


def test_plan_without_account_id_says_what_to_set():
    work = consumer_stack(NO_ACCOUNT)
    try:
        # no AWS: STS answers nowhere (a closed local port, so the failure is immediate)
        tf = Terraform(work, env={"AWS_ENDPOINT_URL_STS": "http://127.0.0.1:9"})
        tf.init()
        with pytest.raises(TerraformError) as exc:
            tf.plan(out="plan.tfplan")
        text = exc.value.stdout + exc.value.stderr
        assert "reading STS Caller Identity" in text
        assert "Planning without credentials? Set account_id." in text
    finally:
        shutil.rmtree(work, ignore_errors=True)
