"""``sqs-behave STACK_DIR``: apply a stack on LocalStack, prove its queues keep their promises,
destroy it. A thin layer over pytest with this package's plugin (one code path for both).

Exit 0: every scenario run passed (skips say why) and nothing was left behind; 1: a behaviour
failed; 2: usage, endpoint or apply error (Terraform's own error shown), or interrupted (what
finished is reported); 3: resources were left behind (named, with the command that removes them).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_ERROR, EXIT_LEFTOVERS = 0, 1, 2, 3


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="sqs-behave", usage="%(prog)s STACK_DIR [--embedded [localstack|ministack] | --endpoint URL] [options]",
        description="Apply a Terraform stack on LocalStack, check what its SQS queues do (poison message to the "
                    "DLQ, redrive without loss, DLQ alarm firing, FIFO order, claim check, idempotency table), "
                    "then destroy it.",
        epilog="Exit status: 0 all run scenarios passed and nothing was left behind, 1 a behaviour failed, "
               "2 usage/endpoint/apply error or interrupted, 3 resources left behind.")
    # optional for argparse, required by _parse: its message can say when --embedded took the word
    ap.add_argument("stack_dir", metavar="STACK_DIR", nargs="?", help="the Terraform root module (copied; never written)")
    ap.add_argument("--var", action="append", default=[], metavar="NAME=VALUE", help="as terraform -var; repeatable")
    ap.add_argument("--var-file", action="append", default=[], metavar="FILE", help="as terraform -var-file; repeatable")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--endpoint", metavar="URL", help="a running LocalStack (default: LOCALSTACK_ENDPOINT, or an "
                                                         "AWS_ENDPOINT_URL answering LocalStack's health check)")
    where.add_argument("--embedded", nargs="?", const="", default=None, metavar="localstack|ministack",
                       help="start an embedded emulator (no Docker) for this run: LocalStack 4.9.2 (default) or "
                            "ministack (--embedded ministack, --embedded=ministack or --embedded --emulator ministack; "
                            "before or after STACK_DIR)")
    ap.add_argument("--emulator", metavar="localstack|ministack", default=None,
                    help="which embedded emulator to start (implies --embedded; default localstack)")
    ap.add_argument("--keep", action="store_true", help="leave the stack applied (prints how to destroy it)")
    ap.add_argument("--idempotency-table", action="append", default=[], metavar="NAME",
                    help="check this DynamoDB table as an idempotency table although its name does not match "
                         "(?i)idempot; repeatable")
    ap.add_argument("--destroy-timeout", type=float, metavar="SECONDS", default=None,
                    help="stop `terraform destroy` after this long and report what is left (default: 600)")
    ap.add_argument("--junitxml", metavar="FILE", help="write a JUnit XML report")
    ap.add_argument("--format", choices=("table", "json"), default="table", help="result output (default: table)")
    ap.add_argument("-k", dest="keyword", metavar="EXPR", help="only scenarios matching (pytest -k), e.g. poison")
    return ap


class _Collector:
    """A pytest plugin object recording each scenario's report."""

    def __init__(self):
        self.reports: dict[str, dict] = {}

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            props = dict(report.user_properties)
            if report.outcome == "skipped":
                msg = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
                msg = msg.removeprefix("Skipped: ")
            elif report.outcome == "failed":
                msg = str(report.longrepr)
            else:
                msg = props.get("message", "")
            self.reports[report.nodeid] = {"outcome": report.outcome, "message": msg,
                                           "seconds": float(props.get("seconds", report.duration))}


_EMBEDDED = "--embedded"


def _is_embedded_flag(token: str) -> bool:
    """``--embedded`` or an unambiguous abbreviation of it (argparse accepts ``--emb``)."""
    return len(token) >= len("--emb") and _EMBEDDED.startswith(token)


def _split_embedded(argv: list[str]) -> tuple[list[str], str | None]:
    """``--embedded`` takes a value only when the next word names an embedded emulator: ``--embedded
    ministack infra/``, ``--embedded infra/`` and ``infra/ --embedded`` all work (argparse alone would
    take ``infra/`` as the emulator). A bare ``--embedded`` becomes ``--embedded=``. Returns the new
    argv and the word after a bare ``--embedded`` (for the error when it was a misspelt emulator)."""
    from .emulators import EMBEDDED_KINDS

    out, after, i = [], None, 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            out += argv[i:]
            break
        if _is_embedded_flag(tok):
            nxt = argv[i + 1] if i + 1 < len(argv) else None
            if nxt is not None and nxt.lower() in EMBEDDED_KINDS:
                out.append(f"{_EMBEDDED}={nxt}")
                i += 2
                continue
            out.append(f"{_EMBEDDED}=")
            if nxt is not None and not nxt.startswith("-"):
                after = nxt
        else:
            out.append(tok)
        i += 1
    return out, after


