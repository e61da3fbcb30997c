"""sqs-policy: check a Terraform plan against the resilient-messaging rule catalog.

Exit codes: 0 clean, 1 violations, 2 input or usage error (one line on stderr).
The package's own modules are imported lazily: `check` of a large plan must start fast.
"""
from __future__ import annotations

import argparse
import errno
import gc
import io
import json
import os
import re
import select
import sys
import time


class _Formatter(argparse.HelpFormatter):
    """argparse's help, with lines broken at spaces only: a format or option name such as
    hcp-run-task stays whole."""

    def _split_lines(self, text, width):
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False, break_long_words=False)

    def _fill_text(self, text, width, indent):
        import textwrap

        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False, break_long_words=False)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *a, **kw):
        kw.setdefault("formatter_class", _Formatter)
        super().__init__(*a, **kw)

    def error(self, message):  # one line, exit 2 (the message may quote an argument)
        from .terminal import line

        self.exit(2, line(f"{self.prog}: error: {message} (see --help)") + "\n")


EXIT_CODES = ("exit codes: 0 no violations (new ones, with --baseline), 1 violations, "
              "2 input or usage error (one line on standard error)")
EXIT_CODES_MANY = (EXIT_CODES + "; with several plans the worst plan's: 2 if any plan was refused (its name and "
                   "path on standard error; the others are still checked), else 1 if any has violations, else 0")


