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
import shutil

import pytest

from tests.support import plan_cache
from tests.support.consumer_stack import consumer_stack
from tests.support.helpers import OFFLINE_ACCOUNT
from tests.support.refusal_messages import QUEUE_CASES, SOURCES, run_variables, split_runs
from tooling.terraform import REPO_ROOT, Terraform, TerraformError, outcomes_of_terraform_test

pytestmark = [pytest.mark.plan, pytest.mark.xdist_group("consumer-stack")]

class HCL(str):
    """An input value written as HCL text (as in a .tftest.hcl file), passed on verbatim."""


def _hcl(value) -> str:
    if isinstance(value, HCL):
        return value
    return json.dumps(value)  # JSON is valid HCL expression syntax: types survive


# --- refusals ------------------------------------------------------------------------------

ROOT_INPUTS = ("queues", "queue_defaults", "consumer_functions", "claim_check_bucket", "idempotency_table", "iam", "dlq_redrive")
REFUSALS_STACK = "".join(f'variable "{v}" {{\n  type    = any\n  default = {{}}\n}}\n' for v in ROOT_INPUTS) + '''
variable "alarms" {
  type    = any
  default = { create_sns_topic = false }
}
variable "tags" {
  type    = map(string)
  default = {}
}
module "messaging" {
  source     = "{source}"
  account_id = "%s"
  alarms     = var.alarms
  tags       = var.tags
''' % OFFLINE_ACCOUNT + "".join(f"  {v} = var.{v}\n" for v in ROOT_INPUTS) + "}\n"

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

# Every refusal case of modules/queue (tests/support/refusal_messages.py: the inputs of the run of
# modules/queue/tests/refusals.tftest.hcl), reached through a queues entry: the message
# must name queues["orders"] and say what it says there.
ROOT_LEVEL_INPUTS = {"account_id", "partition", "region"}  # root-module inputs, not queue attributes
# where the root module refuses before modules/queue sees the value, with its own words
THROUGH_ROOT = {
    "dlq_name_equal_to_queue_name": ['queue name "orders" is used by queues["orders"] and queues["orders"] (its DLQ)'],
    # a null where a value is required is refused by the root's input checks, by path
    "policy_null_identifiers_and_values": [
        'queues["orders"].dlq_policy_statements[0].principals[0].identifiers: null, but it is required',
        'queues["orders"].dlq_policy_statements[0].conditions[0].values: null, but it is required',
    ],
}
_QUEUE_RUNS = split_runs(SOURCES["modules/queue"][0].read_text())[1]
for case, fragments in QUEUE_CASES.items():
    inputs = run_variables(_QUEUE_RUNS[case])
    if ROOT_LEVEL_INPUTS & set(inputs):
        continue
    entry = "".join(f"        {k} = {v}\n" for k, v in inputs.items())
    CONSUMER_CASES.append((f"queue:{case}", {"queues": HCL(f"{{\n      orders = {{\n{entry}      }}\n    }}")}, THROUGH_ROOT.get(case, fragments)))

BASELINE = ("baseline", {"queues": {"orders": {}, "emails": {"fifo": True}}}, [])

KEY = f"arn:aws:kms:us-east-1:{OFFLINE_ACCOUNT}:key/11111111-2222-3333-4444-555555555555"
BUCKET = {"enabled": True, "name": "stack-claim-check"}
FN = {"timeout_seconds": 30, "function_name": "orders-consumer"}

