"""Queue rules: encryption, dead-letter queues, retention, polling, queue policies."""
from __future__ import annotations

from resilient_sqs import facts

from .. import iamdoc
from ..graph import UNKNOWN
from ..model import (Invalid, Model, Queue, show, invalid_of, loads, parse_sqs_arn, parse_sqs_url, place_mismatch,
                     same_place)
from . import Option, fail, invalid, ok, rule, seconds, unknown

TLS_STATEMENT = ('{"Sid": "DenyInsecureTransport", "Effect": "Deny", "Principal": "*", "Action": "sqs:*", '
                 '"Resource": "<queue ARN>", "Condition": {"Bool": {"aws:SecureTransport": "false"}}}')


def _sources(model: Model):
    return [q for q in model.queues if not q.is_dlq]


def _maybe(q: Queue, kind: str) -> str | None:
    """Why a separate resource of ``kind`` may apply to q without being identifiable."""
    return next((why for k, why in q.maybe if k == kind), None)


def _dlq_or_unknown(q: Queue, what: str):
    """(dlq, None) or (None, Result) when the DLQ cannot be examined; (None, None) when there is none."""
    rd = q.redrive
    if rd is not None and rd.error and q.dlq is not None:
        return q.dlq, None  # named by its URL (SQS002 fails that): the queue it clearly means
    if rd is None or rd.error:
        return None, None  # no DLQ, or a broken redrive policy (SQS002 fails it)
    link = rd.link
    if link.one is not None:
        return link.one, None
    if link.external:
        return None, unknown(q.address, f"its DLQ {link.external} is not in this plan, so its {what} cannot be compared")
    return None, unknown(q.address, f"the DLQ cannot be identified: {link.unknown_reason}")


@rule("SQS001", "queue-encryption", "error", "queue", "Every queue is encrypted at rest (SSE-SQS or SSE-KMS)",
      why="""
Messages often carry personal or business data. SQS encrypts at rest only when the queue says so:
`sqs_managed_sse_enabled = true` (SSE-SQS, no key to manage) or `kms_master_key_id` (SSE-KMS). A queue
that sets neither leaves encryption to the account default at creation time, which the plan cannot
show and a reviewer cannot verify.""",
      fix="Set sqs_managed_sse_enabled = true (SSE-SQS), or kms_master_key_id to a KMS key (SSE-KMS).",
      sources=('sqs-sse', 'sqs-security'))
def queue_encryption(model: Model, opts):
    for q in model.queues:
        enc = q.encryption()
        if isinstance(enc, Invalid):
            yield invalid(q.address, enc)
        elif enc is UNKNOWN:
            yield unknown(q.address, "the encryption settings are only known after apply")
        elif enc:
            yield ok(q.address, f"encrypted with {enc}")
        elif q.res.attr("sqs_managed_sse_enabled") is False:
            yield fail(q.address, "encryption is off: sqs_managed_sse_enabled = false and no kms_master_key_id")
        else:
            yield fail(q.address, "neither sqs_managed_sse_enabled nor kms_master_key_id is set: encryption is left to "
                                  "the account default at creation, which the plan does not show")


@rule("SQS002", "queue-has-dlq", "error", "queue", "Every source queue has a dead-letter queue",
      why="""
Without a redrive policy a message that always fails (a poison message) is received, fails and
returns forever until retention deletes it: it blocks nothing visibly but burns consumer time, and
for FIFO queues it blocks its whole message group. A DLQ moves it aside after maxReceiveCount receives
where it can be inspected and redriven. The DLQ must be in the same account and Region as the queue
(SQS moves failures only within them). A queue counts as a DLQ (and needs none itself)
when another queue's redrive policy targets it, or it declares a redrive-allow policy
(byQueue/allowAll). deadLetterTargetArn must be the DLQ's ARN: a URL (aws_sqs_queue.dlq.url or
.id, or a literal https://sqs... URL) fails, as SQS rejects it, with or without --source-dir (the
plan's references name the attribute); the queue it so names, when it is clearly one queue of the
plan, is still judged as the DLQ (it needs no DLQ or age alarm of its own, but a depth alarm, and
the DLQ rules compare it with its source). An aws_sqs_queue_redrive_policy that gives a queue the stack does not create
(read with data "aws_sqs_queue", or named by URL) its DLQ is judged on its own address: the
existing queue's place is its data source's ARN when read at plan time, else its provider
configuration's; unknown when the plan shows neither.""",
      fix="Add redrive_policy = jsonencode({deadLetterTargetArn = aws_sqs_queue.<dlq>.arn, maxReceiveCount = 5}), "
          "or an aws_sqs_queue_redrive_policy resource.",
      sources=('sqs-dlq',))
