"""pytest plugin: the plan checker's rules as test items.

    pytest --sqs-plan plan.json [--sqs-source-dir DIR] [--sqs-config FILE] [--sqs-strict]

collects one item per rule and resource of the plan, named ``<RULE>[<address>]`` under the
plan file (``plan.json::SQS004[aws_sqs_queue.orders]``), from the same engine, configuration
file and waivers as ``sqs-policy check``. Outcomes:

- the rule passes: passed;
- it fails with severity ``error`` (or ``warning`` with ``--sqs-fail-on warning``): failed,
  with the finding's message and fix as the whole failure text (no traceback);
- the plan cannot decide it before apply (*unknown*): skipped with the reason;
  ``--sqs-strict`` makes it a failure, as ``sqs-policy check --strict`` does;
- a waived finding, and a ``warning`` under the default ``--sqs-fail-on error``: xfailed with
  the reason (they do not fail ``sqs-policy check`` either, and stay visible).

Each item carries user properties (rule, slug, severity, status, address, plan, waiver) that
pytest's ``--junitxml`` writes as ``<properties>``. A bad plan, configuration file or option
is a pytest usage error (exit code 4) with the checker's message.

Registered through the ``pytest11`` entry point ``sqs_policy_plan`` (``-p no:sqs_policy_plan`` turns
it off). It lives with the checker and needs only the plain install and pytest. Without
``--sqs-plan`` it does nothing: loading it imports pytest and this package's ``__init__`` (the
version), and the checker's modules only when a plan is given. It never imports the
repository's ``tooling/`` or ``tests/``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

MARKER = "sqs_plan"
_DEFAULT_SOURCE = "."
# what an item does, worst first: the verdict of a rule on a resource is its worst finding's
_RANK = {"failed": 0, "warning": 1, "waived": 2, "unknown": 3, "passed": 4}
_STATUS_RANK = {"fail": 0, "unknown": 1, "pass": 2}


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("sqs-plan", "resilient-sqs plan rules (sqs-policy) as test items")
    g.addoption("--sqs-plan", action="append", default=[], metavar="PLAN.json", dest="sqs_plan",
                help="check this Terraform plan (`terraform show -json tfplan > plan.json`) with the sqs-policy "
                "rules: one item per rule and resource. Repeat it for several plans.")
    g.addoption("--sqs-source-dir", action="append", default=[], metavar="DIR", dest="sqs_source_dir",
                help="the root configuration the plan was made from (default: .), read for values the plan leaves "
                "unknown, as `sqs-policy check --source-dir`. Give it once (every plan) or once per --sqs-plan, "
                "in the same order.")
    g.addoption("--sqs-no-source", action="store_true", default=False, dest="sqs_no_source",
                help="do not read the configuration source (what the plan leaves unknown stays unknown)")
    g.addoption("--sqs-config", metavar="FILE", default=None, dest="sqs_config",
                help="sqs-policy configuration file (YAML or TOML): rule selection, thresholds, severities, waivers")
    g.addoption("--sqs-strict", action="store_true", default=False, dest="sqs_strict",
                help="a rule the plan cannot decide before apply fails instead of being skipped")
    g.addoption("--sqs-fail-on", choices=("error", "warning"), default=None, dest="sqs_fail_on",
                help="lowest severity whose findings fail their item (default: error; a warning is then xfailed)")


@dataclass
class _PlanRun:
    """One --sqs-plan: what it was checked with and the checker's report."""

    arg: str
    path: Path
    source_dir: str | None
    config: str | None
    fail_on: str
    doc: dict  # the plan's "configuration" only
    report: Any
    groups: list = field(default_factory=list)  # [(rule_id, address, [Finding, ...])]
    _locator: Any = None

    def locate(self, finding) -> tuple[str, int]:
        """The .tf file and line a finding is about (its source expression, else the block
        declaring the resource), else the plan file, line 1: what `sqs-policy check --format
        sarif` points at."""
        from .formats import SourceLocator

        if self._locator is None:
            self._locator = SourceLocator.of(self.report, self.doc, self.source_dir or _DEFAULT_SOURCE, self.arg)
        try:
            return self._locator.finding(finding)
        except Exception:  # noqa: BLE001 - a location is a convenience; never fail an item over it
            return self.arg, 1


