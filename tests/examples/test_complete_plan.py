"""Offline plan of examples/complete: everything on, with the stated defaults."""
from __future__ import annotations

import json

import pytest

from tests.support.examples import assert_pair_guarantees, queue_pairs
from tests.support.helpers import EXAMPLES, OFFLINE_ACCOUNT, resources_by_address

pytestmark = pytest.mark.plan

PREFIX = "plantest"
FUNCTION = "plantest-consumer"
M = "module.messaging"
ORDERS, PAYMENTS = f"{PREFIX}-orders", f"{PREFIX}-payments"


@pytest.fixture(scope="module")
def plan(offline_planner):
    # planned once per test run (tests/support/plan_cache.py), whichever worker asks first
    return offline_planner.plan(EXAMPLES / "complete", {"name_prefix": PREFIX, "consumer_function_name": FUNCTION})


@pytest.fixture(scope="module")
def rcs(plan):
    return resources_by_address(plan)


def after(rcs, address: str) -> dict:
    return rcs[address]["change"]["after"]


def _statements(document: str) -> list[dict]:
    return json.loads(document)["Statement"]


def _as_list(v) -> list:
    return v if isinstance(v, list) else [v]


def test_every_planned_resource_is_a_create_of_the_expected_kinds(rcs):
    assert all(rc["mode"] == "managed" for rc in rcs.values()), "no data source should be left to read during apply"
    kinds = sorted({rc["type"] for rc in rcs.values()})
    assert kinds == sorted([
        "aws_sqs_queue", "aws_s3_bucket", "aws_s3_bucket_public_access_block", "aws_s3_bucket_ownership_controls",
        "aws_s3_bucket_server_side_encryption_configuration", "aws_s3_bucket_policy",
        "aws_s3_bucket_lifecycle_configuration", "aws_dynamodb_table", "aws_iam_policy",
        "aws_cloudwatch_metric_alarm", "aws_sns_topic", "aws_kms_key", "aws_lambda_event_source_mapping",
        # the scheduled redrive of each DLQ
        "aws_lambda_function", "aws_iam_role", "aws_iam_role_policy", "aws_cloudwatch_log_group",
        "aws_cloudwatch_event_rule", "aws_cloudwatch_event_target", "aws_lambda_permission",
    ])
    assert all(rc["change"]["actions"] == ["create"] for rc in rcs.values())
    functions = [a for a, rc in rcs.items() if rc["type"] == "aws_lambda_function"]
    assert functions and all(a.startswith(f"{M}.module.dlq_redrive[") for a in functions), (
        "the only functions the example creates are the redrive functions (consumers are existing functions)"
    )


def test_queue_pairs_keep_their_guarantees(plan):
    pairs = queue_pairs(plan)
    assert set(pairs) == {ORDERS, PAYMENTS}
    for key, (src, dlq) in pairs.items():
        assert_pair_guarantees(key, src, dlq)
    assert pairs[ORDERS][0]["visibility_timeout_seconds"] == 6 * 30 + 5
    assert pairs[PAYMENTS][0]["visibility_timeout_seconds"] == 6 * 20
    assert pairs[PAYMENTS][0]["fifo_queue"] is True


def test_claim_check_bucket(rcs, plan):
    b = f"{M}.module.claim_check_bucket[0]"
    bucket = after(rcs, f"{b}.aws_s3_bucket.this")
    assert bucket["bucket"] == f"{PREFIX}-claim-check"
    assert bucket["force_destroy"] is False, "force_destroy must default to false"
    pab = after(rcs, f"{b}.aws_s3_bucket_public_access_block.this")
    assert all(pab[k] is True for k in ("block_public_acls", "block_public_policy", "ignore_public_acls", "restrict_public_buckets"))
    assert after(rcs, f"{b}.aws_s3_bucket_ownership_controls.this")["rule"] == [{"object_ownership": "BucketOwnerEnforced"}]
    sse = after(rcs, f"{b}.aws_s3_bucket_server_side_encryption_configuration.this")["rule"][0]
    assert sse["apply_server_side_encryption_by_default"][0]["sse_algorithm"] == "AES256"
    policy = _statements(after(rcs, f"{b}.aws_s3_bucket_policy.this")["policy"])
    arn = f"arn:aws:s3:::{PREFIX}-claim-check"
    assert [s for s in policy if s["Effect"] == "Deny" and s["Principal"] == "*" and s["Action"] == "s3:*"
            and s["Condition"] == {"Bool": {"aws:SecureTransport": "false"}} and sorted(s["Resource"]) == [arn, f"{arn}/*"]]
    rules = {r["id"]: r for r in after(rcs, f"{b}.aws_s3_bucket_lifecycle_configuration.this")["rule"]}
    expire = rules["expire-claim-check-payloads"]
    assert expire["status"] == "Enabled" and expire["filter"][0]["prefix"] == "payloads/"
    # payloads must outlive every message pointing at them: the FIFO pair's DLQ resets
    # the enqueue time, so its messages can live 4 days (source) + 14 days (DLQ)
    assert expire["expiration"][0]["days"] == 18
    abort = rules["abort-incomplete-multipart-uploads"]
    assert abort["status"] == "Enabled" and abort["abort_incomplete_multipart_upload"] == [{"days_after_initiation": 1}]
    assert not [a for a in rcs if "aws_s3_bucket_versioning" in a], "versioning is optional and off by default"
    out = plan["output_changes"]["claim_check_bucket"]["after"]
    assert out["expiration_days"] == 18 and sorted(out["queues"]) == [ORDERS, PAYMENTS]


