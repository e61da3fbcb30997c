"""`make demo`: plan examples/basic and show, in plain words, what the module would create."""
from __future__ import annotations

import json
import shutil
import sys
import time

from tooling.terraform import REPO_ROOT, Terraform, TerraformError, offline_copy

EXAMPLE = REPO_ROOT / "examples" / "basic"


def step(msg: str) -> None:
    print(f"==> {msg}", flush=True)


def summarize(plan: dict) -> list[str]:
    lines = []
    queues = {rc["address"]: rc["change"]["after"] for rc in plan["resource_changes"] if rc["type"] == "aws_sqs_queue"}
    for addr, src in sorted(queues.items()):
        if not addr.endswith(".this"):
            continue
        dlq = queues[addr[: -len("this")] + "dlq"]
        sse = "SSE-KMS " + src["kms_master_key_id"] if src.get("kms_master_key_id") else "SSE-SQS"
        tls = any(
            s["Effect"] == "Deny" and s.get("Condition", {}).get("Bool", {}).get("aws:SecureTransport") == "false"
            for s in json.loads(src["policy"])["Statement"]
        )
        allow = json.loads(dlq["redrive_allow_policy"])
        lines += [
            f"queue {src['name']}",
            f"  visibility timeout   {src['visibility_timeout_seconds']} s",
            f"  retention            {src['message_retention_seconds'] // 86400} days (DLQ: {dlq['message_retention_seconds'] // 86400} days)",
            f"  long polling         {src['receive_wait_time_seconds']} s",
            f"  encryption           {sse}",
            f"  TLS-only policy      {'yes' if tls else 'NO'}",
            f"  dead-letter queue    {dlq['name']} (after maxReceiveCount failed receives)",
            f"  DLQ accepts from     {', '.join(allow['sourceQueueArns'])} ({allow['redrivePermission']})",
        ]
    alarms = sorted(
        rc["change"]["after"]["alarm_name"] for rc in plan["resource_changes"] if rc["type"] == "aws_cloudwatch_metric_alarm"
    )
    if alarms:
        topics = [rc for rc in plan["resource_changes"] if rc["type"] == "aws_sns_topic"]
        target = f"notifying SNS topic {topics[0]['change']['after']['name']} (encrypted)" if topics else "notifying the given topic, if any"
        lines.append(f"alarms ({len(alarms)}), {target}")
        lines += [f"  {name}" for name in alarms]
    return lines


def main() -> int:
    started = time.monotonic()
    work = offline_copy(EXAMPLE)
    try:
        tf = Terraform(work, variables={"account_id": "123456789012", "name_prefix": "demo"})
        step("terraform init (provider from the local mirror when present)")
        tf.init()
        step("terraform validate")
        tf.validate()
        step("terraform plan examples/basic (offline: dummy credentials, nothing is created)")
        plan = tf.plan_json()
        n = sum(1 for rc in plan["resource_changes"] if "create" in rc["change"]["actions"])
        print()
        print(f"The plan creates {n} resources:")
        for line in summarize(plan):
            print("  " + line)
        print()
        print(f"done in {time.monotonic() - started:.0f} s")
        return 0
    except TerraformError as exc:
        print(f"demo failed: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
