"""Claim-check bucket and idempotency table rules."""
from __future__ import annotations


from resilient_sqs import facts

from .. import iamdoc
from ..graph import UNKNOWN, Resource
from ..model import Bucket, Invalid, Model, number, opt_in, show
from . import Option, fail, invalid, ok, rule, seconds, unknown

PAB_FLAGS = ("block_public_acls", "block_public_policy", "ignore_public_acls", "restrict_public_buckets")


def _sse_algorithm(r: Resource, base: tuple):
    rules = r.path(*base)
    if rules is UNKNOWN:
        return UNKNOWN
    for i, _ in enumerate(rules if isinstance(rules, list) else ()):
        alg = r.path(*base, i, "apply_server_side_encryption_by_default", 0, "sse_algorithm")
        if alg is UNKNOWN or alg:
            return alg
    return None


@rule("S3001", "bucket-encryption", "error", "claim check", "Bucket has a server-side encryption configuration",
      why="""
Claim-check payloads are the message bodies too large for SQS: the same data, at rest for days. The
bucket must declare its encryption (aws_s3_bucket_server_side_encryption_configuration with AES256
or aws:kms) so the plan shows it; checked on every bucket in the plan.""",
      fix="Add an aws_s3_bucket_server_side_encryption_configuration (sse_algorithm = \"aws:kms\" or \"AES256\").",
      sources=('s3-encryption', 'sqs-large-messages'))
def bucket_encryption(model: Model, opts):
    for b in model.buckets:
        algs = [_sse_algorithm(r, ("rule",)) for r in b.sse]
        if b.res.configured("server_side_encryption_configuration"):
            algs.append(_sse_algorithm(b.res, ("server_side_encryption_configuration", 0, "rule")))
        known = [a for a in algs if isinstance(a, str) and a]
        if known:
            yield ok(b.address, f"encrypted ({known[0]})")
        elif any(a is UNKNOWN for a in algs):
            yield unknown(b.address, "the encryption configuration is only known after apply")
        else:
            yield fail(b.address, "no server-side encryption configuration for the bucket")


@rule("S3002", "bucket-public-access-block", "error", "claim check", "All four S3 public-access blocks on",
      why="""
block_public_acls, block_public_policy, ignore_public_acls and restrict_public_buckets together stop
a later ACL or policy change from exposing payloads publicly. Any one missing leaves a path open.""",
      fix="Add an aws_s3_bucket_public_access_block with all four flags true.",
      sources=('s3-public-access',))
def bucket_pab(model: Model, opts):
    for b in model.buckets:
        if not b.pab:
            yield fail(b.address, "no aws_s3_bucket_public_access_block for the bucket")
            continue
        best_missing, undecided = None, False
        for r in b.pab:
            vals = {f: r.attr(f) for f in PAB_FLAGS}
            if any(v is UNKNOWN for v in vals.values()):
                undecided = True
                continue
            missing = [f for f, v in vals.items() if v is not True]
            if best_missing is None or len(missing) < len(best_missing):
                best_missing = missing
        if best_missing == []:
            yield ok(b.address, "all four public-access blocks on")
        elif undecided:
            yield unknown(b.address, "public-access-block settings only known after apply")
        else:
            yield fail(b.address, f"public-access block leaves {', '.join(best_missing)} off")


@rule("S3003", "bucket-tls-only", "error", "claim check", "Bucket policy denies requests without TLS",
      why="""
S3 accepts plain-HTTP requests unless the bucket policy denies them: a Deny of s3:* to every principal
when aws:SecureTransport is "false", on the bucket and its objects.""",
      fix='Add a bucket policy statement: Effect "Deny", Principal "*", Action "s3:*", Resource [bucket ARN, '
          'bucket ARN/*], Condition {"Bool": {"aws:SecureTransport": "false"}}.',
      sources=('s3-security',))
