"""The resolver (policies/resolve.py) on small in-memory plans: the chain known value ->
plan references -> configuration source -> unknown with a reason, and the links that the
configuration source now decides where the plan leaves the value unknown. No Terraform:
each plan is a dictionary written here, beside the .tf files it was "made" from."""
from __future__ import annotations

import pytest

from resilient_sqs.policy.engine import evaluate
from resilient_sqs.policy.graph import OPAQUE, UNKNOWN, Plan
from resilient_sqs.policy.model import Model
from resilient_sqs.policy.resolve import Resolver
from resilient_sqs.policy.source import Pending, Source


def _const(v):
    return {"constant_value": v}


def _refs(*refs):
    return {"references": list(refs)}


def plan_doc(*resources) -> dict:
    """A plan (the parts the checker reads) of root-module resources, each
    ``(address, values, unknown, expressions)``: all created."""
    pv, rc, cfg = [], [], []
    for address, values, unknown, expressions in resources:
        mode = "data" if address.startswith("data.") else "managed"
        typ, name = address.split(".")[-2:]
        head = {"address": address, "mode": mode, "type": typ, "name": name}
        pv.append({**head, "values": values})
        rc.append({**head, "change": {"actions": ["create"], "before": None, "after": values,
                                      "after_unknown": unknown}})
        cfg.append({**head, "expressions": expressions})
    return {"format_version": "1.2", "planned_values": {"root_module": {"resources": pv}},
            "resource_changes": rc, "configuration": {"root_module": {"resources": cfg}}}


def model_of(doc: dict, tmp_path=None, tf: str | None = None) -> Model:
    """The model of ``doc``; with ``tf``, the configuration source is that main.tf."""
    plan = Plan(doc)
    source = None
    if tf is not None:
        (tmp_path / "main.tf").write_text(tf)
        source = Source(plan, tmp_path)
    return Model(plan, source)


QUEUE_NEW = ("aws_sqs_queue.orders", {"name_prefix": "orders-"}, {"name": True, "arn": True, "url": True, "id": True},
             {"name_prefix": _const("orders-")})


ONCALL = "arn:aws:sns:us-east-1:123456789012:oncall"  # the alarm pages someone (else CW002 warns)


def _alarm(dimensions_expr):
    return ("aws_cloudwatch_metric_alarm.depth",
            {"alarm_name": "orders-age", "namespace": "AWS/SQS", "metric_name": "ApproximateAgeOfOldestMessage",
             "threshold": 300, "alarm_actions": [ONCALL]},
            {"dimensions": True, "arn": True},
            {"alarm_name": _const("orders-age"), "namespace": _const("AWS/SQS"),
             "metric_name": _const("ApproximateAgeOfOldestMessage"), "threshold": _const(300),
             "alarm_actions": _const([ONCALL]), "dimensions": dimensions_expr})


ALARM_TF = '''
locals {
  watched = aws_sqs_queue.orders.name
}

resource "aws_sqs_queue" "orders" {
  name_prefix = "orders-"
}

resource "aws_cloudwatch_metric_alarm" "depth" {
  alarm_name  = "orders-age"
  namespace   = "AWS/SQS"
  metric_name = "ApproximateAgeOfOldestMessage"
  threshold   = 300
  alarm_actions = ["arn:aws:sns:us-east-1:123456789012:oncall"]
  dimensions = {
    QueueName = local.watched
  }
}
'''


# -- the chain, step by step ------------------------------------------------------------------------
def test_a_known_value_is_the_plans():
    doc = plan_doc(("aws_sqs_queue.q", {"name": "q", "visibility_timeout_seconds": 60}, {"arn": True},
                    {"name": _const("q"), "visibility_timeout_seconds": _const(60)}))
    plan = Plan(doc)
    got = Resolver(plan).value(plan.by_address["aws_sqs_queue.q"], "visibility_timeout_seconds")
    assert got.known and got.value == 60
    unset = Resolver(plan).value(plan.by_address["aws_sqs_queue.q"], "kms_master_key_id")
    assert unset.known and unset.value is None


def test_an_unknown_value_links_the_plan_resources_its_expression_references():
    doc = plan_doc(QUEUE_NEW, _alarm({"references": ["aws_sqs_queue.orders.name", "aws_sqs_queue.orders"]}))
    plan = Plan(doc)
    got = Resolver(plan).value(plan.by_address["aws_cloudwatch_metric_alarm.depth"], "dimensions")
    assert got.value is UNKNOWN and not got.known
    assert [r.address for r in got.resources("aws_sqs_queue")] == ["aws_sqs_queue.orders"]
    assert got.resources("aws_lambda_function") == [] and not got.opaque


def test_through_a_local_the_plan_links_nothing_and_without_source_it_stays_unknown():
    doc = plan_doc(QUEUE_NEW, _alarm(_refs("local.watched")))
    plan = Plan(doc)
    got = Resolver(plan).value(plan.by_address["aws_cloudwatch_metric_alarm.depth"], "dimensions")
    assert got.value is UNKNOWN and got.resources() == [] and got.targets == [OPAQUE] and got.opaque
    assert got.evaluated is None and got.partial is None and got.ref is None
    assert got.scalar() is UNKNOWN and got.plain() is UNKNOWN and got.json() is None and got.pending() is None


