"""claim-check-roundtrip: a payload over the SQS size limit goes through the claim-check bucket and back."""
from __future__ import annotations

import json
import time

from resilient_sqs.facts import SQS_MAX_MESSAGE_BYTES

from ..aws import delete_all, receive
from ..discover import Pair
from . import PAIR, USES_SOURCE, Context, Scenario, ScenarioFailed, ScenarioSkipped
from ._helpers import group_args

# comfortably over the extended client's threshold (the SQS limit): the body goes to the bucket
PAYLOAD_BYTES = SQS_MAX_MESSAGE_BYTES + 40 * 1024


def claim_check_roundtrip(ctx: Context, pair: Pair) -> str:
    if not pair.buckets:
        raise ScenarioSkipped(f"no claim-check bucket is linked to {pair.name} in the stack")
    try:
        from resilient_sqs.claim_check import extended_client
    except ImportError as exc:  # pragma: no cover - the [testing] extra installs it
        raise ScenarioSkipped(f"the SQS extended client is not installed ({exc}): pip install 'resilient-sqs[testing]'") from None
    bucket = pair.buckets[0]["name"]
    s3, sqs = ctx.clients.client("s3"), ctx.clients.client("sqs")
    try:
        rules = s3.get_bucket_lifecycle_configuration(Bucket=bucket).get("Rules", [])
    except s3.exceptions.ClientError:
        rules = []
    expiring = [r for r in rules if r.get("Status") == "Enabled" and (r.get("Expiration") or {}).get("Days")]
    prefix = ""
    for r in expiring:
        p = ((r.get("Filter") or {}).get("Prefix")) or r.get("Prefix") or ""
        if p.endswith("/"):
            prefix = p
            break
    payload = json.dumps({"sqs-behave": "claim-check", "pad": "x" * PAYLOAD_BYTES})
    client = extended_client(bucket, prefix=prefix, s3=s3, **ctx.clients.kwargs())
    try:
        client.send_message(QueueUrl=pair.queue.url, MessageBody=payload, **group_args(pair.queue.fifo, "claim-check"))
        raw = receive(sqs, pair.queue.url, wait=5, max_n=1, visibility=1)
        if not raw:
            raise ScenarioFailed(f"queue {pair.name}: a {len(payload)} byte message sent with the extended client was not received")
        pointer = raw[0]["Body"]
        if len(pointer) > 2048 or bucket not in pointer:
            raise ScenarioFailed(f"queue {pair.name}: a {len(payload)} byte message did not go through bucket {bucket} "
                                 f"(the queue holds a {len(pointer)} byte body)")
        time.sleep(1.2)
        got = client.receive_message(QueueUrl=pair.queue.url, MaxNumberOfMessages=1, WaitTimeSeconds=5,
                                     VisibilityTimeout=60, MessageAttributeNames=["All"]).get("Messages", [])
        if got:  # through the extended client: its receipt handle carries the payload's location
            try:
                client.delete_message(QueueUrl=pair.queue.url, ReceiptHandle=got[0]["ReceiptHandle"])
            except Exception as exc:  # noqa: BLE001 - the round trip is shown by the body; cleanup below
                ctx.progress(f"{pair.name}: the extended client could not delete the message with its receipt "
                             f"handle on this endpoint ({type(exc).__name__}); deleted with the plain client")
        if not got or got[0]["Body"] != payload:
            raise ScenarioFailed(f"queue {pair.name}: the payload stored in bucket {bucket} did not come back intact "
                                 "through the extended client")
    finally:
        delete_all(sqs, pair.queue.url)
    expiry = ""
    if pair.dlq is not None:
        days = [r["Expiration"]["Days"] for r in expiring
                if not prefix or (((r.get("Filter") or {}).get("Prefix")) or r.get("Prefix") or "") == prefix]
        if days and min(days) * 86400 < pair.dlq.retention:
            need = -(-pair.dlq.retention // 86400)
            raise ScenarioFailed(
                f"queue {pair.name}: bucket {bucket} expires payloads after {min(days)} days (lifecycle, read from the "
                f"bucket), less than DLQ {pair.dlq.name}'s retention ({pair.dlq.retention} s): a message redriven "
                f"after day {min(days)} finds its payload gone. Set the lifecycle expiration to at least {need} days "
                f"({pair.buckets[0]['address']}).")
        expiry = (f"; payloads expire after {min(days)} days >= DLQ retention {pair.dlq.retention} s" if days
                  else "; the bucket has no expiring lifecycle rule (payloads are kept)")
    return f"a {len(payload)} byte payload went through bucket {bucket} and came back intact{expiry}"


SCENARIO = Scenario(
    name='claim-check-roundtrip',
    subject=PAIR,
    order=50,
    uses=USES_SOURCE,
    summary=f"a payload over {SQS_MAX_MESSAGE_BYTES // 1024} KiB goes through the bucket with the SQS extended client and comes back; the bucket's payload expiry is at least the DLQ retention",
    needs="a claim-check bucket linked to the queue (the plan checker's linking)",
    probes='S3 lifecycle configuration read back',
    run=claim_check_roundtrip,
)
