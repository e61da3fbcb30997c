"""Helpers of the LocalStack tier: applied examples, AWS clients, SQS polling, policy checks."""
from __future__ import annotations

import base64
import contextlib
import fnmatch
import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import boto3
from localstack_client.session import Session

from tooling.localstack import ACCOUNT_ID, REGION, LocalStack, example_variables
from tooling.terraform import REPO_ROOT, Terraform, TerraformError, copy_config

# Terraform retries failed AWS calls 25 times by default; against LocalStack a
# failure is real, so fail fast.
AWS_MAX_RETRIES = 2


# ------------------------------------------------------------------------------------------
# clients
# ------------------------------------------------------------------------------------------
def session(ls: LocalStack, access_key: str = "test", secret_key: str = "test") -> Session:
    """A localstack-client session for this LocalStack (boto3 clients with its endpoint)."""
    url = urlparse(ls.endpoint)
    env_endpoint = os.environ.get("AWS_ENDPOINT_URL", "").strip().rstrip("/")
    # localstack-client builds http URLs (unless USE_SSL is set) and prefers $AWS_ENDPOINT_URL
    # over the host it is given: fall back to plain boto3 when either would pick the wrong endpoint
    if url.scheme == "https" or (env_endpoint and env_endpoint != ls.endpoint):
        return _Boto3Session(ls.endpoint, access_key, secret_key)
    return Session(
        aws_access_key_id=access_key,
        aws_secret_access_key=secret_key,
        aws_session_token=None,
        region_name=REGION,
        localstack_host=url.netloc,
    )


class _Boto3Session:
    def __init__(self, endpoint: str, access_key: str, secret_key: str):
        self._kw = dict(endpoint_url=endpoint, aws_access_key_id=access_key, aws_secret_access_key=secret_key,
                        region_name=REGION)

    def client(self, service: str, **kwargs):
        return boto3.client(service, **{**kwargs, **self._kw})


# ------------------------------------------------------------------------------------------
# an example applied against LocalStack
# ------------------------------------------------------------------------------------------
def unique_prefix(tag: str = "") -> str:
    """A queue-name prefix unique to this test run (several runs share a LocalStack via Docker)."""
    return f"lt{uuid.uuid4().hex[:8]}{('-' + tag) if tag else ''}"


class AppliedExample:
    """A copy of an example directory applied against LocalStack (the example itself is untouched).

    Variables: a unique ``name_prefix``, the region, few provider retries, and the
    LocalStack settings the example declares (``tooling.localstack.EXAMPLE_VARIABLES``:
    path-style S3, destroyable table and bucket, no Lambda consumers).
    """

    def __init__(self, source: Path, ls: LocalStack, name_prefix: str | None = None):
        self.source = Path(source)
        self.name = self.source.name
        self.name_prefix = name_prefix or unique_prefix()
        self.work = copy_config(self.source)
        self.tf = Terraform(
            self.work,
            variables={
                **example_variables(self.source),
                "name_prefix": self.name_prefix,
                "region": REGION,
                "aws_max_retries": AWS_MAX_RETRIES,
            },
            env=ls.env(),
        )
        self.applied = False
        self.apply_seconds: float | None = None
        self.outputs: dict = {}

    def apply(self) -> None:
        self.tf.init()
        started = time.monotonic()
        self.applied = True  # even a failed apply may have created something: destroy it at the end
        self.tf.apply()
        self.apply_seconds = time.monotonic() - started
        self.outputs = self.tf.outputs()

    def queue(self, key: str) -> dict:
        """The `queues` output entry of the queue named ``<name_prefix>-<key>``."""
        name = f"{self.name_prefix}-{key}"
        queues = self.outputs.get("queues", {})
        if name not in queues:
            raise KeyError(f"{self.name}: no queue {name!r} in outputs (have {sorted(queues)})")
        return queues[name]

    def replan(self) -> dict:
        return self.tf.plan_json(out="replan.tfplan")

    def state(self) -> dict:
        return self.tf.show_json()

    def destroy(self) -> None:
        self.tf.destroy()
        self.applied = False

    def close(self) -> None:
        if self.applied:
            with contextlib.suppress(TerraformError):
                self.destroy()
        shutil.rmtree(self.work, ignore_errors=True)