def queue_has_dlq(model: Model, opts):
    for q in _sources(model):
        rd = q.redrive
        maybe = _maybe(q, "redrive")
        if rd is None and maybe:
            yield unknown(q.address, f"no inline redrive policy, and {maybe}")
        elif rd is None and model.index.unresolved_service_dlqs:
            yield unknown(q.address, "has no dead-letter queue of its own, but it may be the "
                                     f"{_unresolved_service_dlq(model)}")
        elif rd is None:
            yield fail(q.address, "has no dead-letter queue: no redrive_policy and no aws_sqs_queue_redrive_policy targets it")
        elif rd.error:
            yield fail(q.address, rd.error, rd.fix, ref=rd.ref)
        elif rd.link.one is not None or rd.link.external:
            yield _dlq_place(q, rd.link, rd.ref)
        else:
            yield unknown(q.address, f"a redrive policy is set but {rd.link.unknown_reason}", ref=rd.ref)
    # an aws_sqs_queue_redrive_policy giving a queue the plan does not create (an existing queue
    # read by a data source, or named by its URL) its DLQ: judged on the redrive policy resource
    for kind, r, link in model.index.unattached:
        if kind == "redrive" and link.external:
            got = _external_source_dlq(model, r, link)
            if got is not None:
                yield got


def _external_source_dlq(model: Model, r, link):
    """SQS002 on a redrive policy resource whose source queue is outside the plan: the
    source has a DLQ; it must be in the source's account and Region. The source's place is
    its data source's ARN or URL when read at plan time (else its provider configuration's),
    or its URL's."""
    rp = model.index.redrive_policy(r)  # from the plan, else the source (--source-dir)
    arn = rp.arn
    if rp.error and rp.max_receive_count is None:
        return None  # SQS003 fails the redrive policy itself
    if rp.error:
        return fail(r.address, f"{rp.error}: the queue it configures gets no dead-letter queue",
                    rp.fix or "Set deadLetterTargetArn to the ARN of the dead-letter queue (aws_sqs_queue.<dlq>.arn).",
                    ref=rp.ref)
    data = model.index.existing_queue_of(model.resolve.value(r, "queue_url").targets)
    if data is not None:
        source = f"the existing queue {data.address}"
        got = parse_sqs_arn(data.values.get("arn")) or parse_sqs_url(data.values.get("url"))
        provider = model.plan.resource_location(data)
        where = (got[0] or provider[0], got[1] or provider[1]) if got else provider
    else:
        url = str(link.external)
        source = f"the queue {url if len(url) <= 200 else url[:199] + '…'}"
        got, provider = parse_sqs_url(link.external), None
        where = (got[0], got[1]) if got else (None, None)
    dlqs = rp.dlqs
    fix = ("Create the dead-letter queue with the same provider configuration (account and region) as the source queue, "
           "and with AWS provider 6.x the same region argument (or none on either).")
    if len(dlqs) == 1:
        dlq = dlqs[0]
        what, dlq_where = dlq.address, dlq.location
        providers = (provider, dlq.provider_place) if provider is not None else None
    elif isinstance(arn, str):
        got_dlq = parse_sqs_arn(arn)
        what, dlq_where, providers = f"{arn} (outside this plan)", (got_dlq[0], got_dlq[1]) if got_dlq else (None, None), None
    elif rp.external:
        what, dlq_where, providers = rp.external, (None, None), None
    else:
        return unknown(r.address, f"it gives {source} a dead-letter queue, but which one cannot be told: its "
                                  "redrive_policy is only known after apply and its deadLetterTargetArn leads to no "
                                  "queue in the plan",
                       "Name the DLQ by a queue of the stack (deadLetterTargetArn = aws_sqs_queue.<dlq>.arn) or by "
                       "a literal ARN; with a local value, run the check with --source-dir.")
    same = same_place(where, dlq_where, providers)
    if same is True:
        return ok(r.address, f"{source} has the dead-letter queue {what}")
    if same is False:
        return fail(r.address, f"dead-letter queue {what} of {source} is in {place_mismatch(dlq_where, where)} (the "
                               f"source's): {SAME_PLACE}, so failed messages have no DLQ to go to", fix)
    hidden = []
    for i, part in ((0, "region"), (1, "account")):
        if where[i] != dlq_where[i]:
            hidden += [f"the {part} of {x}" for x, place in ((data.address if data is not None else source, where),
                                                              (what, dlq_where)) if not isinstance(place[i], str)]
    late = (f"{data.address} is read at apply (it depends on a resource of the plan), so its ARN is not in the plan; "
            if data is not None and not got else "")
    return unknown(r.address, f"dead-letter queue {what} of {source}: whether they are in the same account and Region "
                              f"is not known: {late}the plan does not show {' or '.join(hidden) or 'where they are'} "
                              f"({SAME_PLACE})",
                   "Read the existing queue with the DLQ's provider configuration, or at plan time (no depends_on on "
                   "resources of the plan) so that its ARN is in the plan; a provider configuration shows its region "
                   "with region and its account with allowed_account_ids or an assume_role role_arn.")


def _unresolved_service_dlq(model: Model) -> str:
    """"dead-letter queue of <what> <address>, named through a value the plan does not show"."""
    address, what = model.index.unresolved_service_dlqs[0]
    more = len(model.index.unresolved_service_dlqs) - 1
    return (f"{what} {address}{f' (or of {more} more)' if more else ''}, which names its queue through a value "
            "the plan does not show (a local value); read the configuration (--source-dir) to tell")