def bucket_tls(model: Model, opts):
    for b in model.buckets:
        docs = [d for d in (model.documents.document_from(r, a) for r, a in b.policies) if d is not None]
        docs = [_late_resources_read(model, d) for d in docs]
        if not docs:
            yield fail(b.address, "has no bucket policy, so requests without TLS are accepted")
            continue
        # the Deny must cover the bucket and its objects: plain-HTTP object requests
        # (GetObject, PutObject) are otherwise allowed
        name = b.name if isinstance(b.name, str) and b.name else None
        arns = [f"arn:aws:s3:::{name}", f"arn:aws:s3:::{name}/payload"]
        # a policy read from source names the bucket by reference ("${aws_s3_bucket.b.arn}/*"):
        # its ARN, ID and name follow from its known name
        known = {f"${{{b.address}.{a}}}": v for a, v in (("arn", arns[0]), ("id", name), ("bucket", name))} if name else {}
        denies = [d for d in docs if d.doc is not None and iamdoc.denies_insecure_transport(d.doc, "s3") is True]
        scope = [iamdoc.denies_insecure_transport(d.doc, "s3", arns, known) for d in denies] if name else []
        if name is None and denies:
            # the name only known after apply (bucket_prefix, a generated name): a Deny read from the
            # source that names the bucket by reference ([b.arn, "${b.arn}/*"]) covers it whatever
            # its name; a literal name or ARN cannot be told apart from it, so only a cover decides
            token = "\x01" + b.address
            late = [f"arn:aws:s3:::{token}", f"arn:aws:s3:::{token}/payload"]
            by_ref = {f"${{{b.address}.{a}}}": v for a, v in (("arn", late[0]), ("id", token), ("bucket", token))}
            if any(iamdoc.denies_insecure_transport(d.doc, "s3", late, by_ref) is True for d in denies):
                name, scope = token, [True]
        if any(v is True for v in scope):
            yield ok(b.address, "bucket policy denies s3:* without TLS on the bucket and its objects")
        elif any((d.doc is None and d.error is None) or (d.doc is not None and d.doc.incomplete) for d in docs):
            yield unknown(b.address, "the bucket policy is only known after apply")
        elif not denies:
            err = next((d.error for d in docs if d.error), None)
            yield fail(b.address, err or "the bucket policy has no Deny of s3:* to \"*\" when aws:SecureTransport is \"false\"")
        elif name is None:
            yield unknown(b.address, "the bucket name is only known after apply, so whether the TLS-only Deny covers "
                                     "the bucket and its objects cannot be told")
        elif any(v is UNKNOWN for v in scope):
            yield unknown(b.address, "the resources of the TLS-only Deny are only known after apply, so whether it "
                                     "covers the bucket and its objects (bucket ARN/*) cannot be told")
        elif any(iamdoc.denies_insecure_transport(d.doc, "s3", arns[:1], known) is True for d in denies):
            yield fail(b.address, "the bucket policy denies s3:* without TLS on the bucket but not on its objects "
                                  "(bucket ARN/*): plain-HTTP object requests are allowed",
                       'Add "<bucket ARN>/*" to the Resource of the TLS-only Deny statement.')
        else:
            yield fail(b.address, "the bucket policy's TLS-only Deny covers neither the bucket nor its objects",
                       'Set the Resource of the TLS-only Deny to ["<bucket ARN>", "<bucket ARN>/*"].')


def _late_resources_read(model: Model, d):
    """``d`` (a PolicyDoc) with the Resource elements the plan leaves unknown read from the
    source, when its TLS-only Deny's resources are among them (see Documents.with_late_resources)."""
    if d.doc is None or not any(s.effect == "Deny" and (s.resources is UNKNOWN or UNKNOWN in (s.resources or ()))
                                for s in d.doc.statements):
        return d
    got = model.documents.with_late_resources(d)
    if got is None:
        return d
    from ..model import PolicyDoc

    return PolicyDoc(d.address, got, via=d.via, ref=got.ref)


def _text(v):
    """A prefix: the string, "" when unset, UNKNOWN, or None when it is not a string."""
    if v is UNKNOWN or isinstance(v, str):
        return v
    return "" if v is None else None


