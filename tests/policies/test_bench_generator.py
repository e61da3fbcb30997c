"""The benchmark's synthetic plans have exactly the shape Terraform emits."""
from __future__ import annotations

import pytest

from policies import bench
from policies.engine import evaluate

pytestmark = pytest.mark.plan


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


def test_generated_plans_evaluate_linearly(plan_doc):
    template = plan_doc("config:bench")
    for n in (3, 25):
        report = evaluate(bench.synthetic_plan(template, n))
        c = report.counts()
        # every pair: all rules pass except maxReceiveCount (unknown in the module's redrive policy)
        assert (c["errors"], c["warnings"], c["unknown"]) == (0, 0, n)
        assert c["passed"] == 23 * n