SAME_PLACE = "a dead-letter queue must be in the same account and Region as its source queue"


def _dlq_place(q: Queue, link, ref):
    """SQS002 on a queue whose DLQ is found: a DLQ in another region or account is refused
    by SQS, so failures would have nowhere to go."""
    providers = None
    if link.one is not None:
        dlq, where, what = link.one.address, link.one.location, link.one.address
        providers = (q.provider_place, link.one.provider_place)
    else:
        got = parse_sqs_arn(link.external)
        dlq, what = f"{link.external} (outside this plan)", link.external
        where = (got[0], got[1]) if got else (None, None)
        if where == (None, None):
            return ok(q.address, f"dead-letter queue {dlq}", ref=ref)
        # compare what both name: the queue's account (or region) often comes from credentials
        # the plan does not show, and a DLQ elsewhere is then not told from one beside it
        where = tuple(w if isinstance(w, str) and isinstance(mine, str) else mine
                      for w, mine in zip(where, q.location))
    same = same_place(q.location, where, providers)
    if same is True:
        return ok(q.address, f"dead-letter queue {dlq}", ref=ref)
    fix = ("Create the dead-letter queue with the same provider configuration (account and region) as the queue, "
           "and with AWS provider 6.x the same region argument (or none on either).")
    if same is False:
        return fail(q.address, f"dead-letter queue {what} is in {place_mismatch(where, q.location)} (the queue's): "
                               f"{SAME_PLACE}, so failed messages have no DLQ to go to", fix, ref=ref)
    return unknown(q.address, f"dead-letter queue {what} is created by another provider configuration whose region or "
                              f"account the plan does not show: {SAME_PLACE}", fix, ref=ref)


_MRC_LO, _MRC_HI, _MRC_FLOOR = (facts.MAX_RECEIVE_COUNT_RECOMMENDED_MIN, facts.MAX_RECEIVE_COUNT_RECOMMENDED_MAX,
                                facts.MAX_RECEIVE_COUNT_MIN)


@rule("SQS003", "max-receive-count", "error", "queue", f"maxReceiveCount within {_MRC_LO}..{_MRC_HI}, never below {_MRC_FLOOR}",
      why="""
maxReceiveCount is how many receives a message gets before it moves to the DLQ. 1 sends a healthy
message to the DLQ after a single slow consumer, a visibility-timeout race or a console peek (a
"ghost receive"): that is an error. Above 5 a poison message is retried (and billed, and logged) many
times and reaches the DLQ late; below 3 a transient dependency failure is not retried enough: those
are warnings. When the redrive policy embeds a DLQ ARN created in the same apply the whole JSON,
maxReceiveCount included, is unknown at plan time and the rule says so.""",
      fix=f"Set maxReceiveCount in the redrive policy to {_MRC_LO}-{_MRC_HI}.",
      attrs=("maxReceiveCount",),
      sources=('sqs-dlq', 'sqs-set-attributes', 'sqs-visibility'),
      options=(Option("min", _MRC_LO, int, "lowest recommended maxReceiveCount"),
               Option("max", _MRC_HI, int, "highest recommended maxReceiveCount"),
               Option("floor", _MRC_FLOOR, int, "below this the finding is an error (ghost receives)")),
      severity_note=f"error below `floor` ({_MRC_FLOOR}); warning outside `min`..`max` ({_MRC_LO}..{_MRC_HI})")
def max_receive_count(model: Model, opts):
    lo, hi, floor = opts["min"], opts["max"], opts["floor"]

    no_source = model.resolve.source is None

    def verdict(address: str, mrc, ref=None, why=None):
        if mrc is UNKNOWN:
            return unknown(address, f"maxReceiveCount is only known after apply: {why}" if why else
                           "maxReceiveCount is inside a redrive policy that is only known after apply "
                           "(it embeds the DLQ's ARN), so it cannot be read from the plan"
                           + ("; run the check with --source-dir to read it from the configuration" if no_source
                              else ""),
                           f"Make sure maxReceiveCount is within {lo}..{hi} in the configuration"
                           + (", and run the check with --source-dir so that it is judged." if no_source else "."),
                           ref=ref)
        if isinstance(mrc, Invalid):
            return invalid(address, mrc, f"Set maxReceiveCount to {lo}..{hi}.")
        if mrc < floor:
            return fail(address, f"maxReceiveCount {mrc} < {floor}: one ghost receive (a slow consumer, a console "
                                 f"peek) moves a healthy message to the DLQ", f"Set maxReceiveCount to {lo}..{hi}.", ref=ref,
                        attrs=((address, "maxReceiveCount"),))
        if mrc < lo or mrc > hi:
            return fail(address, f"maxReceiveCount {mrc} is outside {lo}..{hi}"
                        + (": transient failures are not retried enough" if mrc < lo
                           else ": a poison message is retried (and billed) that many times before it reaches the DLQ"),
                        f"Set maxReceiveCount to {lo}..{hi}.", severity="warning", ref=ref,
                        attrs=((address, "maxReceiveCount"),))
        return ok(address, f"maxReceiveCount {mrc} within {lo}..{hi}", ref=ref)

    for q in _sources(model):
        rd = q.redrive
        if rd is None or (rd.error and not isinstance(rd.max_receive_count, Invalid)):
            continue
        yield verdict(q.address, rd.max_receive_count, rd.ref, rd.why)
    # a redrive policy resource whose queue is not in the plan (or cannot be told) is
    # still a redrive policy: its maxReceiveCount is evaluated on its own address, from the
    # plan, else (the JSON embeds the DLQ's ARN) from the source (--source-dir)
    for kind, r, _link in model.index.unattached:
        if kind == "redrive":
            rp = model.index.redrive_policy(r)
            if rp.max_receive_count is None and rp.error:
                yield fail(r.address, rp.error, "Set redrive_policy to a JSON object with deadLetterTargetArn and "
                                                "maxReceiveCount.", ref=rp.ref)
            elif rp.max_receive_count is not None:
                yield verdict(r.address, rp.max_receive_count, rp.ref, rp.why)


