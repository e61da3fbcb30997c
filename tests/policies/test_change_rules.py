"""Change rules (CHG*) on real update plans: each scenario of tests/policies/updates was
applied on LocalStack and its change planned against the same LocalStack (the fixtures
under tests/policies/plans/update/, checked against their inputs first). Each gives
exactly the expected change findings; the safe changes give none; a first apply gives
no change finding at all."""
from __future__ import annotations

import functools
import json
import subprocess
import sys

import pytest

from resilient_sqs.policy.config import Config, load_config
from resilient_sqs.policy.engine import evaluate
from resilient_sqs.policy.rules import RULES
from tests.policies import fixture_plans, plans
from tooling import update_plans

E, W = "error", "warning"
FAIL, UNK = "fail", "unknown"
CHG = [r for r in RULES if r.startswith("CHG")]



def Q(key: str) -> str:
    return f'module.messaging.module.queue["{key}"]'


# (rule, status, severity, address) of every change finding that is not a pass
EXPECTED: dict[str, set] = {
    # -- raw resources
    "raw-queue-rename": {("CHG001", FAIL, E, "aws_sqs_queue.events")},
    "raw-queue-to-fifo": {("CHG001", FAIL, E, "aws_sqs_queue.dlq"), ("CHG001", FAIL, E, "aws_sqs_queue.jobs")},
    "raw-dlq-removed": {("CHG002", FAIL, E, "aws_sqs_queue.jobs_dlq")},
    "raw-pair-retired": {("CHG003", FAIL, E, "aws_sqs_queue.jobs"), ("CHG003", FAIL, E, "aws_sqs_queue.jobs_dlq")},
    "raw-moved-without-block": {("CHG004", FAIL, E, "aws_sqs_queue.jobs"), ("CHG004", FAIL, E, "aws_sqs_queue.jobs_dlq")},
    "raw-moved-with-block": set(),
    "raw-table-replaced": {("CHG005", FAIL, E, "aws_dynamodb_table.idempotency")},
    "raw-bucket-replaced": {("CHG006", FAIL, E, "aws_s3_bucket.payloads")},
    "raw-expiry-shortened": {("CHG007", FAIL, E, "aws_s3_bucket.payloads")},
    "raw-expiry-lengthened": set(),
    "raw-bucket-protection-removed": {("CHG008", FAIL, W, "aws_s3_bucket.payloads")},
    "raw-retention-lowered": {("CHG009", FAIL, E, "aws_sqs_queue.jobs_dlq"), ("CHG009", FAIL, W, "aws_sqs_queue.jobs")},
    "raw-kms-key-deleted": {("CHG010", FAIL, E, "aws_kms_key.orders[0]"), ("CHG010", FAIL, E, "aws_kms_key.billing")},
    "raw-consumer-removed": {("CHG011", FAIL, W, "aws_lambda_event_source_mapping.orders"),
                             ("CHG011", FAIL, W, "aws_lambda_event_source_mapping.billing")},
    "raw-alarm-topic-renamed": {("CHG012", FAIL, E, "aws_sns_topic.oncall")},
    # a subscription removed from a consumed queue (error), a target from an unconsumed one
    # (warning), a queue policy that stops admitting a topic still subscribed
    "raw-producers-changed": {("CHG014", FAIL, E, "aws_sns_topic_subscription.orders"),
                              ("CHG014", FAIL, W, "aws_cloudwatch_event_target.jobs"),
                              ("CHG015", FAIL, E, "aws_sns_topic_subscription.audit")},
    # payload buckets tied to the queue by name only: nothing without claim_check_buckets
    # (test_claim_check_buckets_by_name_reach_the_change_rules)
    "raw-claim-check-by-name": set(),
    "raw-safe-changes": set(),
    "raw-alarms-added": set(),
    # every rule of the catalog on update plans (tests/policies/test_update_rules.py)
    "rules-raw-pass": set(),
    "rules-raw-fail": {("CHG001", FAIL, E, "module.stack.aws_sqs_queue.f_dlq"),
                       ("CHG005", FAIL, E, "module.stack.aws_dynamodb_table.idempotency"),
                       ("CHG007", FAIL, E, "module.stack.aws_s3_bucket.payloads"),
                       ("CHG009", FAIL, E, "module.stack.aws_sqs_queue.b_dlq"),
                       ("CHG009", FAIL, W, "module.stack.aws_sqs_queue.b")},
    "rules-module-pass": set(),
    # -- this project's module
    "module-queue-fifo-switch": {("CHG001", FAIL, E, f'{Q("orders")}.aws_sqs_queue.this'),
                                 ("CHG001", FAIL, E, f'{Q("orders")}.aws_sqs_queue.dlq[0]')},
    "module-dlq-renamed": {("CHG001", FAIL, E, f'{Q("orders")}.aws_sqs_queue.dlq[0]')},
    "module-queue-key-renamed": {("CHG004", FAIL, E, f'{Q("orders")}.aws_sqs_queue.this'),
                                 ("CHG004", FAIL, E, f'{Q("orders")}.aws_sqs_queue.dlq[0]')},
    "module-queue-key-renamed-moved": set(),
    # the queue's block alone: every other resource of the key is deleted and created again
    "module-queue-key-renamed-queue-only": {
        ("CHG013", FAIL, E, f'module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.{kind}["orders"]')
        for kind in ("dlq_depth", "dlq_influx", "dlq_stale", "age_warning", "age_critical", "backlog")
    } | {("CHG013", FAIL, E, f'module.messaging.module.iam["orders"].aws_iam_policy.this["{role}"]')
         for role in ("producer", "consumer", "redrive-operator")}
      | {("CHG013", FAIL, E, 'module.messaging.module.consumer["orders"].aws_lambda_event_source_mapping.this')},
    "module-queue-removed": {("CHG003", FAIL, E, f'{Q("payments")}.aws_sqs_queue.this'),
                             ("CHG003", FAIL, E, f'{Q("payments")}.aws_sqs_queue.dlq[0]')},
    "module-table-sort-key": {("CHG005", FAIL, E, "module.messaging.module.idempotency_table[0].aws_dynamodb_table.this")},
    "module-bucket-renamed": {("CHG006", FAIL, E, "module.messaging.module.claim_check_bucket[0].aws_s3_bucket.this")},
    "module-claim-check-disabled": {("CHG006", FAIL, E, "module.messaging.module.claim_check_bucket[0].aws_s3_bucket.this")},
    # the derived payload expiry follows the DLQ retention down (14 d -> 5 d): not a CHG007 finding
    "module-retention-lowered": {("CHG009", FAIL, E, f'{Q("orders")}.aws_sqs_queue.dlq[0]')},
    "module-consumer-removed": {("CHG011", FAIL, W, 'module.messaging.module.consumer["orders"].aws_lambda_event_source_mapping.this')},
    "module-safe-changes": set(),
    # -- terraform-aws-modules/sqs v4.3.1
    "tam-rename": {("CHG001", FAIL, E, "module.orders.aws_sqs_queue.this[0]"), ("CHG001", FAIL, E, "module.orders.aws_sqs_queue.dlq[0]")},
    "tam-dlq-disabled": {("CHG002", FAIL, E, "module.orders.aws_sqs_queue.dlq[0]")},
    "tam-for-each-key-renamed": {("CHG004", FAIL, E, 'module.queues["orders"].aws_sqs_queue.this[0]'),
                                 ("CHG004", FAIL, E, 'module.queues["orders"].aws_sqs_queue.dlq[0]')},
    "tam-retention-lowered": {("CHG009", FAIL, E, "module.orders.aws_sqs_queue.dlq[0]")},
    "tam-safe-changes": set(),
}