def _parser() -> argparse.ArgumentParser:
    from .formats import FORMATS

    p = _Parser(prog="sqs-policy", description="Check a Terraform plan (terraform show -json) against the "
                "resilient-SQS rule catalog.", epilog=EXIT_CODES)
    from .. import __version__

    p.add_argument("--version", action="version", version=f"sqs-policy {__version__}")
    sub = p.add_subparsers(dest="cmd", metavar="{check,baseline,run-task,list-rules,explain,checkov-dir}")
    sub.required = True
    fmt_help = "; ".join(f"{f.name}: {f.help}" for f in FORMATS.values())
    c = sub.add_parser("check", help="check one or many plan JSON files",
                       description="Check PLAN (the output of `terraform show -json PLANFILE`, or - for standard "
                       "input). Several plans (or @FILE, a file listing plan paths one a line) are checked in one "
                       "run: one report per plan (--report FORMAT=DIR/{plan}.EXT, {plan} is the plan's name), the "
                       "combined summary on standard output (--format text, markdown or json) or in --report "
                       "FORMAT=PATH without {plan}, and one exit code, the worst plan's.", epilog=EXIT_CODES_MANY)
    b = sub.add_parser("baseline", help="record a plan's findings as the baseline `check --baseline` accepts",
                       description="Record the findings of PLAN (fail and unknown, not waived) in a baseline "
                       "file, so that `check --baseline FILE` fails only on new ones. --update instead removes "
                       "the findings that are gone from an existing baseline (it never adds new ones).",
                       epilog="exit codes: 0 written, 2 input or usage error (one line on standard error)")
    c.add_argument("plan", metavar="PLAN.json", nargs="+")
    b.add_argument("plan", metavar="PLAN.json")
    for sp in (c, b):
        sp.add_argument("--config", metavar="FILE", help="YAML or TOML file: rule selection, thresholds, waivers")
        sp.add_argument("--strict", action="store_true",
                        help="treat findings that cannot be decided before apply as failures")
        sp.add_argument("--source-dir", metavar="DIR", default=None,
                        help="the root configuration the plan was made from (default: .; with several plans, each "
                        "plan's own directory, and {plan} in DIR is the plan's name): values the plan leaves "
                        "unknown are read from its .tf files (and the modules `terraform init` installed) when they "
                        "match the plan, waivers are read from its comments (# sqs-policy:ignore), and reports "
                        "point at .tf lines")
        sp.add_argument("--source-root", metavar="DIR", action="append", default=[],
                        help="also read module sources from DIR (repeatable): by default --source-dir, the modules "
                        "`terraform init` installed under it (.terraform/modules) and the repository it lies in (its "
                        "git work tree, or --repo-root) are read, so a local module call such as source = "
                        "\"../../modules/x\" needs nothing more inside one repository")
        sp.add_argument("--repo-root", metavar="DIR",
                        help="the repository root: report locations (SARIF, GitHub annotations, GitLab, JUnit, "
                        "Markdown) are relative to it, and module sources inside it may be read (default: the git "
                        "work tree --source-dir lies in, found by its .git; else the current directory)")
        sp.add_argument("--no-source", action="store_true",
                        help="do not read the configuration source (what the plan leaves unknown stays unknown, "
                        "no waivers from comments)")
        sp.add_argument("--max-input-mib", metavar="N", type=_positive, default=None,
                        help="refuse a plan larger than N MiB (default: 512; a plan of 1,000 queue pairs is about "
                        "25 MiB)")
    c.add_argument("--format", choices=tuple(FORMATS), default="text", metavar="FORMAT",
                   help=f"report format, one of: {fmt_help}")
    c.add_argument("--report", action="append", default=[], metavar="FORMAT=PATH",
                   help="also write a report in FORMAT to PATH (repeatable; - is standard output; its directory is "
                   "made), from the same check: e.g. --report sarif=out.sarif --report junit=reports/junit.xml")
    c.add_argument("--fail-on", choices=("error", "warning"), default="error",
                   help="lowest severity that makes the exit code 1 (default: error)")
    c.add_argument("--show-pass", action="store_true", help="also list passing checks")
    c.add_argument("--category", metavar="NAME",
                   help="the SARIF run's category (automationDetails.id NAME/), which GitHub code scanning keeps "
                   "apart from other runs: one per stack when one repository checks several (default: the stack's "
                   "directory relative to the repository root, e.g. infra/prod)")
    c.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of standard output")
    c.add_argument("--baseline", metavar="FILE",
                   help="a file from `sqs-policy baseline`: the findings it records are reported as baselined and "
                   "do not count toward the exit code; only new ones do; the ones that are gone are reported fixed")
    c.add_argument("--changed-only", action="store_true",
                   help="judge only the resources this plan creates, updates, replaces or deletes, and those linked "
                   "to them (a queue whose DLQ changes); report the rest as not judged. Change-safety rules (CHG*) "
                   "always apply")
    b.add_argument("--output", "-o", metavar="FILE", required=True, help="the baseline file to write")
    b.add_argument("--update", action="store_true",
                   help="shrink the existing baseline FILE: drop the findings that are gone, keep the rest, add none")
    rt = sub.add_parser("run-task", help="serve the checker as an HCP Terraform / Terraform Enterprise run task",
                        description="HCP Terraform / Terraform Enterprise run tasks (docs/run-tasks.md).")
    rts = rt.add_subparsers(dest="run_task_cmd", metavar="{serve}")
    rts.required = True
    sv = rts.add_parser("serve", help="answer run task requests over HTTP",
                        description="Answer HCP Terraform run task requests: verify the HMAC signature, fetch the "
                        "plan JSON, check it, and send the result to the run's callback URL (docs/run-tasks.md).",
                        epilog="the HMAC key: --hmac-key-file FILE, $SQS_POLICY_RUN_TASK_HMAC_KEY_FILE or "
                        "$SQS_POLICY_RUN_TASK_HMAC_KEY; exit codes: 2 usage error or a port that cannot be bound")
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1; 0.0.0.0 in a "
                    "container)")
    sv.add_argument("--port", type=int, default=8080, help="port to listen on (default: 8080; 0: any free one)")
    sv.add_argument("--hmac-key-file", metavar="FILE", help="file holding the run task's HMAC key")
    sv.add_argument("--tfe-host", action="append", default=[], metavar="HOST[:PORT]",
                    help="host the payload's URLs may point at, the only one the run's token is sent to (repeatable; "
                    "default: app.terraform.io; your Terraform Enterprise host)")
    sv.add_argument("--allow-http", action="store_true", help="also use plain HTTP URLs of --tfe-host")
    sv.add_argument("--max-plan-mib", type=_positive, default=64, metavar="N",
                    help="refuse a plan JSON over N MiB (default: 64); the run gets a failed result saying so")
    sv.add_argument("--fetch-timeout", type=_positive, default=60, metavar="SECONDS",
                    help="give up fetching a plan after SECONDS (default: 60)")
    sv.add_argument("--callback-retries", type=int, choices=range(0, 11), default=5, metavar="N",
                    help="retry a failed callback N times, waiting 1, 2, 4 ... s (default: 5)")
    sv.add_argument("--workers", type=int, choices=range(1, 65), default=2, metavar="N",
                    help="runs checked at once (default: 2); up to 32 more wait, past that a request gets 503")
    sv.add_argument("--config", metavar="FILE", help="YAML or TOML file: rule selection, thresholds, waivers")
    sv.add_argument("--strict", action="store_true", help="findings that cannot be decided before apply fail")
    sv.add_argument("--fail-on", choices=("error", "warning"), default="error",
                    help="lowest severity that makes the result failed (default: error)")
    sv.add_argument("--results-url", metavar="URL", help="the result's url (where users read more, e.g. your "
                    "docs page about the rules)")
    lr = sub.add_parser("list-rules", help="list the rule catalog")
    lr.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    e = sub.add_parser("explain", help="explain one rule")
    e.add_argument("rule", metavar="RULE", help="rule ID or slug, e.g. SQS004 or dlq-retention-longer")
    sub.add_parser("checkov-dir", help="print the directory of the checkov custom checks",
                   description="Print the directory holding this package's checkov custom checks, for "
                   "`checkov --external-checks-dir \"$(sqs-policy checkov-dir)\"`.")
    return p


