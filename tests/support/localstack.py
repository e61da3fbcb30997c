"""Helpers of the LocalStack tier specific to this repository's examples: applied examples, leftover
checks, IAM evaluation of recorded calls, the documentation's snippets. The launcher, the clients
and the SQS helpers are the shipped ones (resilient_sqs.testing), re-exported here."""
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

import pytest
from localstack_client.session import Session

from resilient_sqs.testing.aws import depth, drain, receive, send_batch, session_for
from resilient_sqs.testing.stack import state_resources

from tooling.example_settings import example_variables
from tooling.localstack import ACCOUNT_ID, REGION, LocalStack
from tooling.terraform import REPO_ROOT, Terraform, TerraformError, copy_config

# Terraform retries failed AWS calls 25 times by default; against LocalStack a
# failure is real, so fail fast.
AWS_MAX_RETRIES = 2


def example_group(name: str) -> pytest.MarkDecorator:
    """The xdist group of every test that uses the applied example ``name`` (fixture ``applied``,
    tests/support/localstack_fixtures.py): they all run on the worker that applied it."""
    return pytest.mark.xdist_group(f"localstack-{name}")


# ------------------------------------------------------------------------------------------
# clients (the shipped helpers of resilient_sqs.testing.aws)
# ------------------------------------------------------------------------------------------
def session(ls: LocalStack, access_key: str = "test", secret_key: str = "test"):
    """A localstack-client session for this LocalStack (boto3 clients with its endpoint)."""
    return session_for(ls.endpoint, access_key, secret_key, REGION)


# ------------------------------------------------------------------------------------------
# an example applied against LocalStack
# ------------------------------------------------------------------------------------------
def unique_prefix(tag: str = "") -> str:
    """A queue-name prefix unique to this test run (several runs share a LocalStack via Docker)."""
    return f"lt{uuid.uuid4().hex[:8]}{('-' + tag) if tag else ''}"


class AppliedExample:
    """A copy of an example directory applied against LocalStack (the example itself is untouched).

    Variables: a unique ``name_prefix``, the region, few provider retries, and the
    LocalStack settings the example declares (``tooling.example_settings.EXAMPLE_VARIABLES``:
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
        elif t == "aws_iam_role":
            if not _gone(lambda: iam.get_role(RoleName=v["name"]), "NoSuchEntity"):
                found.append(f"{addr}: IAM role {v['name']} still exists")
        elif t == "aws_iam_role_policy":
            # the inline policy goes with its role; if the role is still there, the policy must not be
            if not _gone(lambda: iam.get_role_policy(RoleName=v["role"], PolicyName=v["name"]), "NoSuchEntity"):
                found.append(f"{addr}: inline policy {v['name']} of role {v['role']} still exists")
        elif t == "aws_iam_role_policy_attachment":
            attached = _attached(iam, v["role"])
            if v["policy_arn"] in attached:
                found.append(f"{addr}: {v['policy_arn']} is still attached to role {v['role']}")
        else:
            found.append(f"{addr}: no leftover check for resource type {t} (add one to tests/support/localstack.py)")
    return found


def _attached(iam, role: str) -> set[str]:
    """ARNs of the managed policies attached to ``role`` (none when the role is gone)."""
    try:
        return {p["PolicyArn"] for page in iam.get_paginator("list_attached_role_policies").paginate(RoleName=role)
                for p in page["AttachedPolicies"]}
    except iam.exceptions.NoSuchEntityException:
        return set()


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
    SNS topics, IAM policies and roles, and KMS keys (described with it) not pending deletion."""
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
    for page in iam.get_paginator("list_roles").paginate():
        found += [f"IAM role {r['RoleName']}" for r in page["Roles"] if r["RoleName"].startswith(prefix)]
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


def readme_snippet(docstring_start: str, ls: LocalStack, env: dict | None = None, **globals_) -> dict:
    """Execute the documentation's ```python block whose docstring starts with ``docstring_start``
    (found in whichever Markdown file holds it; exactly one block may match).

    Returns its namespace. It runs with this LocalStack's environment (its clients talk to
    LocalStack through ``AWS_ENDPOINT_URL``) plus ``env`` (what a function's configuration
    would set); ``globals_`` adds names the snippet leaves to the reader (e.g. ``process``).
    """
    found = [(md, b) for md, b in doc_python_blocks() if b.lstrip().startswith(f'"""{docstring_start}')]
    if len(found) != 1:
        where = ", ".join(str(md.relative_to(REPO_ROOT)) for md, _ in found) or "none of README.md, docs/*.md, modules/*/README.md, examples/*/README.md"
        raise AssertionError(f"expected one ```python block starting with {docstring_start!r} in the documentation, "
                             f"found {len(found)} ({where})")
    md, code = found[0]
    ns: dict = {"__name__": f"readme_{docstring_start.split(':')[0].lower()}"}
    run_env = {**ls.env(), **(env or {})}
    saved = {k: os.environ.get(k) for k in run_env}
    os.environ.update(run_env)  # the snippet creates boto3 clients at import
    try:
        exec(compile(code, f"{md.relative_to(REPO_ROOT)}[{docstring_start}]", "exec"), ns)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    ns.update(globals_)
    return ns


