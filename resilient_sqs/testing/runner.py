"""The behaviour runner: one run's endpoint, applied stack, discovery and scenarios.

Shared by the pytest plugin (:mod:`resilient_sqs.testing.pytest_plugin`) and ``sqs-behave``
(which runs pytest with the plugin).
"""
from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .discover import Discovery, Pair, Table, discover
from .stack import DESTROY_TIMEOUT, state_resources
from .env import endpoint_env
from .env import region as env_region
from .emulators import EMBEDDED, EMBEDDED_KINDS, REAL_AWS, unknown_emulator

Progress = Callable[[str], None]



class EndpointError(RuntimeError):
    """No usable endpoint: the message says the ways to give one."""


USAGE = ("say where to run the behaviour checks: an endpoint of a running LocalStack (--endpoint URL / "
         "pytest --sqs-localstack=URL, or LOCALSTACK_ENDPOINT, or an AWS_ENDPOINT_URL that answers LocalStack's "
         "health check; any endpoint that answers the SQS API is probed for what it can show), or --embedded / "
         "pytest --sqs-localstack=embedded to start an embedded LocalStack (installed on first use into a "
         "per-user cache; needs Python 3.11, a JDK 17+ with javac, and npm), or --embedded ministack / "
         "pytest --sqs-localstack=embedded:ministack for ministack (pip only)")


def stderr_progress(msg: str) -> None:
    print(f"sqs-behave: {msg}", file=sys.stderr, flush=True)


@dataclass
class Endpoint:
    url: str | None  # None: real AWS
    kind: str  # "external", "embedded", "aws"
    handle: object | None = None  # the embedded LocalStack or ministack
    metric_interval: float = 60.0
    emulator: str | None = None  # localstack, ministack, other (None: real AWS)

    def env(self) -> dict[str, str]:
        return endpoint_env(self.url)

    def stop(self) -> None:
        if self.handle is not None:
            self.handle.stop()
            self.handle = None


def resolve_endpoint(choice: str | None, progress: Progress = stderr_progress, settings=None) -> Endpoint:
    """``choice``: a URL, "embedded", "aws", or None (then LOCALSTACK_ENDPOINT / AWS_ENDPOINT_URL).
    ``settings``: the embedded LocalStack's (default: the per-user cache)."""
    from . import localstack as L

    if choice and choice.lower().startswith(f"{EMBEDDED}:") and choice.split(":", 1)[1].lower() in EMBEDDED_KINDS:
        choice = choice.lower()
    if choice == REAL_AWS:
        return Endpoint(None, "aws", metric_interval=60.0)
    if choice == f"{EMBEDDED}:ministack":
        from . import ministack as M

        try:
            ms = M.start(settings or L.Settings.for_user(), users=[os.getpid()], progress=progress)
        except L.LocalStackError as exc:
            raise EndpointError(f"the embedded ministack could not be started: {exc}") from None
        return Endpoint(ms.endpoint, EMBEDDED, ms, metric_interval=60.0, emulator="ministack")
    if choice in (EMBEDDED, f"{EMBEDDED}:localstack"):
        try:
            ls = L.start(settings or L.Settings.for_user(), users=[os.getpid()], progress=progress)
        except L.LocalStackError as exc:
            raise EndpointError(f"the embedded LocalStack could not be started: {exc}") from None
        # the launcher publishes SQS metrics every SQS_CLOUDWATCH_METRICS_REPORT_INTERVAL s
        return Endpoint(ls.endpoint, EMBEDDED, ls, metric_interval=10.0, emulator="localstack")
    if choice and choice.startswith(f"{EMBEDDED}:"):
        raise EndpointError(unknown_emulator(choice.split(":", 1)[1], f"--sqs-localstack={EMBEDDED}:"))
    if choice:
        if not choice.startswith(("http://", "https://")):
            hint = (f" (to start {choice.lower()}: {EMBEDDED}:{choice.lower()})" if choice.lower() in EMBEDDED_KINDS
                    else "")
            raise EndpointError(f"endpoint {choice!r} is not a URL (http://host:port), '{EMBEDDED}', "
                                f"'{EMBEDDED}:<{'|'.join(EMBEDDED_KINDS)}>' or '{REAL_AWS}'{hint}")
        from .probes import EndpointRefused, check_answers

        try:
            who = check_answers(choice.rstrip("/"))
        except EndpointRefused as exc:
            raise EndpointError(str(exc)) from None
        progress(f"endpoint {choice.rstrip('/')}: {who['kind']} {who.get('version') or ''}".rstrip())
        return Endpoint(choice.rstrip("/"), "external", metric_interval=60.0, emulator=who["kind"])
    try:
        ext = L.external_endpoint()
    except L.LocalStackError as exc:
        raise EndpointError(str(exc)) from None
    if ext:
        return Endpoint(ext, "external", metric_interval=60.0)
    raise EndpointError(f"no endpoint: {USAGE}")


