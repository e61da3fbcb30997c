"""Every refusal of every module (and of the root module composing them) comes
with a message that names the input, the value or bound, and what to do; and
every check in the HCL has a refusal run that trips it.

The cases are the native refusal runs themselves: each module's
``tests/refusals.tftest.hcl`` (where ``expect_failures`` proves the plan fails
on the right object), plus refusals made inside submodules when driven through
the root module (tests/fixtures/root-refusals.tftest.hcl: ``expect_failures``
cannot name objects inside a child module). Here every run is replayed without
``expect_failures``, one run per file (Terraform skips the rest of a file after
an error), in one real ``terraform test`` per module; the error diagnostics of
each run must contain the fragments of tests/support/refusal_messages.py, and together
the runs must trip every ``validation`` and ``precondition`` block of the
module's own files. The messages table is shared with
tests/root_module/test_consumer_stack.py, which plans modules/queue's cases through a root
``queues`` entry.
"""
from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.support.refusal_messages import FRAGMENTS, SOURCES, run_variables, split_runs
from tests.support.helpers import REPO_ROOT
from tooling.terraform import Terraform, outcomes_of_terraform_test

pytestmark = pytest.mark.plan

EXPECT = re.compile(r"^\s*expect_failures\s*=\s*\[[^\]]*\]\s*\n", re.M)
HEADER_ONLY = "header_only"  # a run of the files' shared variables alone: must plan cleanly
# "This was checked by the validation rule at variables.tf:51,3-13."
VALIDATION_AT = re.compile(r"checked by the validation rule at ([\w./-]+):(\d+),")


def _config_param(config: str):
    # one worker per configuration: its two tests share one replay
    return pytest.param(config, id="root" if config == "." else config, marks=pytest.mark.xdist_group(f"refusals-{config}"))


CONFIGS = [_config_param(c) for c in FRAGMENTS]


def replay_without_expect_failures(config: str, sources: list[Path]) -> dict[str, dict]:
    """Run every refusal run alone, without expect_failures, in one `terraform test`.

    {run: {"status", "errors": [summary: detail], "where": ["file:line" of each error's
    check: the validation rule Terraform names, or the precondition's range]}}."""
    src_dir = REPO_ROOT / config
    base = REPO_ROOT / ".plans"  # git-ignored: absent on a fresh clone until something plans
    base.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"refusals-{src_dir.name or 'root'}-", dir=base))
    try:
        for f in src_dir.glob("*.tf"):
            shutil.copy2(f, work / f.name)
        # the configuration's own folders (modules/, a function's dist/ ...), not its tests or state
        for sub in src_dir.iterdir():
            if sub.is_dir() and sub.name not in {"tests", ".terraform", ".git", ".cache", ".plans"} and not sub.name.startswith(".venv"):
                (work / sub.name).symlink_to(sub, target_is_directory=True)
        (work / "tests").mkdir()
        for source in sources:
            header, runs = split_runs(source.read_text())
            for name, block in runs.items():
                (work / "tests" / f"{name}.tftest.hcl").write_text(header + EXPECT.sub("", block))
        header, _ = split_runs(sources[0].read_text())
        (work / "tests" / f"{HEADER_ONLY}.tftest.hcl").write_text(header + f'run "{HEADER_ONLY}" {{\n  command = plan\n}}\n')
        tf = Terraform(work)
        tf.init(backend=False)
        result = tf.test()
        outcome = outcomes_of_terraform_test(result.stdout, by="run", diagnostics=True)
        for got in outcome.values():
            got["where"] = []
            for d in got.pop("diagnostics"):
                at = VALIDATION_AT.search(d.get("detail", ""))
                if at:
                    got["where"].append(f"{at.group(1)}:{at.group(2)}")
                elif d.get("range"):
                    got["where"].append(f"{d['range']['filename']}:{d['range']['start']['line']}")
        assert outcome, f"terraform test reported no runs:\n{result.stderr[-3000:]}"
        return outcome
    finally:
        shutil.rmtree(work, ignore_errors=True)


_REPLAYS: dict[str, dict[str, dict]] = {}


@pytest.fixture
def replay():
    """The replay of a configuration's refusal runs, once per configuration and worker."""

    def get(config: str) -> dict[str, dict]:
        if config not in _REPLAYS:
            _REPLAYS[config] = replay_without_expect_failures(config, SOURCES[config])
        return _REPLAYS[config]

    return get


def _blocks(text: str, kind: str) -> dict[str, tuple[str, int]]:
    """Top-level `kind "a" "b" {` blocks keyed "a.b" (or "a" for one label): (text, first line)."""
    out = {}
    for m in re.finditer(rf'^{kind} "([^"]+)"(?: "([^"]+)")? \{{', text, re.M):
        close = re.compile(r"^\}", re.M).search(text, m.end())  # a top-level block ends at a "}" in column 1
        end = close.end() if close else len(text)
        out[".".join(g for g in m.groups() if g)] = (text[m.start() : end], text.count("\n", 0, m.start()) + 1)
    return out


# Checks no input can trip: (configuration, object, condition) -> why. Each is reported in the
# hand-over to be removed from the HCL; test_unreachable_checks_exist keeps this list true.
# (Empty: the queue-name length precondition of modules/queue was removed, as var.name's
# validation, 1-75 characters before .fifo, already holds the queue name to SQS's 80.)
UNREACHABLE: dict[tuple[str, str, str], str] = {}