_RUNS = pytest.StashKey[list]()


def _usage(message: str) -> pytest.UsageError:
    return pytest.UsageError(" ".join(message.split()))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}: a plan rule item of --sqs-plan (the resilient-sqs plan checker)")
    opt = config.option
    plans = list(getattr(opt, "sqs_plan", None) or [])
    if not plans:
        given = [name for name in ("--sqs-source-dir", "--sqs-no-source", "--sqs-config", "--sqs-strict", "--sqs-fail-on")
                 if getattr(opt, name[2:].replace("-", "_"), None)]
        if given:
            raise _usage(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} only to a plan: add --sqs-plan PLAN.json "
                         "(the output of `terraform show -json tfplan`)")
        return
    config.stash[_RUNS] = _check_all(config, plans)


def _check_all(config: pytest.Config, plans: list[str]) -> list[_PlanRun]:
    opt = config.option
    sources = list(opt.sqs_source_dir or [])
    if sources and opt.sqs_no_source:
        raise _usage("--sqs-source-dir and --sqs-no-source contradict each other: give one of them")
    if len(sources) > 1 and len(sources) != len(plans):
        raise _usage(f"--sqs-source-dir is given {len(sources)} times for {len(plans)} --sqs-plan: give it once "
                     "(for every plan) or once per --sqs-plan, in the same order")
    fail_on = opt.sqs_fail_on or "error"
    runs: list[_PlanRun] = []
    seen: dict[Path, str] = {}
    for i, plan in enumerate(plans):
        if plan == "-":
            raise _usage("--sqs-plan -: pytest cannot read the plan from standard input; write it to a file "
                         "(terraform show -json tfplan > plan.json) and pass its path")
        path = Path(os.path.abspath(plan))
        if path in seen:
            also = f" (also as {seen[path]})" if seen[path] != plan else ""
            raise _usage(f"--sqs-plan {plan} is given twice{also}: give each plan once")
        seen[path] = plan
        source = None if opt.sqs_no_source else (sources[i] if len(sources) > 1 else
                                                  (sources[0] if sources else _DEFAULT_SOURCE))
        doc, report = _check(plan, opt.sqs_config, source, opt.sqs_strict)
        # kept for locating items: only the configuration (module sources), not the whole plan
        run = _PlanRun(plan, path, source, opt.sqs_config, fail_on, {"configuration": doc.get("configuration")}, report)
        del doc
        run.groups = _group(report)
        runs.append(run)
    return runs


def _check(plan: str, config_path: str | None, source_dir: str | None, strict: bool):
    """What `sqs-policy check` does: its config loader (waivers, thresholds), plan loader
    and engine; an input error is a usage error with the checker's own message."""
    from . import loader
    from .config import load_config
    from .engine import evaluate
    from .errors import InputError

    try:
        cfg = load_config(config_path)  # per plan: a waiver's "used" mark is per report
        doc = loader.load(plan, loader.DEFAULT_MAX_MIB)
        from .partial import partial_plan

        partial = partial_plan(doc)
        if partial and strict:
            raise InputError(f"{plan}: {partial.replace('--strict', '--sqs-strict')}")
        from .files import repository_roots

        # as `sqs-policy check`: module sources inside the repository the source lies in are read
        roots = repository_roots(source_dir) if source_dir is not None else ()
        report = evaluate(doc, cfg, strict=strict, keep_passes=True, source_dir=source_dir, source_roots=roots)
        if partial:
            report.notes.insert(0, partial.replace("--strict", "--sqs-strict"))
    except InputError as e:  # names the file and says what to do
        raise _usage(f"sqs-policy: {e}") from None
    except RecursionError:
        raise _usage(f"sqs-policy: {plan}: the plan nests too deeply to read; is it really "
                     "`terraform show -json` output?") from None
    except Exception as e:  # a bug in the engine: one message, the traceback on request
        if os.environ.get("SQS_POLICY_DEBUG"):
            raise
        raise _usage(f"sqs-policy: {plan}: internal error: {type(e).__name__}: {str(e)[:300]} "
                     "(rerun with SQS_POLICY_DEBUG=1 for the traceback, and please report it)") from None
    return doc, report