def _parse(argv: list[str] | None) -> argparse.Namespace:
    """Parse; ``args.embedded`` is None or the emulator's name (``--embedded`` / ``--emulator``)."""
    from .emulators import EMBEDDED_KINDS, unknown_emulator

    ap = _parser()
    raw = list(sys.argv[1:] if argv is None else argv)
    rewritten, after = _split_embedded(raw)
    args, extra = ap.parse_known_args(rewritten)
    if extra:
        if after is not None and after in extra[:1] + [args.stack_dir] and not Path(after).is_dir():
            ap.error(f"{unknown_emulator(after, _EMBEDDED + ' ')}; nor is it a directory (one STACK_DIR)")
        ap.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.embedded is not None and args.embedded != "" and args.embedded.lower() not in EMBEDDED_KINDS:
        ap.error(unknown_emulator(args.embedded, f"{_EMBEDDED}="))
    if args.emulator is not None:
        if args.emulator.lower() not in EMBEDDED_KINDS:
            ap.error(unknown_emulator(args.emulator, "--emulator "))
        if args.endpoint:
            ap.error("--emulator chooses the embedded emulator: it cannot go with --endpoint (the endpoint is "
                     "probed for what it is)")
        if args.embedded and args.embedded.lower() != args.emulator.lower():
            ap.error(f"--embedded {args.embedded} and --emulator {args.emulator} name different emulators: give one")
        args.embedded = args.emulator
    if args.embedded is not None:
        args.embedded = args.embedded.lower() or "localstack"
    if args.stack_dir is None:
        taken = [raw[i + 1] for i, t in enumerate(raw[:-1]) if _is_embedded_flag(t) and Path(raw[i + 1]).is_dir()]
        ap.error("the following arguments are required: STACK_DIR"
                 + (f" ({_EMBEDDED} {taken[0]} named the emulator; for the directory {taken[0]} write "
                    f"./{taken[0]})" if taken else ""))
    if (after is not None and args.stack_dir == after and not Path(after).is_dir()
            and unknown_emulator(after, "").endswith("?)")):
        ap.error(f"{after}: no such directory (STACK_DIR), and not an embedded emulator either: "
                 + unknown_emulator(after, "").split("; ", 1)[1])
    return args


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    missing = [m for m in ("pytest", "boto3", "python_terraform", "localstack_client") if not _importable(m)]
    if missing:
        print(f"sqs-behave: {', '.join(missing)} not installed; install the testing extra: "
              "pip install 'resilient-sqs[testing]'", file=sys.stderr)
        return EXIT_ERROR
    if not Path(args.stack_dir).is_dir():
        print(f"sqs-behave: error: {args.stack_dir}: no such directory (give the Terraform root module)", file=sys.stderr)
        return EXIT_ERROR
    import pytest

    from . import pytest_plugin as plugin
    from .runner import EMBEDDED, USAGE

    choice = (EMBEDDED if args.embedded == "localstack" else f"{EMBEDDED}:{args.embedded}") if args.embedded \
        else args.endpoint
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="sqs-behave-pytest-") as tmp:
        ini = Path(tmp) / "pytest.ini"
        ini.write_text("[pytest]\n")  # the team's pytest.ini / conftest.py are not this run's
        pargs = ["-c", str(ini), "--rootdir", tmp, "-p", "no:cacheprovider", "-p", "no:terminal", "-s",
                 "--sqs-stack", str(Path(args.stack_dir).resolve()), tmp]
        if choice:
            pargs += ["--sqs-localstack", choice]
        pargs += [f"--sqs-var={v}" for v in args.var] + [f"--sqs-var-file={f}" for f in args.var_file]
        if args.keep:
            pargs.append("--sqs-keep")
        pargs += [f"--sqs-idempotency-table={t}" for t in args.idempotency_table]
        if args.destroy_timeout is not None:
            pargs.append(f"--sqs-destroy-timeout={args.destroy_timeout}")
        if args.junitxml:
            pargs += ["--junitxml", str(Path(args.junitxml).resolve())]
        if args.keyword:
            pargs += ["-k", args.keyword]
        collector = _Collector()
        errors: list[str] = []

        class _Errors:
            @staticmethod
            def pytest_sessionfinish(session, exitstatus):
                holder = getattr(session.config, plugin._RUN, None)
                if holder is not None and holder.run is not None:
                    errors.append(holder.run.error or "")
                    _Errors.run = holder.run

        plugins = [collector, _Errors]
        if not _autoloaded():
            plugins.append(plugin)
        try:
            code = pytest.main(pargs, plugins=plugins)
        except KeyboardInterrupt:
            code = pytest.ExitCode.INTERRUPTED
    run = getattr(_Errors, "run", None)
    error = run.error if run is not None else None
    if code == pytest.ExitCode.USAGE_ERROR and not error:
        error = "usage error (see above)"
    if error:
        print(f"sqs-behave: error: {error}", file=sys.stderr)
        if "no endpoint" in error:
            print(f"sqs-behave: {USAGE}", file=sys.stderr)
        return EXIT_ERROR
    all_rows = _rows(collector.reports)
    rows = [r for r in all_rows if r["scenario"] != plugin.DESTROY]
    destroy = next((r for r in all_rows if r["scenario"] == plugin.DESTROY), None)
    leftovers = run.leftovers if run is not None else []
    remedy = run.remedy if run is not None else None
    interrupted = code == pytest.ExitCode.INTERRUPTED or bool(run is not None and run.interrupted)
    if interrupted and run is not None:
        # the scenarios run in one batch: what finished before the interrupt is in the run, not in pytest's reports
        reported = {(r["scenario"], r["subject"]) for r in rows}
        rows += [{"scenario": sc, "subject": sub, "outcome": o.status, "message": o.message,
                  "seconds": round(o.seconds, 1)} for (sc, sub), o in list(run.outcomes.items())
                 if (sc, sub) not in reported]
    expected = len(run.selected or run.units()) if run is not None else 0
    timings = dict(run.timings) if run is not None else {}
    timings["total"] = time.monotonic() - started
    status = ("interrupted" if interrupted else "failed" if any(r["outcome"] == "failed" for r in rows)
              else "left-behind" if leftovers else "passed")
    if args.format == "json":
        print(json.dumps({"stack": str(Path(args.stack_dir).resolve()), "status": status, "results": rows,
                          "destroy": destroy, "leftovers": leftovers, "remedy": remedy,
                          "interrupted": interrupted, "scenarios_expected": expected,
                          "notes": list(run.discovery.notes) if run is not None and run.discovery else [],
                          "timings": {k: round(v, 1) for k, v in timings.items()},
                          "summary": _counts(rows)}, indent=2))
    else:
        _table(rows, interrupted=interrupted)
        c = _counts(rows)
        if interrupted:
            print(f"\nINTERRUPTED: {len(rows)} of {expected} scenario(s) finished before the run was stopped")
        if leftovers:
            print("\nLEFT BEHIND:\n" + "\n".join(f"  {line}" for line in leftovers) + (f"\n  {remedy}" if remedy else ""))
        print(f"\n{c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped in {timings['total']:.0f} s"
              + (f"; {len(leftovers)} resource(s) left behind" if leftovers else "")
              + ("; interrupted" if interrupted else ""))
    if interrupted:
        return EXIT_ERROR
    if any(r["outcome"] == "failed" for r in rows):
        return EXIT_FAILED
    if leftovers:
        return EXIT_LEFTOVERS
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED, pytest.ExitCode.TESTS_FAILED):
        return EXIT_ERROR
    return EXIT_OK