@dataclass
class Outcome:
    status: str  # passed, failed, skipped
    message: str
    seconds: float


@dataclass
class BehaveRun:
    stack_dir: Path
    endpoint_choice: str | None
    var_args: list[str] = field(default_factory=list)
    keep: bool = False
    progress: Progress = stderr_progress
    destroy_timeout: float = DESTROY_TIMEOUT
    tables: list[str] = field(default_factory=list)  # idempotency tables named by the user
    endpoint: Endpoint | None = None
    stack: object | None = None
    discovery: Discovery | None = None
    error: str | None = None  # a usage, endpoint or apply error (exit 2)
    leftovers: list[str] = field(default_factory=list)
    outcomes: dict[tuple[str, str], Outcome] = field(default_factory=dict)
    selected: list[tuple[str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    remedy: str | None = None  # how to remove the leftovers
    torn_down: bool = False
    interrupted: bool = False
    stopping: threading.Event = field(default_factory=threading.Event)
    _ran: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- setup ----------------------------------------------------------------------------
    def setup(self) -> None:
        """Endpoint, copy, apply, discover. Sets ``error`` (and raises nothing) on failure."""
        from .stack import AppliedStack, StackError

        t0 = time.monotonic()
        if self.keep and (self.endpoint_choice or "").startswith(EMBEDDED):
            kind = (self.endpoint_choice.partition(":")[2] or "localstack").lower()
            self.error = (f"--keep with --embedded {kind}: the embedded {kind} stops when this run ends, so nothing could "
                          "be kept. Start a LocalStack that outlives the run (`python -m resilient_sqs.testing.localstack "
                          "start`, then `eval \"$(python -m resilient_sqs.testing.localstack env)\"`) and pass its "
                          "endpoint")
            return
        try:
            self.endpoint = resolve_endpoint(self.endpoint_choice, self.progress)
        except EndpointError as exc:
            self.error = str(exc)
            return
        self.timings["endpoint"] = time.monotonic() - t0
        if self.keep and self.endpoint.kind == EMBEDDED:
            self.endpoint.stop()
            self.error = "--keep with --embedded: the embedded emulator stops when this run ends"
            return
        region = self.endpoint.env().get("AWS_REGION") or env_region()
        self.stack = AppliedStack(source=Path(self.stack_dir), endpoint=self.endpoint.url, env=self.endpoint.env(),
                                  var_args=self.var_args, progress=self.progress, keep=self.keep, region=region,
                                  destroy_timeout=self.destroy_timeout,
                                  discard=self.endpoint.kind == EMBEDDED and not self.keep)
        t0 = time.monotonic()
        try:
            self.stack.prepare()
            self.stack.apply()
        except StackError as exc:
            self.error = str(exc)
            return
        self.timings.update({f"terraform {k}": v for k, v in self.stack.timings.items()})
        self.discovery = discover(self.stack.plan, self.stack.state, tables=self.tables)
        d = self.discovery
        if not d.pairs and not d.tables:
            n = len(state_resources(self.stack.state or {}))
            self.error = (f"nothing to check: the applied stack ({n} resources) has no SQS queue that is not a DLQ and no "
                          "idempotency table" + (f" ({'; '.join(d.notes)})" if d.notes else "")
                          + ". Give the root module that creates the queues")
            return
        self.progress(f"found {len(d.pairs)} queue(s) that are not DLQs ({sum(1 for p in d.pairs if p.dlq)} with a DLQ), "
                      f"{sum(len(p.alarms) for p in d.pairs)} DLQ depth alarm(s), {len(d.tables)} idempotency table(s)")
        for note in d.notes:
            self.progress(f"note: {note}")

    def teardown(self) -> None:
        """Destroy the stack (bounded) and stop the endpoint this run started; once."""
        if self.torn_down:
            return
        self.torn_down = True
        t0 = time.monotonic()
        try:
            if self.stack is not None:
                try:
                    self.leftovers = self.stack.destroy()
                finally:
                    self.leftovers = self.leftovers or list(self.stack.leftovers)
                    self.remedy = self.stack.remedy
                for line in self.leftovers:
                    self.progress(f"LEFT BEHIND: {line}")
                if self.remedy:
                    self.progress(self.remedy)
                if self.stack.kept:
                    self.progress(self.stack.kept)
                elif not self.leftovers and self.stack.destroyed and not self.stack.discard:
                    self.progress("destroyed: nothing left behind")
        finally:
            self.timings["destroy"] = time.monotonic() - t0
            if self.endpoint is not None:
                self.endpoint.stop()

    # -- the units of work ----------------------------------------------------------------
    def units(self) -> list[tuple[str, str]]:
        """Every (scenario, subject name) this stack has."""
        from .scenarios import PAIR, TABLE, for_subject

        if self.discovery is None:
            return []
        out = [(s.name, p.name) for p in self.discovery.pairs for s in for_subject(PAIR)]
        out += [(s.name, t.name) for t in self.discovery.tables for s in for_subject(TABLE)]
        return out

    def _subject(self, scenario: str, name: str) -> Pair | Table:
        from .scenarios import TABLE, by_name

        if by_name(scenario).subject == TABLE:
            return next(t for t in self.discovery.tables if t.name == name)
        return next(p for p in self.discovery.pairs if p.name == name)

    def result(self, scenario: str, name: str) -> Outcome:
        with self._lock:
            if not self._ran:
                self._ran = True
                self.run_all(self.selected or self.units())
        return self.outcomes.get((scenario, name)) or Outcome("skipped", "not run", 0.0)

    def run_all(self, units: list[tuple[str, str]]) -> None:
        """Run ``units``: subjects concurrently, except those sharing a queue (one after another, see
        :meth:`_groups`); a subject's scenarios one after another where they share a queue (see ``work``)."""
        from .aws import Clients
        from .scenarios import USES_DLQ, USES_SOURCE, Context, ScenarioFailed, ScenarioSkipped, by_name, names

        ctx = Context(clients=Clients(self.endpoint.url), discovery=self.discovery,
                      metric_interval=self.endpoint.metric_interval, progress=self.progress, stopping=self.stopping)
        by_subject: dict[str, list[str]] = {}
        for scenario, name in units:
            by_subject.setdefault(name, []).append(scenario)
        order = names()
        for scenarios in by_subject.values():
            scenarios.sort(key=order.index)

        def work(name: str) -> None:
            # scenarios that use only the DLQ and those that use only the source queue: two lanes
            # side by side, then the scenarios that use both, one after another
            todo = by_subject[name]
            lanes = [[s for s in todo if by_name(s).uses == USES_DLQ], [s for s in todo if by_name(s).uses == USES_SOURCE]]
            lanes = [lane for lane in lanes if lane]
            if len(lanes) == 2:
                side = threading.Thread(target=run_seq, args=(name, lanes[0]), daemon=True)
                side.start()
                run_seq(name, lanes[1])
                side.join()
            else:
                for lane in lanes:
                    run_seq(name, lane)
            run_seq(name, [s for s in todo if by_name(s).uses not in (USES_DLQ, USES_SOURCE)])

        def run_seq(name: str, scenarios: list[str]) -> None:
            for scenario in scenarios:
                if self.stopping.is_set():
                    return
                fn = by_name(scenario).run
                t0 = time.monotonic()
                try:
                    msg = fn(ctx, self._subject(scenario, name))
                    out = Outcome("passed", msg, time.monotonic() - t0)
                except ScenarioSkipped as exc:
                    out = Outcome("skipped", str(exc), time.monotonic() - t0)
                except ScenarioFailed as exc:
                    out = Outcome("failed", str(exc), time.monotonic() - t0)
                except Exception as exc:  # noqa: BLE001 - an AWS error is a failed check, reported
                    out = Outcome("failed", f"{scenario}[{name}]: {type(exc).__name__}: {exc}", time.monotonic() - t0)
                self.outcomes[(scenario, name)] = out
                word = {"passed": "passed", "failed": "FAILED", "skipped": "skipped"}[out.status]
                self.progress(f"{scenario}[{name}] {word} in {out.seconds:.0f} s")

        def work_group(group: list[str]) -> None:
            for name in group:  # subjects sharing a queue: one after another
                if not self.stopping.is_set():
                    work(name)

        groups = self._groups(list(by_subject))
        shared = [g for g in groups if len(g) > 1]
        paused = self._pause_consumers(ctx)
        t0 = time.monotonic()
        self.progress(f"running {len(units)} scenario(s) on {len(by_subject)} subject(s), {len(groups)} at a time"
                      + (f" (sharing a queue or producer, one after another: {'; '.join(', '.join(g) for g in shared)})"
                         if shared else ""))
        # daemon threads: an interrupt (Ctrl-C, SIGTERM) stops the run without waiting for them
        threads = [threading.Thread(target=work_group, args=(g,), daemon=True, name=f"sqs-behave-{i}")
                   for i, g in enumerate(groups)]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(timeout=0.5)
        except BaseException:
            self.stopping.set()
            self.interrupted = True
            raise
        finally:
            self.timings["scenarios"] = time.monotonic() - t0
            self._resume_consumers(ctx, paused)

    def _pause_consumers(self, ctx) -> list[str]:
        """Disable the stack's enabled event source mappings on its queues while the scenarios run: a
        live consumer would take the test messages. Returns the UUIDs paused (resumed afterwards)."""
        arns = {p.queue.arn for p in self.discovery.pairs} | {p.dlq.arn for p in self.discovery.pairs if p.dlq}
        arns.discard(None)
        if not arns:
            return []
        try:
            lam = ctx.clients.client("lambda")
            mappings = [m for page in lam.get_paginator("list_event_source_mappings").paginate()
                        for m in page.get("EventSourceMappings", [])]
        except Exception:  # noqa: BLE001 - no Lambda API on this endpoint: no mapping to pause
            return []
        paused = []
        for m in mappings:
            if m.get("EventSourceArn") in arns and m.get("State") in ("Enabled", "Enabling", "Updating"):
                try:
                    lam.update_event_source_mapping(UUID=m["UUID"], Enabled=False)
                    paused.append(m["UUID"])
                except Exception as exc:  # noqa: BLE001 - said, and the scenarios run anyway
                    self.progress(f"could not pause event source mapping {m['UUID']} on {m['EventSourceArn']}: {exc}; "
                                  "its function may take test messages")
        if paused:
            left = self._wait_states(lam, paused, "Disabled")
            self.progress(f"paused {len(paused)} event source mapping(s) while the scenarios run (their functions "
                          "would take the test messages)"
                          + (f"; still not Disabled after 60 s: {', '.join(left)}" if left else ""))
        return paused

    @staticmethod
    def _wait_states(lam, uuids: list[str], state: str, timeout: float = 60.0) -> list[str]:
        """Wait until every mapping of ``uuids`` reads ``state``; returns "UUID (State)" of those that do not."""
        deadline = time.monotonic() + timeout
        while True:
            left = []
            for u in uuids:
                try:
                    got = lam.get_event_source_mapping(UUID=u).get("State")
                except Exception as exc:  # noqa: BLE001 - reported as the state it could not read
                    got = f"unreadable: {type(exc).__name__}"
                if got != state:
                    left.append(f"{u} ({got})")
            if not left or time.monotonic() >= deadline:
                return left
            time.sleep(1)

    def _resume_consumers(self, ctx, paused: list[str]) -> None:
        """Enable the mappings :meth:`_pause_consumers` disabled, and check they are enabled again: a
        consumer left paused (a kept stack, a shared endpoint) would stop taking its queue's messages."""
        if not paused:
            return
        lam = ctx.clients.client("lambda")
        for u in paused:
            try:
                lam.update_event_source_mapping(UUID=u, Enabled=True)
            except Exception as exc:  # noqa: BLE001 - reported below with the command that enables it
                self.progress(f"could not resume event source mapping {u}: {exc}")
        left = self._wait_states(lam, paused, "Enabled", timeout=30.0)
        for u in left:
            endpoint = f" --endpoint-url {self.endpoint.url}" if self.endpoint and self.endpoint.url else ""
            self.progress(f"event source mapping {u} paused for the scenarios is not enabled again; enable it: "
                          f"aws lambda update-event-source-mapping{endpoint} --uuid {u.split()[0]} --enabled")
        if len(left) < len(paused):
            self.progress(f"resumed {len(paused) - len(left)} event source mapping(s)")

    def _groups(self, subjects: list[str]) -> list[list[str]]:
        """Subjects that share a queue (pairs with one DLQ; a queue that is another's DLQ) or a producer
        (an SNS topic, EventBridge rule or bucket feeding both queues) in one group, run one after
        another: one pair's messages and purges would hit the other's checks (a topic publishes the
        test message to every queue subscribed to it)."""
        from .scenarios.producers_deliver import producer_key

        queues: dict[str, set] = {}
        for name in subjects:
            pair = next((p for p in self.discovery.pairs if p.name == name), None)
            urls = {pair.queue.url, pair.dlq.url if pair.dlq else None} - {None} if pair is not None else {name}
            if pair is not None:
                urls |= {producer_key(prod) for prod in pair.producers or ()}
            queues[name] = urls
        groups: list[tuple[set[str], list[str]]] = []
        for name in subjects:
            joined = [g for g in groups if g[0] & queues[name]]
            urls, members = set(queues[name]), [name]
            for g in joined:
                urls |= g[0]
                members = g[1] + members
                groups.remove(g)
            groups.append((urls, members))
        return [members for _urls, members in groups]