def _group(report) -> list:
    """One group per rule and resource, in catalog order then by address (the same on every
    xdist worker); a rule may give several findings on one resource (ESM001: one per consumer)."""
    order = {rid: i for i, rid in enumerate(report.rules_run)}
    groups: dict[tuple[str, str], list] = {}
    for f in list(report.findings) + list(report.passed):
        groups.setdefault((f.rule_id, f.address), []).append(f)
    keys = sorted(groups, key=lambda k: (order.get(k[0], len(order)), k[0], k[1]))
    return [(rid, addr, groups[(rid, addr)]) for rid, addr in keys]


@pytest.hookimpl(tryfirst=True)  # the plan's items are in the list before -k, -m and --deselect filter it
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    runs = config.stash.get(_RUNS, None)
    if not runs:
        return
    root = config.rootpath
    for run in runs:
        kw = {}
        try:
            run.path.relative_to(root)
        except ValueError:  # outside the rootdir: pytest would name it "::plan.json"
            try:
                kw["nodeid"] = Path(os.path.relpath(run.path, root)).as_posix()
            except ValueError:  # another drive
                kw["nodeid"] = run.path.as_posix()
        node = PlanFile.from_parent(session, path=run.path, run=run, **kw)
        items.extend(session.genitems(node))


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    runs = config.stash.get(_RUNS, None)
    if not runs:
        return None
    lines = []
    for run in runs:
        extra = [f"source {run.source_dir}" if run.source_dir is not None else "source not read"]
        if run.config:
            extra.append(f"config {run.config}")
        if run.report.strict:
            extra.append("strict")
        if run.fail_on != "error":
            extra.append(f"fail on {run.fail_on}")
        lines.append(f"sqs-plan: {run.arg} ({', '.join(extra)}): {len(run.groups)} rule x resource items")
    return lines


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    runs = config.stash.get(_RUNS, None)
    if not runs:
        return
    from .formats.text import summary_line

    terminalreporter.write_sep("-", "sqs-policy")
    for run in runs:
        terminalreporter.write_line(_safe(f"{run.arg}: {summary_line(run.report)}"))
        for note in run.report.notes:  # the checker's notes name its own option (and may quote the input)
            terminalreporter.write_line("  " + _safe(f"note: {note.replace('pass --source-dir', 'pass --sqs-source-dir')}"))


class PlanFile(pytest.File):
    """The items of one --sqs-plan."""

    def __init__(self, *, run: _PlanRun, **kwargs):
        super().__init__(**kwargs)
        self.run = run

    def collect(self):
        for rid, address, findings in self.run.groups:
            yield PlanRuleItem.from_parent(self, name=_safe(f"{rid}[{address}]"), rule_id=rid, address=address,
                                           findings=findings)


def _safe(text: str) -> str:
    """Text that quotes the plan, as one line of pytest's output (a CI log): escaped, and with no
    CI runner command in it (resilient_sqs.policy.terminal.line)."""
    from .terminal import line

    return line(text)


class PlanRuleFailure(Exception):
    """Raised by a failing plan rule item; its report is the finding, not a traceback."""


def _verdict(f, fail_on: str) -> str:
    if f.waiver is not None:
        return "waived"
    if f.status == "pass":
        return "passed"
    if f.status == "unknown":
        return "unknown"
    return "failed" if f.severity == "error" or fail_on == "warning" else "warning"