def test_the_source_says_what_the_plan_leaves_unknown(tmp_path):
    doc = plan_doc(QUEUE_NEW, _alarm(_refs("local.watched")))
    model = model_of(doc, tmp_path, ALARM_TF)
    alarm = model.plan.by_address["aws_cloudwatch_metric_alarm.depth"]
    got = model.resolve.value(alarm, "dimensions")
    qn = got.partial["QueueName"]
    assert isinstance(qn, Pending) and qn.res.address == "aws_sqs_queue.orders" and qn.path == ("name",)
    assert "known after apply" in qn.why
    assert got.ref is not None and got.ref.label == f"main.tf:{ALARM_TF.splitlines().index('  dimensions = {') + 1}"
    assert got.pending() is None  # the whole map is not one placeholder
    arn = model.resolve.value(alarm, "dimensions")
    assert arn.plain()["QueueName"].pending is qn


def test_a_source_that_does_not_match_the_plan_is_not_used(tmp_path):
    """The references of the expression must be those the plan recorded."""
    doc = plan_doc(QUEUE_NEW, _alarm(_refs("local.other")))
    model = model_of(doc, tmp_path, ALARM_TF)
    got = model.resolve.value(model.plan.by_address["aws_cloudwatch_metric_alarm.depth"], "dimensions")
    assert got.evaluated is None
    assert any("does not match the plan" in n for n in model.source.notes), model.source.notes


def test_json_from_source_says_why_each_member_is_unknown(tmp_path):
    tf = '''
locals {
  receives = 5
}

resource "aws_sqs_queue" "dlq" {
  name_prefix = "orders-dlq-"
}

resource "aws_sqs_queue" "orders" {
  name = "orders"
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = local.receives
  })
}
'''
    doc = plan_doc(("aws_sqs_queue.dlq", {"name_prefix": "orders-dlq-"}, {"name": True, "arn": True, "url": True, "id": True},
                    {"name_prefix": _const("orders-dlq-")}),
                   ("aws_sqs_queue.orders", {"name": "orders"}, {"redrive_policy": True, "arn": True},
                    {"name": _const("orders"), "redrive_policy": _refs("aws_sqs_queue.dlq.arn", "aws_sqs_queue.dlq",
                                                                       "local.receives")}))
    model = model_of(doc, tmp_path, tf)
    pol, ref, why = model.resolve.value(model.plan.by_address["aws_sqs_queue.orders"], "redrive_policy").json()
    assert why is None and pol["maxReceiveCount"] == 5 and ref.label.startswith("main.tf:")
    assert pol["deadLetterTargetArn"].pending.res.address == "aws_sqs_queue.dlq"
    orders = model.queue_by_res["aws_sqs_queue.orders"]
    assert orders.dlq is model.queue_by_res["aws_sqs_queue.dlq"] and orders.redrive.max_receive_count == 5


def test_the_source_reads_an_attribute_and_a_whole_block_the_same_way(tmp_path):
    """source.Source.value and .block follow one sequence: references checked against the
    plan's (a note when they differ), then evaluation, a failing expression making the value
    unknown with the reason."""
    tf = '''
resource "aws_sqs_queue" "orders" {
  name   = "orders"
  policy = 1 / 0
}
'''
    def orders(policy_expr):
        return plan_doc(("aws_sqs_queue.orders", {"name": "orders"}, {"policy": True, "arn": True},
                         {"name": _const("orders"), "policy": policy_expr}))

    model = model_of(orders({}), tmp_path, tf)
    res = model.plan.by_address["aws_sqs_queue.orders"]
    got = model.source.value(res, "policy")
    assert got.value.why == "the expression fails (division by zero)" and got.ref.label == "main.tf:4"
    body, ref = model.source.block(res)
    assert body.why == "the block fails to evaluate (division by zero)" and ref.label == "main.tf:2"
    assert model.source.notes == []
    model = model_of(orders(_refs("local.other")), tmp_path, tf)
    res = model.plan.by_address["aws_sqs_queue.orders"]
    assert model.source.value(res, "policy") is None and model.source.block(res) is None
    assert model.source.notes == [
        "main.tf:4: aws_sqs_queue.orders.policy does not match the plan (its references differ); the value known "
        "only after apply stays unknown",
        "main.tf:2: aws_sqs_queue.orders does not match the plan (its references differ); values known only after "
        "apply stay unknown"]


# -- links the source now decides -----------------------------------------------------------------
def test_alarm_queue_name_dimension_built_from_a_local(tmp_path):
    """CloudWatch alarms: QueueName = local.x, where the local is a queue's name known only
    after apply. The plan shows only `local.watched`; the source names the queue."""
    doc = plan_doc(QUEUE_NEW, _alarm(_refs("local.watched")))
    without = model_of(doc)
    a = without.alarms[0]
    assert a.unresolved and a.metrics == [] and without.queue_by_res["aws_sqs_queue.orders"].alarms == []
    model = model_of(doc, tmp_path, ALARM_TF)
    a = model.alarms[0]
    orders = model.queue_by_res["aws_sqs_queue.orders"]
    assert not a.unresolved and a.metrics == [("ApproximateAgeOfOldestMessage", orders)] and orders.alarms == [a]
    # and the rule sees it: CW002 was unknown ("the queue of ... is only known after apply"), now it passes
    cw002 = [(f.status, f.message) for f in evaluate(doc).findings if f.rule_id == "CW002"]
    assert cw002 == [("unknown", "no alarm names this queue, but the queue of aws_cloudwatch_metric_alarm.depth is "
                                 "only known after apply")]
    report = evaluate(doc, source_dir=str(tmp_path))
    assert [f for f in report.findings if f.rule_id == "CW002"] == []
    assert [(f.status, f.message) for f in report.passed if f.rule_id == "CW002"] == [
        ("pass", "age alarm aws_cloudwatch_metric_alarm.depth")]