def _checks(config: str) -> list[dict]:
    """Every validation and precondition block of a configuration's own files:
    {"object": what expect_failures names, "input": the input it guards (validations),
    "at": "file:line" of the block, "condition_at": "file:line" of its condition}."""
    src_dir = REPO_ROOT / config
    checks = []
    for fname in ("variables.tf", "main.tf", "outputs.tf"):
        path = src_dir / fname
        if not path.exists():
            continue
        text = path.read_text()
        for kind, prefix, check in (("variable", "var.", "validation"), ("resource", "", "precondition"),
                                    ("data", "data.", "precondition"), ("output", "output.", "precondition")):
            for name, (body, first_line) in _blocks(text, kind).items():
                for m in re.finditer(rf"^[ \t]*{check} \{{", body, re.M):
                    line = first_line + body.count("\n", 0, m.start())
                    block = body[m.start() :]
                    cond = re.search(r"^[ \t]*condition\s*=", block, re.M)
                    message = re.search(r"^[ \t]*error_message\s*=\s*(.*)$", block, re.M)
                    # a cross-input validation hosted on another variable names the input it
                    # guards first in its message (${local.n.<input>})
                    guarded = re.search(r"\$\{local\.n\.([a-z_0-9]+)\}", message.group(1) if message else "")
                    checks.append({
                        "object": f"{prefix}{name}",
                        "input": (guarded.group(1) if guarded else name) if kind == "variable" else None,
                        "at": f"{fname}:{line}",
                        "condition_at": f"{fname}:{line + block.count(chr(10), 0, cond.start() if cond else 0)}",
                        "condition": block[cond.end() :].split("\n", 1)[0].strip() if cond else "",
                    })
    return checks


@pytest.mark.parametrize("config", CONFIGS)
def test_refusal_messages(config, replay):
    expected = FRAGMENTS[config]
    defined = {name for source in SOURCES[config] for name in split_runs(source.read_text())[1]}
    assert defined == set(expected), (
        f"runs without expected message fragments: {sorted(defined - set(expected))}; "
        f"fragments for runs that do not exist: {sorted(set(expected) - defined)}"
    )
    outcome = replay(config)
    problems = []
    for name, fragments in expected.items():
        got = outcome.get(name)
        if got is None or got.get("status") not in ("error", "fail"):
            problems.append(f"{name}: the plan was not refused ({got})")
            continue
        text = " ".join(got["errors"])
        missing = [f for f in fragments if f not in text]
        if missing:
            problems.append(f"{name}: missing {missing} in: {text}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("config", CONFIGS)
def test_header_variables_alone_plan_cleanly(config, replay):
    """The variables every run shares are valid: each refusal is caused by its own run's inputs."""
    got = replay(config).get(HEADER_ONLY)
    assert got is not None and got.get("status") == "pass", f"the shared variables alone do not plan: {got}"


@pytest.mark.parametrize("config", CONFIGS)
def test_every_check_is_tripped_by_a_refusal_run(config, replay):
    """Each validation and precondition block of the configuration's own files is the
    one that refuses at least one run (Terraform names the validation rule's line; a
    precondition's error points at its condition)."""
    hit = {where for got in replay(config).values() for where in got["where"]}
    untripped = [
        f"{c['object']} at {c['at']}" for c in _checks(config)
        if c["at"] not in hit and c["condition_at"] not in hit and (config, c["object"], c["condition"]) not in UNREACHABLE
    ]
    assert not untripped, f"{config}: checks no refusal run trips: {untripped}"


@pytest.mark.parametrize("config", CONFIGS)
def test_every_validation_and_precondition_has_a_native_negative_run(config):
    """As many `expect_failures` runs per input (validations) and per resource, data source
    or output (preconditions) as it has checks. A validation is counted for the input it
    guards: modules/queue hosts its cross-input validations on var.name, so a run that
    expects var.name to fail counts for the guarded inputs it sets."""
    src_dir = REPO_ROOT / config
    native = [p for p in SOURCES[config] if p.parent.name == "tests" and p.parent.parent == src_dir]
    if config == ".":
        native.append(REPO_ROOT / "tests" / "root.tftest.hcl")
    checks = _checks(config)
    expected_counts: dict[str, int] = {}
    guards: dict[str, set[str]] = {}  # var.X: the inputs its validations guard
    for c in checks:
        key = f"var.{c['input']}" if c["input"] else c["object"]
        expected_counts[key] = expected_counts.get(key, 0) + 1
        if c["input"]:
            guards.setdefault(c["object"], set()).add(c["input"])
    runs: dict[str, int] = {}
    for f in native:
        for block in split_runs(f.read_text())[1].values():
            m = re.search(r"expect_failures\s*=\s*\[([^\]]*)\]", block)
            if not m:
                continue
            inputs = set(run_variables(block))
            for ref in (r.strip() for r in m.group(1).split(",") if r.strip()):
                counted = {f"var.{i}" for i in guards.get(ref, set()) & inputs} or {ref}
                for key in counted:
                    runs[key] = runs.get(key, 0) + 1
    short = {obj: (n, runs.get(obj, 0)) for obj, n in expected_counts.items() if runs.get(obj, 0) < n}
    assert not short, f"{config}: inputs/objects with fewer negative runs than checks (checks, runs): {short}"
    assert expected_counts, f"{config}: found no validations or preconditions at all"


def test_unreachable_checks_exist():
    """Every check declared unreachable is still in the HCL (the list cannot hide a removed one's successor)."""
    present = {(config, c["object"], c["condition"]) for config in FRAGMENTS for c in _checks(config)}
    assert set(UNREACHABLE) <= present, f"declared unreachable but not found: {sorted(set(UNREACHABLE) - present)}"