def _importable(module: str) -> bool:
    from importlib.util import find_spec

    return find_spec(module) is not None


def _autoloaded() -> bool:
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return False
    from importlib.metadata import entry_points

    return any(ep.value == "resilient_sqs.testing.pytest_plugin" for ep in entry_points(group="pytest11"))


def _rows(reports: dict[str, dict]) -> list[dict]:
    rows = []
    for nodeid, r in reports.items():
        item = nodeid.split("::")[-1]
        scenario, _, subject = item.partition("[")
        rows.append({"scenario": scenario, "subject": subject.removesuffix("]"), **r})
    return rows


def _counts(rows: list[dict]) -> dict:
    return {k: sum(1 for r in rows if r["outcome"] == k) for k in ("passed", "failed", "skipped")}


def _table(rows: list[dict], interrupted: bool = False) -> None:
    if not rows:
        print("no scenario finished" if interrupted else
              "no scenarios: the stack has no SQS queue that is not a DLQ, and no idempotency table")
        return
    subjects = sorted({r["subject"] for r in rows})
    from .scenarios import names

    scen = [s for s in names() if any(r["scenario"] == s for r in rows)]
    cell = {(r["subject"], r["scenario"]): r for r in rows}
    word = {"passed": "passed", "failed": "FAILED", "skipped": "skipped"}
    w0 = max(len("queue / table"), *(len(s) for s in subjects))
    widths = [max(len(s), 7) for s in scen]
    # columns padded to their width, the last one too; no line ends in spaces
    print("  ".join(["queue / table".ljust(w0)] + [s.ljust(w) for s, w in zip(scen, widths)]).rstrip())
    for sub in subjects:
        cells = [word[cell[(sub, s)]["outcome"]] if (sub, s) in cell else "-" for s in scen]
        print("  ".join([sub.ljust(w0)] + [c.ljust(w) for c, w in zip(cells, widths)]).rstrip())
    failed = [r for r in rows if r["outcome"] == "failed"]
    skipped = [r for r in rows if r["outcome"] == "skipped"]
    if failed:
        print("\nFAILED:")
        for r in failed:
            print(f"  {r['scenario']}[{r['subject']}]: {r['message']}")
    if skipped:
        print("\nskipped:")
        for r in skipped:
            print(f"  {r['scenario']}[{r['subject']}]: {r['message']}")


if __name__ == "__main__":
    sys.exit(main())