def test_idempotency_table(rcs):
    t = after(rcs, f"{M}.module.idempotency_table[0].aws_dynamodb_table.this")
    assert t["name"] == f"{PREFIX}-idempotency"
    assert t["billing_mode"] == "PAY_PER_REQUEST"
    assert (t["hash_key"], t["range_key"], t["attribute"]) == ("id", None, [{"name": "id", "type": "S"}])
    assert t["ttl"] == [{"attribute_name": "expiration", "enabled": True}]
    assert t["point_in_time_recovery"][0]["enabled"] is True
    assert t["deletion_protection_enabled"] is True, "deletion protection must default to on"
    # no server_side_encryption block: DynamoDB encrypts with an AWS-owned key
    assert "server_side_encryption" not in t


def test_policy_documents_have_no_wildcard_action_and_no_star_resource(rcs, plan):
    documents = [after(rcs, a)["policy"] for a, rc in rcs.items() if rc["type"] == "aws_iam_policy"]
    for per_queue in plan["output_changes"]["iam_policies"]["after"].values():
        documents += [per_queue[k] for k in ("producer_policy_json", "consumer_policy_json", "redrive_operator_policy_json")]
    assert len(documents) == 12  # 2 queues x 3 roles, as managed policies and as outputs
    for doc in documents:
        for s in _statements(doc):
            assert s["Effect"] == "Allow"
            for action in _as_list(s["Action"]):
                assert "*" not in action, f"wildcard action {action!r} in {s.get('Sid')}"
            for resource in _as_list(s["Resource"]):
                assert resource != "*" and resource.startswith("arn:aws:"), f"unnamed resource {resource!r} in {s.get('Sid')}"
            assert "NotAction" not in s and "NotResource" not in s


def test_policy_documents_grant_exactly_each_role(plan):
    docs = plan["output_changes"]["iam_policies"]["after"][ORDERS]
    q = f"arn:aws:sqs:us-east-1:{OFFLINE_ACCOUNT}:{ORDERS}"
    dlq = f"arn:aws:sqs:us-east-1:{OFFLINE_ACCOUNT}:{ORDERS}-dlq"
    objects = f"arn:aws:s3:::{PREFIX}-claim-check/payloads/*"
    table = f"arn:aws:dynamodb:us-east-1:{OFFLINE_ACCOUNT}:table/{PREFIX}-idempotency"

    def grants(doc):
        return {(a, r) for s in _statements(doc) for a in _as_list(s["Action"]) for r in _as_list(s["Resource"])}

    assert grants(docs["producer_policy_json"]) == {("sqs:SendMessage", q), ("s3:PutObject", objects)}
    assert grants(docs["consumer_policy_json"]) == {
        ("sqs:ReceiveMessage", q), ("sqs:DeleteMessage", q), ("sqs:ChangeMessageVisibility", q), ("sqs:GetQueueAttributes", q),
        ("sqs:SendMessage", dlq),  # redrive_guard: a permanent failure goes to the DLQ with its reason
        ("s3:GetObject", objects),
        ("dynamodb:GetItem", table), ("dynamodb:PutItem", table), ("dynamodb:UpdateItem", table), ("dynamodb:DeleteItem", table),
    }
    assert grants(docs["redrive_operator_policy_json"]) == {
        *((a, dlq) for a in ("sqs:StartMessageMoveTask", "sqs:ListMessageMoveTasks", "sqs:CancelMessageMoveTask",
                             "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:ListDeadLetterSourceQueues")),
        ("sqs:SendMessage", q), ("sqs:GetQueueAttributes", q),
    }


def test_managed_policies(rcs):
    policies = {after(rcs, a)["name"]: after(rcs, a) for a, rc in rcs.items() if rc["type"] == "aws_iam_policy"}
    expected = [f"{k}-{role}" for k in (ORDERS, f"{PAYMENTS}-fifo") for role in ("producer", "consumer", "redrive-operator")]
    assert sorted(policies) == sorted(expected), "managed policies are named <queue name>-<role>, .fifo as -fifo"
    assert {p["path"] for p in policies.values()} == {f"/{PREFIX}/"}