@rule("SQS004", "dlq-retention-longer", "error", "queue", "DLQ retention strictly greater than its source's",
      why="""
On a standard queue a message keeps its original enqueue timestamp when it moves to the DLQ, so the
DLQ's retention clock has already run for as long as the message sat in the source. A DLQ that keeps
messages no longer than its source deletes failures before anyone can inspect or redrive them.
Retention left unset is the AWS default, 345600 s (4 days).""",
      fix="Raise the DLQ's message_retention_seconds above the source's (1209600 s, 14 days, the maximum, is usual).",
      sources=('sqs-dlq-retention',))
def dlq_retention(model: Model, opts):
    for q in _sources(model):
        dlq, res = _dlq_or_unknown(q, "retention")
        if res:
            yield res
        if dlq is None:
            continue
        src_r, dlq_r = q.retention(), dlq.retention()
        bad = invalid_of(src_r, dlq_r)
        if bad:
            yield invalid(q.address if bad is src_r else dlq.address, bad)
        elif src_r is UNKNOWN or dlq_r is UNKNOWN:
            yield unknown(q.address, f"retention of the source or of its DLQ {dlq.address} is only known after apply")
        elif dlq_r > src_r:
            yield ok(q.address, f"DLQ {dlq.address} retention {seconds(dlq_r)} > source {seconds(src_r)}")
        else:
            fix = (f"Set message_retention_seconds of {dlq.address} above {src_r} (1209600 = 14 days recommended)."
                   if src_r < 1209600 else
                   f"The source keeps messages for the 14-day maximum; lower message_retention_seconds of {q.address} "
                   f"below the DLQ's {dlq_r}.")
            yield fail(q.address, f"DLQ {dlq.address} retention {seconds(dlq_r)} <= source retention {seconds(src_r)}: "
                                  "failed messages expire from the DLQ before anyone can redrive them", fix,
                       attrs=((dlq.address if src_r < 1209600 else q.address, "message_retention_seconds"),))
    # a redrive policy resource whose source queue is not a queue of the plan (an existing
    # queue read by a data source, a URL): the rule cannot compare, and says why
    for kind, r, link in model.index.unattached:
        if kind == "redrive":
            yield _unattached_retention(model, r, link)


def _unattached_retention(model: Model, r, link):
    """SQS004 on an aws_sqs_queue_redrive_policy whose source queue the plan does not hold: unknown, naming the
    source queue (as far as the plan tells it) and the DLQ."""
    rv = model.resolve.value(r, "queue_url")
    data = [t.res.address for t in rv.targets if t.res is not None and t.res.type == "aws_sqs_queue" and t.res.mode == "data"]
    if data:
        source = f"the existing queue {data[0]} (a data source, not a queue this plan creates)"
    elif link.external:
        url = str(link.external)
        source = f"the queue {url if len(url) <= 200 else url[:199] + '…'}, which this plan does not create"
    else:
        source = f"not told by the plan ({link.unknown_reason})" if link.unknown_reason else "not told by the plan"
    dlqs = model.index.redrive_policy(r).dlqs
    dlq = ""
    if len(dlqs) == 1:
        ret = dlqs[0].retention()
        dlq = f" {dlqs[0].address}" + (f", retention {seconds(ret)}," if isinstance(ret, int) else "")
    return unknown(r.address, f"its source queue is {source}: the source's retention is not in the plan, so whether "
                              f"the DLQ{dlq} keeps failed messages longer than the source cannot be told",
                   "Make sure the DLQ's message_retention_seconds is above the source queue's (1209600 s, 14 days, "
                   "the maximum, is usual).")


@rule("SQS005", "dlq-fifo-matches-source", "error", "queue", "DLQ is FIFO exactly when its source is",
      why="""
SQS requires the dead-letter queue of a FIFO queue to be FIFO and that of a standard queue to be
standard; a mismatch fails at apply time (or, for a redrive policy set later, when messages move).""",
      fix="Make the DLQ FIFO (fifo_queue = true, name ending in .fifo) exactly when the source is.",
      sources=('sqs-dlq', 'sqs-set-attributes'))