# Issue #23: inputs that planned green with a wrong or dropped setting, or were refused
# naming an internal variable, a submodule's variable or no value. Each must be refused
# naming the user's own input (the root path), with the fragments given.
# (id, variables, fragments every one of which must appear in Terraform's errors)
ROOT_CASES = [
    # settings that quietly did nothing
    ("consumer-settings-without-function", {"queues": {"orders": {"consumer": {"timeout_seconds": 30, "batch_size": 100}}}},
     ['queues["orders"].consumer.batch_size: 100 configures the event source mapping, but none is created']),
    ("no-report-batch-item-failures", {"queues": {"orders": {"consumer": {**FN, "report_batch_item_failures": False}}}},
     ['queues["orders"].consumer.report_batch_item_failures: false is refused', "ESM002"]),
    ("window-with-batch-of-one", {"queues": {"orders": {"consumer": {**FN, "batch_size": 1, "maximum_batching_window_seconds": 5}}}},
     ['queues["orders"].consumer.maximum_batching_window_seconds: 5 s with batch_size = 1']),
    ("redrive-reserved-concurrency-zero", {"queues": {"orders": {}}, "claim_check_bucket": BUCKET, "dlq_redrive": {"enabled": True, "reserved_concurrent_executions": 0}},
     ["dlq_redrive.reserved_concurrent_executions"]),
    ("queue-age-threshold-below-a-minute", {"queues": {"orders": {"alarm_thresholds": {"age_critical_seconds": 30}}}},
     ['queues["orders"].alarm_thresholds.age_critical_seconds = 30 must be at least 60']),
    ("threshold-of-an-alarm-kind-that-is-off", {"queues": {"orders": {}}, "alarms": {"create_sns_topic": False, "thresholds": {"backlog_messages": 500}}},
     ['alarms.thresholds.backlog_messages: 500 tunes the backlog alarm, which is not created']),
    ("queue-threshold-of-an-alarm-kind-that-is-off", {"queues": {"orders": {"alarm_thresholds": {"dlq_influx_messages": 5}}}},
     ['queues["orders"].alarm_thresholds.dlq_influx_messages: 5 tunes the dlq_influx alarm, which is not created']),
    ("kms-reuse-without-a-key-from-defaults", {"queues": {"orders": {}}, "queue_defaults": {"kms_data_key_reuse_period_seconds": 900}},
     ['queue_defaults.kms_data_key_reuse_period_seconds (used by queues["orders"]): 900 is set, but the queue has no KMS key']),
    ("queue-tag-key-with-aws-prefix", {"queues": {"orders": {"dlq_tags": {"aws:cost": "x"}}}},
     ['queues["orders"].dlq_tags: tag key "aws:cost" is refused by AWS']),
    ("root-tag-key-with-bad-characters", {"queues": {"orders": {}}, "tags": {"team#1": "x"}},
     ['tags: "team#1": AWS refuses these tag keys']),
    ("bucket-serving-no-queue", {"queues": {}, "claim_check_bucket": BUCKET},
     ["claim_check_bucket: enabled, but it serves nothing: queues is empty"]),
    ("redrive-covering-no-dlq", {"queues": {"orders": {}}, "claim_check_bucket": BUCKET, "dlq_redrive": {"enabled": True, "queues": []}},
     ["dlq_redrive: enabled, but it covers no DLQ: dlq_redrive.queues is empty"]),
    ("topic-name-without-a-created-topic", {"queues": {"orders": {}}, "alarms": {"sns_topic_arn": f"arn:aws:sns:us-east-1:{OFFLINE_ACCOUNT}:oncall", "sns_topic_name": "mine"}},
     ['alarms.sns_topic_name: "mine" names the topic the module creates, but none is created']),
    # KMS grants that do not match the keys
    ("kms-key-of-another-region", {"queues": {"orders": {"kms_master_key_id": KEY.replace("us-east-1", "eu-west-1")}}},
     ['queues["orders"].kms_master_key_id: "arn:aws:kms:eu-west-1:', "is a key in eu-west-1, but the queue is created in us-east-1"]),
    ("iam-kms-key-of-another-region", {"queues": {"orders": {"kms_master_key_id": "alias/orders"}}, "iam": {"kms_key_arns": [KEY.replace("us-east-1", "ap-south-1")]}},
     ['iam.kms_key_arns: "arn:aws:kms:ap-south-1:', "is a key in ap-south-1"]),
    ("fewer-kms-keys-than-aliases", {"queues": {"orders": {"kms_master_key_id": "alias/orders"}, "payments": {"kms_master_key_id": "alias/payments"}}, "iam": {"kms_key_arns": [KEY]}},
     ["iam.kms_key_arns: 1 key ARN for 2 customer-managed keys named by alias", 'queues["payments"].kms_master_key_id = "alias/payments"']),
    # refusals naming the user's root path and value
    ("threshold-value-named", {"queues": {"orders": {}}, "alarms": {"create_sns_topic": False, "kinds": ["backlog", "dlq_depth"], "thresholds": {"backlog_messages": 0}}},
     ["alarms.thresholds.backlog_messages = 0"]),
    ("inverted-thresholds-blamed-on-alarms-thresholds", {"queues": {"orders": {}}, "alarms": {"create_sns_topic": False, "kinds": ["age_warning", "age_critical"], "thresholds": {"age_warning_seconds": 900, "age_critical_seconds": 600}}},
     ["alarms.thresholds: age_critical_seconds (600) must be greater than age_warning_seconds (900)"]),
    ("created-topic-needs-a-name", {"queues": {"orders": {}}, "alarms": {"create_sns_topic": True}},
     ["alarms.sns_topic_name: required when the module creates the alarm topic", 'sns_topic_name = "sqs-alarms-orders"']),
    # type errors name the root path, not module.inputs.var.*
    ("type-bucket-enabled", {"queues": {"orders": {}}, "claim_check_bucket": {"enabled": "yes", "name": "stack-claim-check"}},
     ['claim_check_bucket.enabled: "yes" is not true or false']),
    ("type-redrive-timeout", {"queues": {"orders": {}}, "dlq_redrive": {"enabled": True, "archive_bucket_name": "archive", "timeout_seconds": "30s"}},
     ['dlq_redrive.timeout_seconds: "30s" is not a number']),
    ("type-max-receive-count", {"queues": {"orders": {"max_receive_count": "five"}}},
     ['queues["orders"].max_receive_count: "five" is not a number']),
    ("type-consumer-functions-entry", {"queues": {"orders": {"consumer": {"timeout_seconds": 30}}}, "consumer_functions": {"orders": "fn"}},
     ['consumer_functions["orders"]: must be an object']),
    ("type-deletion-protection", {"queues": {"orders": {}}, "idempotency_table": {"enabled": True, "name": "stack-idempotency", "deletion_protection_enabled": "no"}},
     ['idempotency_table.deletion_protection_enabled: "no" is not true or false']),
    ("type-defaults", {"queues": {"orders": {}}, "queue_defaults": {"message_retention_seconds": "4d"}},
     ['queue_defaults.message_retention_seconds: "4d" is not a number']),
    # one mistake, one message: an invalid queue name is not refused by the alarms too
    ("invalid-name-one-message", {"queues": {"orders": {"name": "orders/v1"}}},
     ['queues["orders"].name: "orders/v1" must be 1-75 characters']),
]
# fragments that must NOT appear (a second message for the same mistake)
ROOT_CASES_NOT = {"invalid-name-one-message": ["queue_name and dlq_name must be SQS queue names"]}


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
        for case, variables, _ in [*CONSUMER_CASES, *ROOT_CASES, BASELINE]:
            stem = case.replace(":", "--")
            files[stem] = case
            (work / "tests" / f"{stem}.tftest.hcl").write_text(_run_file("case", variables))
        tf = Terraform(work)
        tf.init(backend=False)
        result = tf.test()
        got = {files[stem]: o for stem, o in outcomes_of_terraform_test(result.stdout).items() if stem in files}
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