def test_alarm_dimension_naming_a_queue_of_another_name_links_nothing(tmp_path):
    tf = ALARM_TF.replace("watched = aws_sqs_queue.orders.name", 'watched = "someone-elses"')
    doc = plan_doc(QUEUE_NEW, _alarm(_refs("local.watched")))
    # the plan would know a literal: make the plan say so too (else source and plan disagree)
    doc["planned_values"]["root_module"]["resources"][1]["values"]["dimensions"] = {"QueueName": "someone-elses"}
    doc["resource_changes"][1]["change"]["after_unknown"] = {"arn": True}
    model = model_of(doc, tmp_path, tf)
    assert model.alarms[0].metrics == [] and not model.alarms[0].unresolved


ESM_TF = '''
locals {
  handler = aws_lambda_function.worker.function_name
}

resource "aws_sqs_queue" "orders" {
  name = "orders"
}

resource "aws_lambda_function" "worker" {
  function_name = "worker"
  role          = "arn:aws:iam::123456789012:role/worker"
  handler       = "app.handler"
  runtime       = "python3.12"
  filename      = "worker.zip"
}

resource "aws_lambda_event_source_mapping" "orders" {
  event_source_arn = aws_sqs_queue.orders.arn
  function_name    = local.handler
}
'''


def _esm_doc(function_known: bool):
    fn_values = {"role": "arn:aws:iam::123456789012:role/worker", "handler": "app.handler",
                 "runtime": "python3.12", "filename": "worker.zip"}
    fn_unknown = {"arn": True}
    if function_known:
        fn_values["function_name"] = "worker"
    else:
        fn_unknown["function_name"] = True
    return plan_doc(
        ("aws_sqs_queue.orders", {"name": "orders"}, {"arn": True, "url": True, "id": True}, {"name": _const("orders")}),
        ("aws_lambda_function.worker", fn_values, fn_unknown,
         {"function_name": _const("worker"), "role": _const(fn_values["role"]), "handler": _const("app.handler"),
          "runtime": _const("python3.12"), "filename": _const("worker.zip")}),
        ("aws_lambda_event_source_mapping.orders", {}, {"event_source_arn": True, "function_name": True, "uuid": True},
         {"event_source_arn": _refs("aws_sqs_queue.orders.arn", "aws_sqs_queue.orders"),
          "function_name": _refs("local.handler")}))


def test_event_source_mapping_function_named_through_a_local(tmp_path):
    """function_name = local.x where the local is a function's name: the plan shows only the
    local; the source names the function (the visibility and batching rules then read it)."""
    doc = _esm_doc(function_known=False)
    without = model_of(doc).esms[0]
    assert without.function_link.one is None and "leads to no function" in without.function_link.unknown_reason
    e = model_of(doc, tmp_path, ESM_TF).esms[0]
    assert e.function_link.one is not None and e.function_link.one.address == "aws_lambda_function.worker"
    assert e.queue_link.one is not None and e.queue_link.one.address == "aws_sqs_queue.orders"


def test_a_source_value_terraform_would_have_known_is_refused(tmp_path):
    """The source evaluates the local to the literal "worker", which Terraform would have known
    while planning; the plan does not: it was not made from this source, so nothing is linked."""
    doc = _esm_doc(function_known=True)
    e = model_of(doc, tmp_path, ESM_TF.replace("aws_lambda_function.worker.function_name", '"worker"')).esms[0]
    assert e.function_link.one is None


BUCKET_TF = '''
locals {
  payloads = aws_s3_bucket.payloads.id
}

resource "aws_s3_bucket" "payloads" {
  bucket_prefix = "payloads-"
}

resource "aws_s3_bucket_public_access_block" "payloads" {
  bucket                  = local.payloads
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}
'''


def test_bucket_setting_resource_names_its_bucket_through_a_local(tmp_path):
    """A bucket's public access block with bucket = local.x (the bucket's ID, known after
    apply): the plan shows only the local; the source names the bucket."""
    flags = {k: True for k in ("block_public_acls", "block_public_policy", "ignore_public_acls",
                               "restrict_public_buckets")}
    doc = plan_doc(
        ("aws_s3_bucket.payloads", {"bucket_prefix": "payloads-"}, {"bucket": True, "id": True, "arn": True},
         {"bucket_prefix": _const("payloads-")}),
        ("aws_s3_bucket_public_access_block.payloads", dict(flags), {"bucket": True, "id": True},
         {"bucket": _refs("local.payloads"), **{k: _const(True) for k in flags}}))
    assert model_of(doc).buckets[0].pab == []
    b = model_of(doc, tmp_path, BUCKET_TF).buckets[0]
    assert [r.address for r in b.pab] == ["aws_s3_bucket_public_access_block.payloads"]


# -- the links that asked the plan's references directly (now through the resolver) ---------------
def _data(address, values, unknown, expressions):
    """A data source read during apply (its values partly unknown in the plan)."""
    return (address, values, unknown, expressions)


def _statement_doc(address, resources_expr, **extra_expressions):
    """An aws_iam_policy_document with one statement whose resources are known after apply."""
    stmt = {"effect": "Allow", "actions": ["sqs:ReceiveMessage", "sqs:DeleteMessage"], "resources": None}
    return _data(address, {"statement": [stmt]}, {"json": True, "id": True, "statement": [{"resources": True}]},
                 {"statement": [{"effect": _const("Allow"), "actions": _const(stmt["actions"]),
                                 "resources": resources_expr}], **extra_expressions})


ORDERS = ("aws_sqs_queue.orders", {"name": "orders"}, {"arn": True, "url": True, "id": True},
          {"name": _const("orders")})
ORDERS_ARN = _refs("aws_sqs_queue.orders.arn", "aws_sqs_queue.orders")