@dataclass(frozen=True)
class KnownDifference:
    """A planned update that a LocalStack defect causes, not the configuration or the provider.

    It covers an update of ``resource_type`` whose changed attributes are all in
    ``attributes`` and were *empty* before (LocalStack dropped them), nothing else.
    """

    resource_type: str
    attributes: frozenset[str]
    reason: str

    def covers(self, rc: dict) -> bool:
        change = rc["change"]
        if rc["type"] != self.resource_type or change["actions"] != ["update"]:
            return False
        changed = changed_attributes(change)
        before = change.get("before") or {}
        return bool(changed) and changed <= self.attributes and all(not before.get(a) for a in changed)


# LocalStack 4.9.2's CloudWatch ignores the Tags of PutMetricAlarm (its TagResource works, and
# real CloudWatch tags an alarm created with Tags). The provider creates alarms with Tags, reads
# back none, so the first plan after apply updates them (TagResource). Only active when a probe of
# the running LocalStack shows the defect: see alarm_tags_dropped().
ALARM_TAGS_DROPPED = KnownDifference(
    "aws_cloudwatch_metric_alarm",
    frozenset({"tags", "tags_all"}),
    "LocalStack drops the Tags of PutMetricAlarm (a LocalStack defect; TagResource keeps them)",
)


def changed_attributes(change: dict) -> set[str]:
    before, after = change.get("before") or {}, change.get("after") or {}
    if not isinstance(before, dict) or not isinstance(after, dict):
        return {"*"}
    unknown = {k for k, v in (change.get("after_unknown") or {}).items() if v}
    return {k for k in set(before) | set(after) if before.get(k) != after.get(k)} | unknown


def pending_changes(plan: dict, known: tuple[KnownDifference, ...] = ()) -> list[str]:
    """Human-readable list of everything a plan would change (empty: Terraform says "No changes").

    Counted as Terraform counts them (``plan -detailed-exitcode``): resource changes other
    than no-op, and output changes. ``resource_drift`` entries alone are not changes (the
    provider stores ``insufficient_data_actions = null`` when it creates an alarm and reads
    ``[]`` back on refresh: Terraform lists that as drift yet reports "No changes"); they are
    shown under a reported change of the same resource, for context. Updates covered by one of
    the ``known`` LocalStack defects are not counted; any other change is.
    """
    drift = {rc["address"]: rc for rc in plan.get("resource_drift", [])}
    out = []
    for rc in plan.get("resource_changes", []):
        actions = rc["change"]["actions"]
        if actions == ["no-op"] or any(k.covers(rc) for k in known):
            continue
        out.append(f"{'/'.join(actions)} {rc['address']}: {_diff(rc['change'])}")
        if rc["address"] in drift:
            out.append(f"  (refresh saw: {_diff(drift[rc['address']]['change'])})")
    for name, oc in (plan.get("output_changes") or {}).items():
        if oc["actions"] != ["no-op"]:
            out.append(f"{'/'.join(oc['actions'])} output {name}")
    return out


def tolerated_changes(plan: dict, known: tuple[KnownDifference, ...]) -> list[str]:
    """The planned changes that ``known`` LocalStack defects account for (reported, not counted)."""
    return [
        f"{rc['address']}: {_diff(rc['change'])}"
        for rc in plan.get("resource_changes", [])
        if rc["change"]["actions"] != ["no-op"] and any(k.covers(rc) for k in known)
    ]


