"""Policy documents: every IAM and resource policy of the plan, once, from its JSON, its
``aws_iam_policy_document`` data source, or the configuration source. :class:`Documents`
reads them on demand (the IAM rules, stage 4's buckets), each once.

A document follows the resolver's chain with one exception, as the redrive policy does
(model/redrive.py): where the plan leaves it unknown, the configuration source is read BEFORE
the plan's references, because the references tell only which document data source it is
built from, not what it says (``merge(jsondecode(data.x.json), ...)`` references ``data.x``
and says more); the source's value is the document itself, and a placeholder for a data
source's JSON (``data.aws_iam_policy_document.x.json``) is that data source's document."""
from __future__ import annotations

from .. import iamdoc
from ..graph import UNKNOWN, Plan, Resource, Target, marked, narrow
from ..resolve import Resolved, Resolver
from .queues import Queue
from .values import show


POLICY_ATTRS = {
    "aws_iam_policy": "policy",
    "aws_iam_role_policy": "policy",
    "aws_iam_user_policy": "policy",
    "aws_iam_group_policy": "policy",
    "aws_sqs_queue": "policy",
    "aws_sqs_queue_policy": "policy",
    "aws_s3_bucket_policy": "policy",
    "aws_s3_bucket": "policy",
    "aws_sns_topic_policy": "policy",
}


# resources whose policy is a KMS key policy: not an identity or resource policy granting data
# access (IAM001/IAM002 do not judge it: AWS's default key policy allows kms:* to the account
# root, and a statement letting a service use "*", this key, is how key policies are written)
KEY_POLICIES = ("aws_kms_key", "aws_kms_key_policy", "aws_kms_replica_key", "aws_kms_external_key")


# attachments of managed policies: (resource type, attribute holding the policy ARN(s))
ATTACHMENTS = (
    ("aws_iam_role_policy_attachment", "policy_arn"), ("aws_iam_user_policy_attachment", "policy_arn"),
    ("aws_iam_group_policy_attachment", "policy_arn"), ("aws_iam_policy_attachment", "policy_arn"),
    ("aws_iam_role", "managed_policy_arns"), ("aws_iam_role_policy_attachments_exclusive", "policy_arns"),
)


class PolicyDoc:
    """A policy document as evaluated by the IAM rules (one per resource that carries it)."""

    def __init__(self, address: str, doc: iamdoc.Document | None, unknown_reason: str | None = None,
                 error: str | None = None, via: str | None = None, ref=None):
        self.address = address
        self.doc = doc
        self.unknown_reason = unknown_reason
        self.error = error
        self.via = via
        # SourceRef when the document (or what it says) was read from the configuration source
        self.ref = ref if ref is not None else (doc.ref if doc is not None else None)