def _positive(v: str) -> float:
    # a plain decimal: float() would also take "1_0" (as 10), "1e3", " 5 ", "nan"
    n = float(v) if re.fullmatch(r"[0-9]+(\.[0-9]+)?|\.[0-9]+", v) else 0
    if not n > 0 or n == float("inf"):
        raise argparse.ArgumentTypeError(f"{v!r} is not a positive number of MiB")
    return n


def _write(text: str, output: str | None = None):
    """Write the report as UTF-8 (an unpaired surrogate from the plan is escaped, never
    fatal), all of it: short writes are resumed, a non-blocking pipe is waited on, and
    whatever the buffering (PYTHONUNBUFFERED=1 included). A report that cannot be
    written whole is an error (exit 2, one line), never a silent truncation."""
    from .errors import InputError

    if isinstance(output, _Capture):
        output.parts.append(text)
        return
    data = text.encode("utf-8", "backslashreplace")
    if output:
        try:
            fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o666)
        except OSError as e:
            raise InputError(f"--output {output}: cannot write ({e.strerror or e})") from None
        try:
            _write_fd(fd, data, f"--output {output}")
        finally:
            os.close(fd)
        return
    out = sys.stdout
    if out is None:
        raise InputError("standard output is closed, so the report cannot be written; pass --output FILE")
    try:
        out.flush()  # anything already written through the text layer goes first
        buf = getattr(out, "buffer", None)
        if buf is not None:
            buf.flush()
        fd = out.fileno()
    except (OSError, ValueError, AttributeError) as e:
        if not isinstance(e, io.UnsupportedOperation):  # a closed or failing stream
            why = getattr(e, "strerror", None) or str(e)
            raise InputError(f"cannot write the report to standard output ({why}); pass --output FILE") from None
        fd = None
    if fd is not None:
        _write_fd(fd, data, "standard output")
        return
    try:  # a stream without a file descriptor (an embedding program's): its own write, checked
        if buf is not None:
            n = buf.write(data)
            buf.flush()
        else:
            n = out.write(data.decode("utf-8"))
            out.flush()
            data = data.decode("utf-8")
        if n is not None and n != len(data):
            raise InputError(f"standard output took {n} of {len(data)} bytes of the report; pass --output FILE")
    except (OSError, ValueError) as e:
        why = getattr(e, "strerror", None) or str(e)
        raise InputError(f"cannot write the report to standard output ({why}); pass --output FILE") from None


def _reports(args) -> list[tuple[str, str | None]]:
    """(format, path or None for standard output) of every report the check writes."""
    from .errors import InputError
    from .formats import FORMATS

    out = [(args.format, args.output)]
    for spec in args.report:
        fmt, sep, path = spec.partition("=")
        fmt = fmt.strip().lower()
        if not sep or not path:
            raise InputError(f"--report {spec!r}: write it as FORMAT=PATH, e.g. --report sarif=out.sarif")
        if fmt not in FORMATS:
            raise InputError(f"--report {spec!r}: unknown format {fmt!r} (known: {', '.join(FORMATS)})")
        out.append((fmt, None if path == "-" else path))
    paths = [p for _, p in out if p is not None]
    dup = next((p for p in paths if paths.count(p) > 1), None)
    if dup is not None:
        raise InputError(f"two reports would be written to {dup}; give each its own path")
    for _, path in out[1:]:  # a --report's directory is made (CI writes reports/junit.xml and the like)
        parent = os.path.dirname(path) if path else ""
        if parent and not os.path.isdir(parent):
            try:
                os.makedirs(parent, exist_ok=True)
            except OSError as e:
                raise InputError(f"--report {path}: cannot make its directory {parent} ({e.strerror or e})") from None
    return out


