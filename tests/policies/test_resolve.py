"""The resolver (policies/resolve.py) on small in-memory plans: the chain known value ->
plan references -> configuration source -> unknown with a reason, and the links that the
configuration source now decides where the plan leaves the value unknown. No Terraform:
each plan is a dictionary written here, beside the .tf files it was "made" from."""
from __future__ import annotations

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
    assert orders.dlq is model.queue_by_res["aws_sqs_queue.dlq"] and orders.max_receive_count == 5


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