def test_alarms_per_queue_and_dlq(rcs):
    alarms = {
        after(rcs, a)["alarm_name"]: after(rcs, a)
        for a, rc in rcs.items()
        if rc["type"] == "aws_cloudwatch_metric_alarm" and a.startswith(f"{M}.module.alarms[0].")
    }
    assert len(alarms) == 12
    for queue in (ORDERS, PAYMENTS):
        suffix = ".fifo" if queue == PAYMENTS else ""
        src, dlq = f"{queue}{suffix}", f"{queue}-dlq{suffix}"
        depth = alarms[f"sqs-dlq-not-empty-{dlq}"]
        assert (depth["metric_name"], depth["dimensions"], depth["threshold"], depth["comparison_operator"]) == (
            "ApproximateNumberOfMessagesVisible", {"QueueName": dlq}, 0, "GreaterThanThreshold")
        assert (depth["period"], depth["evaluation_periods"], depth["treat_missing_data"]) == (60, 1, "notBreaching")
        influx = alarms[f"sqs-dlq-influx-{dlq}"]
        assert (influx["threshold"], influx["evaluation_periods"]) == (50, 2)
        assert [m["expression"] for m in influx["metric_query"] if m["return_data"]] == ["DIFF(visible)"]
        stale = alarms[f"sqs-dlq-stale-{dlq}"]
        assert (stale["metric_name"], stale["threshold"], stale["dimensions"]) == ("ApproximateAgeOfOldestMessage", 3600, {"QueueName": dlq})
        warn, crit = alarms[f"sqs-oldest-message-warning-{src}"], alarms[f"sqs-oldest-message-critical-{src}"]
        assert (warn["metric_name"], warn["threshold"], crit["threshold"]) == ("ApproximateAgeOfOldestMessage", 300, 1800)
        assert warn["dimensions"] == crit["dimensions"] == {"QueueName": src}
        backlog = alarms[f"sqs-backlog-{src}"]
        assert (backlog["metric_name"], backlog["threshold"], backlog["dimensions"]) == ("ApproximateNumberOfMessagesVisible", 1000, {"QueueName": src})
    for name, a in alarms.items():
        assert "To do" in a["alarm_description"] and (ORDERS in a["alarm_description"] or PAYMENTS in a["alarm_description"]), name
        assert a["actions_enabled"] is True


def test_alarm_topic_is_encrypted_with_a_key_cloudwatch_may_use(rcs):
    a = f"{M}.module.alarms[0]"
    topic = rcs[f"{a}.aws_sns_topic.alarms[0]"]["change"]
    assert topic["after_unknown"]["kms_master_key_id"] is True, "the topic must be encrypted with the created key"
    key = after(rcs, f"{a}.aws_kms_key.alarms[0]")
    assert key["enable_key_rotation"] is True
    cw = [s for s in _statements(key["policy"]) if s.get("Principal") == {"Service": "cloudwatch.amazonaws.com"}]
    assert cw and sorted(cw[0]["Action"]) == ["kms:Decrypt", "kms:GenerateDataKey"]
    publish = [s for s in _statements(topic["after"]["policy"]) if s["Effect"] == "Allow"]
    assert publish == [{
        "Sid": "AllowCloudWatchAlarmsToPublish", "Effect": "Allow", "Action": "sns:Publish",
        "Principal": {"Service": "cloudwatch.amazonaws.com"},
        "Resource": f"arn:aws:sns:us-east-1:{OFFLINE_ACCOUNT}:sqs-alarms-{ORDERS}",
        "Condition": {"StringEquals": {"aws:SourceAccount": OFFLINE_ACCOUNT}},
    }]
    for alarm in (rc for rc in rcs.values() if rc["type"] == "aws_cloudwatch_metric_alarm"):
        assert alarm["change"]["after_unknown"]["alarm_actions"] is True  # the topic's ARN, known after apply
        assert alarm["change"]["after_unknown"]["ok_actions"] is True


def test_event_source_mappings(rcs, plan):
    orders = after(rcs, f'{M}.module.consumer["{ORDERS}"].aws_lambda_event_source_mapping.this')
    payments = after(rcs, f'{M}.module.consumer["{PAYMENTS}"].aws_lambda_event_source_mapping.this')
    for esm in (orders, payments):
        assert esm["function_name"] == FUNCTION
        assert esm["function_response_types"] == ["ReportBatchItemFailures"]
        assert esm["enabled"] is True and esm["filter_criteria"] == []
    assert (orders["batch_size"], orders["maximum_batching_window_in_seconds"], orders["scaling_config"]) == (20, 5, [{"maximum_concurrency": 5}])
    # FIFO: batch <= 10, no window; concurrency bounded by the default
    assert (payments["batch_size"], payments["maximum_batching_window_in_seconds"], payments["scaling_config"]) == (10, None, [{"maximum_concurrency": 10}])
    # the mapping references the real queue ARN, so it is created after the queue
    consumer = plan["configuration"]["root_module"]["module_calls"]["messaging"]["module"]["module_calls"]["consumer"]
    assert "module.queue" in consumer["expressions"]["queue_arn"]["references"]