# ------------------------------------------------------------------------------------------
# SQS (depth, receive, drain, send_batch: the shipped helpers of resilient_sqs.testing.aws)
# ------------------------------------------------------------------------------------------
def queue_arn(url: str) -> str:
    """The ARN of a LocalStack queue URL (``.../<account>/<name>``)."""
    account, name = url.rstrip("/").split("/")[-2:]
    return f"arn:aws:sqs:{REGION}:{account}:{name}"


# ------------------------------------------------------------------------------------------
# IAM: LocalStack does not enforce it, so the tests check every call against the module's documents
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

# API operations authorised by an action of another name (the Service Authorization Reference)
ACTION_OF = {
    ("sqs", "SendMessageBatch"): "sqs:SendMessage",
    ("sqs", "DeleteMessageBatch"): "sqs:DeleteMessage",
    ("sqs", "ChangeMessageVisibilityBatch"): "sqs:ChangeMessageVisibility",
    ("s3", "HeadObject"): "s3:GetObject",
    ("s3", "ListObjectsV2"): "s3:ListBucket",
    ("s3", "CreateMultipartUpload"): "s3:PutObject",
    ("s3", "UploadPart"): "s3:PutObject",
    ("s3", "CompleteMultipartUpload"): "s3:PutObject",
    ("s3", "AbortMultipartUpload"): "s3:AbortMultipartUpload",
}


def _like(pattern: str, value: str, ignore_case: bool = False) -> bool:
    """IAM's wildcard match: * any run of characters, ? one character, nothing else special."""
    if ignore_case:
        pattern, value = pattern.lower(), value.lower()
    return fnmatch.fnmatchcase(value, pattern.replace("[", "[[]"))


_CONDITION_OPERATORS = {"Null", "Bool", "StringEquals", "ArnEquals", "StringNotEquals", "ArnNotEquals",
                        "StringEqualsIgnoreCase", "StringLike", "ArnLike", "StringNotLike", "ArnNotLike"}


def _condition_holds(op: str, key: str, wanted: list, context: dict) -> bool:
    base = op.removesuffix("IfExists")
    if base not in _CONDITION_OPERATORS:
        raise ValueError(f"condition operator {op} is not evaluated by this checker: add it to _condition_holds")
    if key not in context:
        return op.endswith("IfExists") or (base == "Null" and [str(w).lower() for w in wanted] == ["true"])
    have = str(context[key])
    if base == "Null":
        return [str(w).lower() for w in wanted] == ["false"]
    if base == "Bool":
        return have.lower() in [str(w).lower() for w in wanted]
    if base in ("StringEquals", "ArnEquals"):
        return have in wanted
    if base in ("StringNotEquals", "ArnNotEquals"):
        return have not in wanted
    if base == "StringEqualsIgnoreCase":
        return have.lower() in [w.lower() for w in wanted]
    if base in ("StringLike", "ArnLike"):
        return any(_like(w, have) for w in wanted)
    return not any(_like(w, have) for w in wanted)  # StringNotLike, ArnNotLike


def _statement_applies(st: dict, action: str, resource: str, context: dict) -> bool:
    def listed(key):
        v = st.get(key)
        return v if isinstance(v, list) else [v]

    if "NotAction" in st:
        action_ok = not any(_like(a, action, ignore_case=True) for a in listed("NotAction"))
    else:
        action_ok = any(_like(a, action, ignore_case=True) for a in listed("Action"))
    if "NotResource" in st:
        resource_ok = not any(_like(r, resource) for r in listed("NotResource"))
    else:
        resource_ok = any(_like(r, resource) for r in listed("Resource"))
    if not (action_ok and resource_ok):
        return False
    for op, pairs in (st.get("Condition") or {}).items():
        for key, wanted in pairs.items():
            if not _condition_holds(op, key, wanted if isinstance(wanted, list) else [wanted], context):
                return False
    return True


