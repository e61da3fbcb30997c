"""Consumers (stage 2): Lambda functions and the event source mappings that feed them from
queues. :func:`link_consumers` links each mapping to its queue (found in stage 1's
queues.QueueIndex) and its function, and returns the :class:`Consumers`."""
from __future__ import annotations

from ..graph import UNKNOWN, Plan, Resource, narrow
from ..resolve import Resolver
from .queues import QueueIndex
from .values import ESM_DEFAULT_BATCH_SQS, LAMBDA_DEFAULT_TIMEOUT, Link, lambda_function_name, number, str_list


class Function:
    """A Lambda function found in the plan (managed or data source)."""

    def __init__(self, res: Resource):
        self.res = res
        self.address = res.address

    def timeout(self):
        v = self.res.attr("timeout")
        return number(LAMBDA_DEFAULT_TIMEOUT if v is None else v, "timeout", 1, 900, unit="s")


class ESM:
    """An ``aws_lambda_event_source_mapping`` from a queue: the queue it reads
    (``queue_link``) and the function it invokes (``function_link``), each a Link that says
    why when it cannot be told; its batching settings, read as the rules use them."""

    def __init__(self, res: Resource):
        self.res = res
        self.address = res.address
        self.queue_link: Link = Link()
        self.function_link: Link = Link()
        self.function_label = None

    def batching_window(self):
        v = self.res.attr("maximum_batching_window_in_seconds")
        return number(0 if v is None else v, "maximum_batching_window_in_seconds", 0, 300, unit="s")

    def batch_size(self):
        v = self.res.attr("batch_size")
        return number(ESM_DEFAULT_BATCH_SQS if v is None else v, "batch_size", 1, 10000)

    def response_types(self):
        return str_list(self.res.attr("function_response_types"), "function_response_types")

    def maximum_concurrency(self):
        return number(self.res.path("scaling_config", 0, "maximum_concurrency"), "scaling_config.maximum_concurrency", 2, 1000)

    def provisioned(self):
        """Whether the mapping is in provisioned mode (a ``provisioned_poller_config`` block):
        True, False, or UNKNOWN when that is only known after apply."""
        block = self.res.attr("provisioned_poller_config")
        if block is UNKNOWN:
            return UNKNOWN
        return isinstance(block, list) and len(block) > 0

    def maximum_pollers(self):
        """provisioned_poller_config.maximum_pollers: None when left to AWS's default (200)."""
        v = self.res.path("provisioned_poller_config", 0, "maximum_pollers")
        return v if v is None else number(v, "provisioned_poller_config.maximum_pollers", 2, 2000)


