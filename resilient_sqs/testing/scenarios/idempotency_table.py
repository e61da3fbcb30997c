"""idempotency-table: the table takes a Powertools idempotency record and refuses the duplicate."""
from __future__ import annotations

import contextlib
import uuid

from resilient_sqs.facts import IDEMPOTENCY_EXPIRY_ATTRIBUTE as EXPIRY
from resilient_sqs.facts import IDEMPOTENCY_KEY_ATTRIBUTE as KEY
from resilient_sqs.facts import IDEMPOTENCY_TABLE_PATTERN

from ..discover import Table
from . import TABLE, USES_TABLE, Context, Scenario, ScenarioFailed, ScenarioSkipped


def idempotency_table(ctx: Context, table: Table) -> str:
    try:
        from aws_lambda_powertools.utilities.idempotency import (
            DynamoDBPersistenceLayer,
            IdempotencyConfig,
            idempotent_function,
        )
    except ImportError as exc:  # pragma: no cover - the [testing] extra installs it
        raise ScenarioSkipped(f"Powertools is not installed ({exc}): pip install 'resilient-sqs[testing]'") from None
    ddb = ctx.clients.client("dynamodb")
    desc = ddb.describe_table(TableName=table.name)["Table"]
    hash_key = next((k["AttributeName"] for k in desc["KeySchema"] if k["KeyType"] == "HASH"), None)
    if hash_key != KEY or any(k["KeyType"] == "RANGE" for k in desc["KeySchema"]):
        raise ScenarioFailed(f"table {table.name}: keyed by {[k['AttributeName'] for k in desc['KeySchema']]}; Powertools' "
                             f"idempotency layer writes records under the partition key '{KEY}' (string) only. "
                             f"Set hash_key = \"{KEY}\" with no range key ({table.address}).")
    ttl = ddb.describe_time_to_live(TableName=table.name).get("TimeToLiveDescription", {})
    layer = DynamoDBPersistenceLayer(table_name=table.name, boto3_client=ddb)
    calls: list[dict] = []

    @idempotent_function(data_keyword_argument="order", persistence_store=layer,
                         config=IdempotencyConfig(expires_after_seconds=600))
    def handle(order: dict) -> dict:
        calls.append(order)
        return {"handled": order["id"]}

    order = {"id": uuid.uuid4().hex, "sqs-behave": "idempotency"}
    first, second = handle(order=order), handle(order=order)
    if len(calls) != 1 or first != second:
        raise ScenarioFailed(f"table {table.name}: the same order handled twice through Powertools ran the handler "
                             f"{len(calls)} times; expected once (the table must refuse the duplicate record)")
    items = ddb.scan(TableName=table.name, FilterExpression="contains(#k, :v)",
                     ExpressionAttributeNames={"#k": KEY}, ExpressionAttributeValues={":v": {"S": "handle"}})["Items"]
    record = next((i for i in items if EXPIRY in i), None)
    try:
        if record is None:
            raise ScenarioFailed(f"table {table.name}: no Powertools record with an '{EXPIRY}' attribute was written")
        if ttl.get("TimeToLiveStatus") not in ("ENABLED", "ENABLING") or ttl.get("AttributeName") != EXPIRY:
            raise ScenarioFailed(
                f"table {table.name}: Powertools writes the record's expiry in '{EXPIRY}', but the table's TTL is "
                f"{ttl.get('TimeToLiveStatus', 'DISABLED')} on {ttl.get('AttributeName')!r}: records are never "
                f"deleted. Set ttl {{ attribute_name = \"{EXPIRY}\", enabled = true }} ({table.address}).")
        # the conditional put Powertools relies on: a second record under the same key is refused
        try:
            ddb.put_item(TableName=table.name, Item=record, ConditionExpression="attribute_not_exists(#k)",
                         ExpressionAttributeNames={"#k": KEY})
            raise ScenarioFailed(f"table {table.name}: a conditional put of a duplicate idempotency record succeeded")
        except ddb.exceptions.ConditionalCheckFailedException:
            pass
    finally:
        for i in items:
            with contextlib.suppress(Exception):
                ddb.delete_item(TableName=table.name, Key={KEY: i[KEY]})
    return (f"a Powertools idempotency record (TTL attribute '{EXPIRY}', status {record.get('status', {}).get('S')}) "
            "was written once and the duplicate refused")


SCENARIO = Scenario(
    name='idempotency-table',
    subject=TABLE,
    order=60,
    uses=USES_TABLE,
    summary=f"the table takes a Powertools idempotency record (partition key `{KEY}`, TTL attribute `{EXPIRY}`) and refuses the duplicate",
    needs=f"a DynamoDB table whose name or address matches `{IDEMPOTENCY_TABLE_PATTERN}` (the plan checker's `table_pattern`)",
    probes='DynamoDB conditional writes and TTL configuration read back',
    run=idempotency_table,
)