def dlq_fifo(model: Model, opts):
    for q in _sources(model):
        dlq, res = _dlq_or_unknown(q, "type (FIFO or standard)")
        if res:
            yield res
        if dlq is None:
            continue
        bad = invalid_of(q.fifo, dlq.fifo)
        if bad:
            yield invalid(q.address if bad is q.fifo else dlq.address, bad)
        elif q.fifo is UNKNOWN or dlq.fifo is UNKNOWN:
            yield unknown(q.address, "whether the source or its DLQ is FIFO is only known after apply")
        elif bool(q.fifo) == bool(dlq.fifo):
            yield ok(q.address, f"source and DLQ {dlq.address} are both {'FIFO' if q.fifo else 'standard'}")
        else:
            yield fail(q.address, f"source is {'FIFO' if q.fifo else 'standard'} but its DLQ {dlq.address} is "
                                  f"{'FIFO' if dlq.fifo else 'standard'}: SQS rejects the redrive policy",
                       f"Make {dlq.address} {'FIFO' if q.fifo else 'standard'}.")


@rule("SQS006", "dlq-encrypted-like-source", "error", "queue", "DLQ encrypted when its source is",
      why="""
Failed messages move to the DLQ with their bodies. An encrypted source with an unencrypted DLQ stores
exactly the messages that needed attention in clear.""",
      fix="Enable SSE on the DLQ (sqs_managed_sse_enabled = true or the source's kms_master_key_id).",
      sources=('sqs-sse', 'sqs-dlq'))
def dlq_encrypted(model: Model, opts):
    for q in _sources(model):
        dlq, res = _dlq_or_unknown(q, "encryption")
        if res:
            yield res
        if dlq is None:
            continue
        src, d = q.encryption(), dlq.encryption()
        bad = invalid_of(src, d)
        if bad:
            yield invalid(q.address if bad is src else dlq.address, bad)
        elif src is None:
            yield ok(q.address, "source is not encrypted (see SQS001), nothing to match")
        elif d is UNKNOWN or src is UNKNOWN:
            yield unknown(q.address, f"encryption of the source or of its DLQ {dlq.address} is only known after apply")
        elif d:
            yield ok(q.address, f"DLQ {dlq.address} encrypted ({d})")
        else:
            yield fail(q.address, f"source is encrypted but its DLQ {dlq.address} is not: failed messages are stored in clear")


@rule("SQS007", "long-polling", "warning", "queue", "Long polling: receive_wait_time_seconds > 0 (20 recommended)",
      why="""
With short polling (wait 0, the SQS default) a receive samples a subset of servers: it can return
empty while messages wait, and every empty receive is billed. Long polling (1-20 s; 20 is usual)
waits for messages and queries all servers. A warning: it costs money and latency, not messages.""",
      fix="Set receive_wait_time_seconds = 20.",
      attrs=("receive_wait_time_seconds",),
      sources=('sqs-polling',),
      options=(Option("min_seconds", 1, int, "smallest acceptable wait"),))
def long_polling(model: Model, opts):
    for q in model.queues:
        w = q.wait_time()
        if isinstance(w, Invalid):
            yield invalid(q.address, w)
        elif w is UNKNOWN:
            yield unknown(q.address, "receive_wait_time_seconds is only known after apply")
        elif w >= opts["min_seconds"]:
            yield ok(q.address, f"long polling {w} s")
        else:
            yield fail(q.address, f"receive_wait_time_seconds {w} s < {opts['min_seconds']} s: short polling returns "
                                  "false empty receives and bills every one")


@rule("SQS008", "source-retention-minimum", "error", "queue", "Source queue retention at least 1 day",
      why="""
Retention is how long a message may wait for a consumer. Below a day, an outage that starts on a
Friday evening (or any incident noticed late) silently deletes work before anyone can react.""",
      fix="Set message_retention_seconds to at least 86400 (the AWS default is 345600, 4 days).",
      attrs=("message_retention_seconds",),
      sources=('sqs-set-attributes', 'sqs-dlq-retention'),
      options=(Option("min_seconds", 86400, int, "minimum retention of a source queue"),))
def source_retention(model: Model, opts):
    lo = opts["min_seconds"]
    for q in _sources(model):
        r = q.retention()
        if isinstance(r, Invalid):
            yield invalid(q.address, r)
        elif r is UNKNOWN:
            yield unknown(q.address, "message_retention_seconds is only known after apply")
        elif r >= lo:
            yield ok(q.address, f"retention {seconds(r)} >= {seconds(lo)}")
        else:
            yield fail(q.address, f"retention {seconds(r)} < {seconds(lo)}: messages expire before an incident is even noticed",
                       f"Set message_retention_seconds to at least {lo}.", attrs=((q.address, "message_retention_seconds"),))


