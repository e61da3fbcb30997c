"""Consumer rules: Lambda event source mappings on SQS queues."""
from __future__ import annotations

from resilient_sqs import facts

from ..graph import UNKNOWN
from ..model import ESM, Invalid, Model, invalid_of
from . import Option, fail, invalid, ok, rule, seconds, unknown


def _queue(e: ESM):
    link = e.queue_link
    if link.one is not None:
        return link.one, None
    if link.external:
        return None, f"its queue {link.external} is not in this plan"
    return None, f"its queue cannot be identified: {link.unknown_reason}"


@rule("ESM001", "visibility-timeout-covers-consumer", "error", "consumer",
      f"Visibility timeout >= {facts.VISIBILITY_TIMEOUT_MULTIPLIER} x Lambda timeout + maximum batching window",
      why="""
Lambda's poller receives a batch (starting the visibility timeout), may wait up to the batching
window while filling it, then invokes the function, which may be throttled and retried. If the
visibility timeout expires before all that ends, the message becomes visible again and a second
invocation processes it while the first still runs: duplicates, and receive counts that push good
messages to the DLQ. AWS's guidance is visibility >= {k} x function timeout + batching window. The
function timeout defaults to 3 s when unset. When the function is not in the plan (referenced by
name or ARN) and no data source shows its timeout, the rule cannot decide and says so.""".format(
          k=facts.VISIBILITY_TIMEOUT_MULTIPLIER),
      fix=f"Raise the queue's visibility_timeout_seconds to at least {facts.VISIBILITY_TIMEOUT_MULTIPLIER} x the function timeout + the batching window, "
          "or lower the function timeout.",
      attrs=("visibility_timeout_seconds",),
      sources=('lambda-sqs-configure', 'sqs-visibility'),
      options=(Option("multiplier", facts.VISIBILITY_TIMEOUT_MULTIPLIER, (int, float), "factor applied to the function timeout"),))
def visibility(model: Model, opts):
    k = opts["multiplier"]
    for e in model.esms:
        q, why = _queue(e)
        if q is None:
            yield unknown(e.address, f"cannot compare the visibility timeout: {why}")
            continue
        link = e.function_link
        f = link.one
        declared = model.consumers.declared_function_timeout(e) if f is None else None
        if declared is not None:
            t, w, vis = declared[0], e.batching_window(), q.visibility()
            if not invalid_of(w, vis) and w is not UNKNOWN and vis is not UNKNOWN:
                need = k * t + w
                need = int(need) if float(need).is_integer() else need
                detail = (f"visibility {vis:g} s {'>=' if vis >= need else '<'} {k:g} × {t:g} s + {w:g} s = {need:g} s "
                          f"(the timeout of function {link.external or 'of the mapping'} as declared to the module: "
                          f"{declared[1]}; mapping {e.address})")
                if vis >= need:
                    yield ok(q.address, detail)
                else:
                    yield _too_short(q, detail, f"Set visibility_timeout_seconds of {q.address} to at least {need:g}.")
                continue
        if f is None:
            what = (f"its function {link.external} is not in this plan, so its timeout is unknown"
                    if link.external else f"its function cannot be identified: {link.unknown_reason}")
            yield unknown(q.address, f"consumer {e.address}: {what}",
                          f"Check that visibility_timeout_seconds >= {k:g} x the function timeout + the batching window.")
            continue
        t, w, vis = f.timeout(), e.batching_window(), q.visibility()
        bad = invalid_of(t, w, vis)
        if bad:
            yield invalid(f.address if bad is t else e.address if bad is w else q.address, bad)
            continue
        if t is UNKNOWN or w is UNKNOWN or vis is UNKNOWN:
            which = [n for n, v in (("function timeout", t), ("batching window", w), ("visibility timeout", vis)) if v is UNKNOWN]
            yield unknown(q.address, f"consumer {e.address}: {' and '.join(which)} only known after apply")
            continue
        need = k * t + w
        detail = f"visibility {vis:g} s {'>=' if vis >= need else '<'} {k:g} × {t:g} s + {w:g} s = {need:g} s " \
                 f"(function {f.address}, mapping {e.address})"
        need = int(need) if float(need).is_integer() else need
        if vis >= need:
            yield ok(q.address, detail)
        else:
            yield _too_short(q, detail, f"Set visibility_timeout_seconds of {q.address} to at least {need:g}, or lower "
                                        f"the timeout of {f.address}.")


def _too_short(q, detail: str, fix: str):
    """ESM001's failure: the queue's visibility timeout does not cover the consumer."""
    return fail(q.address, detail + ": messages reappear while still being processed (duplicates)", fix,
                attrs=((q.address, "visibility_timeout_seconds"),))


@rule("ESM002", "partial-batch-failures", "error", "consumer",
      "Event source mapping reports partial batch failures (ReportBatchItemFailures)",
      why="""
Without ReportBatchItemFailures one failing message fails the whole batch: every message in it,
including the ones already processed, becomes visible again and is processed again (duplicates),
and each receive counts toward maxReceiveCount, so healthy messages can end up in the DLQ.""",
      fix='Set function_response_types = ["ReportBatchItemFailures"] and return batchItemFailures from the handler '
          "(Powertools BatchProcessor does this).",
      sources=('lambda-sqs-errors', 'powertools-batch'))
def partial_batch(model: Model, opts):
    for e in model.esms:
        v = e.response_types()
        if isinstance(v, Invalid):
            yield invalid(e.address, v, 'Set function_response_types = ["ReportBatchItemFailures"].')
        elif v is UNKNOWN:
            yield unknown(e.address, "function_response_types is only known after apply")
        elif v and "ReportBatchItemFailures" in v:
            yield ok(e.address, "reports partial batch failures")
        else:
            yield fail(e.address, "function_response_types lacks ReportBatchItemFailures: one failure retries the whole batch")