DOCS_TF = '''
locals {
  base = data.aws_iam_policy_document.base.json
}

resource "aws_sqs_queue" "orders" {
  name = "orders"
}

data "aws_iam_policy_document" "base" {
  statement {
    effect    = "Allow"
    actions   = ["sqs:ReceiveMessage", "sqs:DeleteMessage"]
    resources = [aws_sqs_queue.orders.arn]
  }
}

data "aws_iam_policy_document" "consumer" {
  source_policy_documents = [local.base]
  statement {
    effect    = "Allow"
    actions   = ["sqs:ReceiveMessage", "sqs:DeleteMessage"]
    resources = [aws_sqs_queue.orders.arn]
  }
}
'''


def test_a_document_merged_through_a_local_is_consumed(tmp_path):
    """source_policy_documents = [local.x], the local being another document's JSON: the plan
    shows only the local, so the merged document is judged a second time on its own. The
    source names it: it is judged once, inside the document that merges it."""
    doc = plan_doc(ORDERS, _statement_doc("data.aws_iam_policy_document.base", ORDERS_ARN),
                   _statement_doc("data.aws_iam_policy_document.consumer", ORDERS_ARN,
                                  source_policy_documents=_refs("local.base")))
    doc["resource_changes"][2]["change"]["after_unknown"]["source_policy_documents"] = True
    without = [d.address for d in model_of(doc).documents.all()]
    assert without == ["data.aws_iam_policy_document.base", "data.aws_iam_policy_document.consumer"]
    model = model_of(doc, tmp_path, DOCS_TF)
    docs = model.documents.all()
    assert [d.address for d in docs] == ["data.aws_iam_policy_document.consumer"]
    consumer = model.resolve.value(model.plan.by_address["data.aws_iam_policy_document.consumer"],
                                   "source_policy_documents")
    assert [r.address for r in consumer.linked("aws_iam_policy_document")] == ["data.aws_iam_policy_document.base"]
    assert consumer.resources() == []  # the plan's references alone lead nowhere


ROLE_TF = '''
locals {
  consume = data.aws_iam_policy_document.consume.json
}

resource "aws_sqs_queue" "orders" {
  name = "orders"
}

data "aws_iam_policy_document" "consume" {
  statement {
    effect    = "Allow"
    actions   = ["sqs:ReceiveMessage", "sqs:DeleteMessage"]
    resources = [aws_sqs_queue.orders.arn]
  }
}

resource "aws_iam_role" "worker" {
  name               = "worker"
  assume_role_policy = "{}"
  inline_policy {
    name   = "consume"
    policy = local.consume
  }
}
'''


def _role_doc(policy_expr, policy_value=None):
    inline = {"name": "consume", "policy": policy_value}
    unknown = {"arn": True, "id": True, "inline_policy": [{} if policy_value is not None else {"policy": True}]}
    return plan_doc(ORDERS, _statement_doc("data.aws_iam_policy_document.consume", ORDERS_ARN),
                    ("aws_iam_role.worker", {"name": "worker", "assume_role_policy": "{}", "inline_policy": [inline]},
                     unknown, {"name": _const("worker"), "assume_role_policy": _const("{}"),
                               "inline_policy": [{"name": _const("consume"), "policy": policy_expr}]}))


def test_an_inline_role_policy_through_a_local_is_read_from_the_source(tmp_path):
    """inline_policy { policy = local.x }, the local being a document's JSON known after
    apply: the plan leaves the role's policy unknown; the source names the document."""
    doc = _role_doc(_refs("local.consume"))
    without = {d.address: d for d in model_of(doc).documents.all()}
    assert without["aws_iam_role.worker"].doc is None
    assert without["aws_iam_role.worker"].unknown_reason == "inline_policy 0 is only known after apply"
    assert "data.aws_iam_policy_document.consume" in without  # judged on its own as well
    model = model_of(doc, tmp_path, ROLE_TF)
    got = {d.address: d for d in model.documents.all()}
    role = got["aws_iam_role.worker"]
    assert role.doc is not None and role.via == "data.aws_iam_policy_document.consume"
    assert [s.actions for s in role.doc.statements] == [["sqs:ReceiveMessage", "sqs:DeleteMessage"]]
    assert list(got) == ["aws_iam_role.worker"]  # the document is judged once: on the role
    # and the rule sees it: IAM001 on the role was unknown, now it passes
    assert [(f.status, f.message) for f in evaluate(doc).findings if f.rule_id == "IAM001"] == [
        ("unknown", "policy document inline_policy 0 is only known after apply")]
    report = evaluate(doc, source_dir=str(tmp_path))
    assert [(f.address, f.status, f.message) for f in report.passed if f.rule_id == "IAM001"] == [
        ("aws_iam_role.worker", "pass", "no wildcard actions (via data.aws_iam_policy_document.consume)")]


def test_a_dynamic_inline_role_policy_is_read_from_the_source(tmp_path):
    """dynamic "inline_policy" over a map of documents' JSON: the plan's configuration leaves
    dynamic blocks out, so the plan shows the block (its name) with its policy unknown but
    not what it is built from: the role's policy is unknown, and the reason names
    --source-dir; the source shows the block (a real plan: test_dynamic_inline_policy.py)."""
    tf = ROLE_TF.replace('''  inline_policy {
    name   = "consume"
    policy = local.consume
  }''', '''  dynamic "inline_policy" {
    for_each = { consume = local.consume }
    content {
      name   = inline_policy.key
      policy = inline_policy.value
    }
  }''')
    doc = _role_doc(None)
    del doc["configuration"]["root_module"]["resources"][2]["expressions"]["inline_policy"]
    without = [(d.address, d.doc is None, d.unknown_reason) for d in model_of(doc).documents.all()]
    assert without == [
        ("aws_iam_role.worker", True, 'inline_policy 0 "consume" (a dynamic block) is only known after apply, and the '
                                      "plan does not say what it is built from: run with --source-dir (the "
                                      "configuration the plan was made from) to judge it"),
        ("data.aws_iam_policy_document.consume", False, None)]  # judged on its own as well
    got = model_of(doc, tmp_path, tf).documents.all()
    assert [(d.address, d.via) for d in got] == [("aws_iam_role.worker", "data.aws_iam_policy_document.consume")]
    assert [s.actions for s in got[0].doc.statements] == [["sqs:ReceiveMessage", "sqs:DeleteMessage"]]