class Consumers:
    """Stage 2's result: the plan's functions (``functions``, by address; ``by_name``) and
    each event source mapping from a queue (``esms``), linked to its queue and its function."""

    def __init__(self, plan: Plan, resolve: Resolver, queues: QueueIndex):
        self.plan = plan
        self.resolve = resolve
        self.queues = queues
        self.functions: dict[str, Function] = {}
        self.by_name: dict[str, list[Function]] = {}
        for r in plan.of_type("aws_lambda_function"):
            f = self.functions[r.address] = Function(r)
            n = r.attr("function_name")
            if isinstance(n, str):
                self.by_name.setdefault(n, []).append(f)
        esms = [self._esm(r) for r in plan.of_type("aws_lambda_event_source_mapping") if r.mode == "managed"]
        self.esms: list[ESM] = [e for e in esms if e is not None]

    def _esm(self, r: Resource) -> ESM | None:
        """The mapping from a queue (None: from a stream or a broker), linked to its queue: the
        ARN the plan knows; the queues its references lead to, one; a source placeholder (the
        ARN of a queue of the plan) when they lead to none or several; else unknown."""
        e = ESM(r)
        queues = self.queues
        rv = self.resolve.value(r, "event_source_arn")
        src = rv.value
        if isinstance(src, str):
            if ":sqs:" not in src:
                return None  # a stream or broker, not a queue
            found = queues.for_arn(src)
            e.queue_link = Link(found) if len(found) == 1 else (
                Link(external=src) if not found else Link(unknown_reason=f"event_source_arn {src} matches {len(found)} queues"))
        elif src is UNKNOWN:
            found = queues.in_targets(rv.targets, r)
            if len(found) != 1:
                q = queues.of_pending(rv.pending(("arn",)))
                found = [q] if q is not None else found
            if len(found) == 1:
                e.queue_link = Link(found)
            elif found:
                e.queue_link = Link(unknown_reason=f"event_source_arn could be any of {len(found)} queues")
            else:
                # not resolvable: is it a queue at all? Streams need a starting position.
                if r.attr("starting_position") is not None or any(
                        v is UNKNOWN or bool(v) for v in (r.attr("self_managed_event_source"), r.attr("topics"))):
                    return None
                e.queue_link = Link(unknown_reason="event_source_arn is only known after apply and leads to no queue in the plan")
        else:
            return None
        q = e.queue_link.one
        if q is not None:
            q.esms.append(e)
        self._link_function(e)
        return e

    def _link_function(self, e: ESM):
        """The mapping's function: the name or ARN the plan knows; the functions (or aliases'
        functions) its references lead to; what the source says it is (the name or ARN of a
        function or alias of the plan, known after apply, or a name or ARN); else unknown."""
        r = e.res
        rv = self.resolve.value(r, "function_name")
        fn = rv.value
        if isinstance(fn, str):
            self._link_function_named(e, fn)
            return
        found: list[Function] = []
        for t in rv.targets:
            if t.res is None:
                continue
            if t.res.type == "aws_lambda_function":
                found.append(self._function(t.res))
            elif t.res.type == "aws_lambda_alias":
                found.extend(self._functions_of_alias(t.res))
        uniq = {f.address: f for f in found}
        picked = narrow([f.res for f in uniq.values()], r)
        if len(picked) == 1:
            e.function_link = Link([uniq[picked[0].address]])
            e.function_label = picked[0].address
            return
        if picked:
            e.function_link = Link(unknown_reason=f"function_name could be any of {len(picked)} functions")
            return
        said = rv.named() if fn is UNKNOWN else None
        p = said.pending if said is not None else None
        if p is not None and len(p.path) == 1 and p.path[0] in ("function_name", "arn", "qualified_arn") and \
                p.res.type in ("aws_lambda_function", "aws_lambda_alias"):
            fns = [p.res] if p.res.type == "aws_lambda_function" else \
                narrow(list({f.address: f.res for f in self._functions_of_alias(p.res)}.values()), r)
            if len(fns) == 1:
                f = self._function(fns[0])
                e.function_link = Link([f])
                e.function_label = f.address
                return
            if fns:
                e.function_link = Link(unknown_reason=f"function_name could be any of {len(fns)} functions")
                return
        elif p is None and said is not None and said.text:
            self._link_function_named(e, said.text)
            return
        e.function_link = Link(unknown_reason="function_name is only known after apply and leads to no function in the plan")

    def _function(self, res: Resource) -> Function:
        return self.functions.get(res.address) or Function(res)

    def _functions_named(self, name: str | None) -> list[Function]:
        """The functions of the plan (managed, else data sources) a function name designates."""
        return list(self.by_name.get(name, ())) or [
            self._function(d) for d in self.plan.of_type("aws_lambda_function")
            if d.mode == "data" and lambda_function_name(d.attr("function_name")) == name]

    def _functions_of_alias(self, alias: Resource) -> list[Function]:
        """The functions of the plan an ``aws_lambda_alias`` points at: those its
        function_name references, else those a name the plan knows designates, else (through
        a local value) those the configuration source says it is."""
        rv = self.resolve.value(alias, "function_name")
        referenced = rv.resources("aws_lambda_function")
        if not referenced and isinstance(rv.value, str):  # a name written out
            return self._functions_named(lambda_function_name(rv.value))
        return [self._function(r) for r in (referenced or rv.linked("aws_lambda_function"))]

    def _link_function_named(self, e: ESM, fn: str):
        """Link ``e`` to the function a name, partial ARN or ARN ``fn`` designates."""
        e.function_label = fn
        found = self._functions_named(lambda_function_name(fn))
        e.function_link = Link(found[:1]) if found else Link(external=fn)

    def declared_function_timeout(self, e: ESM):
        """The function timeout a module was told for the mapping's function when the
        function is not in the plan (this project's modules/lambda-consumer takes it as
        `function_timeout_seconds` and refuses a queue whose visibility does not cover
        it): (seconds, input) or None."""
        mod = e.res.module
        cfg = self.plan.module_config(mod) if mod else None
        if cfg is None or "function_timeout_seconds" not in cfg.variables:
            return None
        v = self.resolve.variable(mod, "function_timeout_seconds")
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return None
        return v, f"function_timeout_seconds of {mod}"