def _write_fd(fd: int, data: bytes, what: str) -> None:
    """All of ``data`` to file descriptor ``fd`` (os.write in a loop; a full non-blocking
    pipe is polled until the reader takes more), else InputError naming how far it got."""
    from .errors import InputError

    view = memoryview(data)
    done = 0
    poller = None
    stalls = 0
    while done < len(data):
        try:
            n = os.write(fd, view[done:done + (1 << 20)])
        except BlockingIOError:
            n = None
        except InterruptedError:
            continue
        except OSError as e:
            if e.errno == errno.EPIPE:
                why = "the reader closed the pipe"
            else:
                why = e.strerror or str(e)
            raise InputError(f"{what}: the report was cut short after {done} of {len(data)} bytes ({why}); "
                             "the output is incomplete" + ("" if what.startswith("--output") else
                                                          ": pass --output FILE, or read the whole output")) from None
        if n == 0:  # never for a pipe or a file with room; do not spin on a device that takes nothing
            stalls += 1
            if stalls > 100:
                raise InputError(f"{what}: the report was cut short after {done} of {len(data)} bytes (the output "
                                 "takes no more); the output is incomplete")
        if n is None or n == 0:
            if poller is None:
                poller = select.poll()
                poller.register(fd, select.POLLOUT)
            poller.poll(1000)  # non-blocking and full: wait until the reader takes some
            continue
        done += n
        stalls = 0


def _repo_root(args) -> str | None:
    """--repo-root, else the git work tree of --source-dir (of the current directory with
    --no-source), else None (paths relative to the current directory)."""
    from .errors import InputError
    from .files import work_tree

    if args.repo_root:
        if not os.path.isdir(args.repo_root):
            raise InputError(f"--repo-root {args.repo_root}: not a directory; pass the repository's root directory")
        return args.repo_root
    found = work_tree("." if args.no_source else args.source_dir)
    return str(found) if found is not None else None


def _source_roots(args) -> tuple:
    """--source-root directories, after the repository root when --source-dir lies in it: a
    stack in infra/prod reads ../../modules/queue without a flag (never outside the repository:
    module directories are resolved, symlinks followed, before they are read)."""
    if args.no_source:
        return tuple(args.source_root)
    from .files import repository_roots

    return (*repository_roots(args.source_dir, _repo_root(args)), *args.source_root)


def _evaluate(args, keep_passes: bool, cfg=None, **settle):
    """Load the plan and evaluate it (``settle``: engine.evaluate's changed_only and baseline;
    ``cfg``: the config file already loaded, by a batch)."""
    from . import loader
    from .config import load_config
    from .engine import evaluate

    if cfg is None:
        cfg = load_config(args.config)
    idle = _checks_nothing(cfg, args.strict)
    timings: dict[str, float] = {}  # the loader's parse and validate seconds
    t0 = time.perf_counter()
    doc = loader.load(args.plan, args.max_input_mib or loader.DEFAULT_MAX_MIB, timings)
    from .partial import partial_plan

    partial = partial_plan(doc)
    if partial and args.strict:
        from .errors import InputError

        raise InputError(f"{args.plan}: {partial}")
    t1 = time.perf_counter()
    report = evaluate(doc, cfg, strict=args.strict, keep_passes=keep_passes,
                      source_dir=None if args.no_source else args.source_dir, source_roots=_source_roots(args),
                      **settle)
    if idle:
        report.notes.insert(0, idle)
    if partial:
        report.notes.insert(0, partial)
    return doc, report, (t0, t1, time.perf_counter(), timings)


def _check(args) -> int:
    from .batch import expand

    plans, many = expand(args.plan)
    args.many = many
    if many:
        return _check_many(args, plans)
    args.plan = plans[0]
    if args.source_dir is None:
        args.source_dir = "."
    return _check_one(args, _reports(args))


