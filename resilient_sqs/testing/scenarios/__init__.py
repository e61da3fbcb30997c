"""The behaviour scenarios, run against an applied stack through the AWS APIs.

A scenario is one module of this package holding one :class:`Scenario` record named
``SCENARIO``: its name, its subject (a queue pair or an idempotency table), what it needs
from the stack, where it runs in a subject's sequence, what it shows (the documentation's
tables are generated from it: ``make docs``), which capability of the endpoint it probes,
which queues of a pair it touches, and the function that runs it. The package discovers
its modules: adding a scenario is adding a file.

A scenario's function ``(ctx, subject) -> str`` returns what it showed; it raises
:class:`ScenarioFailed` (what was done, expected, seen, which setting to change) or
:class:`ScenarioSkipped` (why it does not apply, or what the endpoint cannot show: decided by
probing the endpoint, never by its version string). Every scenario leaves the queues it used
empty. Time-dependent steps take their periods from the applied configuration (visibility
timeout, function timeout, alarm period and evaluation periods), plus the endpoint's metric
interval, so the same checks hold on a real AWS account.
"""
from __future__ import annotations

import importlib
import pkgutil
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from ..aws import Clients
from ..discover import Discovery

Progress = Callable[[str], None]

PAIR = "pair"  # a source queue (not a DLQ) with what the stack links to it
TABLE = "table"  # an idempotency table

# which queues of a pair a scenario touches: scenarios of one pair that touch different
# queues may run side by side; those touching both run one after another
USES_DLQ, USES_SOURCE, USES_BOTH, USES_TABLE = "dlq", "source", "both", "table"


class ScenarioFailed(AssertionError):
    """The stack does not keep a promise. The message names the queue, what was done and seen."""


class ScenarioSkipped(Exception):
    """The scenario does not apply to this subject, or the endpoint cannot show it (the reason)."""


@dataclass(frozen=True)
class Scenario:
    """One behaviour scenario (a module of this package holds one, named ``SCENARIO``)."""

    name: str
    subject: str  # PAIR or TABLE
    needs: str  # what it needs from the stack (otherwise a skip or a failure, as the scenario says)
    order: int  # a subject's scenarios run (and are listed) in ascending order
    summary: str  # what it shows (the documentation's tables)
    probes: str  # the capability of the endpoint it relies on, probed where it may be missing ("" none)
    uses: str  # USES_DLQ, USES_SOURCE, USES_BOTH or USES_TABLE
    run: Callable[[Any, Any], str] = field(repr=False, compare=False)

    def __post_init__(self):
        if self.subject not in (PAIR, TABLE):
            raise ValueError(f"scenario {self.name}: subject {self.subject!r} is not {PAIR!r} or {TABLE!r}")
        if self.uses not in (USES_DLQ, USES_SOURCE, USES_BOTH, USES_TABLE):
            raise ValueError(f"scenario {self.name}: uses {self.uses!r} is not one of dlq, source, both, table")


@dataclass
class Context:
    clients: Clients
    discovery: Discovery
    metric_interval: float  # how often the endpoint publishes SQS metrics to CloudWatch (s)
    progress: Progress = lambda _m: None
    stopping: threading.Event = field(default_factory=threading.Event)  # set when the run is interrupted
    _probes: dict = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def probe(self, name: str, fn: Callable[[], Any]) -> Any:
        with self._lock:
            if name not in self._probes:
                self._probes[name] = fn()
            return self._probes[name]


@lru_cache(maxsize=1)
def catalog() -> tuple[Scenario, ...]:
    """Every scenario of this package, in run order (then by name)."""
    found: dict[str, Scenario] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        scenario = getattr(module, "SCENARIO", None)
        if not isinstance(scenario, Scenario):
            raise TypeError(f"{module.__name__}: a scenario module holds one Scenario record named SCENARIO")
        if scenario.name in found:
            raise ValueError(f"scenario {scenario.name} is declared twice ({module.__name__})")
        found[scenario.name] = scenario
    return tuple(sorted(found.values(), key=lambda s: (s.order, s.name)))


def by_name(name: str) -> Scenario:
    for s in catalog():
        if s.name == name:
            return s
    raise KeyError(f"no scenario {name!r}; known: {', '.join(s.name for s in catalog())}")


def names() -> list[str]:
    return [s.name for s in catalog()]


def for_subject(subject: str) -> list[Scenario]:
    return [s for s in catalog() if s.subject == subject]


def table_rows(detail: bool = False) -> str:
    """The Markdown table of the scenarios (README: name and summary; docs/behave.md: with
    the subject, what each needs from the stack and what it probes on the endpoint)."""
    def cell(text: str) -> str:
        return " ".join(text.split()).replace("|", "\\|")

    if not detail:
        lines = ["| scenario | what it shows |", "|---|---|"]
        lines += [f"| `{s.name}` | {cell(s.summary)} |" for s in catalog()]
    else:
        lines = ["| scenario | per | what it shows | needs from the stack | relies on the endpoint for |",
                 "|---|---|---|---|---|"]
        lines += [f"| `{s.name}` | {'queue' if s.subject == PAIR else 'idempotency table'} | {cell(s.summary)} | "
                  f"{cell(s.needs)} | {cell(s.probes) or '-'} |" for s in catalog()]
    return "\n".join(lines) + "\n"


__all__ = ["PAIR", "TABLE", "USES_BOTH", "USES_DLQ", "USES_SOURCE", "USES_TABLE", "Context", "Scenario",
           "ScenarioFailed", "ScenarioSkipped", "by_name", "catalog", "for_subject", "names", "table_rows"]
