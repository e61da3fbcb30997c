"""Policy documents: every IAM and resource policy of the plan, once, from its JSON, its
``aws_iam_policy_document`` data source, or the configuration source."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import iamdoc
from ..graph import UNKNOWN, Resource, Target, marked, narrow
from .values import show

if TYPE_CHECKING:
    from .queues import Queue


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


class DocumentLinks:
    """Model stage of policy documents (read on demand, memoized)."""

    def _documents_on_demand(self):
        """Policy documents are read when asked (the IAM rules, the bucket stage), memoized here."""
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
        got = self._document_from_source(rv)
        if got is not None:
            self._consume(rv)
            return got
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

    def _document_from_source(self, rv, attr: str | None = None) -> PolicyDoc | None:
        """The document of ``rv`` (resolve.Resolved) from the configuration source, None when
        it cannot say; ``attr`` names it in messages (default: the attribute)."""
        ev = rv.evaluated
        if ev is None:
            return None
        return self._document_of_partial(rv.res, attr or rv.path[0], ev.value, ev.ref)

    def _document_of_partial(self, res: Resource, attr: str, v, ref) -> PolicyDoc:
        """The document a policy's partial value ``v`` (from the source, at ``ref``) says."""
        from .. import source as src

        if isinstance(v, src.Pending) and v.res.type == "aws_iam_policy_document" and v.path == ("json",):
            self._consumed_docs.add(v.res.address)
            d = self.data_document(v.res)
            if d is None:
                return PolicyDoc(res.address, None, unknown_reason=f"{attr} is the JSON of {v.res.address}, which is "
                                 "only known after apply", via=v.res.address)
            return PolicyDoc(res.address, d, via=v.res.address)
        doc = src.decode_json(v)
        if isinstance(doc, src.Unknown):
            return PolicyDoc(res.address, None, unknown_reason=f"{attr} is only known after apply: {doc.why}", ref=ref)
        try:
            return PolicyDoc(res.address, iamdoc.from_object(src.to_plain(doc), res.address, ref=ref))
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
                if self.source is not None and (got is None or got.incomplete or iamdoc.undecided(got)):
                    got = self._data_document_from_source(r) or got
            self._doc_cache[r.address] = got
        return got

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

    def _data_document_from_source(self, r: Resource) -> iamdoc.Document | None:
        """An aws_iam_policy_document evaluated from its block: statements (dynamic ones
        expanded), merged with source_policy_documents / override_policy_documents by Sid."""
        from .. import source as src

        got = self.resolve.block(r)
        if got is None:
            return None
        body, ref = got
        if not isinstance(body, dict) or isinstance(body.get("statement", []), src.Unknown):
            return None

        def docs(key):
            out = []
            for v in body.get(key) or ():
                if isinstance(v, src.Pending) and v.res.type == "aws_iam_policy_document" and v.path == ("json",):
                    d = self.data_document(v.res)
                else:
                    obj = src.decode_json(v)
                    try:
                        d = None if isinstance(obj, src.Unknown) else iamdoc.from_object(src.to_plain(obj), r.address)
                    except iamdoc.PolicyParseError:
                        d = None
                if d is None:
                    return None
                out.append(d)
            return out

        if isinstance(body.get("source_policy_documents"), src.Unknown) or isinstance(
                body.get("override_policy_documents"), src.Unknown):
            return None
        sources, overrides = docs("source_policy_documents"), docs("override_policy_documents")
        if sources is None or overrides is None:
            return None
        try:
            own = iamdoc.from_blocks(src.to_plain(body.get("statement") or []))
        except iamdoc.PolicyParseError:
            return None
        statements = iamdoc.merge_by_sid([s for d in sources for s in d.statements], own)
        for d in overrides:
            statements = iamdoc.merge_by_sid(statements, d.statements)
        return iamdoc.Document(statements, r.address, ref=ref)

    def policy_documents(self) -> list[PolicyDoc]:
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
            got = self._inline_policies_from_source(r)
            if got is not None:
                return got
        rv = self.resolve.value(r, "inline_policy")
        blocks = rv.value
        if blocks is UNKNOWN:  # the blocks themselves
            got = self._document_via(r, rv.targets, "inline_policy")
            return (self._inline_policies_from_source(r) or [got]) if got.doc is None else [got]
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
                if got.doc is None:
                    got = self._document_from_source(pv, f"inline_policy {i}") or got
                out.append(got)
        return out

    def _inline_policies_from_source(self, r: Resource) -> list[PolicyDoc] | None:
        """The documents of ``r``'s inline_policy blocks as the source's evaluated block has
        them (dynamic ones expanded); None when the source cannot say."""
        from .. import source as src

        got = self.resolve.block(r)
        blocks = got[0].get("inline_policy") if got is not None and isinstance(got[0], dict) else None
        if isinstance(blocks, src.Unknown):  # a dynamic block over a collection known only after apply
            return [PolicyDoc(r.address, None, unknown_reason=f"inline_policy is only known after apply: {blocks.why}",
                              ref=got[1])]
        if not isinstance(blocks, list):
            return None
        return [self._document_of_partial(r, f"inline_policy {i}", b.get("policy"), got[1])
                for i, b in enumerate(blocks) if isinstance(b, dict) and b.get("policy") not in (None, "")]

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

    def queue_policies(self, q: Queue) -> list[PolicyDoc]:
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
