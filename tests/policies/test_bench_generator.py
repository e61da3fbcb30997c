"""The benchmark's synthetic plans have exactly the shape Terraform emits."""
from __future__ import annotations

from collections import Counter


from tooling import bench_policy as bench
from resilient_sqs.policy.engine import evaluate



def test_generator_reproduces_a_real_plan(plan_doc):
    template, real3 = plan_doc("config:bench"), plan_doc("bench:3")
    assert template["variables"]["pairs"]["value"] == 2
    synth3 = bench.synthetic_plan(template, 3)
    assert bench.canonical(synth3) == bench.canonical(real3)
    # and the comparison is not vacuous: a wrong key count or a changed value shows
    assert bench.canonical(bench.synthetic_plan(template, 4)) != bench.canonical(real3)
    broken = bench.synthetic_plan(template, 3)
    broken["resource_changes"][0]["change"]["actions"] = ["delete"]
    assert bench.canonical(broken) != bench.canonical(real3)


# What each pair of the benchmark's template passes: the rules of its source queue
# and DLQ, of its mapping (a standard queue: no FIFO rule), and IAM001/IAM002 on
# three documents (the two queue policies, and the consumer document the root
# module outputs, attached to the function's role)
PER_PAIR = Counter({
    "SQS001": 2, "SQS002": 1, "SQS003": 1, "SQS004": 1, "SQS005": 1, "SQS006": 1, "SQS007": 2, "SQS008": 1,
    "SQS009": 2, "SQS010": 2, "SQS011": 1, "SQS012": 1, "ESM001": 1, "ESM002": 1, "ESM003": 1, "ESM005": 1, "CW001": 1,
    "CW002": 1,
    "IAM001": 3, "IAM002": 3,
})
# once per plan: the policy document of the alarm topic the root module creates
PER_PLAN = Counter({"IAM001": 1, "IAM002": 1})


def _passed(report) -> Counter:
    return Counter(f.rule_id for f in report.passed)


def test_generated_plans_evaluate_linearly(plan_doc):
    template = plan_doc("config:bench")
    # the generator's plan evaluates exactly like Terraform's own plan of 3 pairs
    real3 = evaluate(plan_doc("bench:3"))
    assert real3.counts() == evaluate(bench.synthetic_plan(template, 3)).counts()
    assert _passed(real3) == Counter({r: 3 * k for r, k in PER_PAIR.items()}) + PER_PLAN
    for n in (3, 25):
        report = evaluate(bench.synthetic_plan(template, n))
        c = report.counts()
        # every rule passes: the redrive policy (maxReceiveCount, DLQ) is known at plan time
        assert (c["errors"], c["warnings"], c["unknown"]) == (0, 0, 0), [(f.rule_id, f.address) for f in report.findings]
        assert _passed(report) == Counter({r: n * k for r, k in PER_PAIR.items()}) + PER_PLAN
        assert c["passed"] == sum(PER_PAIR.values()) * n + sum(PER_PLAN.values())