def _lifecycle_rules(b: Bucket):
    """(prefix, days, status, where) for each expiration rule; prefix None when it has a
    non-prefix filter (or one that is not a string); days an Invalid when not a whole
    number of days >= 1."""
    out = []
    for r in b.lifecycles:
        rules = r.attr("rule")
        if rules is UNKNOWN:
            out.append((UNKNOWN, UNKNOWN, UNKNOWN, r.address))
            continue
        for i, _ru in enumerate(rules if isinstance(rules, list) else ()):
            status = r.path("rule", i, "status")
            prefix = r.path("rule", i, "filter", 0, "prefix")
            if prefix in (None, ""):
                prefix = r.path("rule", i, "filter", 0, "and", 0, "prefix")
            if prefix in (None, ""):
                prefix = r.path("rule", i, "prefix")
            tags = [r.path("rule", i, "filter", 0, "tag"), r.path("rule", i, "filter", 0, "and", 0, "tags")]
            prefix = _text(prefix)
            if any(t is not UNKNOWN and t for t in tags):
                prefix = None  # only tagged objects: does not cover untagged payloads
            elif any(t is UNKNOWN for t in tags):
                prefix = UNKNOWN
            exp = r.path("rule", i, "expiration")
            if exp is UNKNOWN:
                out.append((prefix, UNKNOWN, status, r.address))
                continue
            for j, _ in enumerate(exp if isinstance(exp, list) else ()):
                days = r.path("rule", i, "expiration", j, "days")
                date = r.path("rule", i, "expiration", j, "date")
                if days is UNKNOWN or date is UNKNOWN:
                    out.append((prefix, UNKNOWN, status, r.address))
                elif days:
                    out.append((prefix, number(days, "expiration.days", 1, unit="days"), status, r.address))
                elif date:
                    out.append((prefix, ("date", date), status, r.address))
    inline = b.res.attr("lifecycle_rule") if b.res.configured("lifecycle_rule") else None
    if inline is UNKNOWN:
        out.append((UNKNOWN, UNKNOWN, UNKNOWN, b.address))
    for i, _ru in enumerate(inline if isinstance(inline, list) else ()):
        enabled = b.res.path("lifecycle_rule", i, "enabled")
        days = b.res.path("lifecycle_rule", i, "expiration", 0, "days")
        prefix = _text(b.res.path("lifecycle_rule", i, "prefix"))
        if days is UNKNOWN or days:
            out.append((prefix, days if days is UNKNOWN else number(days, "lifecycle_rule.expiration.days", 1, unit="days"),
                        UNKNOWN if enabled is UNKNOWN else ("Enabled" if enabled is True else "Disabled"), b.address))
    return out


# one setting for S3004 and the claim-check change rules (rules.change): set on S3004, it reaches them all
CLAIM_CHECK_OPT = Option(
    "claim_check_buckets", [], list,
    "buckets that hold message payloads whatever the plan links (globs, only * special, on a bucket's address "
    "or name, e.g. \"*-payloads\"): for stacks that tie the bucket to their queues by a naming convention only; "
    "such a bucket serves the queues of its module (set on S3004, it applies to CHG006, CHG007 and CHG008 too)",
    owner="S3004")


@rule("S3004", "claim-check-expiry", "error", "claim check",
      "Payload expiry >= the longest a message pointing at it can live",
      why="""
A claim-check message carries a pointer to its payload in S3. A lifecycle expiration on the payload
prefix cleans up payloads whose messages were processed (deleting them synchronously is unsafe under
retries). But a message can sit in the DLQ for its full retention and then be redriven: if the
payload expired first, the redriven message points at nothing and the work is lost. So the expiry
must exist and be at least the longest a message can live among the queues the bucket serves: the
DLQ's retention for a standard queue (a message keeps its original enqueue time when it moves to the
DLQ), the source's plus the DLQ's retention for a FIFO queue (moving to a FIFO DLQ resets the enqueue
time, so the message can live that long in total). The module's claim-check bucket derives its
default expiry the same way and refuses a shorter one. A bucket serves the queues linked to it by a
policy document that grants access to both, by a Lambda consumer that references it, or by sharing
the nearest enclosing module with them; a bucket that sends object notifications is the system of
record whose objects the messages describe, not a payload store, and is judged only when it is this
project's claim-check bucket or the option claim_check_buckets names it (which also covers stacks that
link the bucket to their queues by a naming convention only).""",
      fix="Add an aws_s3_bucket_lifecycle_configuration rule with expiration.days >= the longest message lifetime "
          "(in days, rounded up) on the payload prefix.",
      sources=('sqs-large-messages', 'sqs-dlq-retention', 's3-lifecycle-expiration'),
      options=(Option("payload_prefix", "", str,
                      "key prefix of the payloads; empty: every expiration rule of the bucket counts"),
               CLAIM_CHECK_OPT))