@rule("SQS009", "queue-policy-tls-only", "error", "queue", "Queue policy denies requests without TLS",
      why="""
SQS accepts plain-HTTP requests unless the queue policy denies them. The guard (CDK's enforceSSL) is
a Deny of sqs:* to every principal when aws:SecureTransport is "false". A Deny with wildcards is the
correct shape here and is not an IAM-wildcard finding.""",
      fix=f"Add a queue policy statement {TLS_STATEMENT}.",
      sources=('sqs-security',))
def queue_policy_tls(model: Model, opts):
    for q in model.queues:
        docs = model.documents.of_queue(q)
        if not docs and _maybe(q, "policy"):
            yield unknown(q.address, f"no inline policy, and {_maybe(q, 'policy')}")
            continue
        if not docs:
            yield fail(q.address, "has no queue policy, so requests without TLS are accepted")
            continue
        yield _tls_verdict(q.address, docs)
    # a queue policy resource whose queue is not in the plan is that queue's whole policy
    for d in _unattached_policies(model):
        yield _tls_verdict(d.address, [d])


def _unattached_policies(model: Model):
    for kind, r, _link in model.index.unattached:
        if kind == "policy":
            d = model.documents.document_from(r, "policy")
            if d is not None:
                yield d


def _tls_verdict(address: str, docs):
    good = next((d for d in docs if d.doc is not None and iamdoc.denies_insecure_transport(d.doc, "sqs")), None)
    if good is not None:
        return ok(address, f"policy on {good.address} denies sqs:* without TLS", ref=good.ref)
    pending = next((d for d in docs if (d.doc is None and d.error is None)
                    or (d.doc is not None and d.doc.incomplete)), None)
    if pending is not None:
        why = pending.unknown_reason if pending.doc is None else pending.doc.incomplete
        return unknown(address, f"the queue policy on {pending.address}: {why}", ref=pending.ref)
    err = next((d for d in docs if d.error), None)
    return fail(address, err.error if err else "the queue policy has no Deny of sqs:* to \"*\" when "
                "aws:SecureTransport is \"false\"", ref=err.ref if err else next((d.ref for d in docs if d.ref), None))


@rule("SQS010", "queue-policy-no-public-principal", "error", "queue", "No public principal in a queue policy",
      why="""
An Allow to principal "*" (or {"AWS": "*"}) without a condition that pins the caller (aws:SourceArn,
aws:SourceAccount, aws:PrincipalOrgID, ...) lets anyone on the internet send, receive or delete.
A service principal (sns.amazonaws.com, events.amazonaws.com, s3.amazonaws.com, ...) without an
aws:SourceArn or aws:SourceAccount condition is public too: the service acts for every account, so
any topic, rule or bucket anywhere can send to the queue (the confused deputy).
Deny statements with "*" (such as the TLS guard) restrict access and are not findings. A queue
policy resource is evaluated on its own when its queue is not in the plan.""",
      fix="Name the principal (e.g. {Service = \"sns.amazonaws.com\"}) and add an aws:SourceArn condition.",
      sources=('sqs-security',))
def queue_policy_public(model: Model, opts):
    for q in model.queues:
        yield _public_verdict(q.address, model.documents.of_queue(q))
    for d in _unattached_policies(model):
        yield _public_verdict(d.address, [d])


# Condition keys that bind a service principal to the resource acting through it (the
# topic, bucket, rule) or to an account: without one, a service principal is public.
# The module refuses the same (modules/queue, local.source_keys).
_SOURCE_KEYS = {"aws:sourcearn", "aws:sourceaccount", "aws:sourceowner", "aws:sourceorgid", "aws:sourceorgpaths"}


def _unbound_services(principals, conditions) -> list[str]:
    """Service principals of an Allow that no source condition binds."""
    if principals is None or principals is UNKNOWN or conditions is UNKNOWN:
        return []
    if any(isinstance(k, str) and k.lower() in _SOURCE_KEYS for _, k, _ in conditions):
        return []
    if any(not isinstance(k, str) for _, k, _ in conditions):
        return []  # a key only known after apply: cannot tell
    return [i for t, i in principals if t == "Service" and isinstance(i, str)]


def _public_verdict(address: str, docs):
    bad, undecided, bad_ref = [], [], None
    for d in docs:
        if d.doc is None:
            if d.error is None:
                undecided.append((d, d.unknown_reason))
            continue
        for s in d.doc.statements:
            if s.effect != "Allow":
                if s.effect is UNKNOWN:
                    undecided.append((d, "an Effect is only known after apply"))
                continue
            if s.principals is UNKNOWN or s.not_principals is UNKNOWN:
                undecided.append((d, "a principal is only known after apply"))
            elif (iamdoc.is_public_principal(s.principals) or s.not_principals) and not iamdoc.has_restricting_condition(s.conditions):
                bad.append(f"{s.label} (principal \"*\" without a condition that pins the caller)")
                bad_ref = bad_ref or d.ref
            elif _unbound_services(s.principals, s.conditions):
                bad.append(f"{s.label} (service principal {', '.join(_unbound_services(s.principals, s.conditions))} "
                           "without an aws:SourceArn or aws:SourceAccount condition: the service acts for any account)")
                bad_ref = bad_ref or d.ref
        if d.doc.incomplete:
            undecided.append((d, d.doc.incomplete))
    if bad:
        return fail(address, f"queue policy is open to any account in {'; '.join(bad)}", ref=bad_ref)
    if undecided:
        d, why = undecided[0]
        return unknown(address, f"the queue policy on {d.address}: {why}", ref=d.ref)
    return ok(address, "no public Allow" if docs else "no queue policy", ref=next((d.ref for d in docs if d.ref), None))