# changes that must not be flagged, and the plan actions that show they are real changes
SAFE = {
    "raw-safe-changes": {"create", "update"},
    "raw-alarms-added": {"create"},
    "raw-moved-with-block": {"moved"},
    "raw-expiry-lengthened": {"update"},
    "module-queue-key-renamed-moved": {"moved"},
    "module-safe-changes": {"create", "update"},
    "tam-safe-changes": {"update"},
}

ONLY_CHG = Config(enabled={rid: rid in CHG for rid in RULES})


@functools.cache
def _update_plan(name: str) -> dict:
    try:
        return fixture_plans.update_plan(name)
    except fixture_plans.StaleFixture as e:
        stale = str(e)
    pytest.fail(stale, pytrace=False)


@functools.cache
def _report(name: str):
    return evaluate(_update_plan(name), ONLY_CHG)


def _got(report) -> set:
    return {(f.rule_id, f.status, f.severity, f.address) for f in report.findings}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_update_plan_gives_exactly_the_expected_change_findings(name):
    got = _got(_report(name))
    assert got == EXPECTED[name], f"unexpected: {sorted(got - EXPECTED[name])}; missing: {sorted(EXPECTED[name] - got)}"


def test_every_scenario_has_expectations():
    assert set(EXPECTED) == {s.name for s in update_plans.scenarios()}


