"""The behaviour runner: one run's endpoint, applied stack, discovery and scenarios.

Shared by the pytest plugin (:mod:`resilient_sqs.testing.pytest_plugin`) and ``sqs-behave``
(which runs pytest with the plugin).
"""
from __future__ import annotations

import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .discover import Discovery, Pair, Table, discover
from .env import endpoint_env
from .env import region as env_region

Progress = Callable[[str], None]

EMBEDDED = "embedded"
REAL_AWS = "aws"


class EndpointError(RuntimeError):
    """No usable endpoint: the message says the ways to give one."""


USAGE = ("say where to run the behaviour checks: an endpoint of a running LocalStack (--endpoint URL / "
         "pytest --sqs-localstack=URL, or LOCALSTACK_ENDPOINT, or an AWS_ENDPOINT_URL that answers LocalStack's "
         "health check; the CI layout with LocalStack as a service container), or --embedded / "
         "pytest --sqs-localstack=embedded to start an embedded LocalStack (installed on first use into a "
         "per-user cache; needs Python 3.11, a JDK 17+ with javac, and npm)")


def stderr_progress(msg: str) -> None:
    print(f"sqs-behave: {msg}", file=sys.stderr, flush=True)


@dataclass
class Endpoint:
    url: str | None  # None: real AWS
    kind: str  # "external", "embedded", "aws"
    handle: object | None = None  # the embedded LocalStack
    metric_interval: float = 60.0

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

    if choice == REAL_AWS:
        return Endpoint(None, "aws", metric_interval=60.0)
    if choice == EMBEDDED:
        try:
            ls = L.start(settings or L.Settings.for_user(), users=[os.getpid()], progress=progress)
        except L.LocalStackError as exc:
            raise EndpointError(f"the embedded LocalStack could not be started: {exc}") from None
        # the launcher publishes SQS metrics every SQS_CLOUDWATCH_METRICS_REPORT_INTERVAL s
        return Endpoint(ls.endpoint, "embedded", ls, metric_interval=10.0)
    if choice:
        if not choice.startswith(("http://", "https://")):
            raise EndpointError(f"endpoint {choice!r} is not a URL (http://host:port), 'embedded' or 'aws'")
        if L.health(choice) is None:
            raise EndpointError(f"no LocalStack answers at {choice.rstrip('/')}{L.HEALTH_PATH}: start it (e.g. "
                                "`docker run -d -p 4566:4566 localstack/localstack:4.9.2`), or use --embedded")
        return Endpoint(choice.rstrip("/"), "external", metric_interval=60.0)
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
    endpoint: Endpoint | None = None
    stack: object | None = None
    discovery: Discovery | None = None
    error: str | None = None  # a usage, endpoint or apply error (exit 2)
    leftovers: list[str] = field(default_factory=list)
    outcomes: dict[tuple[str, str], Outcome] = field(default_factory=dict)
    selected: list[tuple[str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    _ran: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- setup ----------------------------------------------------------------------------
    def setup(self) -> None:
        """Endpoint, copy, apply, discover. Sets ``error`` (and raises nothing) on failure."""
        from .stack import AppliedStack, StackError

        t0 = time.monotonic()
        try:
            self.endpoint = resolve_endpoint(self.endpoint_choice, self.progress)
        except EndpointError as exc:
            self.error = str(exc)
            return
        self.timings["endpoint"] = time.monotonic() - t0
        region = self.endpoint.env().get("AWS_REGION") or env_region()
        self.stack = AppliedStack(source=Path(self.stack_dir), endpoint=self.endpoint.url, env=self.endpoint.env(),
                                  var_args=self.var_args, progress=self.progress, keep=self.keep, region=region)
        t0 = time.monotonic()
        try:
            self.stack.prepare()
            self.stack.apply()
        except StackError as exc:
            self.error = str(exc)
            return
        self.timings.update({f"terraform {k}": v for k, v in self.stack.timings.items()})
        self.discovery = discover(self.stack.plan, self.stack.state)
        d = self.discovery
        self.progress(f"found {len(d.pairs)} queue(s) that are not DLQs ({sum(1 for p in d.pairs if p.dlq)} with a DLQ), "
                      f"{sum(len(p.alarms) for p in d.pairs)} DLQ depth alarm(s), {len(d.tables)} idempotency table(s)")
        for note in d.notes:
            self.progress(f"note: {note}")

    def teardown(self) -> None:
        t0 = time.monotonic()
        try:
            if self.stack is not None:
                self.leftovers = self.stack.destroy()
                for line in self.leftovers:
                    self.progress(f"LEFT BEHIND: {line}" if "--keep" not in line else line)
                if not self.leftovers and self.stack.destroyed:
                    self.progress("destroyed: nothing left behind")
        finally:
            self.timings["destroy"] = time.monotonic() - t0
            if self.endpoint is not None and not self.keep:
                self.endpoint.stop()
            elif self.endpoint is not None and self.endpoint.handle is not None:
                self.progress(f"the embedded LocalStack at {self.endpoint.url} keeps running while this process "
                              "lives (--keep); it stops with it")
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
        """Run ``units``: one thread per subject, subjects concurrently (they share nothing); a
        subject's scenarios one after another where they share a queue (see ``work``)."""
        from .aws import Clients
        from .scenarios import USES_DLQ, USES_SOURCE, Context, ScenarioFailed, ScenarioSkipped, by_name, names

        ctx = Context(clients=Clients(self.endpoint.url), discovery=self.discovery,
                      metric_interval=self.endpoint.metric_interval, progress=self.progress)
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
                with ThreadPoolExecutor(max_workers=2) as lane_pool:
                    list(lane_pool.map(lambda lane: run_seq(name, lane), lanes))
            else:
                for lane in lanes:
                    run_seq(name, lane)
            run_seq(name, [s for s in todo if by_name(s).uses not in (USES_DLQ, USES_SOURCE)])

        def run_seq(name: str, scenarios: list[str]) -> None:
            for scenario in scenarios:
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

        t0 = time.monotonic()
        self.progress(f"running {len(units)} scenario(s) on {len(by_subject)} subject(s) concurrently")
        with ThreadPoolExecutor(max_workers=max(1, min(16, len(by_subject)))) as pool:
            list(pool.map(work, list(by_subject)))
        self.timings["scenarios"] = time.monotonic() - t0