def policy_allows(policy: dict | str, action: str, resource: str, context: dict | None = None) -> bool:
    """IAM's evaluation of one identity policy for one request: an explicit Deny wins, then any
    Allow; Action/NotAction (case-insensitive), Resource/NotResource, * and ? wildcards, and
    the common condition operators (an operator it does not know raises instead of guessing)."""
    doc = json.loads(policy) if isinstance(policy, str) else policy
    statements = doc["Statement"] if isinstance(doc["Statement"], list) else [doc["Statement"]]
    context = {"aws:SecureTransport": "true", **(context or {})}
    allowed = False
    for st in statements:
        if _statement_applies(st, action, resource, context):
            if st["Effect"] == "Deny":
                return False
            allowed = True
    return allowed


@dataclass
class CallRecorder:
    """Records every AWS call made through the clients (or sessions) it is attached to, as
    (service, operation, params), with the params the caller gave (botocore's
    ``provide-client-params`` event, before any request is built)."""

    calls: list[tuple[str, str, dict]] = field(default_factory=list)

    def attach(self, client_or_session) -> None:
        events = client_or_session.meta.events if hasattr(client_or_session, "meta") else client_or_session.events
        events.register("provide-client-params", self._record)

    def _record(self, params, model, **_):
        service = model.service_model.endpoint_prefix
        self.calls.append((service, model.name, dict(params)))

    def operations(self) -> set[str]:
        return {f"{svc}:{op}" for svc, op, _ in self.calls}


@contextlib.contextmanager
def recording_calls():
    """A CallRecorder attached to every botocore client created meanwhile (whoever creates it:
    the extended client's S3 client, Powertools' DynamoDB client, redrive_guard's DLQ client)."""
    import botocore.session

    recorder = CallRecorder()
    original = botocore.session.Session.create_client

    def create_client(self, *args, **kwargs):
        client = original(self, *args, **kwargs)
        recorder.attach(client)
        return client

    botocore.session.Session.create_client = create_client
    try:
        yield recorder
    finally:
        botocore.session.Session.create_client = original


def _task_source(handle: str) -> str | None:
    with contextlib.suppress(ValueError, KeyError):
        padded = handle + "=" * (-len(handle) % 4)
        return json.loads(base64.b64decode(padded))["sourceArn"]
    return None


def required_permissions(service: str, op: str, params: dict, original_source: str | None = None,
                         region: str = REGION) -> list[tuple[str, str]]:
    """The (action, resource ARN) pairs IAM checks for one API call."""
    account = ACCOUNT_ID
    action = ACTION_OF.get((service, op), f"{service}:{op}")
    if service == "sqs":
        if "QueueUrl" in params:
            resource = queue_arn(params["QueueUrl"])
        elif "QueueName" in params:
            resource = f"arn:aws:sqs:{region}:{params.get('QueueOwnerAWSAccountId', account)}:{params['QueueName']}"
        elif "SourceArn" in params:
            resource = params["SourceArn"]
        elif "TaskHandle" in params:
            resource = _task_source(params["TaskHandle"]) or "*"
        else:
            resource = "*"
        needs = [(action, resource)]
        for role, implied in IMPLIED_ACTIONS.get(op, []):
            target = resource if role == "source" else params.get("DestinationArn", original_source)
            needs.append((implied, target))
        return needs
    if service == "s3":
        bucket = f"arn:aws:s3:::{params['Bucket']}"
        return [(action, f"{bucket}/{params['Key']}" if "Key" in params else bucket)]
    if service == "dynamodb":
        return [(action, f"arn:aws:dynamodb:{region}:{account}:table/{params['TableName']}")]
    if service == "sts" and op == "GetCallerIdentity":
        return []  # needs no permission
    return [(action, "*")]


def unauthorized_calls(policy: dict | str, calls: list[tuple[str, str, dict]], original_source: str | None = None) -> list[str]:
    """Every (action, resource) the recorded calls need that ``policy`` does not allow.

    ``original_source``: where a move task without DestinationArn sends messages.
    """
    missing = []
    for service, op, params in calls:
        for action, resource in required_permissions(service, op, params, original_source):
            line = f"{op}: {action} on {resource}"
            if not policy_allows(policy, action, resource) and line not in missing:
                missing.append(line)
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
    "tolerated_changes", "policy_allows", "queue_arn", "receive", "required_permissions",
    "readme_snippet", "recording_calls", "send_batch", "session", "state_resources", "unauthorized_calls", "unique_prefix",
]
