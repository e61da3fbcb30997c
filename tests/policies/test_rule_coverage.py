"""Every rule of the catalog passes and fails somewhere in the real fixture plans,
and every rule is documented (list-rules, explain, README)."""
from __future__ import annotations

from collections import Counter

import pytest

from resilient_sqs.policy.config import Config
from resilient_sqs.policy.engine import evaluate
from resilient_sqs.policy.rules import RULES
from tests.support.helpers import REPO_ROOT
from tests.policies import fixture_plans, plans



@pytest.fixture(scope="module")
def outcomes(plan_doc):
    c: Counter = Counter()
    for name in plans.subjects():
        report = evaluate(plan_doc(name))
        for f in report.passed + report.findings:
            c[(f.rule_id, f.status)] += 1
    # the change rules on the update plans (real prior state; tests/policies/test_change_rules.py)
    only_change = Config(enabled={rid: rid.startswith("CHG") for rid in RULES})
    for name in fixture_plans.update_plan_names():
        report = evaluate(fixture_plans.update_plan(name), only_change)
        for f in report.passed + report.findings:
            c[(f.rule_id, f.status)] += 1
    return c


@pytest.mark.parametrize("rule_id", list(RULES))
def test_rule_has_a_passing_and_a_failing_case(outcomes, rule_id):
    assert outcomes[(rule_id, "pass")] >= 1, f"{rule_id}: no fixture passes it"
    assert outcomes[(rule_id, "fail")] >= 1, f"{rule_id}: no fixture fails it"


def test_catalog_shape():
    # (that each rule has sources, known ones, is asserted by the @rule decorator when the catalog is
    # imported; that each has a check that runs is test_rule_has_a_passing_and_a_failing_case's)
    slugs = [r.slug for r in RULES.values()]
    assert len(set(slugs)) == len(slugs)
    for r in RULES.values():
        assert r.severity in ("error", "warning"), r.id
        assert r.why and r.remediation, r.id


def test_readme_documents_every_rule():
    text = (REPO_ROOT / "docs" / "policy.md").read_text()  # the rule table the README links to
    missing = [r.id for r in RULES.values() if f"`{r.id}`" not in text]
    assert missing == [], f"docs/policy.md's rule table lacks {missing}"