def _names_source(arns: list, src: Queue) -> bool:
    known = src.res.attr("arn")
    for a in arns:
        pending = getattr(a, "pending", None)  # the ARN of a queue of the plan, read from source
        if pending is not None:
            if pending.res is src.res and pending.path == ("arn",):
                return True
            continue
        if isinstance(known, str) and a == known:
            return True
        got = parse_sqs_arn(a)
        if got and src.arn_matches(got):
            return True
    return False


@rule("SQS011", "dlq-redrive-allow-by-queue", "warning", "queue", "DLQ has a redrive-allow policy byQueue naming its sources",
      why="""
Without a redrive-allow policy any queue in the account may use the DLQ as its dead-letter target
(allowAll), mixing unrelated failures into it and into its alarms. `byQueue` with the source ARNs
documents and enforces the pairing. A warning: it protects operations, not messages.""",
      fix='Set redrive_allow_policy = jsonencode({redrivePermission = "byQueue", sourceQueueArns = [<source ARNs>]}).',
      sources=('sqs-set-attributes', 'sqs-dlq'),
      severity_note="warning when the DLQ has no redrive-allow policy or allows more than byQueue; error when a "
                    "byQueue policy omits one of its sources (SQS then refuses to move that source's failures)")
def dlq_redrive_allow(model: Model, opts):
    for d in model.queues:
        if not d.sources:
            continue
        names = ", ".join(s.address for s in d.sources)
        allow = d.allow_value()
        ref = d.allow_ref
        if allow is None and _maybe(d, "allow"):
            yield unknown(d.address, f"no inline redrive-allow policy, and {_maybe(d, 'allow')}")
        elif allow is None:
            yield fail(d.address, f"DLQ of {names} has no redrive_allow_policy: any queue in the account may use it (allowAll)")
        elif allow is UNKNOWN:
            # the queues the policy is built from: those its expression references and, through
            # a local value, those the configuration source says (resolve.Resolved.linked)
            rv = model.resolve.value(d.allow_res, d.allow_attr)
            built = model.index.among(rv.linked("aws_sqs_queue"), d.allow_res)
            missing = [s.address for s in d.sources if s not in built]
            why = f" ({d.allow_why})" if d.allow_why else ""
            if missing and rv.linked_all:
                yield unknown(d.address, f"the redrive-allow policy is only known after apply{why} and its references "
                                         f"do not lead to {', '.join(missing)}", ref=ref)
            elif d.allow_why:
                yield unknown(d.address, f"the redrive-allow policy is only known after apply: {d.allow_why}", ref=ref)
            elif missing:
                yield unknown(d.address, "the redrive-allow policy is only known after apply and goes through "
                                         "something the plan does not describe (a local value), so whether it names "
                                         f"{', '.join(missing)} is not known: run with --source-dir to judge it")
            else:
                yield unknown(d.address, "the redrive-allow policy is only known after apply (its references do lead to "
                                         f"the sources {names}, but the permission cannot be read)", ref=ref)
        elif allow == "invalid":
            yield fail(d.address, "redrive_allow_policy is not a JSON object", ref=ref)
        elif allow.get("redrivePermission") is UNKNOWN:
            yield unknown(d.address, "redrivePermission is only known after apply", ref=ref)
        elif allow.get("redrivePermission") != "byQueue":
            yield fail(d.address, f"redrivePermission is {show(allow.get('redrivePermission'))}, not \"byQueue\"", ref=ref)
        else:
            arns = allow.get("sourceQueueArns")
            arns = [] if arns is None else (arns if isinstance(arns, list) else [arns])
            missing = [s.address for s in d.sources if not _names_source(arns, s)]
            if missing and any(a is UNKNOWN for a in arns):
                yield unknown(d.address, f"sourceQueueArns is only partly known before apply and does not name "
                                         f"{', '.join(missing)} in its known part", ref=ref)
            elif missing:
                yield fail(d.address, f"redrive-allow policy (byQueue) does not name its source(s) {', '.join(missing)}: "
                                      "SQS will refuse to move their failed messages here",
                           "Add the sources' ARNs to sourceQueueArns.", severity="error", ref=ref)
            else:
                yield ok(d.address, f"byQueue naming {names}", ref=ref)
    # a redrive-allow policy resource whose queue is not in the plan: its permission, on its own,
    # from the plan, else (the JSON embeds a source queue's ARN) from the source (--source-dir)
    for kind, r, _link in model.index.unattached:
        if kind != "allow":
            continue
        raw, ref, why = r.attr("redrive_allow_policy"), None, None
        if raw is UNKNOWN:
            got = model.resolve.value(r, "redrive_allow_policy").json()
            allow = UNKNOWN
            if got is not None:
                value, ref, why = got
                allow = value if value is UNKNOWN or isinstance(value, dict) else "invalid"
        else:
            try:
                allow = loads(raw) if isinstance(raw, str) else raw
            except ValueError:
                allow = "invalid"
        if allow is UNKNOWN:
            yield unknown(r.address, "the redrive-allow policy is only known after apply" + (
                f": {why}" if why else "; run the check with --source-dir to read it from the configuration"
                if model.resolve.source is None else ""), ref=ref)
        elif not isinstance(allow, dict):
            yield fail(r.address, "redrive_allow_policy is not a JSON object", ref=ref)
        elif allow.get("redrivePermission") is UNKNOWN:
            yield unknown(r.address, "redrivePermission is only known after apply", ref=ref)
        elif allow.get("redrivePermission") in ("byQueue", "denyAll"):
            yield ok(r.address, f"redrivePermission {allow['redrivePermission']}", ref=ref)
        else:
            yield fail(r.address, f"redrivePermission is {show(allow.get('redrivePermission'))}, not \"byQueue\": "
                                  "any queue in the account may use the queue as its DLQ", ref=ref)