@pytest.mark.parametrize("case,fragments", [pytest.param(c, f, id=c) for c, _, f in ROOT_CASES])
def test_refused_naming_the_root_input(refusals, case, fragments):
    got = refusals.get(case)
    assert got is not None and got.get("status") == "error", f"the plan was not refused: {got}"
    message = " ".join(got["errors"])
    for fragment in fragments:
        assert fragment in message, f"expected {fragment!r} in:\n{message}"
    assert "module.inputs.var." not in message and ".var." not in message, f"names an internal variable:\n{message}"
    for fragment in ROOT_CASES_NOT.get(case, []):
        assert fragment not in message, f"a second message for one mistake, {fragment!r}, in:\n{message}"


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


# --- the checker agrees with the module on the module's own patterns (issue #23) ----------------

# The README's shared DLQ (create_dlq = false: its ARN is known only after apply), a
# bucket that only sends notifications to a module queue, a consumer that is an existing
# function (its timeout declared to the module as consumer.timeout_seconds), the module's
# alarms without a topic on purpose; and beside them, for the checker's sake, a raw queue
# whose policy lets SNS send without a source condition and an alarm that notifies nobody.
CHECKER_AGREES = '''
resource "aws_sqs_queue" "shared_dlq" {
  name                      = "shared-dlq"
  message_retention_seconds = 1209600
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
}

resource "aws_s3_bucket" "uploads" {
  bucket = "stack-uploads"
}

resource "aws_s3_bucket_notification" "uploads" {
  bucket = aws_s3_bucket.uploads.id
  queue {
    queue_arn = module.messaging.queues["uploads"].arn
    events    = ["s3:ObjectCreated:*"]
  }
}

module "messaging" {
  source     = "{source}"
  account_id = "%s"
  alarms     = { create_sns_topic = false }
  queues = {
    orders = { dlq_arn = aws_sqs_queue.shared_dlq.arn, create_dlq = false }
    emails = { dlq_arn = aws_sqs_queue.shared_dlq.arn, create_dlq = false, max_receive_count = 4 }
    worker = { consumer = { timeout_seconds = 30, function_name = "existing-worker", batch_size = 5 } }
    uploads = {
      queue_policy_statements = [{
        sid        = "FromBucket"
        actions    = ["sqs:SendMessage"]
        principals = [{ type = "Service", identifiers = ["s3.amazonaws.com"] }]
        condition  = [{ test = "ArnEquals", variable = "aws:SourceArn", values = [aws_s3_bucket.uploads.arn] }]
      }]
    }
  }
}

resource "aws_sqs_queue" "raw" {
  name                      = "raw-events"
  receive_wait_time_seconds = 20
  sqs_managed_sse_enabled   = true
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "FromAnyTopic"
      Effect    = "Allow"
      Principal = { Service = "sns.amazonaws.com" }
      Action    = "sqs:SendMessage"
      Resource  = "arn:aws:sqs:us-east-1:%s:raw-events"
    }]
  })
}

resource "aws_cloudwatch_metric_alarm" "raw_age" {
  alarm_name          = "raw-events-age"
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = aws_sqs_queue.raw.name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 5
  comparison_operator = "GreaterThanThreshold"
  threshold           = 900
}
''' % (OFFLINE_ACCOUNT, OFFLINE_ACCOUNT)


