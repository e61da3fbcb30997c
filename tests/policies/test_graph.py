"""Links resolved through the configuration's references, on real plans."""
from __future__ import annotations

import json

import pytest

from resilient_sqs.policy.graph import UNKNOWN, Index, Plan, parse_module_address, parse_traversal, reduce_refs
from resilient_sqs.policy.model import Model, lambda_function_name, parse_sqs_arn, parse_sqs_url



def test_address_and_traversal_parsing():
    assert parse_module_address('module.a["x.y\\"]z"].module.b[3].module.c') == (("a", 'x.y"]z'), ("b", 3), ("c", None))
    assert parse_module_address("") == ()
    assert parse_traversal('aws_sqs_queue.dlq["a.b"].arn') == ("aws_sqs_queue", "dlq", Index("a.b"), "arn")
    assert parse_traversal("module.q[0].queue_arn") == ("module", "q", Index(0), "queue_arn")
    assert reduce_refs(["aws_sqs_queue.dlq.arn", "aws_sqs_queue.dlq", "each.key", "path.module"]) == ["aws_sqs_queue.dlq.arn"]


def test_arn_url_and_function_name_parsing():
    assert parse_sqs_arn("arn:aws:sqs:eu-west-1:123456789012:q.fifo") == ("eu-west-1", "123456789012", "q.fifo")
    assert parse_sqs_arn("arn:aws:sns:eu-west-1:1:t") is None
    assert parse_sqs_url("https://sqs.eu-west-1.amazonaws.com/123456789012/q") == ("eu-west-1", "123456789012", "q")
    assert parse_sqs_url("http://localhost:4566/000000000000/q")[1:] == ("000000000000", "q")
    for ref in ("fn", "fn:live", "123456789012:function:fn", "arn:aws:lambda:us-east-1:123456789012:function:fn:3"):
        assert lambda_function_name(ref) == "fn", ref


def test_module_redrive_link_through_known_arn(plan_doc):
    """Our module: the source's redrive policy names the DLQ by its ARN built at plan
    time, so the policy is known and the link comes from the value itself."""
    plan = Plan(plan_doc("example:many-queues"))
    model = Model(plan)
    src = next(q for q in model.queues if q.address.endswith('["plantest-orders"].aws_sqs_queue.this'))
    assert json.loads(src.res.attr("redrive_policy")) == {
        "deadLetterTargetArn": "arn:aws:sqs:us-east-1:123456789012:plantest-orders-dlq", "maxReceiveCount": 4}
    assert src.redrive.max_receive_count == 4
    assert src.dlq.address == 'module.messaging.module.queue["plantest-orders"].aws_sqs_queue.dlq[0]'
    # the DLQ's redrive-allow policy is known and names the source by its built ARN
    assert src.dlq.allow_value()["sourceQueueArns"] == ["arn:aws:sqs:us-east-1:123456789012:plantest-orders"]
    assert [s.address for s in src.dlq.sources] == [src.address]


def test_redrive_link_through_references_when_the_policy_is_unknown(plan_doc):
    """Stacks whose redrive policy references the DLQ's real ARN (unknown until
    apply): the link follows the configuration's references, through for_each
    keys and through a module instantiated with for_each."""
    model = Model(Plan(plan_doc("config:redrive-links")))
    q = {x.address: x for x in model.queues}
    for src, dlq in [('aws_sqs_queue.keyed["a"]', 'aws_sqs_queue.keyed_dlq["a"]'),
                     ('aws_sqs_queue.keyed["b"]', 'aws_sqs_queue.keyed_dlq["b"]'),
                     ('module.pair["x"].aws_sqs_queue.this', 'module.pair["x"].aws_sqs_queue.dlq'),
                     ('module.pair["y"].aws_sqs_queue.this', 'module.pair["y"].aws_sqs_queue.dlq')]:
        assert q[src].res.attr("redrive_policy") is UNKNOWN, src
        assert q[src].redrive.max_receive_count is UNKNOWN, src
        assert q[src].dlq is q[dlq], src
        assert q[dlq].sources == [q[src]], dlq


def test_esm_to_queue_through_module_output_for_expression(plan_doc):
    """`module.messaging.queue_arns[each.key]`: the plan keeps only the output's name; the
    output is a for expression over module.queue (`m.queue.arn`: the object output whose name
    `queue_arns` starts with); the key comes from the mapping's own."""
    model = Model(Plan(plan_doc("config:bench")))
    for e in model.esms:
        key = e.res.index
        assert e.queue_link.one.address == f'module.messaging.module.queue["{key}"].aws_sqs_queue.this'
        assert e.function_link.one.address == f'aws_lambda_function.consumer["{key}"]'