def test_an_inline_role_policy_the_plan_knows_consumes_its_document():
    """The plan knows the inline policy's JSON and references the document it came from: the
    document is judged on the role, not a second time on its own."""
    text = '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"*"}]}'
    doc = _role_doc(_refs("data.aws_iam_policy_document.consume.json", "data.aws_iam_policy_document.consume"), text)
    got = [d.address for d in model_of(doc).documents.all()]
    assert got == ["aws_iam_role.worker"]


KMS_TF = '''
locals {
  key = aws_kms_key.queues.arn
}

resource "aws_kms_key" "queues" {
  description = "queues"
}

resource "aws_sqs_queue" "orders" {
  name              = "orders"
  kms_master_key_id = local.key
}
'''


def _kms_doc(key_expr):
    return plan_doc(("aws_kms_key.queues", {"description": "queues"}, {"arn": True, "id": True, "key_id": True},
                     {"description": _const("queues")}),
                    ("aws_sqs_queue.orders", {"name": "orders"},
                     {"arn": True, "url": True, "id": True, "kms_master_key_id": True},
                     {"name": _const("orders"), "kms_master_key_id": key_expr}))


def test_queue_encryption_by_a_key_of_the_plan(tmp_path):
    """kms_master_key_id known after apply: SSE-KMS when the expression references a key of the
    plan; through a local, the source says it is the key's ARN; without it, unknown."""
    direct = model_of(_kms_doc(_refs("aws_kms_key.queues.arn", "aws_kms_key.queues")))
    assert direct.queues[0].encryption() == "SSE-KMS"
    assert model_of(_kms_doc(_refs("local.key"))).queues[0].encryption() is UNKNOWN
    assert model_of(_kms_doc(_refs("local.key")), tmp_path, KMS_TF).queues[0].encryption() == "SSE-KMS"


CLAIM_TF = '''
locals {
  payloads = "${aws_s3_bucket.payloads.arn}/*"
}

resource "aws_sqs_queue" "orders" {
  name = "orders"
}

resource "aws_s3_bucket" "payloads" {
  bucket_prefix = "payloads-"
}

data "aws_iam_policy_document" "worker" {
  statement {
    effect    = "Allow"
    actions   = ["sqs:ReceiveMessage", "sqs:DeleteMessage"]
    resources = [aws_sqs_queue.orders.arn, local.payloads]
  }
}
'''


def test_a_bucket_granted_through_a_local_is_the_claim_check_bucket_of_the_queue(tmp_path):
    """One document grants access to a queue (a reference) and to a bucket's objects (through
    a local): the plan links only the queue, so the bucket holds no queue's payloads; the
    source names the bucket, and it is the queue's claim-check bucket."""
    doc = plan_doc(ORDERS, ("aws_s3_bucket.payloads", {"bucket_prefix": "payloads-"},
                            {"bucket": True, "id": True, "arn": True}, {"bucket_prefix": _const("payloads-")}),
                   _statement_doc("data.aws_iam_policy_document.worker",
                                  _refs("aws_sqs_queue.orders.arn", "aws_sqs_queue.orders", "local.payloads")))
    b = model_of(doc).buckets[0]
    assert b.queues == [] and not b.claim_check
    model = model_of(doc, tmp_path, CLAIM_TF)
    b = model.buckets[0]
    assert b.claim_check and b.queues == [model.queue_by_res["aws_sqs_queue.orders"]]
    worker = model.plan.by_address["data.aws_iam_policy_document.worker"]
    assert [r.address for r in model.resolve.references(worker, "aws_s3_bucket")] == ["aws_s3_bucket.payloads"]
    # and the claim-check rules judge the bucket (it has no lifecycle expiration)
    assert [f for f in evaluate(doc).findings if f.rule_id == "S3004"] == []
    s3004 = [(f.address, f.status) for f in evaluate(doc, source_dir=str(tmp_path)).findings if f.rule_id == "S3004"]
    assert s3004 == [("aws_s3_bucket.payloads", "fail")]


ALIAS_TF = ESM_TF.replace('''resource "aws_lambda_event_source_mapping" "orders" {
  event_source_arn = aws_sqs_queue.orders.arn
  function_name    = local.handler
}''', '''resource "aws_lambda_alias" "live" {
  name             = "live"
  function_name    = local.handler
  function_version = "1"
}

resource "aws_lambda_event_source_mapping" "orders" {
  event_source_arn = aws_sqs_queue.orders.arn
  function_name    = aws_lambda_alias.live.arn
}''')