@pytest.fixture(scope="module")
def checker_agrees():
    """(plan, report with the source, report without it) of the stack above."""
    from resilient_sqs.policy.engine import evaluate

    work = consumer_stack(CHECKER_AGREES)
    try:
        plan = plan_cache.load(work, offline=False)
        # the checker's defaults (CW001/CW002 warn on alarms that notify nobody), as
        # `sqs-policy check` without a configuration gives them
        # the stack calls the checkout by a relative path outside its directory: the checkout is a
        # source root, as `sqs-policy check --source-root` gives it
        return (plan, evaluate(plan, source_dir=str(work), source_roots=(str(REPO_ROOT),)), evaluate(plan))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _by(report, rule: str, address_part: str) -> list:
    return [f for f in report.passed + report.findings if f.rule_id == rule and address_part in f.address]


def test_shared_dlq_pattern_is_not_an_sqs003_error(checker_agrees):
    """The README's shared DLQ: the redrive policy is only known after apply, but the
    module's max_receive_count is known (5 by default): decided with the source, unknown
    without it, never a fail."""
    _, with_source, without = checker_agrees
    for key in ("orders", "emails"):
        for report in (with_source, without):
            got = _by(report, "SQS003", f'queue["{key}"].aws_sqs_queue.this')
            assert got and all(f.status in ("pass", "unknown") for f in got), [(f.status, f.message) for f in got]
            assert not any("None" in f.message for f in got), [f.message for f in got]


def test_notification_bucket_is_not_a_claim_check_bucket(checker_agrees):
    _, with_source, without = checker_agrees
    for report in (with_source, without):
        assert _by(report, "S3004", "aws_s3_bucket.uploads") == [], \
            [(f.status, f.message) for f in _by(report, "S3004", "aws_s3_bucket.uploads")]


def test_consumer_visibility_decided_from_the_declared_timeout(checker_agrees):
    """ESM001 on a mapping whose function is not in the plan: the module was told its
    timeout (consumer.timeout_seconds) and derived the visibility from it."""
    _, with_source, _ = checker_agrees
    got = _by(with_source, "ESM001", 'queue["worker"]')
    assert [f.status for f in got] == ["pass"], [(f.status, f.message) for f in got]
    assert "180 s >= 6 × 30 s + 0 s" in got[0].message and "as declared to the module" in got[0].message


def test_service_principal_without_source_condition_is_public(checker_agrees):
    _, with_source, _ = checker_agrees
    got = _by(with_source, "SQS010", "aws_sqs_queue.raw")
    assert [f.status for f in got] == ["fail"], [(f.status, f.message) for f in got]
    assert "service principal sns.amazonaws.com without an aws:SourceArn or aws:SourceAccount condition" in got[0].message
    # the module's own queue, whose S3 statement names the bucket: never a fail (its policy
    # embeds the bucket's ARN, known only after apply)
    assert [f.status for f in _by(with_source, "SQS010", 'queue["uploads"].aws_sqs_queue.this')] in (["pass"], ["unknown"])