def _check_one(args, reports, cfg=None, report_out: list | None = None) -> int:
    """Check ``args.plan`` and write its ``reports``; the exit code (the report is appended to
    ``report_out``, for a batch's summary)."""
    from .formats import FORMATS, Context

    baseline = None
    if args.baseline:  # read before the plan: a bad baseline file is said at once
        from .baseline import read_baseline

        baseline = read_baseline(args.baseline)
    keep_passes = args.show_pass or any(FORMATS[f].needs_passes for f, _ in reports)
    doc, report, (t0, t1, t2, tm) = _evaluate(args, keep_passes, cfg, changed_only=args.changed_only,
                                              baseline=baseline)
    ctx = Context(report, doc, args.plan, args.source_dir, args.show_pass, _source_roots(args),
                  repo_root=_repo_root(args), category=args.category, fail_on=args.fail_on,
                  reports=tuple((f, None if isinstance(p, _Capture) else p) for f, p in reports))
    for fmt, path in reports:
        _write(FORMATS[fmt].render(ctx), path)
    t3 = time.perf_counter()
    if os.environ.get("SQS_POLICY_TIMINGS"):
        sys.stderr.write(f"timings: read+parse={t1 - t0 - tm.get('validate', 0):.4f} validate={tm.get('validate', 0):.4f} "
                         f"evaluate={t2 - t1:.4f} render={t3 - t2:.4f}\n")
    if report_out is not None:
        report_out.append(report)
    if args.format == "atlantis":  # Atlantis reads the verdict from the output (formats/atlantis.py)
        return 0
    return 1 if report.failed(args.fail_on) else 0


class _Capture:
    """Standard output of one plan's check in a batch (its text report), kept for the summary."""

    def __init__(self):
        self.parts: list[str] = []


def _check_many(args, plans: list[str]) -> int:
    """``check`` of several plans (policies/batch.py): each checked as ``check PLAN`` would,
    its reports written (``--report FORMAT=...{plan}...``), a refused one said on standard error
    with its name while the others go on; then the combined summary; the worst exit code."""
    from .batch import PLACEHOLDER, names, worst
    from .config import load_config
    from .errors import InputError
    from .formats.batch_summary import SUMMARY_FORMATS, render

    if args.format not in SUMMARY_FORMATS:
        raise InputError(f"--format {args.format} with several plans: the combined summary is text, markdown or "
                         f"json; write a {args.format} report per plan with --report "
                         f"{args.format}=reports/{PLACEHOLDER}.{args.format}")
    for opt, value in (("--baseline", args.baseline), ("--category", args.category)):
        if value and PLACEHOLDER not in value:
            raise InputError(f"{opt} {value} with several plans: each plan needs its own; put {PLACEHOLDER} in it "
                             f"(the plan's name), e.g. {opt} baselines/{PLACEHOLDER}.json")
    summaries = [(args.format, args.output)]
    per = []
    for spec in args.report:
        fmt, sep, path = spec.partition("=")
        fmt = fmt.strip().lower()
        if sep and path and PLACEHOLDER not in path:
            if fmt not in SUMMARY_FORMATS:
                raise InputError(f"--report {spec!r} with several plans: put {PLACEHOLDER} in the path for one "
                                 f"{fmt} report per plan (e.g. {fmt}=reports/{PLACEHOLDER}.{fmt}); the combined "
                                 f"summary is text, markdown or json")
            summaries.append((fmt, None if path == "-" else path))
        else:
            per.append(spec)
    paths = [p for _, p in summaries if p]
    dup = next((p for p in paths if paths.count(p) > 1), None)
    if dup is not None:
        raise InputError(f"two reports would be written to {dup}; give each its own path")
    cfg = load_config(args.config)  # once, for every plan
    global _BATCH
    _BATCH = (args, per, cfg)
    # one process: 400 plans of 20-100 resources take 5 s here against 223 s in one process a
    # plan; --jobs 2 over a process pool took 17 s on the same 2 CPUs (tooling/bench_batch.py)
    done = [_check_batch_plan(t) for t in zip(names(plans), plans)]
    results = [r for r, _ in done]
    texts = {r.name: t for r, t in done if t is not None}
    rc = worst(r.rc for r in results)
    for fmt, path in summaries:
        _write(render(fmt, results, rc, texts), path)
    return rc


_BATCH = None  # (args, per-plan --report specs, config) of the batch being checked, for the workers