def test_esm_in_another_module_through_module_variable(plan_doc):
    """module.consumer[k] gets `queue_arn = module.queue[each.key].queue.arn`: the plan keeps
    `module.queue` and `each.key`; the variable's name picks the output (`queue_arn`: the
    object output `queue`, not `dlq`)."""
    model = Model(Plan(plan_doc("config:consumers")))
    esm = next(e for e in model.esms if e.address == 'module.consumer["slow"].aws_lambda_event_source_mapping.this')
    assert esm.queue_link.one.address == 'module.queue["slow"].aws_sqs_queue.this'
    assert esm.function_link.one.address == 'module.consumer["slow"].aws_lambda_function.this'
    ext = next(e for e in model.esms if e.address == "aws_lambda_event_source_mapping.external")
    assert ext.function_link.external == "existing-function"


def test_separate_resources_attach_to_their_queue(plan_doc):
    model = Model(Plan(plan_doc("config:redrive-links")))
    q = {x.address: x for x in model.queues}
    sep, sep_dlq = q["aws_sqs_queue.sep"], q["aws_sqs_queue.sep_dlq"]
    assert sep.redrive_res.address == "aws_sqs_queue_redrive_policy.sep" and sep.dlq is sep_dlq
    assert sep_dlq.allow_res.address == "aws_sqs_queue_redrive_allow_policy.sep_dlq"
    assert [r.address for r, _ in sep.policy_sources if r.type == "aws_sqs_queue_policy"] == ['aws_sqs_queue_policy.sep["sep"]']
    assert q["aws_sqs_queue.literal"].dlq is q["aws_sqs_queue.literal_dlq"]  # literal ARN of a planned queue
    assert q["aws_sqs_queue.uses_existing"].redrive.link.external == "arn:aws:sqs:us-east-1:123456789012:shared-dlq"


def test_null_and_unknown_computed_attributes_are_told_apart(plan_doc):
    plan = Plan(plan_doc("config:queue-bad"))
    defaults = plan.by_address["aws_sqs_queue.defaults"]
    # not configured: the provider computes it, AWS applies its default
    assert defaults.unknown["sqs_managed_sse_enabled"] is True and defaults.attr("sqs_managed_sse_enabled") is None
    # configured from a DLQ ARN created by the same apply: unknown
    assert defaults.attr("redrive_policy") is UNKNOWN
    # configured from a for_each variable: known now
    assert plan.by_address['aws_sqs_queue.src["nosse"]'].attr("sqs_managed_sse_enabled") is False


def test_claim_check_bucket_linked_by_policy_document(plan_doc):
    model = Model(Plan(plan_doc("config:claim-check-bad")))
    b = {x.address: x for x in model.buckets}
    assert b["aws_s3_bucket.payloads"].claim_check
    assert [q.address for q in b["aws_s3_bucket.payloads"].queues] == ["module.jobs.aws_sqs_queue.this"]
    assert not b["aws_s3_bucket.logs"].claim_check


@pytest.mark.parametrize("subject", ["config:raw-good", "config:queue-bad", "config:consumers",
                                     "config:redrive-links", "config:claim-check-bad", "example:many-queues",
                                     "example:complete"])
def test_rules_survive_every_attribute_being_unknown(plan_doc, subject):
    """Make every attribute of every resource unknown until apply: no rule may crash on
    a value it cannot see (UNKNOWN refuses to be used as a truth value), and the engine
    reports what it cannot decide."""
    import copy

    from resilient_sqs.policy.engine import evaluate

    doc = copy.deepcopy(plan_doc(subject))
    changes = {rc["address"]: rc for rc in doc.get("resource_changes", [])}
    stack = [doc["planned_values"]["root_module"]]
    n = 0
    while stack:
        m = stack.pop()
        stack.extend(m.get("child_modules") or ())
        for r in m.get("resources") or ():
            rc = changes.get(r["address"])
            if rc is None or not isinstance(rc["change"].get("after_unknown"), dict):
                continue
            for k in list(r.get("values") or {}):
                if k in ("name", "bucket", "function_name"):
                    continue  # identities stay known so that rules still find their subjects
                del r["values"][k]
                rc["change"]["after_unknown"][k] = True
                n += 1
    assert n > 20
    report = evaluate(doc)
    assert any(f.status == "unknown" for f in report.findings)
    from resilient_sqs.policy.formats import Context, render

    assert json.loads(render("json", Context(report, doc, "plan.json", ".")))["summary"]["unknown"] > 0
    assert json.loads(render("sarif", Context(report, doc, "plan.json", ".")))["runs"][0]["results"]