def claim_check_expiry(model: Model, opts):
    want_prefix = opts["payload_prefix"]
    opt_in(model.buckets, model.index, opts["claim_check_buckets"])
    for b in model.buckets:
        if not b.claim_check:
            continue
        # the longest time a message pointing at a payload can live
        longest, longest_q, undecided, bad = 0, None, [], None
        for q in b.queues:
            if q.is_dlq:
                parts, who = [q.retention()], q
            elif q.dlq is not None:
                # FIFO: the DLQ resets the enqueue time, the message lives source + DLQ retention
                fifo = q.fifo is True and q.dlq.fifo is True
                parts, who = ([q.retention(), q.dlq.retention()] if fifo else [q.dlq.retention()]), q.dlq
            elif q.redrive is not None:
                undecided.append(f"the DLQ of {q.address} is not in this plan")
                continue
            else:
                parts, who = [q.retention()], q
            if any(isinstance(p, Invalid) for p in parts):
                bad = bad or (who, next(p for p in parts if isinstance(p, Invalid)))
            elif any(p is UNKNOWN for p in parts) or q.fifo is UNKNOWN:
                undecided.append(f"retention of {who.address} (or whether it is FIFO) is only known after apply")
            elif sum(parts) > longest:
                longest, longest_q = sum(parts), (who, len(parts) > 1, q)
        if bad:
            yield invalid(bad[0].address, bad[1])
            continue
        rules = _lifecycle_rules(b)
        covering = []
        for prefix, days, status, where in rules:
            if status is UNKNOWN or prefix is UNKNOWN:
                covering.append((UNKNOWN, where))
            elif status != "Enabled" or prefix is None:
                continue
            elif not want_prefix or want_prefix.startswith(prefix):
                covering.append((days, where))
        scope = f"prefix {want_prefix!r}" if want_prefix else "the bucket"
        if not covering:
            yield fail(b.address, f"no enabled lifecycle expiration covers {scope}: payloads are never deleted")
            continue
        wrong = next(((d, w) for d, w in covering if isinstance(d, Invalid)), None)
        if wrong:
            yield invalid(wrong[1], wrong[0])
            continue
        if any(d is UNKNOWN for d, _ in covering):
            yield unknown(b.address, "the lifecycle expiration is only known after apply")
            continue
        dated = [w for d, w in covering if isinstance(d, tuple)]
        if dated:
            yield fail(b.address, f"lifecycle rule on {dated[0]} expires payloads on a fixed date: every payload, "
                                  "including those of messages still queued, is deleted then",
                       "Expire by days (expiration.days), not by date.")
            continue
        days, where = min(covering, key=lambda x: x[0])
        if undecided and (longest_q is None or days * 86400 >= longest):
            yield unknown(b.address, f"payloads expire after {days} d, but {undecided[0]}")
            continue
        what = ""
        if longest_q is not None:
            who, summed, src = longest_q
            what = (f" (FIFO {src.address} + its DLQ {who.address}: a FIFO DLQ resets the enqueue time)" if summed
                    else f" ({who.address})")
        if days * 86400 >= longest:
            yield ok(b.address, f"payloads expire after {seconds(days * 86400)} >= the longest message lifetime "
                                f"{seconds(longest)}{what}")
        else:
            need = -(-longest // 86400)
            yield fail(b.address, f"the lifecycle rule of {where} expires payloads after {seconds(days * 86400)} < the longest message lifetime "
                                  f"{seconds(longest)}{what}: a message redriven after day {days} finds its payload gone",
                       f"Set expiration.days to at least {need} in the lifecycle rule of {where}.",
                       attrs=((b.address, "expiration.days"),))


def is_idempotency_table(pattern: str, address: str, name) -> bool:
    """Whether a DynamoDB table is an idempotency table: its address or name matches ``table_pattern``."""
    rx = compile_pattern(pattern)
    return bool(rx.search(address) or (isinstance(name, str) and rx.search(name)))


_PATTERNS: dict = {}


def compile_pattern(pattern: str):
    """A configuration's regular expression, compiled by RE2 (google-re2): linear time in the
    text whatever the pattern, so a pattern such as ``(a+)+$`` cannot make a check hang on a
    long name (Python's re backtracks exponentially on it). RE2's syntax: no backreferences or
    lookarounds (config.py refuses them when the file is read)."""
    rx = _PATTERNS.get(pattern)
    if rx is None:
        import re2

        options = re2.Options()
        options.log_errors = False  # RE2 would log a refused pattern on standard error itself
        rx = _PATTERNS[pattern] = re2.compile(pattern, options)
    return rx


def _tables(model: Model, pattern: str):
    for t in model.tables:
        if is_idempotency_table(pattern, t.address, t.attr("name")):
            yield t


# one setting for the idempotency rules here and CHG005 (rules.change): set on DDB001, it reaches them all
TABLE_OPT = Option("table_pattern", facts.IDEMPOTENCY_TABLE_PATTERN, str,
                   "regular expression on a table's address or name that marks it as an idempotency table "
                   "(set on DDB001, it applies to DDB002, DDB003 and CHG005 too)", owner="DDB001")


@rule("DDB001", "idempotency-ttl", "error", "idempotency", "Idempotency table has TTL on the expiry attribute",
      why="""
An idempotency record only needs to outlive the replay window (the longest time a duplicate can
arrive). Without TTL on the attribute the library writes (Powertools: `expiration`) the table grows
forever and stale records make it slower and costlier.""",
      fix=f'Add ttl {{ attribute_name = "{facts.IDEMPOTENCY_EXPIRY_ATTRIBUTE}", enabled = true }}.',
      sources=('powertools-idempotency', 'ddb-ttl'),
      options=(TABLE_OPT, Option("attribute", facts.IDEMPOTENCY_EXPIRY_ATTRIBUTE, str, "the expiry attribute the idempotency library writes")))
def ddb_ttl(model: Model, opts):
    for t in _tables(model, opts["table_pattern"]):
        enabled, attr = t.path("ttl", 0, "enabled"), t.path("ttl", 0, "attribute_name")
        if enabled is UNKNOWN or attr is UNKNOWN:
            yield unknown(t.address, "the TTL setting is only known after apply")
        elif enabled is True and attr == opts["attribute"]:
            yield ok(t.address, f"TTL on {attr!r}")
        elif enabled is True:
            yield fail(t.address, f"TTL is on attribute {show(attr)}, but the idempotency library writes {opts['attribute']!r}",
                       f'Set ttl.attribute_name = "{opts["attribute"]}".')
        else:
            yield fail(t.address, "TTL is not enabled: idempotency records are never deleted")


@rule("DDB002", "idempotency-partition-key", "error", "idempotency", f"Idempotency table partition key is `{facts.IDEMPOTENCY_KEY_ATTRIBUTE}`",
      why="""
Powertools' idempotency persistence layer reads and writes the record under the partition key `id`
(string) unless told otherwise; a table keyed differently fails every call at run time.""",
      fix=f'Set hash_key = "{facts.IDEMPOTENCY_KEY_ATTRIBUTE}" with attribute {{ name = "{facts.IDEMPOTENCY_KEY_ATTRIBUTE}", type = "S" }}.',
      sources=('powertools-idempotency',),
      options=(TABLE_OPT, Option("key", facts.IDEMPOTENCY_KEY_ATTRIBUTE, str, "expected partition key")))
def ddb_key(model: Model, opts):
    for t in _tables(model, opts["table_pattern"]):
        k = t.attr("hash_key")
        if k is UNKNOWN:
            yield unknown(t.address, "hash_key is only known after apply")
        elif k == opts["key"]:
            yield ok(t.address, f"partition key {k!r}")
        else:
            yield fail(t.address, f"partition key is {show(k)}, not {opts['key']!r}")


@rule("DDB003", "idempotency-pitr", "warning", "idempotency", "Idempotency table has point-in-time recovery",
      why="""
Losing the idempotency table (a bad deploy, a mistaken delete) turns every in-flight retry into a
duplicate side effect. Point-in-time recovery makes it restorable. A warning: it guards recovery.""",
      fix="Add point_in_time_recovery { enabled = true }.",
      sources=('ddb-pitr',),
      options=(TABLE_OPT,))
def ddb_pitr(model: Model, opts):
    for t in _tables(model, opts["table_pattern"]):
        v = t.path("point_in_time_recovery", 0, "enabled")
        if v is UNKNOWN:
            yield unknown(t.address, "point_in_time_recovery is only known after apply")
        elif v is True:
            yield ok(t.address, "point-in-time recovery on")
        else:
            yield fail(t.address, "point-in-time recovery is off")