def _check_batch_plan(task):
    """One plan of a batch: (PlanResult, its text report or None when refused)."""
    import copy

    from .batch import PlanResult, per_plan
    from .errors import InputError

    args, per, cfg = _BATCH
    name, path = task
    sub = copy.copy(args)
    sub.plan = path
    sub.report = [per_plan(x, name) for x in per]
    sub.format, sub.output = "text", None  # each plan's text report goes into the summary
    sub.baseline = per_plan(args.baseline, name) if args.baseline else None
    sub.category = per_plan(args.category, name) if args.category else name
    if args.source_dir is None:
        sub.source_dir = (os.path.dirname(path) or ".") if path != "-" else "."
    else:
        sub.source_dir = per_plan(args.source_dir, name)
    got: list = []
    res = PlanResult(name, path, 2)
    text = _Capture()
    try:
        reports = _reports(sub)
        res.reports = reports[1:]
        res.rc = _check_one(sub, [("text", text)] + reports[1:], cfg, got)
        res.counts, res.summary = got[0].counts(), got[0].summary()
    except InputError as e:
        res.error = " ".join(str(e).split())
    except RecursionError:
        res.error = f"{path}: the plan nests too deeply to read; is it really `terraform show -json` output?"
    except Exception as e:  # a bug in the engine: this plan is refused, the others are checked
        if os.environ.get("SQS_POLICY_DEBUG"):
            raise
        res.error = (f"internal error: {type(e).__name__}: {str(e)[:300]} (rerun with SQS_POLICY_DEBUG=1 for the "
                     "traceback, and please report it)")
    if res.error is not None:
        res.rc = 2
        _error_line(f"sqs-policy: error: plan {name} ({path}): {res.error}")
    del got
    gc.collect()  # the plan's object graph (gc is off: main) is freed before the next plan is read
    return res, ("".join(text.parts) if res.error is None else None)


def _baseline(args) -> int:
    from .baseline import read_baseline, write_baseline

    if args.source_dir is None:
        args.source_dir = "."
    old = read_baseline(args.output) if args.update else None
    doc, report, _ = _evaluate(args, False)
    msg = write_baseline(report, args.output, old)
    _error_line(f"sqs-policy: {msg}")  # a one-line summary on standard error; the file is the output
    return 0


def _checks_nothing(cfg, strict: bool) -> str | None:
    """A config that enables no rule checks nothing: said on stderr and in the report's notes
    (and refused under --strict), never only hinted at by "(0 rules, ...)"."""
    from .errors import InputError
    from .rules import RULES

    if any(cfg.rule_enabled(rid) for rid in RULES):
        return None
    msg = (f"config {cfg.path}: enables no rule (its select, ignore and enabled: false leave none), so nothing in "
           "the plan is checked")
    if strict:
        raise InputError(f"{msg}; --strict refuses a check that checks nothing")
    _error_line(f"sqs-policy: warning: {msg}")
    return msg


def _run_task(args) -> int:
    """``run-task serve`` (run_task.py): until interrupted; 2 when it cannot start."""
    from . import run_task
    from .config import load_config
    from .errors import InputError

    key = run_task.read_key(args.hmac_key_file)
    hosts = tuple(h.strip().lower() for h in args.tfe_host if h.strip()) or ("app.terraform.io",)
    settings = run_task.Settings(key=key, hosts=hosts, allow_http=args.allow_http,
                                 max_plan_bytes=int(args.max_plan_mib * run_task.MiB), fetch_timeout=args.fetch_timeout,
                                 callback_retries=args.callback_retries, workers=args.workers,
                                 config=load_config(args.config), strict=args.strict, fail_on=args.fail_on,
                                 results_url=args.results_url)
    gc.enable()  # a long-running service: each run's objects are freed as it goes
    try:
        run_task.serve(args.host, args.port, settings)
    except OSError as e:
        raise InputError(f"cannot listen on {args.host}:{args.port} ({e.strerror or e}); pick another --port or "
                         "--host") from None
    return 0