@pytest.mark.parametrize("name", sorted(SAFE))
def test_safe_changes_are_real_changes_and_not_flagged(name):
    doc = _update_plan(name)
    seen = set()
    for rc in doc["resource_changes"]:
        seen.update(a for a in rc["change"]["actions"] if a != "no-op")
        if rc.get("previous_address"):
            seen.add("moved")
    assert SAFE[name] <= seen, f"{name}: the plan shows {sorted(seen)}"
    report = _report(name)
    assert report.findings == []
    assert report.pass_count > 0  # the kept resources were judged, not skipped


@pytest.mark.parametrize("rule_id", CHG)
def test_each_change_rule_fails_and_passes_on_real_update_plans(rule_id):
    outcomes = set()
    for name in EXPECTED:
        report = _report(name)
        outcomes |= {f.status for f in report.findings + report.passed if f.rule_id == rule_id}
    assert {"fail", "pass"} <= outcomes, f"{rule_id}: outcomes {outcomes}"


def test_first_apply_plans_have_no_change_findings(plan_doc):
    for name in plans.subjects():
        report = evaluate(plan_doc(name), ONLY_CHG)
        assert report.findings == [] and report.pass_count == 0, name


@pytest.mark.parametrize("name, rule_id, fragments", [
    ("raw-queue-to-fifo", "CHG001", ['fifo_queue: false -> true', 'name: "raw-queue-to-fifo-jobs" -> "raw-queue-to-fifo-jobs.fifo"']),
    ("raw-dlq-removed", "CHG002", ["its source aws_sqs_queue.jobs stays", "dead letters"]),
    ("raw-moved-without-block", "CHG004", ["at aws_sqs_queue.work"]),
    ("raw-table-replaced", "CHG005", ['range_key: null -> "sk"', "deletion protection is on"]),
    ("raw-expiry-shortened", "CHG007", ["from 20 d to 7 d", "14 d", "redriven after day 7"]),
    ("raw-retention-lowered", "CHG009", ["1209600 s (14 d) to 604800 s (7 d)", "up to 7 d of dead letters"]),
    ("raw-kms-key-deleted", "CHG010", ["deletes it after 7 days", "aws_sqs_queue.orders (its messages; it switches key"]),
    ("module-retention-lowered", "CHG009", ["to 432000 s (5 d)", "up to 9 d of dead letters"]),
    ("tam-rename", "CHG001", ['name: "tam-rename-orders-dlq" -> "tam-rename-orders-v2-dlq"']),
])
def test_messages_name_the_cause_and_the_amount(name, rule_id, fragments):
    msgs = " | ".join(f.message for f in _report(name).findings if f.rule_id == rule_id)
    for frag in fragments:
        assert frag in msgs, f"{frag!r} not in {msgs!r}"


def test_fix_for_a_resource_left_behind_names_its_moved_block():
    fixes = {f.address: f.remediation for f in _report("module-queue-key-renamed-queue-only").findings}
    assert fixes['module.messaging.module.iam["orders"].aws_iam_policy.this["producer"]'] == (
        'Add: moved { from = module.messaging.module.iam["orders"]  to = module.messaging.module.iam["orders_v2"] } '
        "(the module instance, every resource in it)")
    alarm = 'module.messaging.module.alarms[0].aws_cloudwatch_metric_alarm.dlq_depth'
    assert fixes[f'{alarm}["orders"]'] == f'Add: moved {{ from = {alarm}["orders"]  to = {alarm}["orders_v2"] }} (the resource)'
    msgs = {f.address: f.message for f in _report("module-queue-key-renamed-queue-only").findings}
    assert (f"aws_iam_policy 'module-queue-key-renamed-queue-only-orders-producer' is deleted here and created again at "
            f'module.messaging.module.iam["orders_v2"].aws_iam_policy.this["producer"], while queue {Q("orders")}.aws_sqs_queue.this '
            f'moves to {Q("orders_v2")}.aws_sqs_queue.this') in msgs['module.messaging.module.iam["orders"].aws_iam_policy.this["producer"]']