def _alias_doc(alias_function_expr, alias_function_value=None):
    doc = _esm_doc(function_known=alias_function_value is not None)
    alias = ("aws_lambda_alias.live", {"name": "live", "function_version": "1"}, {"arn": True, "invoke_arn": True},
             {"name": _const("live"), "function_version": _const("1"), "function_name": alias_function_expr})
    if alias_function_value is None:
        alias[2]["function_name"] = True
    else:
        alias[1]["function_name"] = alias_function_value
    extra = plan_doc(alias)
    for key in ("resource_changes",):
        doc[key][2:2] = extra[key]
    doc["planned_values"]["root_module"]["resources"][2:2] = extra["planned_values"]["root_module"]["resources"]
    doc["configuration"]["root_module"]["resources"][2:2] = extra["configuration"]["root_module"]["resources"]
    esm = doc["configuration"]["root_module"]["resources"][3]
    esm["expressions"]["function_name"] = _refs("aws_lambda_alias.live.arn", "aws_lambda_alias.live")
    return doc


def test_an_alias_names_its_function_through_a_local(tmp_path):
    """The mapping invokes an alias whose function_name is a local (the function's name,
    known after apply): the plan leads to the alias and stops; the source names the function."""
    doc = _alias_doc(_refs("local.handler"))
    without = model_of(doc).esms[0]
    assert without.function_link.one is None and "leads to no function" in without.function_link.unknown_reason
    e = model_of(doc, tmp_path, ALIAS_TF).esms[0]
    assert e.function_link.one is not None and e.function_link.one.address == "aws_lambda_function.worker"
    # and the rule sees it: ESM001 could not identify the function, now it compares the timeouts
    esm001 = [f.status for f in evaluate(doc).findings if f.rule_id == "ESM001"]
    assert esm001 == ["unknown"]
    report = evaluate(doc, source_dir=str(tmp_path))
    assert [f for f in report.findings if f.rule_id == "ESM001"] == []
    assert [f.message for f in report.passed if f.rule_id == "ESM001"] == [
        "visibility 30 s >= 6 × 3 s + 0 s = 18 s (function aws_lambda_function.worker, mapping "
        "aws_lambda_event_source_mapping.orders)"]


def test_an_alias_with_a_function_name_the_plan_knows():
    """function_name = "worker" written out: the plan knows it, and it names a function of the plan."""
    e = model_of(_alias_doc(_const("worker"), "worker")).esms[0]
    assert e.function_link.one is not None and e.function_link.one.address == "aws_lambda_function.worker"
    other = model_of(_alias_doc(_const("someone-elses"), "someone-elses")).esms[0]
    assert other.function_link.one is None


TOPIC_TF = '''
locals {
  pager = [aws_sns_topic.oncall.arn]
}

resource "aws_sns_topic" "oncall" {
  name = "oncall"
}

resource "aws_sqs_queue" "orders" {
  name = "orders"
}

resource "aws_cloudwatch_metric_alarm" "depth" {
  alarm_name    = "orders-age"
  namespace     = "AWS/SQS"
  metric_name   = "ApproximateAgeOfOldestMessage"
  threshold     = 300
  dimensions    = { QueueName = aws_sqs_queue.orders.name }
  alarm_actions = local.pager
}
'''


def test_the_topic_an_alarm_notifies_through_a_local_is_in_the_topology(tmp_path):
    """alarm_actions = local.x, the local being a new topic's ARN: the plan shows only the
    local, so the diagram and --changed-only see no topic; the source names it."""
    from resilient_sqs.policy.topology import Edge, edges

    doc = plan_doc(("aws_sns_topic.oncall", {"name": "oncall"}, {"arn": True, "id": True}, {"name": _const("oncall")}),
                   ORDERS,
                   ("aws_cloudwatch_metric_alarm.depth",
                    {"alarm_name": "orders-age", "namespace": "AWS/SQS", "metric_name": "ApproximateAgeOfOldestMessage",
                     "threshold": 300},
                    {"dimensions": True, "alarm_actions": True, "arn": True},
                    {"alarm_name": _const("orders-age"), "namespace": _const("AWS/SQS"),
                     "metric_name": _const("ApproximateAgeOfOldestMessage"), "threshold": _const(300),
                     "dimensions": _refs("aws_sqs_queue.orders.name", "aws_sqs_queue.orders"),
                     "alarm_actions": _refs("local.pager")}))
    watches = Edge("aws_cloudwatch_metric_alarm.depth", "aws_sqs_queue.orders", "watches", "ApproximateAgeOfOldestMessage")
    notifies = Edge("aws_cloudwatch_metric_alarm.depth", "aws_sns_topic.oncall", "notifies")
    assert edges(model_of(doc)) == [watches]
    model = model_of(doc, tmp_path, TOPIC_TF)
    assert edges(model) == [watches, notifies] and model.source.notes == []
    # a topic the plan references directly is linked without the source
    doc["configuration"]["root_module"]["resources"][2]["expressions"]["alarm_actions"] = _refs(
        "aws_sns_topic.oncall.arn", "aws_sns_topic.oncall")
    assert edges(model_of(doc)) == [watches, notifies]


ALLOW_TF = '''
locals {
  allow = ALLOW
}

resource "aws_sqs_queue" "dlq" {
  name                 = "orders-dlq"
  redrive_allow_policy = local.allow
}

resource "aws_sqs_queue" "orders" {
  name = "orders"
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue" "other" {
  name = "other"
}
'''


def _allow_doc():
    ids = {"arn": True, "url": True, "id": True}
    return plan_doc(("aws_sqs_queue.dlq", {"name": "orders-dlq"}, {**ids, "redrive_allow_policy": True},
                     {"name": _const("orders-dlq"), "redrive_allow_policy": _refs("local.allow")}),
                    ("aws_sqs_queue.orders", {"name": "orders"}, {**ids, "redrive_policy": True},
                     {"name": _const("orders"), "redrive_policy": _refs("aws_sqs_queue.dlq.arn", "aws_sqs_queue.dlq")}),
                    ("aws_sqs_queue.other", {"name": "other"}, ids, {"name": _const("other")}))


