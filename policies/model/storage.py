"""Buckets and tables (stage 4): the claim-check buckets with their separate settings
resources (encryption, public access block, lifecycle, policy) and the queues whose payloads
they hold, found through stage 1's queues, stage 2's consumers and the policy documents."""
from __future__ import annotations

import re

from ..graph import UNKNOWN, Plan, Resource
from ..resolve import Resolver
from .consumers import Consumers
from .documents import POLICY_ATTRS, Documents
from .queues import Queue, QueueIndex


class Bucket:
    """An ``aws_s3_bucket`` with the separate resources that configure it (encryption,
    public access block, policies, lifecycle rules), and the queues whose payloads it holds
    when it is a claim-check bucket."""

    def __init__(self, res: Resource):
        self.res = res
        self.address = res.address
        self.name = res.attr("bucket")
        self.sse: list[Resource] = []
        self.pab: list[Resource] = []
        self.policies: list[tuple[Resource, str]] = []
        self.lifecycles: list[Resource] = []
        self.queues: list[Queue] = []  # queues whose payloads it holds (claim check)
        self.claim_check = False
        # aws_s3_bucket_notification resources sending its object events: a system of record
        # whose objects the messages describe, not a store of message payloads
        self.notifications: list[Resource] = []
        self.opted_in = False  # a claim-check bucket because the configuration names it (opt_in)


def link_storage(plan: Plan, resolve: Resolver, queues: QueueIndex, consumers: Consumers,
                 documents: Documents) -> tuple[list[Bucket], list[Resource]]:
    """Stage 4 (after the queues and consumers: a bucket's queues are found through the
    functions that consume them): buckets with their settings, and the tables."""
    buckets = _Storage(plan, resolve, queues, consumers, documents).buckets()
    tables = [r for r in plan.of_type("aws_dynamodb_table") if r.mode == "managed"]
    return buckets, tables