def test_throwaway_settings_for_localstack(offline_planner):
    """What an integration run applies: no function (LocalStack cannot run one), destroyable table and bucket."""
    plan = offline_planner.plan(
        EXAMPLES / "complete",
        {"name_prefix": PREFIX, "deletion_protection": False, "force_destroy": True, "dlq_redrive_enabled": False},
    )
    rcs = resources_by_address(plan)
    assert not [a for a, rc in rcs.items() if rc["type"] in ("aws_lambda_event_source_mapping", "aws_lambda_function")]
    assert plan["output_changes"]["consumers"]["after"] == {}
    assert after(rcs, f"{M}.module.idempotency_table[0].aws_dynamodb_table.this")["deletion_protection_enabled"] is False
    assert after(rcs, f"{M}.module.claim_check_bucket[0].aws_s3_bucket.this")["force_destroy"] is True
    # everything else is still there
    assert len([rc for rc in rcs.values() if rc["type"] == "aws_cloudwatch_metric_alarm"]) == 12
    assert len([rc for rc in rcs.values() if rc["type"] == "aws_iam_policy"]) == 6


def test_dlq_redrive_per_dlq_archiving_to_the_claim_check_bucket(rcs, plan):
    for queue, suffix in ((ORDERS, ""), (PAYMENTS, ".fifo")):
        r = f'{M}.module.dlq_redrive["{queue}"]'
        fn = after(rcs, f"{r}.aws_lambda_function.this")
        assert fn["function_name"] == f"{queue}-dlq-redrive"
        assert fn["reserved_concurrent_executions"] == 1
        # the environment embeds the queue URLs, unknown until apply; the archive is in the output
        archive = plan["output_changes"]["dlq_redrive"]["after"][queue]["archive"]
        assert (archive["type"], archive["bucket_name"], archive["prefix"]) == ("s3", f"{PREFIX}-claim-check", "dlq-archive/")
        rule = after(rcs, f"{r}.aws_cloudwatch_event_rule.schedule")
        assert (rule["schedule_expression"], rule["state"]) == ("rate(5 minutes)", "ENABLED")
        policy = json.loads(after(rcs, f"{r}.aws_iam_role_policy.this")["policy"])
        resources = {st["Sid"]: st["Resource"] for st in policy["Statement"]}
        assert resources["DrainDlq"] == f"arn:aws:sqs:us-east-1:{OFFLINE_ACCOUNT}:{queue}-dlq{suffix}"
        assert resources["Archive"] == f"arn:aws:s3:::{PREFIX}-claim-check/dlq-archive/*"
        # claim-check pointers: the function may look up payloads (a missing one answers 404), nothing else
        assert resources["ClaimCheckPayloadKeys"] == f"arn:aws:s3:::{PREFIX}-claim-check"
        assert resources["ClaimCheckPayloads"] == f"arn:aws:s3:::{PREFIX}-claim-check/payloads/*"
    # the archive prefix lies outside the expiring payload prefix
    lifecycle = after(rcs, f"{M}.module.claim_check_bucket[0].aws_s3_bucket_lifecycle_configuration.this")
    prefixes = [r["filter"][0]["prefix"] for r in lifecycle["rule"] if r.get("expiration")]
    assert prefixes and not any("dlq-archive/".startswith(p) for p in prefixes)
    # the function's error alarm notifies someone: the alarms topic the module creates (its ARN is
    # known after apply; tests/composition_redrive.tftest.hcl checks a given topic ARN reaches the
    # alarm), and the module's checks that warn about alarms that notify nobody pass
    for queue in (ORDERS, PAYMENTS):
        alarm = rcs[f'{M}.module.dlq_redrive["{queue}"].aws_cloudwatch_metric_alarm.errors']["change"]
        assert alarm["after"]["actions_enabled"] is True
        assert alarm["after_unknown"]["alarm_actions"] is True and alarm["after_unknown"]["ok_actions"] is True
    assert f"{M}.module.alarms[0].aws_sns_topic.alarms[0]" in rcs
    checks = {c["address"]["to_display"]: c["status"] for c in plan["checks"] if c["address"]["kind"] == "check"}
    assert checks[f"{M}.check.redrive_alarms_notify_someone"] == "pass"
    assert checks[f"{M}.module.dlq_redrive.check.errors_alarm_notifies_someone"] == "pass"