@rule("SQS012", "redrive-before-expiry", "error", "queue",
      "A failing message reaches its DLQ before the retention deletes it: delay + maxReceiveCount x visibility timeout < retention",
      why="""
A message that fails every receive is invisible for the visibility timeout after each one, and SQS
moves it to the DLQ only when a receive after its maxReceiveCount-th finds it: at the earliest
delay_seconds + maxReceiveCount x visibility_timeout_seconds after it was sent (later when consumers
poll less often). A source retention no longer than that deletes the message first: the failure never
reaches the DLQ, no DLQ alarm fires, nothing can be redriven, and the message is lost without a trace
(say 3 receives x 12 h against a 1-day retention). Visibility and retention left unset are the AWS
defaults, 30 s and 345600 s (4 days).""",
      fix="Lower maxReceiveCount or the visibility timeout, or raise message_retention_seconds above delay + "
          "maxReceiveCount x visibility timeout (the DLQ's retention above that).",
      attrs=("message_retention_seconds",),
      sources=('sqs-dlq', 'sqs-visibility', 'sqs-set-attributes'))
def redrive_before_expiry(model: Model, opts):
    for q in _sources(model):
        rd = q.redrive
        if rd is None or (rd.error and not isinstance(rd.max_receive_count, Invalid)):
            continue  # no DLQ (SQS002), or a broken redrive policy (SQS002/SQS003 say so)
        mrc, vis, ret, delay = rd.max_receive_count, q.visibility(), q.retention(), q.delay()
        if mrc is None or invalid_of(mrc, vis, ret, delay):
            continue  # unreadable or invalid: SQS003 and the rules on those values report them
        if any(v is UNKNOWN for v in (mrc, vis, ret, delay)):
            what = [n for n, v in (("maxReceiveCount", mrc), ("visibility_timeout_seconds", vis),
                                   ("message_retention_seconds", ret), ("delay_seconds", delay)) if v is UNKNOWN]
            why = (f" ({rd.why})" if rd.why else " (the redrive policy embeds the DLQ's ARN)") if mrc is UNKNOWN else ""
            hint = ("; run the check with --source-dir to read it from the configuration"
                    if mrc is UNKNOWN and model.resolve.source is None else "")
            yield unknown(q.address, f"{', '.join(what)} {'is' if len(what) == 1 else 'are'} only known after apply{why}, "
                                     "so whether a failing message reaches the DLQ before the retention deletes it cannot "
                                     f"be told{hint}",
                          "Make sure delay + maxReceiveCount x visibility timeout stays below message_retention_seconds.",
                          ref=rd.ref if mrc is UNKNOWN else None)
            continue
        lead = delay + mrc * vis
        shown = f"{'delay ' + seconds(delay) + ' + ' if delay else ''}maxReceiveCount {mrc} x visibility timeout {seconds(vis)} = {seconds(lead)}"
        if lead < ret:
            yield ok(q.address, f"{shown} < retention {seconds(ret)}")
            continue
        fixes = []
        if vis and (ret - 1 - delay) // vis >= facts.MAX_RECEIVE_COUNT_MIN:
            fixes.append(f"lower maxReceiveCount to at most {(ret - 1 - delay) // vis}")
        if ret - 1 - delay >= mrc:
            fixes.append(f"lower visibility_timeout_seconds to at most {(ret - 1 - delay) // mrc}")
        if lead < 1209600:
            fixes.append(f"raise message_retention_seconds above {lead} (at most 1209600; the DLQ's retention above it)")
        yield fail(q.address, f"{shown} >= retention {seconds(ret)}: a message that fails every receive is deleted "
                              f"before its {mrc} receives are spent and it moves to the DLQ, and is lost without a trace",
                   ("One of: " + "; ".join(fixes) + ".") if fixes else None,
                   attrs=((q.address, "message_retention_seconds"),) if lead < 1209600 else ((q.address, "visibility_timeout_seconds"),))