class Documents:
    """The plan's policy documents, read when asked (the IAM rules, the bucket stage) and
    memoized: ``document_from`` (the document one resource's attribute carries),
    ``data_document`` (of a policy document data source), ``all`` (every document, once),
    ``of_queue`` (the access policies of a queue)."""

    def __init__(self, plan: Plan, resolve: Resolver):
        self.plan = plan
        self.resolve = resolve
        self._doc_cache: dict[str, iamdoc.Document | None] = {}
        self._docs_memo: dict[tuple, PolicyDoc | None] = {}
        self._consumed_docs: set[str] = set()
        self._policy_docs: list[PolicyDoc] | None = None

    def document_from(self, res: Resource, attr: str) -> PolicyDoc | None:
        """The policy document carried by ``res.attr``; None when there is none (memoized)."""
        key = (res.address, attr)
        if key not in self._docs_memo:
            self._docs_memo[key] = self._document_from(res, attr)
        return self._docs_memo[key]

    def _document_from(self, res: Resource, attr: str) -> PolicyDoc | None:
        rv = self.resolve.value(res, attr)
        raw = rv.value
        if raw is None:
            return None
        if isinstance(raw, str):
            self._consume(rv)
            try:
                return PolicyDoc(res.address, iamdoc.parse_json(raw, res.address))
            except iamdoc.PolicyParseError as e:
                return PolicyDoc(res.address, None, error=f"{attr} is not a valid policy document: {e}")
        if raw is not UNKNOWN:
            return PolicyDoc(res.address, None, error=f"{attr} is {show(raw)}, not a policy document (a JSON string)")
        if rv.evaluated is not None:  # the source first: see the module docstring
            self._consume(rv)
            return self._document_of(rv, attr)
        return self._document_via(res, rv.targets, attr)

    def _consume(self, rv):
        """The policy document data sources a policy (``rv``, resolve.Resolved) is built from
        are not judged on their own."""
        self._consumed_docs.update(d.address for d in rv.linked("aws_iam_policy_document"))

    def _document_via(self, res: Resource, targets: list[Target], what: str) -> PolicyDoc:
        """A document only known after apply, read from the policy document data source
        (or managed policy data source) its expression refers to."""
        docs = [t.res for t in targets if t.res is not None and t.res.type in ("aws_iam_policy_document", "aws_iam_policy")
                and (t.res.type == "aws_iam_policy_document" or t.res.mode == "data")]
        for d in docs:
            if d.type == "aws_iam_policy_document":
                self._consumed_docs.add(d.address)
        docs = narrow(list({d.address: d for d in docs}.values()), res)
        if len(docs) == 1:
            d = self.data_document(docs[0])
            if d is not None:
                return PolicyDoc(res.address, d, via=docs[0].address)
        return PolicyDoc(res.address, None, unknown_reason=f"{what} is only known after apply")

    def _document_of(self, rv: Resolved, attr: str) -> PolicyDoc:
        """The document the configuration source says ``rv`` (resolve.Resolved) is: the
        document of a policy document data source whose JSON it is, or the JSON it evaluates to."""
        res = rv.res
        pending = rv.pending(("json",), ("aws_iam_policy_document",))
        if pending is not None:
            self._consumed_docs.add(pending.res.address)
            d = self.data_document(pending.res)
            if d is None:
                return PolicyDoc(res.address, None, unknown_reason=f"{attr} is the JSON of {pending.res.address}, "
                                 "which is only known after apply", via=pending.res.address)
            return PolicyDoc(res.address, d, via=pending.res.address)
        doc, ref, why = rv.json()
        if why is not None:
            return PolicyDoc(res.address, None, unknown_reason=f"{attr} is only known after apply: {why}", ref=ref)
        try:
            return PolicyDoc(res.address, iamdoc.from_object(doc, res.address, ref=ref))
        except iamdoc.PolicyParseError as e:
            return PolicyDoc(res.address, None, error=f"{attr} is not a valid policy document ({ref}): {e}", ref=ref)

    def data_document(self, r: Resource) -> iamdoc.Document | None:
        """The document of an aws_iam_policy_document data source (or the policy of a
        data aws_iam_policy): from its JSON when known, else from its statement blocks
        merged with its source and override documents; None when nothing is known."""
        got = self._doc_cache.get(r.address, False)
        if got is False:
            self._doc_cache[r.address] = None  # a document built from itself stays unknown
            text = r.attr("json" if r.type == "aws_iam_policy_document" else "policy")
            got = None
            if isinstance(text, str):
                try:
                    got = iamdoc.parse_json(text, r.address)
                except iamdoc.PolicyParseError:
                    got = None
            elif r.type == "aws_iam_policy_document":
                own = iamdoc.from_document_data(r)
                sources = self._doc_list(r, "source_policy_documents")
                overrides = self._doc_list(r, "override_policy_documents")
                got = own if not sources and not overrides else iamdoc.merge(sources, own, overrides, r.address)
                if self.resolve.source is not None and (got is None or got.incomplete or iamdoc.undecided(got)):
                    got = self._block_document(r) or got
            self._doc_cache[r.address] = got
        return got

    def with_late_resources(self, pd: PolicyDoc) -> iamdoc.Document | None:
        """The document of ``pd`` with its Resource elements known only after apply read from
        the configuration source (``[aws_s3_bucket.b.arn, "${aws_s3_bucket.b.arn}/*"]``), when it
        is a policy document data source's (``via``) and the source says them; else None.
        data_document reads the source only for what every IAM rule needs (effects, actions,
        principals, conditions): a resource known after apply is one of the plan's, hence
        named; whether it is a particular bucket's objects is S3003's question."""
        r = self.plan.by_address.get(pd.via) if pd.via else None
        if r is None or r.type != "aws_iam_policy_document" or self.resolve.source is None:
            return None
        key = ("late-resources", r.address)
        if key not in self._docs_memo:
            self._docs_memo[key] = self._block_document(r)
        return self._docs_memo[key]

    def _doc_list(self, r: Resource, attr: str) -> list[iamdoc.Document | None]:
        """The documents of source_policy_documents / override_policy_documents; None for
        one only known after apply (resolved through references where the plan shows them)."""
        raw = r.attr(attr)
        if raw is None:
            return []
        known: list[iamdoc.Document | None] = []
        unknown = 0
        if isinstance(raw, list):
            flags = r.unknown.get(attr)
            for j, x in enumerate(raw):
                if isinstance(x, str):
                    if not x:
                        continue
                    try:
                        known.append(iamdoc.parse_json(x, r.address))
                    except iamdoc.PolicyParseError:
                        known.append(iamdoc.Document([], r.address, incomplete=f"{attr} element {j} is not a valid policy"))
                elif x is None and isinstance(flags, list) and j < len(flags) and flags[j] is True:
                    unknown += 1
        elif raw is UNKNOWN:
            unknown = -1  # how many is not known either
        if unknown == 0:
            return known
        refs = self.resolve.value(r, attr).linked("aws_iam_policy_document")
        refs = list({d.address: d for d in refs if d is not r}.values())
        pending = [d for d in refs if not isinstance(d.attr("json"), str)]
        if unknown == len(pending) or (unknown == -1 and refs and len(refs) == len(pending)):
            for d in pending:
                self._consumed_docs.add(d.address)
            return known + [self.data_document(d) for d in pending]
        return known + [None] * max(unknown, 1)

    def _block_document(self, r: Resource) -> iamdoc.Document | None:
        """An aws_iam_policy_document as the configuration source's evaluated block says it
        (resolve.Resolver.in_block): statements (dynamic ones expanded), merged with
        source_policy_documents / override_policy_documents by Sid; None when it cannot say."""
        statements = self.resolve.in_block(r, "statement")
        listed = {key: self.resolve.in_block(r, key) for key in ("source_policy_documents", "override_policy_documents")}
        if statements.evaluated is None or statements.unknown_why is not None or any(
                v.unknown_why is not None for v in listed.values()):
            return None

        def docs(key):
            out = []
            for i, _ in enumerate(listed[key].partial or ()):
                v = self.resolve.in_block(r, key, i)
                pending = v.pending(("json",), ("aws_iam_policy_document",))
                if pending is not None:
                    d = self.data_document(pending.res)
                else:
                    got = v.json()
                    try:
                        d = None if got is None or got[2] is not None else iamdoc.from_object(got[0], r.address)
                    except iamdoc.PolicyParseError:
                        d = None
                if d is None:
                    return None
                out.append(d)
            return out

        sources, overrides = docs("source_policy_documents"), docs("override_policy_documents")
        if sources is None or overrides is None:
            return None
        try:
            own = iamdoc.from_blocks(statements.plain() or [])
        except iamdoc.PolicyParseError:
            return None
        merged = iamdoc.merge_by_sid([s for d in sources for s in d.statements], own)
        for d in overrides:
            merged = iamdoc.merge_by_sid(merged, d.statements)
        return iamdoc.Document(merged, r.address, ref=statements.ref)

    def all(self) -> list[PolicyDoc]:
        """Every policy document in the plan, once: on the resource that carries it,
        managed policies read by a data source and attached to a role, user or group,
        and standalone aws_iam_policy_document data sources no resource consumes."""
        if self._policy_docs is not None:
            return self._policy_docs
        out: list[PolicyDoc] = []
        for typ, attr in POLICY_ATTRS.items():
            for r in self.plan.of_type(typ):
                if r.mode != "managed":
                    continue
                d = self.document_from(r, attr)
                if d is not None:
                    out.append(d)
        for r in self.plan.of_type("aws_iam_role"):
            if r.mode == "managed":
                out.extend(self._inline_policies(r))
        out.extend(self._attached_managed_policies())
        for typ in KEY_POLICIES:
            for r in self.plan.of_type(typ):
                if r.mode == "managed":  # a key policy is not judged (docs/policy.md): nor its documents
                    rv = self.resolve.value(r, "policy")
                    self._consumed_docs.update(d.address for d in rv.linked("aws_iam_policy_document"))
                    if rv.opaque:  # through a local value: the source says which document
                        pending = rv.pending(("json",), ("aws_iam_policy_document",))
                        if pending is not None:
                            self._consumed_docs.add(pending.res.address)
        for r in self.plan.of_type("aws_iam_policy_document"):
            for attr in ("source_policy_documents", "override_policy_documents"):
                for d in self.resolve.value(r, attr).linked("aws_iam_policy_document"):
                    if d is not r:
                        self._consumed_docs.add(d.address)
        for r in self.plan.of_type("aws_iam_policy_document"):
            if r.address in self._consumed_docs:
                continue
            d = self.data_document(r)
            out.append(PolicyDoc(r.address, d, unknown_reason=None if d else "the document is only known after apply"))
        self._policy_docs = out
        return out

    def _inline_policies(self, r: Resource) -> list[PolicyDoc]:
        """The documents of a role's ``inline_policy`` blocks. One only known after apply is
        read from the policy document its expression references, else from the source."""
        if not r.configured("inline_policy") and marked(r.unknown.get("inline_policy")):
            # unknown parts in blocks the plan's configuration does not show: none at all (the
            # provider reads them back), or dynamic ones, which the plan's configuration leaves
            # out: only the source tells them apart
            got = self._block_inline_policies(r)
            if got is not None:
                return got
        rv = self.resolve.value(r, "inline_policy")
        blocks = rv.value
        if blocks is UNKNOWN:  # the blocks themselves
            got = self._document_via(r, rv.targets, "inline_policy")
            return (self._block_inline_policies(r) or [got]) if got.doc is None else [got]
        out = []
        dynamic = not r.configured("inline_policy")  # blocks the plan shows but its configuration leaves out
        for i, blk in enumerate(blocks if isinstance(blocks, list) else ()):
            pv = self.resolve.value(r, "inline_policy", i, "policy")
            pol = pv.value
            if dynamic and pol is None and _marked_at(r.unknown, "inline_policy", i, "policy"):
                # a dynamic block whose policy is known only after apply: the plan keeps no
                # expression for it, so only the source can say which document it is
                name = blk.get("name") if isinstance(blk, dict) else None
                named = f' "{name}"' if isinstance(name, str) else ""
                out.append(PolicyDoc(r.address, None, unknown_reason=(
                    f"inline_policy {i}{named} (a dynamic block) is only known after apply, and the plan does not say "
                    "what it is built from: run with --source-dir (the configuration the plan was made from) to judge "
                    "it")))
                continue
            if isinstance(pol, str) and pol:
                self._consume(pv)
                try:
                    out.append(PolicyDoc(r.address, iamdoc.parse_json(pol, r.address)))
                except iamdoc.PolicyParseError as e:
                    out.append(PolicyDoc(r.address, None, error=f"inline_policy {i} is not valid: {e}"))
            elif pol is UNKNOWN:
                got = self._document_via(r, pv.targets, f"inline_policy {i}")
                if got.doc is None and pv.evaluated is not None:
                    got = self._document_of(pv, f"inline_policy {i}")
                out.append(got)
        return out

    def _block_inline_policies(self, r: Resource) -> list[PolicyDoc] | None:
        """The documents of ``r``'s inline_policy blocks as the source's evaluated block has
        them (dynamic ones expanded); None when the source cannot say."""
        blocks = self.resolve.in_block(r, "inline_policy")
        if blocks.unknown_why is not None:  # a dynamic block over a collection known only after apply
            return [PolicyDoc(r.address, None, unknown_reason=f"inline_policy is only known after apply: "
                              f"{blocks.unknown_why}", ref=blocks.ref)]
        if not isinstance(blocks.partial, list):
            return None
        return [self._document_of(self.resolve.in_block(r, "inline_policy", i, "policy"), f"inline_policy {i}")
                for i, b in enumerate(blocks.partial) if isinstance(b, dict) and b.get("policy") not in (None, "")]

    def _attached_managed_policies(self) -> list[PolicyDoc]:
        """Existing managed policies (data aws_iam_policy, content read while planning)
        that the plan attaches to a role, user or group."""
        data = [r for r in self.plan.of_type("aws_iam_policy") if r.mode == "data"]
        if not data:
            return []
        by_arn = {r.attr("arn"): r for r in data if isinstance(r.attr("arn"), str)}
        attached: dict[str, Resource] = {}
        for typ, attr in ATTACHMENTS:
            for r in self.plan.of_type(typ):
                if r.mode != "managed":
                    continue
                v = r.attr(attr)
                for arn in v if isinstance(v, list) else [v]:
                    if isinstance(arn, str) and arn in by_arn:
                        attached[by_arn[arn].address] = by_arn[arn]
                for d in self.resolve.value(r, attr).linked("aws_iam_policy"):
                    if d.mode == "data":
                        attached[d.address] = d
        out = []
        for r in attached.values():
            text = r.attr("policy")
            if isinstance(text, str):
                try:
                    out.append(PolicyDoc(r.address, iamdoc.parse_json(text, r.address)))
                except iamdoc.PolicyParseError as e:
                    out.append(PolicyDoc(r.address, None, error=f"policy is not a valid policy document: {e}"))
            else:
                out.append(PolicyDoc(r.address, None, unknown_reason="its policy is only known after apply"))
        return out

    def of_queue(self, q: Queue) -> list[PolicyDoc]:
        """The documents of a queue's access policies (its own, and separate queue policies)."""
        out = []
        for res, attr in q.policy_sources:
            d = self.document_from(res, attr)
            if d is not None:
                out.append(d)
        return out


def _marked_at(unknown, *path) -> bool:
    """Whether the plan's ``after_unknown`` marks the value at ``path`` unknown."""
    for p in path:
        try:
            unknown = unknown[p]
        except (KeyError, IndexError, TypeError):
            return False
    return unknown is True