class PlanRuleItem(pytest.Item):
    """One rule on one resource of a plan."""

    def __init__(self, *, rule_id: str, address: str, findings: list, **kwargs):
        super().__init__(**kwargs)
        self.rule_id = rule_id
        self.address = address
        run: _PlanRun = self.parent.run
        self.findings = sorted(findings, key=lambda f: _RANK[_verdict(f, run.fail_on)])
        self.outcome = _verdict(self.findings[0], run.fail_on)
        self.add_marker(MARKER)
        worst = min(self.findings, key=lambda f: _STATUS_RANK.get(f.status, 0))
        self.user_properties += [("rule", rule_id), ("slug", worst.slug), ("severity", worst.severity),
                                 ("status", worst.status), ("address", address), ("plan", run.arg)]
        waived = next((f for f in self.findings if f.waiver is not None), None)
        if waived is not None:
            self.user_properties.append(("waiver", waived.waiver["reason"]))

    def runtest(self) -> None:
        if self.outcome == "failed":
            raise PlanRuleFailure(self._headline())
        if self.outcome == "unknown":
            try:
                exc = pytest.skip.Exception(self._reason(), _use_item_location=True)
            except TypeError:  # pytest < 7
                exc = pytest.skip.Exception(self._reason())
            raise exc
        if self.outcome in ("warning", "waived"):
            pytest.xfail(self._reason())

    def _line(self, f) -> str:
        v = _verdict(f, self.parent.run.fail_on)
        if v == "waived":
            until = f" until {f.waiver['expires']}" if f.waiver.get("expires") else ""
            return f"{f.status}, waived{until} ({f.waiver['reason']}): {f.message}"
        label = {"failed": f.severity, "warning": "warning", "unknown": "unknown before apply", "passed": "pass"}[v]
        return f"{label}: {f.message}"

    def _headline(self) -> str:
        return _safe(self._line(self.findings[0]))

    def _reason(self) -> str:
        f = self.findings[0]
        v = _verdict(f, self.parent.run.fail_on)
        text = f"{self.rule_id} {f.slug} {self.address}: {self._line(f)}"
        if v == "unknown":
            text += " (--sqs-strict makes it fail)"
        elif v == "warning":
            text += f"; fix: {f.remediation}"
        more = len([g for g in self.findings[1:] if _verdict(g, self.parent.run.fail_on) != "passed"])
        if more:
            text += f" (and {more} more finding(s) of this rule on this resource)"
        return _safe(text)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, (PlanRuleFailure, pytest.xfail.Exception)):  # xfail: under --runxfail
            return _FindingRepr(self)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        path, line = self.parent.run.locate(self.findings[0])
        return path, max(line - 1, 0), self.name


class _Crash:
    """What pytest's one-line summaries (-ra, --tb=line, junitxml's message) read."""

    def __init__(self, path: str, lineno: int, message: str):
        self.path, self.lineno, self.message = _safe(path), lineno, message

    def __str__(self) -> str:
        return f"{self.path}:{self.lineno}: {self.message}"


class _FindingRepr:
    """The failure text of a plan rule item: the rule, the resource, each finding's message
    and its fix; no traceback."""

    def __init__(self, item: PlanRuleItem):
        run = item.parent.run
        f0 = item.findings[0]
        self.lines = [f"{item.rule_id} {f0.slug} ({f0.severity}) on {item.address}"]
        for f in item.findings:
            self.lines.append(f"  {item._line(f)}")
            if _verdict(f, run.fail_on) != "passed":
                self.lines.append(f"    fix: {f.remediation}")
        path, line = run.locate(f0)
        where = "" if os.path.abspath(path) == str(run.path) else f"at {path}:{line}; "
        self.lines.append(f"  {where}`sqs-policy explain {item.rule_id}` says why")
        self.lines = [_safe(x) for x in self.lines]
        self.reprcrash = _Crash(path, line, item._headline())

    def toterminal(self, tw) -> None:
        tw.line(self.lines[0], bold=True)
        for line in self.lines[1:]:
            tw.line(line)

    def __str__(self) -> str:
        return "\n".join(self.lines)