def alarm_tags_dropped(sess: Session) -> bool:
    """Whether this LocalStack drops the Tags given to PutMetricAlarm (probed with a throwaway alarm)."""
    cw = sess.client("cloudwatch")
    name = f"probe-alarm-tags-{uuid.uuid4().hex[:8]}"
    cw.put_metric_alarm(
        AlarmName=name, Namespace="Probe", MetricName="Probe", Statistic="Maximum", Period=60,
        EvaluationPeriods=1, Threshold=0, ComparisonOperator="GreaterThanThreshold",
        Tags=[{"Key": "probe", "Value": "1"}],
    )
    try:
        arn = cw.describe_alarms(AlarmNames=[name])["MetricAlarms"][0]["AlarmArn"]
        return {"Key": "probe", "Value": "1"} not in cw.list_tags_for_resource(ResourceARN=arn)["Tags"]
    finally:
        cw.delete_alarms(AlarmNames=[name])


def _diff(change: dict) -> str:
    before, after = change.get("before") or {}, change.get("after") or {}
    if not isinstance(before, dict) or not isinstance(after, dict):
        return f"{before!r} -> {after!r}"
    keys = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    unknown = sorted(k for k, v in (change.get("after_unknown") or {}).items() if v)
    parts = [f"{k}: {before.get(k)!r} -> {after.get(k)!r}" for k in keys] + [f"{k}: (known after apply)" for k in unknown]
    return "; ".join(parts) or "(no attribute differences)"


def state_resources(state: dict) -> list[dict]:
    """Every managed resource in `terraform show -json` state output (modules included)."""
    out: list[dict] = []

    def walk(mod: dict) -> None:
        out.extend(r for r in mod.get("resources", []) if r.get("mode") == "managed")
        for child in mod.get("child_modules", []):
            walk(child)

    walk((state.get("values") or {}).get("root_module") or {})
    return out


def _gone(call, *missing_codes: str) -> bool:
    """True when ``call()`` fails with one of the error codes that mean "does not exist"."""
    from botocore.exceptions import ClientError

    try:
        call()
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in missing_codes:
            return True
        raise
    return False


def leftovers(sess: Session, resources: list[dict]) -> list[str]:
    """Which of ``resources`` (from :func:`state_resources`, taken before a destroy) still exist.

    Each type is looked up in LocalStack by its own API. A KMS key counts as gone when it is
    pending deletion (AWS never deletes a key at once; the shortest window is 7 days). A
    resource type without a check here is reported as a failure, so a new example cannot
    silently go unchecked: add the lookup for its type.
    """
    found = []
    sqs, s3, ddb = sess.client("sqs"), sess.client("s3"), sess.client("dynamodb")
    cw, sns, kms, iam = sess.client("cloudwatch"), sess.client("sns"), sess.client("kms"), sess.client("iam")
    for r in resources:
        t, v, addr = r["type"], r.get("values") or {}, r["address"]
        if t == "aws_sqs_queue":
            if not _gone(lambda: sqs.get_queue_url(QueueName=v["name"]), "AWS.SimpleQueueService.NonExistentQueue",
                         "QueueDoesNotExist"):
                found.append(f"{addr}: queue {v['name']} still exists")
        elif t == "aws_s3_bucket" or t.startswith("aws_s3_bucket_"):
            # a bucket's configuration resources go with the bucket
            if not _gone(lambda: s3.head_bucket(Bucket=v["bucket"]), "404", "NoSuchBucket"):
                found.append(f"{addr}: bucket {v['bucket']} still exists")
        elif t == "aws_dynamodb_table":
            if not _gone(lambda: ddb.describe_table(TableName=v["name"]), "ResourceNotFoundException"):
                found.append(f"{addr}: table {v['name']} still exists")
        elif t == "aws_cloudwatch_metric_alarm":
            if cw.describe_alarms(AlarmNames=[v["alarm_name"]])["MetricAlarms"]:
                found.append(f"{addr}: alarm {v['alarm_name']} still exists")
        elif t == "aws_sns_topic":
            if not _gone(lambda: sns.get_topic_attributes(TopicArn=v["arn"]), "NotFound", "NotFoundException"):
                found.append(f"{addr}: topic {v['arn']} still exists")
        elif t == "aws_kms_key":
            state = kms.describe_key(KeyId=v["key_id"])["KeyMetadata"]["KeyState"]
            if state not in ("PendingDeletion", "Deleted"):
                found.append(f"{addr}: KMS key {v['key_id']} is {state}, not pending deletion")
        elif t == "aws_iam_policy":
            if not _gone(lambda: iam.get_policy(PolicyArn=v["arn"]), "NoSuchEntity"):
                found.append(f"{addr}: IAM policy {v['arn']} still exists")
        else:
            found.append(f"{addr}: no leftover check for resource type {t} (add one to tests/localstack/support.py)")
    return found