def _sqs011(doc, source_dir=None):
    report = evaluate(doc, source_dir=source_dir)
    return [(f.status, f.message) for f in report.findings + report.passed if f.rule_id == "SQS011"]


def test_a_redrive_allow_policy_through_a_local_is_not_said_to_miss_its_source(tmp_path):
    """redrive_allow_policy = local.x, known after apply: the plan's references end at the local,
    which says nothing about the queues the policy names. It used to be reported as not leading
    to the DLQ's source; it is unknown, and the source decides it."""
    doc = _allow_doc()
    assert _sqs011(doc) == [
        ("unknown", "the redrive-allow policy is only known after apply and goes through something the plan does "
                    "not describe (a local value), so whether it names aws_sqs_queue.orders is not known: run with "
                    "--source-dir to judge it")]
    # the source says the policy names another queue: SQS will refuse the source's failures
    (tmp_path / "other").mkdir()
    tf = ALLOW_TF.replace("ALLOW", 'jsonencode({ redrivePermission = "byQueue", sourceQueueArns = '
                                   "[aws_sqs_queue.other.arn] })")
    (tmp_path / "other" / "main.tf").write_text(tf)
    got = _sqs011(doc, str(tmp_path / "other"))
    assert [s for s, _ in got] == ["fail"] and "does not name its source(s) aws_sqs_queue.orders" in got[0][1]
    # the source has the expression, not its value: the ARN inside a jsonencode interpolated into JSON text
    # is not read, so nothing is said about the queues it names
    (tmp_path / "heredoc").mkdir()
    tf = ALLOW_TF.replace("ALLOW", '<<-EOT\n    {"redrivePermission": "byQueue", "sourceQueueArns": '
                                   "${jsonencode([aws_sqs_queue.orders.arn])}}\n  EOT")
    (tmp_path / "heredoc" / "main.tf").write_text(tf)
    line = tf.splitlines().index("  redrive_allow_policy = local.allow") + 1
    assert _sqs011(doc, str(tmp_path / "heredoc")) == [
        ("unknown", "the redrive-allow policy is only known after apply: a JSON text with a value known only after "
                    "apply outside a string (jsonencode of a value known only after apply (the ARN of "
                    f"aws_sqs_queue.orders, known after apply)) (from main.tf:{line})")]


def test_linked_all_says_whether_a_missing_resource_is_not_part_of_the_value(tmp_path):
    doc = _allow_doc()
    plan = Plan(doc)
    dlq, orders = plan.by_address["aws_sqs_queue.dlq"], plan.by_address["aws_sqs_queue.orders"]
    assert Resolver(plan).value(orders, "redrive_policy").linked_all  # the plan's references are all of it
    assert not Resolver(plan).value(dlq, "redrive_allow_policy").linked_all  # through a local, no source
    for allow, whole in (("{ arns = [aws_sqs_queue.other.arn] }", True),
                         ("{ arns = [aws_sqs_queue.other.redrive_allow_policy] }", False)):
        d = tmp_path / str(whole)
        d.mkdir()
        (d / "main.tf").write_text(ALLOW_TF.replace("ALLOW", f"jsonencode({allow})"))
        model = Model(plan, Source(plan, d))
        got = model.resolve.value(dlq, "redrive_allow_policy")
        assert [r.address for r in got.linked()] == ["aws_sqs_queue.other"]
        assert got.linked_all is whole  # another queue's policy may name anything


def test_jsondecode_of_text_that_is_not_json_fails_the_expression(tmp_path):
    """As Terraform fails the plan: the value is unknown with the reason, not a source that
    could not be read; try() falls back from it."""
    tf = '''
resource "aws_sqs_queue" "orders" {
  name   = "orders"
  policy = jsonencode(jsondecode("{"))
}

resource "aws_sqs_queue" "fallback" {
  name   = "fallback"
  policy = jsonencode(try(jsondecode("{"), { Version = "2012-10-17" }))
}
'''
    fallback = '{"Version":"2012-10-17"}'
    doc = plan_doc(("aws_sqs_queue.orders", {"name": "orders"}, {"policy": True, "arn": True},
                    {"name": _const("orders"), "policy": {}}),
                   ("aws_sqs_queue.fallback", {"name": "fallback", "policy": fallback}, {"arn": True},
                    {"name": _const("fallback"), "policy": {}}))
    model = model_of(doc, tmp_path, tf)
    got = model.source.value(model.plan.by_address["aws_sqs_queue.orders"], "policy")
    assert got.value.why == ("the expression fails (jsondecode: not valid JSON (Expecting property name enclosed in "
                             "double quotes: line 1 column 2 (char 1)))")
    got = model.source.value(model.plan.by_address["aws_sqs_queue.fallback"], "policy")
    assert got.value == fallback
    assert model.source.notes == []


@pytest.mark.parametrize("call, reason", [
    ("max()", "max: "),
    ("min()", "min: "),
    ("lower(5)", "lower: "),
    ("upper(true)", "upper: "),
    ("split(\",\", 5)", "split: "),
])
def test_a_function_given_arguments_it_cannot_take_fails_the_expression(tmp_path, call, reason):
    """Terraform fails the plan when a function cannot take its arguments: the value is
    unknown with 'the expression fails (<function>: ...)', try() falls back from it, and the
    source is never noted as unreadable (that note is for the checker's own faults)."""
    tf = f'''
resource "aws_sqs_queue" "orders" {{
  name   = "orders"
  policy = jsonencode({{ Id = {call} }})
}}

resource "aws_sqs_queue" "fallback" {{
  name   = "fallback"
  policy = jsonencode({{ Id = try({call}, "fallback") }})
}}
'''
    fallback = '{"Id":"fallback"}'
    doc = plan_doc(("aws_sqs_queue.orders", {"name": "orders"}, {"policy": True, "arn": True},
                    {"name": _const("orders"), "policy": {}}),
                   ("aws_sqs_queue.fallback", {"name": "fallback", "policy": fallback}, {"arn": True},
                    {"name": _const("fallback"), "policy": {}}))
    model = model_of(doc, tmp_path, tf)
    got = model.source.value(model.plan.by_address["aws_sqs_queue.orders"], "policy")
    assert got.value.why.startswith(f"the expression fails ({reason}"), got.value.why
    got = model.source.value(model.plan.by_address["aws_sqs_queue.fallback"], "policy")
    assert got.value == fallback
    assert model.source.notes == []