class _Storage:
    """What stage 4 reads from: the plan, the resolver and the stages before it."""

    def __init__(self, plan: Plan, resolve: Resolver, queues: QueueIndex, consumers: Consumers,
                 documents: Documents):
        self.plan, self.resolve, self.queues, self.consumers, self.documents = plan, resolve, queues, consumers, documents

    def buckets(self) -> list[Bucket]:
        buckets = [Bucket(r) for r in self.plan.of_type("aws_s3_bucket") if r.mode == "managed"]
        by_res = {b.address: b for b in buckets}
        by_name: dict[str, list[Bucket]] = {}
        for b in buckets:
            if isinstance(b.name, str):
                by_name.setdefault(b.name, []).append(b)

        def owner(r: Resource) -> Bucket | None:
            """The bucket a settings resource configures: the name the plan knows; a bucket its
            references lead to; what the source says it is (a bucket's ID, or a name); else None."""
            rv = self.resolve.value(r, "bucket")
            name = rv.value
            if isinstance(name, str):
                got = by_name.get(name, [])
                return got[0] if len(got) == 1 else None
            for t in rv.targets:
                if t.res is not None and t.res.address in by_res:
                    return by_res[t.res.address]
            said = rv.named() if name is UNKNOWN else None  # through a local value
            p = said.pending if said is not None else None
            if p is not None and len(p.path) == 1 and p.path[0] in ("id", "bucket") and p.res.type == "aws_s3_bucket":
                return by_res.get(p.res.address)
            if p is None and said is not None and said.text:
                got = by_name.get(said.text, [])
                return got[0] if len(got) == 1 else None
            return None

        for typ, slot in (("aws_s3_bucket_server_side_encryption_configuration", "sse"),
                          ("aws_s3_bucket_public_access_block", "pab"),
                          ("aws_s3_bucket_lifecycle_configuration", "lifecycles")):
            for r in self.plan.of_type(typ):
                if r.mode != "managed":
                    continue
                b = owner(r)
                if b is not None:
                    getattr(b, slot).append(r)
        for r in self.plan.of_type("aws_s3_bucket_policy"):
            b = owner(r)
            if b is not None:
                b.policies.append((r, "policy"))
        for r in self.plan.of_type("aws_s3_bucket_notification"):
            b = owner(r) if r.mode == "managed" else None
            if b is not None:
                b.notifications.append(r)
        for b in buckets:
            if b.res.configured("policy") and b.res.attr("policy") is not None:
                b.policies.insert(0, (b.res, "policy"))
        self._associate_buckets(buckets, by_res, by_name)
        return buckets

    def _module_bucket(self, b: Bucket) -> bool:
        """Whether the bucket is the claim-check bucket of this project's module (by its shape)."""
        from ..module_inputs import ModuleInputs

        kind = ModuleInputs(self.plan)._kind(b.res.module) if b.res.module else None
        return kind is not None and kind[0] == "claim-check-bucket"

    def _associate_buckets(self, buckets: list[Bucket], by_res, by_name):
        """Which queues' payloads a bucket holds. Linked by (1) a policy document
        granting access to both the bucket and a queue, (2) a Lambda function that
        references the bucket and consumes a queue, (3) the nearest enclosing
        (non-root) module instance that holds both."""
        if not buckets or not self.queues.all:
            return
        # a bucket that sends its object events (to a queue, a topic, a function) is where the data
        # lives: a consumer reads the objects a notification names, the messages carry no payload
        # that expires with them. Only this project's claim-check bucket, whatever else it does, is
        # one by its shape (or the configuration naming it: opt_in).
        evidence = [b for b in buckets if not b.notifications or self._module_bucket(b)]
        by_res = {b.address: b for b in evidence}
        by_name = {n: [b for b in bs if b.address in by_res] for n, bs in by_name.items()}
        bucket_arn = re.compile(r"^arn:[a-z-]+:s3:::([^/]+)")

        def docs_and_funcs():
            for r in self.plan.resources:
                if r.type == "aws_iam_policy_document" or r.type in POLICY_ATTRS and r.type not in (
                        "aws_sqs_queue", "aws_sqs_queue_policy", "aws_s3_bucket_policy", "aws_s3_bucket"):
                    yield r, None
                elif r.type == "aws_lambda_function" and r.mode == "managed":
                    yield r, self.consumers.functions.get(r.address)

        def resource_policy(r: Resource) -> bool:
            """A document whose statements all name principals: a resource policy (a queue's
            policy letting S3 send a bucket's notifications), not a role's access to both."""
            if r.type == "aws_sns_topic_policy":
                return True
            if r.type != "aws_iam_policy_document":
                return False
            pd = self.documents.document_from(r, "json")
            doc = pd.doc if pd is not None else None
            if doc is None or not doc.statements:
                return False
            return all(s.principals not in (None, UNKNOWN) and s.principals for s in doc.statements)

        for r, fn in docs_and_funcs():
            if fn is None and resource_policy(r):
                continue
            linked = self.resolve.references(r, "aws_s3_bucket", "aws_sqs_queue")
            bs = {x.address for x in linked if x.address in by_res}
            qs = {x.address for x in linked if x.address in self.queues.by_res}
            # known ARNs in a known policy JSON
            text = r.attr("json") if r.type == "aws_iam_policy_document" else r.attr("policy")
            if isinstance(text, str):
                for m in re.finditer(r'"(arn:[^"]+)"', text):
                    arn = m.group(1)
                    bm = bucket_arn.match(arn)
                    if bm:
                        for b in by_name.get(bm.group(1), ()):
                            bs.add(b.address)
                    for q in self.queues.for_arn(arn):
                        qs.add(q.address)
            elif r.mode == "managed" and text is UNKNOWN and r.type in POLICY_ATTRS:
                # only known after apply (it names a queue's ARN, say): the bucket ARNs its
                # statements write out (a literal name, a local) are read from the source
                pd = self.documents.document_from(r, POLICY_ATTRS[r.type])
                for st in (pd.doc.statements if pd is not None and pd.doc is not None else ()):
                    for arn in st.resources if isinstance(st.resources, list) else ():
                        bm = bucket_arn.match(arn) if isinstance(arn, str) else None
                        for b in by_name.get(bm.group(1), ()) if bm else ():
                            bs.add(b.address)
            if fn is not None:
                # the bucket named (not referenced) in the function's environment: a flat stack
                # that links its claim-check bucket to the consumer by name
                env = r.path("environment", 0, "variables")
                for v in env.values() if isinstance(env, dict) else ():
                    for b in by_name.get(v, ()) if isinstance(v, str) else ():
                        bs.add(b.address)
                for e in self.consumers.esms:
                    if e.function_link.one is not None and e.function_link.one.address == fn.address and e.queue_link.one:
                        qs.add(e.queue_link.one.address)
            if bs and qs:
                for ba in bs:
                    b = by_res[ba]
                    b.claim_check = True
                    for qa in qs:
                        q = self.queues.by_res[qa]
                        if q not in b.queues:
                            b.queues.append(q)
        for b in evidence:
            if b.queues:
                continue
            mod = b.res.module
            while mod:
                qs = [q for q in self.queues.all if q.res.module == mod or q.res.module.startswith(mod + ".")]
                if qs:
                    b.queues = qs
                    b.claim_check = True
                    break
                mod = mod[: mod.rfind(".module.")] if ".module." in mod else ""


def opt_in(buckets: list[Bucket], queues: QueueIndex, patterns) -> list[Bucket]:
    """The buckets the configuration names as claim-check buckets (``patterns``: globs, only
    ``*`` special, on a bucket's address or name), made claim-check buckets when the plan shows no
    evidence: they serve the queues of their nearest enclosing module instance that has queues
    (the whole plan's queues in a flat root). A stack that links its payload bucket to its queues
    by a naming convention only (no reference, no policy naming both) opts in this way."""
    from .. import wildcard

    got = []
    for b in buckets:
        names = [b.address] + ([b.name] if isinstance(b.name, str) else [])
        if not any(wildcard.match(p, n) for p in patterns for n in names):
            continue
        got.append(b)
        if b.claim_check:
            continue
        b.claim_check = b.opted_in = True
        mod = b.res.module
        while True:
            qs = [q for q in queues.all if q.res.module == mod or (mod and q.res.module.startswith(mod + "."))]
            if qs or not mod:
                b.queues = qs if qs else list(queues.all)
                break
            mod = mod[: mod.rfind(".module.")] if ".module." in mod else ""
    return got
