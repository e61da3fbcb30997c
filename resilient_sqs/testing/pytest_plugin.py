"""pytest plugin: behaviour checks of a team's own stack (registered through ``pytest11``).

    pytest --sqs-stack infra/ --sqs-localstack=embedded          # or =http://localhost:4566
    pytest --sqs-stack infra/ --sqs-var name_prefix=ci --sqs-keep

With ``--sqs-stack`` the stack is applied once (at collection, so its queues name the items),
one item per scenario and subject is added (``poison-to-dlq[orders]``...), the scenarios of
different queue pairs run concurrently, and the stack is destroyed when the session ends
(also after a failure, Ctrl-C or SIGTERM), reporting anything left behind.

Fixtures: ``sqs_stack`` (the applied stack: ``.pair("orders").max_receive_count``,
``.pair(...).expect(max_receive_count=5)``, ``.outputs``, ``.client("sqs")``) and
``sqs_endpoint`` (the endpoint URL, None on real AWS).

Without ``--sqs-stack`` and without these fixtures the plugin does nothing.
"""
from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

_RUN = "_sqs_behave_run"
DESTROY = "destroy"  # the name of the destroy item (destroy[<stack directory name>])


def pytest_addoption(parser):
    g = parser.getgroup("sqs-behave", "behaviour checks of an SQS stack on LocalStack (resilient-sqs)")
    g.addoption("--sqs-stack", metavar="DIR", default=None,
                help="Terraform root module to apply and check (copied; never written)")
    g.addoption("--sqs-localstack", metavar="URL|embedded|aws", default=None,
                help="where to apply: a running emulator's URL (probed for what it can show), 'embedded' (start "
                     "LocalStack), 'embedded:ministack' (start ministack), or 'aws' (real AWS, credentials from the "
                     "environment). Default: LOCALSTACK_ENDPOINT / AWS_ENDPOINT_URL")
    g.addoption("--sqs-var", metavar="NAME=VALUE", action="append", default=[],
                help="a Terraform variable (as terraform -var); repeatable")
    g.addoption("--sqs-var-file", metavar="FILE", action="append", default=[],
                help="a Terraform variable file (as terraform -var-file); repeatable")
    g.addoption("--sqs-keep", action="store_true", default=False,
                help="leave the stack applied at the end (prints how to destroy it)")
    g.addoption("--sqs-idempotency-table", metavar="NAME", action="append", default=[],
                help="a DynamoDB table to check as an idempotency table although its name does not match "
                     "(?i)idempot; repeatable")
    g.addoption("--sqs-destroy-timeout", metavar="SECONDS", type=float, default=None,
                help="stop `terraform destroy` after this long and report what is left (default: 600)")


class _Run:
    """Lazily creates the BehaveRun for this session."""

    def __init__(self, config):
        self.config = config
        self.run = None

    def get(self, need: str):
        if self.run is not None:
            return self.run
        from .runner import BehaveRun
        from .stack import StackError, parse_var

        opt = self.config.getoption
        stack = opt("--sqs-stack")
        if not stack:
            raise pytest.UsageError(f"{need} needs a stack: pytest --sqs-stack DIR (the Terraform root module to apply)")
        var_args = []
        try:
            for v in opt("--sqs-var"):
                var_args.append(f"-var={parse_var(v)}")
        except StackError as exc:
            raise pytest.UsageError(str(exc)) from None
        for f in opt("--sqs-var-file"):
            p = Path(f).resolve()
            if not p.is_file():
                raise pytest.UsageError(f"--sqs-var-file {f}: no such file")
            var_args.append(f"-var-file={p}")
        kwargs = {"progress": _progress_for(self.config), "tables": list(opt("--sqs-idempotency-table"))}
        if opt("--sqs-destroy-timeout") is not None:
            if opt("--sqs-destroy-timeout") <= 0:
                raise pytest.UsageError(f"--sqs-destroy-timeout {opt('--sqs-destroy-timeout')}: give a number of "
                                        "seconds above 0")
            kwargs["destroy_timeout"] = opt("--sqs-destroy-timeout")
        self.run = BehaveRun(stack_dir=Path(stack), endpoint_choice=opt("--sqs-localstack"), var_args=var_args,
                             keep=opt("--sqs-keep"), **kwargs)
        self.run.setup()
        return self.run


def _progress_for(config):
    """Progress lines on stderr, past pytest's output capture (applies and waits take minutes)."""
    import sys
    import threading

    capman = config.pluginmanager.getplugin("capturemanager")
    lock = threading.Lock()

    def say(msg: str) -> None:
        with lock:
            if capman is not None:
                with capman.global_and_fixture_disabled():
                    print(f"sqs-behave: {msg}", file=sys.stderr, flush=True)
            else:
                print(f"sqs-behave: {msg}", file=sys.stderr, flush=True)

    return say


def pytest_configure(config):
    setattr(config, _RUN, _Run(config))
    config.pluginmanager.register(_DestroyLast(), "sqs-behave-destroy-last")
    if config.getoption("--sqs-stack") and (config.getoption("numprocesses", None) or hasattr(config, "workerinput")):
        # every xdist worker would apply its own copy of the stack, under the same names
        raise pytest.UsageError("--sqs-stack applies the stack once and runs the scenarios of different queue pairs "
                                "concurrently itself: run it without pytest-xdist's -n")
    if config.getoption("--sqs-stack"):
        # SIGTERM (a CI job cancelled) unwinds like Ctrl-C, so the session's end destroys the stack
        def on_term(signum, frame):
            raise KeyboardInterrupt(f"signal {signum}")

        try:
            config._sqs_behave_old_term = signal.signal(signal.SIGTERM, on_term)
        except ValueError:  # not the main thread
            pass