def _list_rules(args) -> int:
    from .rules import CONFIG_RULES, RULES

    rules = list(RULES.values()) + list(CONFIG_RULES.values())
    if args.format == "json":
        from .references import REFERENCES

        _write(json.dumps([{"id": r.id, "slug": r.slug, "severity": r.severity, "area": r.area,
                            "title": r.title, "options": {o.name: o.default for o in r.options},
                            "references": [{"title": REFERENCES[k][0], "url": REFERENCES[k][1]} for k in r.sources]}
                           for r in rules], indent=2) + "\n")
        return 0
    lines = []
    for r in rules:
        sev = r.severity + ("*" if r.severity_note else "")
        lines.append(f"{r.id:<7} {sev:<8} {r.area:<12} {r.slug:<34} {r.title}\n")
    lines.append("* see `explain RULE` for how the severity varies or why it is what it is\n")
    _write("".join(lines))
    return 0


def _explain(args) -> int:
    from .errors import InputError
    from .rules import CONFIG_RULES, RULES

    rules = list(RULES.values()) + list(CONFIG_RULES.values())
    key = args.rule.strip()
    r = next((x for x in rules if x.id.lower() == key.lower() or x.slug == key.lower()), None)
    if r is None:
        raise InputError(f"explain: unknown rule {key!r}; `sqs-policy list-rules` shows the IDs and slugs")
    out = [f"{r.id} {r.slug} ({r.severity}, {r.area})", f"  {r.title}", ""]
    out += ["  " + line for line in r.why.splitlines()]
    out += ["", f"  Fix: {r.remediation}"]
    if r.severity_note:
        out.append(f"  Severity: {r.severity_note}")
    if r.options:
        out.append("  Options (config file, rules." + r.id + "):")
        for o in r.options:
            out.append(f"    {o.name} = {o.default!r}: {o.help}")
    from .references import REFERENCES

    out.append("  Sources:")
    out += [f"    {REFERENCES[k][0]}: {REFERENCES[k][1]}" for k in r.sources]
    _write("\n".join(out) + "\n")
    return 0


def _atlantis_refused(message: str) -> int:
    """A refused plan with --format atlantis: a FAIL line on standard output, exit 0 (Atlantis
    keeps no output of a step that exits non-zero, so the refusal would not be seen); 2 when
    even that cannot be written."""
    from .errors import InputError
    from .formats.atlantis import refused
    from .terminal import line

    try:
        _write(refused(line(" ".join(message.split()))[:1000]))
    except InputError:
        return 2
    return 0


def run() -> None:
    """Console-script entry: like main(), but skips freeing the plan's objects
    one by one at interpreter exit (a tenth of a second on a large plan)."""
    rc = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            rc = 2
    os._exit(rc)


def _error_line(text: str) -> None:
    """One line on standard error, at most 1000 characters (a message may quote the input:
    its control and bidirectional characters are escaped, and no CI runner command is left
    in it: see terminal.line)."""
    from .terminal import line as safe_line

    line = safe_line(" ".join(text.split()))
    if len(line) > 1000:
        line = line[:999] + "…"
    try:
        if sys.stderr is not None:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
    except (OSError, ValueError):
        pass


def main(argv: list[str] | None = None) -> int:
    # A short-lived process that builds one large object graph: the cyclic
    # garbage collector would re-scan it over and over while it grows (3x the
    # json.load time on a 24 MB plan) and would never find anything to free.
    gc.disable()
    args = _parser().parse_args(argv)
    from .errors import InputError

    try:
        if args.cmd == "check":
            return _check(args)
        if args.cmd == "baseline":
            return _baseline(args)
        if args.cmd == "list-rules":
            return _list_rules(args)
        if args.cmd == "run-task":
            return _run_task(args)
        if args.cmd == "checkov-dir":
            _write(os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkov") + "\n")
            return 0
        return _explain(args)
    except InputError as e:
        _error_line(f"sqs-policy: error: {e}")
        if args.cmd == "check" and args.format == "atlantis" and not getattr(args, "many", False):
            return _atlantis_refused(f"sqs-policy: error: {e}")
        return 2
    except KeyboardInterrupt:
        _error_line("sqs-policy: interrupted")
        return 2
    except RecursionError:
        _error_line("sqs-policy: error: the plan nests too deeply to read; is it really `terraform show -json` output?")
        return 2
    except Exception as e:  # a bug in the engine: one line, the traceback on request
        if os.environ.get("SQS_POLICY_DEBUG"):
            raise
        _error_line(f"sqs-policy: internal error: {type(e).__name__}: {str(e)[:300]} "
                    "(rerun with SQS_POLICY_DEBUG=1 for the traceback, and please report it)")
        return 2


if __name__ == "__main__":
    run()