def live_named_keys(sess: Session, prefix: str) -> dict[str, str]:
    """{key id: description} of the KMS keys described with ``prefix`` and not pending deletion."""
    kms, found = sess.client("kms"), {}
    for page in kms.get_paginator("list_keys").paginate():
        for k in page["Keys"]:
            meta = kms.describe_key(KeyId=k["KeyId"])["KeyMetadata"]
            if prefix in meta.get("Description", "") and meta["KeyState"] not in ("PendingDeletion", "Deleted"):
                found[k["KeyId"]] = meta["Description"]
    return found


def named_leftovers(sess: Session, prefix: str) -> list[str]:
    """Everything in LocalStack whose name carries ``prefix``: queues, buckets, tables, alarms,
    SNS topics, IAM policies, and KMS keys (described with it) not pending deletion."""
    found = []
    found += sess.client("sqs").list_queues(QueueNamePrefix=prefix).get("QueueUrls", [])
    found += [f"bucket {b['Name']}" for b in sess.client("s3").list_buckets().get("Buckets", []) if b["Name"].startswith(prefix)]
    found += [f"table {t}" for t in sess.client("dynamodb").list_tables().get("TableNames", []) if t.startswith(prefix)]
    cw = sess.client("cloudwatch")
    for page in cw.get_paginator("describe_alarms").paginate():
        found += [f"alarm {a['AlarmName']}" for a in page.get("MetricAlarms", []) + page.get("CompositeAlarms", []) if prefix in a["AlarmName"]]
    sns = sess.client("sns")
    for page in sns.get_paginator("list_topics").paginate():
        found += [f"topic {t['TopicArn']}" for t in page["Topics"] if prefix in t["TopicArn"].rsplit(":", 1)[1]]
    iam = sess.client("iam")
    for page in iam.get_paginator("list_policies").paginate(Scope="Local"):
        found += [f"IAM policy {p['Arn']}" for p in page["Policies"] if prefix in p["Arn"]]
    found += [f"KMS key {k} ({d}) is not pending deletion" for k, d in live_named_keys(sess, prefix).items()]
    return found


# ------------------------------------------------------------------------------------------
# the documentation's Python code (README.md, docs/*.md, module and example READMEs), run as published
# ------------------------------------------------------------------------------------------
def doc_python_blocks() -> list[tuple[Path, str]]:
    """Every ```python block of the project's Markdown, with the file it is in."""
    import re

    from tooling.docs import doc_files

    return [(md, b) for md in doc_files() for b in re.findall(r"```python\n(.*?)```", md.read_text(), flags=re.DOTALL)]


def readme_snippet(docstring_start: str, sess: Session, ls: LocalStack, **globals_) -> dict:
    """Execute the documentation's ```python block whose docstring starts with ``docstring_start``
    (found in whichever Markdown file holds it; exactly one block may match).

    Returns its namespace. The snippet's module-level ``s3``/``sqs`` clients are replaced by
    clients of this LocalStack; ``globals_`` adds names the snippet leaves to the reader
    (e.g. ``process``).
    """
    found = [(md, b) for md, b in doc_python_blocks() if b.lstrip().startswith(f'"""{docstring_start}')]
    if len(found) != 1:
        where = ", ".join(str(md.relative_to(REPO_ROOT)) for md, _ in found) or "none of README.md, docs/*.md, modules/*/README.md, examples/*/README.md"
        raise AssertionError(f"expected one ```python block starting with {docstring_start!r} in the documentation, "
                             f"found {len(found)} ({where})")
    md, code = found[0]
    ns: dict = {"__name__": f"readme_{docstring_start.split(':')[0].lower()}"}
    saved = {k: os.environ.get(k) for k in ls.env()}
    os.environ.update(ls.env())  # the snippet creates boto3 clients at import
    try:
        exec(compile(code, f"{md.relative_to(REPO_ROOT)}[{docstring_start}]", "exec"), ns)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    for name in ("s3", "sqs"):
        if name in ns:
            ns[name] = sess.client(name)
    ns.update(globals_)
    return ns