@rule("ESM003", "bounded-concurrency", "warning", "consumer",
      "Event source mapping bounds concurrency (scaling_config.maximum_concurrency, or provisioned mode's maximum_pollers)",
      why="""
An SQS event source scales up to 1,000 concurrent invocations. Without maximum_concurrency a backlog
can exhaust the account's Lambda concurrency or overwhelm a downstream database; reserved concurrency
on the function instead makes the poller throttle, and throttled receives count toward
maxReceiveCount. In provisioned mode (provisioned_poller_config) the mapping's scale is bounded by
its maximum_pollers instead (AWS's default 200 when unset), and scaling_config cannot be added
(ESM005). A warning: it protects neighbours and downstreams.""",
      fix=f"Add scaling_config {{ maximum_concurrency = N }} ({facts.MAXIMUM_CONCURRENCY_MIN}-{facts.MAXIMUM_CONCURRENCY_MAX}) "
          "sized for the downstream (in provisioned mode: provisioned_poller_config.maximum_pollers).",
      sources=('lambda-sqs-scaling',))
def bounded_concurrency(model: Model, opts):
    for e in model.esms:
        mode, v = e.provisioned(), e.maximum_concurrency()
        if isinstance(v, Invalid):
            yield invalid(e.address, v)
        elif v is UNKNOWN or mode is UNKNOWN:
            yield unknown(e.address, "scaling_config.maximum_concurrency or provisioned_poller_config is only known after apply")
        elif v is not None:
            yield ok(e.address, f"maximum_concurrency {v}")
        elif mode:
            p = e.maximum_pollers()
            if isinstance(p, Invalid):
                yield invalid(e.address, p)
            elif p is UNKNOWN:
                yield unknown(e.address, "provisioned_poller_config.maximum_pollers is only known after apply")
            elif p is not None:
                yield ok(e.address, f"provisioned mode, maximum_pollers {p}")
            else:
                yield fail(e.address, "provisioned mode without maximum_pollers: the mapping may scale to 200 pollers "
                                      "(AWS's default)",
                           "Set provisioned_poller_config.maximum_pollers sized for the downstream (scaling_config "
                           "cannot be added in provisioned mode).")
        else:
            yield fail(e.address, "no scaling_config.maximum_concurrency: the mapping may scale to 1,000 concurrent invocations")


@rule("ESM004", "fifo-batching", "error", "consumer", "FIFO consumers: batch size <= 10 and no batching window",
      why="""
For FIFO queues Lambda accepts a batch size of at most 10 and no batching window; larger values are
refused by the API at apply time (after the rest of the stack has changed), and a batching window
would hold back a message group's next message. Batch size defaults to 10 when unset.""",
      fix="Set batch_size <= 10 and remove maximum_batching_window_in_seconds (or set it to 0).",
      sources=('lambda-sqs-configure',))
def fifo_batching(model: Model, opts):
    for e in model.esms:
        q, why = _queue(e)
        if q is None:
            continue  # unknown queue: ESM001 already reports that it cannot decide
        if isinstance(q.fifo, Invalid):
            continue  # SQS005 reports it on the queue
        if q.fifo is UNKNOWN:
            yield unknown(e.address, f"whether {q.address} is FIFO is only known after apply")
            continue
        if not q.fifo:
            continue
        b, w = e.batch_size(), e.batching_window()
        bad = invalid_of(b, w)
        if bad:
            yield invalid(e.address, bad)
        elif b is UNKNOWN or w is UNKNOWN:
            yield unknown(e.address, "batch_size or maximum_batching_window_in_seconds only known after apply")
        elif b <= 10 and w == 0:
            yield ok(e.address, f"FIFO batch size {b}, no batching window")
        else:
            probs = []
            if b > 10:
                probs.append(f"batch_size {b} > 10")
            if w:
                probs.append(f"maximum_batching_window_in_seconds {seconds(w)} > 0")
            yield fail(e.address, f"FIFO queue {q.address}: {' and '.join(probs)}")


@rule("ESM005", "one-scaling-mode", "error", "consumer",
      "Event source mapping bounds its scale one way: scaling_config or provisioned_poller_config, not both",
      why="""
An SQS event source scales in one of two mutually exclusive ways: standard mode, optionally capped by
scaling_config.maximum_concurrency, or provisioned mode (provisioned_poller_config: dedicated
pollers between minimum_pollers and maximum_pollers). Lambda refuses a mapping that sets both, at
apply, after the rest of the stack has changed; the AWS provider's validation (5.x) does not
catch it at plan.""",
      fix="Keep one: in provisioned mode remove scaling_config and bound the mapping with "
          "provisioned_poller_config.maximum_pollers; in standard mode remove provisioned_poller_config.",
      sources=('lambda-sqs-scaling',))
def one_scaling_mode(model: Model, opts):
    for e in model.esms:
        mode, v = e.provisioned(), e.maximum_concurrency()
        if isinstance(v, Invalid):
            continue  # ESM003 reports it
        if mode is UNKNOWN or v is UNKNOWN:
            yield unknown(e.address, "scaling_config.maximum_concurrency or provisioned_poller_config is only known after apply")
        elif mode and v is not None:
            yield fail(e.address, f"provisioned_poller_config and scaling_config.maximum_concurrency ({v}) on one mapping: "
                                  "Lambda refuses the combination (they are mutually exclusive)")
        elif mode:
            yield ok(e.address, "provisioned mode, no scaling_config")
        else:
            yield ok(e.address, "standard mode" + (f", maximum_concurrency {v}" if v is not None else ""))