@pytest.mark.parametrize("call, reason", [
    ("concat()", "concat: takes at least 1 argument, got 0"),
    ("coalesce()", "coalesce: takes at least 1 argument, got 0"),
    ("join(\",\")", "join: takes at least 2 arguments, got 1"),
    ("lookup({ a = \"x\" }, \"a\", \"d\", \"e\")", "lookup: takes 2 to 3 arguments, got 4"),
    ("lower(\"A\", \"B\")", "lower: takes exactly 1 argument, got 2"),
    # Terraform counts the arguments before it looks at them: an unknown one fails too
    ("lower(aws_sqs_queue.dlq.arn, \"B\")", "lower: takes exactly 1 argument, got 2"),
    ("upper()", "upper: takes exactly 1 argument, got 0"),
    ("join([\",\"]...)", "join: takes at least 2 arguments, got 1 (with the list expanded by ...)"),
])
def test_a_function_given_the_wrong_number_of_arguments_fails_the_expression(tmp_path, call, reason):
    """Every library function declares Terraform's arity (functions.ARITY) and the evaluator
    checks it before calling: a call with too few or too many arguments fails the
    expression (as Terraform fails the plan) instead of returning a value or an unknown
    one; try() falls back from it."""
    tf = f'''
resource "aws_sqs_queue" "orders" {{
  name   = "orders"
  policy = jsonencode({{ Id = {call} }})
}}

resource "aws_sqs_queue" "fallback" {{
  name   = "fallback"
  policy = jsonencode({{ Id = try({call}, "fallback") }})
}}

resource "aws_sqs_queue" "dlq" {{
  name = "dlq"
}}
'''
    fallback = '{"Id":"fallback"}'
    policy = _refs("aws_sqs_queue.dlq.arn", "aws_sqs_queue.dlq") if "dlq" in call else {}
    doc = plan_doc(("aws_sqs_queue.orders", {"name": "orders"}, {"policy": True, "arn": True},
                    {"name": _const("orders"), "policy": policy}),
                   ("aws_sqs_queue.fallback", {"name": "fallback", "policy": fallback}, {"arn": True},
                    {"name": _const("fallback"), "policy": policy}),
                   ("aws_sqs_queue.dlq", {"name": "dlq"}, {"arn": True}, {"name": _const("dlq")}))
    model = model_of(doc, tmp_path, tf)
    got = model.source.value(model.plan.by_address["aws_sqs_queue.orders"], "policy")
    assert got.value.why.startswith(f"the expression fails ({reason}"), got.value
    got = model.source.value(model.plan.by_address["aws_sqs_queue.fallback"], "policy")
    assert got.value == fallback
    assert model.source.notes == []


@pytest.mark.parametrize("expr,needle", [
    ('format("%0999999999d", 1)', "format() pads to 999,999,999 characters"),
    ('join("", [local.mib, local.mib])', "join(): its arguments hold over"),
    ('"${local.mib}${local.mib}"', "a string over 1,048,576 characters"),
    ('length(split(",", local.commas))', "split(): it gives over"),
])
def test_an_expression_over_the_memory_budget_stays_unknown_with_a_note(tmp_path, expr, needle):
    """Terraform-cheap expressions that would build gigabytes (issue #30 §5): a value over the
    budget of one value (1 MiB of text, 100,000 elements) stays unknown, with a note naming
    it, and try() does not take it for a failure. The large locals are built by expressions,
    not written out, so that the source stays within the parse-token budget (a quoted
    string's characters count toward it)."""
    tf = f'''
locals {{
  mib    = format("%0700000d", 0)
  commas = replace(format("%0150000d", 0), "0", ",")
}}

resource "aws_sqs_queue" "orders" {{
  name   = "orders"
  policy = jsonencode({{ Id = try({expr}, "fallback") }})
}}
'''
    refs = [r for r in ("local.mib", "local.commas") if r in expr]
    doc = plan_doc(("aws_sqs_queue.orders", {"name": "orders"}, {"policy": True, "arn": True},
                    {"name": _const("orders"), "policy": _refs(*refs) if refs else {}}))
    model = model_of(doc, tmp_path, tf)
    got = model.source.value(model.plan.by_address["aws_sqs_queue.orders"], "policy")
    assert got is None or "fallback" not in str(got.value)  # the plan's value (unknown) stands
    assert any(needle in n and "aws_sqs_queue.orders.policy" in n for n in model.source.notes), model.source.notes


def test_distinct_is_terraforms_and_linear():
    from resilient_sqs.policy.source.functions import FUNCTIONS

    assert FUNCTIONS["distinct"]([1, "1", 1.0, True, [1], [1], {"a": 1}, {"a": 1}, None, None]) == [
        1, "1", True, [1], {"a": 1}, None]
    assert FUNCTIONS["distinct"](list(range(50_000)) * 2) == list(range(50_000))