def test_alarm_without_actions_warns_unless_silent_on_purpose(checker_agrees):
    plan, with_source, _ = checker_agrees
    got = _by(with_source, "CW002", "aws_sqs_queue.raw")
    assert [(f.status, f.severity) for f in got] == [("fail", "warning")], [(f.status, f.message) for f in got]
    assert "notifies nobody" in got[0].message
    # the module's alarms, create_sns_topic = false: actions disabled on purpose, not a finding
    alarms = [rc for rc in plan["resource_changes"] if rc["type"] == "aws_cloudwatch_metric_alarm" and rc["address"].startswith("module.")]
    assert alarms and all(rc["change"]["after"]["actions_enabled"] is False for rc in alarms)
    assert [f.status for f in _by(with_source, "CW002", 'queue["orders"].aws_sqs_queue.this')] == ["pass"]


# Issue 23, section 4: the DLQ redrive functions' errors alarms, in a consumer's stack with
# the queue alarms off: one call says nothing about whom they notify (the plan warns, the
# alarms keep their actions enabled, with none), the other says silence is intended
# (dlq_redrive.alarm_actions = []), and a third gives them the on-call topic.
REDRIVE_ALARMS = '''
module "unheard" {
  source             = "{source}"
  account_id         = "%(account)s"
  alarms             = { enabled = false }
  claim_check_bucket = { enabled = true, name = "unheard-claim-check" }
  dlq_redrive        = { enabled = true }
  queues             = { unheard-orders = {} }
}

module "quiet" {
  source             = "{source}"
  account_id         = "%(account)s"
  alarms             = { enabled = false }
  claim_check_bucket = { enabled = true, name = "quiet-claim-check" }
  dlq_redrive        = { enabled = true, alarm_actions = [] }
  queues             = { quiet-orders = {} }
}

module "paged" {
  source             = "{source}"
  account_id         = "%(account)s"
  alarms             = { sns_topic_arn = "arn:aws:sns:us-east-1:%(account)s:oncall" }
  claim_check_bucket = { enabled = true, name = "paged-claim-check" }
  dlq_redrive        = { enabled = true }
  queues             = { paged-orders = {} }
}
''' % {"account": OFFLINE_ACCOUNT}


def test_redrive_alarms_that_notify_nobody_warn_unless_intended():
    work = consumer_stack(REDRIVE_ALARMS)  # its own offline provider
    try:
        plan = plan_cache.load(work, offline=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    checks = {c["address"]["to_display"]: c for c in plan.get("checks", [])}
    warned = {a for a, c in checks.items() if c["status"] == "fail"}
    assert warned == {"module.unheard.check.redrive_alarms_notify_someone"}, warned
    message = " ".join(p for i in checks["module.unheard.check.redrive_alarms_notify_someone"].get("instances", [])
                       for p in i.get("problems", [{}])[0].get("message", "").split("\n"))
    for fragment in ("dlq_redrive.alarm_actions is not set", "alarms.sns_topic_arn", "alarms.create_sns_topic = true",
                     "dlq_redrive.alarm_actions = []"):
        assert fragment in message, (fragment, message)
    alarms = {rc["address"].split(".")[1]: rc["change"]["after"] for rc in plan["resource_changes"]
              if rc["type"] == "aws_cloudwatch_metric_alarm" and rc["address"].endswith("aws_cloudwatch_metric_alarm.errors")}
    assert set(alarms) == {"unheard", "quiet", "paged"}, sorted(alarms)
    # nobody said: actions enabled with none (the checker's "silent by mistake")
    assert alarms["unheard"]["actions_enabled"] is True and not alarms["unheard"]["alarm_actions"]
    # [] said it: actions disabled, the checker's "silent on purpose"
    assert alarms["quiet"]["actions_enabled"] is False and not alarms["quiet"]["alarm_actions"]
    assert alarms["paged"]["actions_enabled"] is True
    assert alarms["paged"]["alarm_actions"] == [f"arn:aws:sns:us-east-1:{OFFLINE_ACCOUNT}:oncall"]