def test_fix_for_a_move_names_the_moved_block():
    f = next(f for f in _report("raw-moved-without-block").findings if f.address == "aws_sqs_queue.jobs")
    assert f.remediation == "Add: moved { from = aws_sqs_queue.jobs  to = aws_sqs_queue.work }"
    # only the module instance key changed: the block that moves the whole instance (what
    # module-queue-key-renamed-moved applies, with nothing replaced)
    f = next(f for f in _report("module-queue-key-renamed").findings if f.address.endswith("aws_sqs_queue.this"))
    assert f'moved {{ from = {Q("orders")}  to = {Q("orders_v2")} }}' in f.remediation


def test_a_retirement_is_waived_with_a_reason_and_an_expiry_and_nothing_else_is(tmp_path):
    """The CLI on the real update plan: CHG003 waived for the retired pair exits 0; the
    same waiver does not cover a queue deleted while its source stays (CHG002)."""
    cfg = tmp_path / "policy.yaml"
    cfg.write_text('select: ["CHG*"]\nwaivers:\n  - address: "aws_sqs_queue.jobs*"\n    rules: [CHG003]\n'
                   '    reason: "jobs flow retired, both queues drained (OPS-311)"\n    expires: 2999-12-31\n')
    cli = [sys.executable, "-m", "resilient_sqs.policy", "check", "--config", str(cfg), "--format", "json"]
    _update_plan("raw-pair-retired")  # checked against its inputs
    retired = fixture_plans.Manifest.load(fixture_plans.UPDATE_PLANS).path("raw-pair-retired")
    p = subprocess.run([*cli, str(retired)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    out = json.loads(p.stdout)
    assert out["summary"]["waived"] == 2 and out["summary"]["errors"] == 0
    _update_plan("raw-dlq-removed")
    dlq = fixture_plans.Manifest.load(fixture_plans.UPDATE_PLANS).path("raw-dlq-removed")
    p = subprocess.run([*cli, str(dlq)], capture_output=True, text=True)
    assert p.returncode == 1, p.stdout + p.stderr
    assert [f["rule_id"] for f in json.loads(p.stdout)["findings"] if not f.get("waiver")] == ["CHG002", "CFG002"]


def test_config_options_and_severity_apply_to_change_rules(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text('select: ["CHG*"]\nrules:\n  CHG005: {table_pattern: "^nothing$"}\n  CHG011: {severity: error}\n')
    c = load_config(str(cfg))
    assert _got(evaluate(_update_plan("raw-table-replaced"), c)) == set()
    got = _got(evaluate(_update_plan("raw-consumer-removed"), c))
    assert got == {("CHG011", FAIL, E, "aws_lambda_event_source_mapping.orders"),
                   ("CHG011", FAIL, E, "aws_lambda_event_source_mapping.billing")}



def test_table_pattern_set_on_ddb001_reaches_chg005(tmp_path):
    """Which tables are idempotency tables is one setting: rules.DDB001.table_pattern reaches
    CHG005 (and DDB002, DDB003); a pattern set on CHG005 itself still wins there."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text('rules:\n  DDB001: {table_pattern: "^nothing$"}\n')
    c = load_config(str(cfg))
    assert c.rule_options("CHG005")["table_pattern"] == c.rule_options("DDB003")["table_pattern"] == "^nothing$"
    assert {f for f in _got(evaluate(_update_plan("raw-table-replaced"), c)) if f[0] == "CHG005"} == set()
    cfg.write_text('rules:\n  DDB001: {table_pattern: "^nothing$"}\n  CHG005: {table_pattern: "(?i)idempot"}\n')
    c = load_config(str(cfg))
    assert {f for f in _got(evaluate(_update_plan("raw-table-replaced"), c)) if f[0] == "CHG005"} == {
        ("CHG005", FAIL, E, "aws_dynamodb_table.idempotency")}
    # the default: every rule declaring it has the one default
    assert load_config(None).rule_options("CHG005")["table_pattern"] == "(?i)idempot"

JUNK = [None, "", "x", 0, -1, 1.5, True, False, [], {}, ["a"], [["name"]], {"a": 1}, [{"days": "7"}],
        "arn:aws:sqs:us-east-1:000000000000:q", '{"deadLetterTargetArn": 5}', float("nan")]
ACTIONS = [["no-op"], ["create"], ["delete"], ["update"], ["delete", "create"], ["create", "delete"], ["forget"], ["read"]]


def _slots(node, out, depth=0):
    """Every (container, key) under node, to overwrite one value."""
    if depth > 8:
        return
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for k, v in items:
        out.append((node, k))
        _slots(v, out, depth + 1)


def test_change_rules_never_crash_on_odd_values():
    """Seeded: values inside the changes of the real update plans replaced by values of the
    wrong type or shape (what hand-edited or future plan formats may carry); the change
    rules must still give a verdict, never raise."""
    import copy
    import random

    rng = random.Random(13)
    names = sorted(EXPECTED)
    for i in range(120):
        doc = copy.deepcopy(_update_plan(names[i % len(names)]))
        slots = []
        for rc in doc["resource_changes"]:
            rc["change"]["actions"] = rng.choice(ACTIONS) if rng.random() < 0.2 else rc["change"]["actions"]
            for key in ("action_reason", "previous_address"):
                if rng.random() < 0.1:
                    rc[key] = rng.choice(JUNK)
            for k in [k for k in rc["change"] if k != "actions"]:
                slots.append((rc["change"], k))
                _slots(rc["change"][k], slots)
        for node, key in rng.sample(slots, min(len(slots), 12)):
            node[key] = copy.deepcopy(rng.choice(JUNK))
        evaluate(doc, ONLY_CHG)  # raises on a crash


def test_a_forgotten_resource_is_not_reported():
    """A `removed { lifecycle { destroy = false } }` block hands resources over: the plan shows
    `forget`, nothing is deleted. The real plan of the migration recipe on LocalStack
    (tests/policies/features/sqs-removed-forget: queues moved out of a module, its redrive and
    redrive-allow resources forgotten), read as the CLI reads it (Terraform 1.11 still lists the
    forgotten resources in planned_values): no change finding, and no finding of any rule on a
    forgotten resource."""
    from resilient_sqs.policy import loader

    path = fixture_plans.PLANS / "features" / "sqs-removed-forget.json"
    doc = loader.load(str(path))
    forgotten = [rc for rc in doc["resource_changes"] if rc["change"]["actions"] == ["forget"]]
    assert len(forgotten) == 2
    assert _got(evaluate(doc, ONLY_CHG)) == set()
    report = evaluate(doc, Config())
    assert not {f.address for f in [*report.findings, *report.passed]} & {rc["address"] for rc in forgotten}


def test_claim_check_buckets_by_name_reach_the_change_rules(tmp_path):
    """A flat root that ties its payload buckets to its queue by a naming convention only: the
    bucket deleted and the expiry cut from 20 d to 3 d (DLQ 14 d) are missed, until the
    configuration names them (claim_check_buckets, set on S3004, reaches CHG006 and CHG007)."""
    doc = _update_plan("raw-claim-check-by-name")
    assert _got(_report("raw-claim-check-by-name")) == set()
    cfg = tmp_path / "c.yaml"
    cfg.write_text('rules:\n  S3004: {claim_check_buckets: ["*-payloads"]}\n')
    c = load_config(str(cfg))
    report = evaluate(doc, Config(enabled={rid: rid in CHG for rid in RULES}, options=c.options))
    got = {(f.rule_id, f.status, f.severity, f.address): f.message for f in report.findings}
    assert set(got) == {("CHG006", FAIL, E, "aws_s3_bucket.docs[0]"), ("CHG007", FAIL, E, "aws_s3_bucket.blobs")}
    assert "'raw-claim-check-by-name-docs-payloads' is deleted" in got[("CHG006", FAIL, E, "aws_s3_bucket.docs[0]")]
    assert "from 20 d to 3 d" in got[("CHG007", FAIL, E, "aws_s3_bucket.blobs")]