def _get(config, need: str):
    run = getattr(config, _RUN).get(need)
    if run.error:
        raise pytest.UsageError(run.error)
    return run


class StackCollector(pytest.Collector):
    def collect(self):
        return []


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario: str, subject: str, run, **kwargs):
        super().__init__(**kwargs)
        self.scenario, self.subject, self.run = scenario, subject, run

    def runtest(self):
        out = self.run.result(self.scenario, self.subject)
        self.seconds = out.seconds  # its own time (the first item runs every scenario): see pytest_runtest_makereport
        self.user_properties.append(("seconds", f"{out.seconds:.1f}"))
        self.user_properties.append(("message", out.message))
        if out.status == "skipped":
            pytest.skip(out.message)
        if out.status == "failed":
            raise ScenarioError(out.message)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ScenarioError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"{self.scenario}[{self.subject}]"


class ScenarioError(AssertionError):
    pass


class DestroyItem(pytest.Item):
    """The stack's destroy, the last item: it fails when resources are left behind (by name, with
    the command that removes them), so every report (exit status, JUnit, sqs-behave's formats) says so."""

    def __init__(self, *, run, **kwargs):
        super().__init__(**kwargs)
        self.run = run

    def runtest(self):
        t0 = time.monotonic()
        self.run.teardown()
        self.user_properties.append(("seconds", f"{time.monotonic() - t0:.1f}"))
        stack = self.run.stack
        if self.run.leftovers:
            msg = "left behind: " + "; ".join(self.run.leftovers) + (f". {self.run.remedy}" if self.run.remedy else "")
            self.user_properties.append(("message", msg))
            raise ScenarioError(msg)
        if stack is not None and stack.kept:
            pytest.skip(stack.kept)
        msg = ("not destroyed: the embedded endpoint is thrown away with the stack" if stack is not None and stack.discard
               else "destroyed: nothing left behind")
        self.user_properties.append(("message", msg))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ScenarioError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, self.name


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    """The scenario items, added before pytest's -k / -m deselection so they are filtered like any test."""
    if not config.getoption("--sqs-stack"):
        return
    run = _get(config, "--sqs-stack")
    items.extend(ScenarioItem.from_parent(_stack_node(session, config), name=f"{scenario}[{subject}]",
                                          scenario=scenario, subject=subject, run=run)
                 for scenario, subject in run.units())


class _DestroyLast:
    """Adds the destroy item after every other plugin's changes: never deselected, always last (after
    the team's own tests too, which use the applied stack)."""

    @staticmethod
    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(session, config, items):
        if not config.getoption("--sqs-stack") or getattr(config, _RUN).run is None:
            return
        name = Path(config.getoption("--sqs-stack")).resolve().name
        items.append(DestroyItem.from_parent(_stack_node(session, config), name=f"{DESTROY}[{name}]",
                                            run=getattr(config, _RUN).run))


def _stack_node(session, config):
    node = getattr(config, "_sqs_stack_node", None)
    if node is None:
        stack = Path(config.getoption("--sqs-stack")).resolve()
        # no "[" in the name: JUnit splits names on it
        node = config._sqs_stack_node = StackCollector.from_parent(session, name=f"sqs-stack:{stack.name}", path=stack)
    return node


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if isinstance(item, ScenarioItem) and call.when == "call" and getattr(item, "seconds", None) is not None:
        outcome.get_result().duration = item.seconds  # JUnit's time for this scenario, not for the whole batch


def pytest_collection_finish(session):
    run = getattr(session.config, _RUN).run
    if run is not None and run.error is None:
        run.selected = [(i.scenario, i.subject) for i in session.items if isinstance(i, ScenarioItem)]


def pytest_sessionfinish(session, exitstatus):
    holder = getattr(session.config, _RUN, None)
    if holder is not None and holder.run is not None:
        holder.run.teardown()


def pytest_unconfigure(config):
    old = getattr(config, "_sqs_behave_old_term", None)
    if old is not None:
        signal.signal(signal.SIGTERM, old)


# -- fixtures ------------------------------------------------------------------------------------
class StackView:
    """What a team's test sees of the applied stack (fixture ``sqs_stack``)."""

    def __init__(self, run):
        self._run = run
        self.discovery = run.discovery
        self.pairs = run.discovery.pairs
        self.tables = run.discovery.tables
        self.outputs = run.stack.outputs
        self.state = run.stack.state
        self.endpoint = run.endpoint.url
        self.work_dir = run.stack.work

    def pair(self, name: str):
        return self.discovery.pair(name)

    def client(self, service: str, **kwargs):
        from .aws import Clients

        if not hasattr(self, "_clients"):
            self._clients = Clients(self.endpoint)
        return self._clients.client(service, **kwargs)


@pytest.fixture(scope="session")
def sqs_stack(request):
    """The applied stack of ``--sqs-stack`` (applied once per session, destroyed at its end)."""
    return StackView(_get(request.config, "the sqs_stack fixture"))


@pytest.fixture(scope="session")
def sqs_endpoint(request):
    """The endpoint URL the stack is applied on (None on real AWS)."""
    return _get(request.config, "the sqs_endpoint fixture").endpoint.url