# ------------------------------------------------------------------------------------------
# SQS
# ------------------------------------------------------------------------------------------
def depth(sqs, url: str) -> tuple[int, int]:
    """(visible, in flight) messages of a queue."""
    a = sqs.get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    )["Attributes"]
    return int(a["ApproximateNumberOfMessages"]), int(a["ApproximateNumberOfMessagesNotVisible"])


def receive(sqs, url: str, *, wait: int = 0, max_n: int = 10, visibility: int | None = None) -> list[dict]:
    kwargs = dict(QueueUrl=url, MaxNumberOfMessages=max_n, WaitTimeSeconds=wait, AttributeNames=["All"],
                  MessageAttributeNames=["All"])
    if visibility is not None:
        kwargs["VisibilityTimeout"] = visibility
    return sqs.receive_message(**kwargs).get("Messages", [])


def drain(sqs, url: str, timeout: float = 120) -> list[dict]:
    """Receive and delete until the queue reports nothing visible or in flight; returns the messages."""
    got: list[dict] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msgs = receive(sqs, url, wait=1, visibility=60)
        if msgs:
            got.extend(msgs)
            for i in range(0, len(msgs), 10):
                sqs.delete_message_batch(
                    QueueUrl=url,
                    Entries=[{"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(msgs[i : i + 10])],
                )
        elif depth(sqs, url) == (0, 0):
            return got
    raise AssertionError(f"{url} still not empty after {timeout} s")


def send_batch(sqs, url: str, bodies: list[str], **extra) -> None:
    for i in range(0, len(bodies), 10):
        resp = sqs.send_message_batch(
            QueueUrl=url, Entries=[{"Id": str(n), "MessageBody": b, **extra} for n, b in enumerate(bodies[i : i + 10])]
        )
        assert not resp.get("Failed"), resp["Failed"]


def queue_arn(url: str) -> str:
    """The ARN of a LocalStack queue URL (``.../<account>/<name>``)."""
    account, name = url.rstrip("/").split("/")[-2:]
    return f"arn:aws:sqs:{REGION}:{account}:{name}"


# ------------------------------------------------------------------------------------------
# IAM: the redrive operator
# ------------------------------------------------------------------------------------------
# What AWS's "Amazon SQS API permissions" reference requires for each operator call, beyond the
# action of the same name: a move task receives/deletes on the DLQ and sends to the destination.
IMPLIED_ACTIONS = {
    "StartMessageMoveTask": [("source", "sqs:ReceiveMessage"), ("source", "sqs:DeleteMessage"),
                             ("source", "sqs:GetQueueAttributes"), ("destination", "sqs:SendMessage")],
    "CancelMessageMoveTask": [("source", "sqs:ReceiveMessage"), ("source", "sqs:DeleteMessage"),
                              ("source", "sqs:GetQueueAttributes")],
    "ListMessageMoveTasks": [("source", "sqs:ReceiveMessage"), ("source", "sqs:DeleteMessage"),
                             ("source", "sqs:GetQueueAttributes")],
}


def redrive_operator_policy(dlq_arn: str, source_arn: str) -> dict:
    """Least-privilege policy of a person who redrives one DLQ back to its source queue."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "RedriveFromDlq",
                "Effect": "Allow",
                "Action": [
                    "sqs:StartMessageMoveTask", "sqs:ListMessageMoveTasks", "sqs:CancelMessageMoveTask",
                    "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes",
                ],
                "Resource": [dlq_arn],
            },
            {
                "Sid": "RedriveIntoSource",
                "Effect": "Allow",
                "Action": ["sqs:SendMessage", "sqs:GetQueueAttributes"],
                "Resource": [source_arn],
            },
        ],
    }


def policy_allows(policy: dict, action: str, resource: str) -> bool:
    """Identity-policy evaluation for one action on one resource: an explicit Deny wins, else any Allow."""
    allowed = False
    for st in policy["Statement"]:
        actions = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
        resources = st["Resource"] if isinstance(st["Resource"], list) else [st["Resource"]]
        if any(fnmatch.fnmatchcase(action.lower(), a.lower()) for a in actions) and any(
            fnmatch.fnmatchcase(resource, r) for r in resources
        ):
            if st["Effect"] == "Deny":
                return False
            allowed = True
    return allowed


@dataclass
class CallRecorder:
    """Records every SQS call made through a client, as (operation, params)."""

    calls: list[tuple[str, dict]] = field(default_factory=list)

    def attach(self, client) -> None:
        client.meta.events.register("provide-client-params.sqs.*", self._record)

    def _record(self, params, model, **_):
        self.calls.append((model.name, dict(params)))


def _task_source(handle: str) -> str | None:
    with contextlib.suppress(ValueError, KeyError):
        padded = handle + "=" * (-len(handle) % 4)
        return json.loads(base64.b64decode(padded))["sourceArn"]
    return None


def unauthorized_calls(policy: dict, calls: list[tuple[str, dict]], original_source: str) -> list[str]:
    """Every (action, resource) a recorded call needs that ``policy`` does not allow.

    ``original_source``: where a move task without DestinationArn sends messages.
    """
    missing = []
    for op, params in calls:
        if "QueueUrl" in params:
            resource = queue_arn(params["QueueUrl"])
        elif "SourceArn" in params:
            resource = params["SourceArn"]
        elif "TaskHandle" in params:
            resource = _task_source(params["TaskHandle"]) or "*"
        else:
            resource = "*"
        needs = [(f"sqs:{op}", resource)]
        for role, action in IMPLIED_ACTIONS.get(op, []):
            target = resource if role == "source" else params.get("DestinationArn", original_source)
            needs.append((action, target))
        missing += [f"{op}: {a} on {r}" for a, r in needs if not policy_allows(policy, a, r)]
    return missing


def create_operator(sess: Session, name: str, policy: dict) -> tuple[str, str, str]:
    """An IAM user holding only ``policy``; returns (user ARN, access key, secret key)."""
    iam = sess.client("iam")
    user = iam.create_user(UserName=name)["User"]
    iam.put_user_policy(UserName=name, PolicyName="redrive-operator", PolicyDocument=json.dumps(policy))
    key = iam.create_access_key(UserName=name)["AccessKey"]
    return user["Arn"], key["AccessKeyId"], key["SecretAccessKey"]


def delete_operator(sess: Session, name: str) -> None:
    iam = sess.client("iam")
    with contextlib.suppress(Exception):
        for k in iam.list_access_keys(UserName=name)["AccessKeyMetadata"]:
            iam.delete_access_key(UserName=name, AccessKeyId=k["AccessKeyId"])
        iam.delete_user_policy(UserName=name, PolicyName="redrive-operator")
        iam.delete_user(UserName=name)


__all__ = [
    "ACCOUNT_ID", "AppliedExample", "CallRecorder", "create_operator", "delete_operator", "depth", "drain",
    "ALARM_TAGS_DROPPED", "KnownDifference", "alarm_tags_dropped", "leftovers", "named_leftovers", "pending_changes",
    "tolerated_changes", "policy_allows", "queue_arn", "receive", "redrive_operator_policy",
    "readme_snippet", "send_batch", "session", "state_resources", "unauthorized_calls", "unique_prefix",
]
