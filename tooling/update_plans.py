"""Update-plan fixtures: plans with real prior state, made against LocalStack.

A first-apply plan has no ``prior_state`` and every action is ``create``. Most
pre-merge plans are updates of stacks that exist, and the change rules read what
only an update plan has (``prior_state``, ``delete``/``replace`` actions,
``action_reason``, ``replace_paths``, ``previous_address``). This script makes
such plans for real and saves them as fixtures the policy tests read without
LocalStack:

1. for each scenario directory under ``tests/policies/updates/``, apply its
   *before* configuration on the embedded LocalStack (``tooling/localstack.py``);
2. switch the same working directory (same state) to its *after* configuration
   and ``terraform plan`` it against the same LocalStack (refresh on: the prior
   state is what LocalStack reports);
3. save ``terraform show -json`` of that plan to
   ``tests/policies/plans/update/<name>.json`` and record, in that directory's
   ``MANIFEST.json``, the digest of everything that produced it
   (``tests/policies/fixture_plans.py``).

Scenario directory ``tests/policies/updates/<name>/``::

    scenario.json     description, variables per phase, options (below)
    *.tf              files common to both phases (not providers.tf: see below)
    before/*.tf       files only in the "before" configuration (optional)
    after/*.tf        files only in the "after" configuration (optional)

All ``*.tf`` files are read as if they lay in the scenario directory (module
sources are relative to it: ``../../../..`` is this repository's root module).
So a scenario is either one configuration with different variables per phase, or
two configurations, or shared files plus per-phase ones. ``scenario.json``::

    {
      "description": "what changes and what the plan must show",
      "before": {"variables": {...}},          # optional
      "after": {"variables": {...}},           # optional
      "external_modules": {"external/sqs": "terraform-aws-sqs-v4.3.1"},  # optional
      "lambda_functions": ["consumer"]         # optional
    }

* ``providers.tf``: every scenario is planned with ``tests/policies/updates/_provider/providers.tf``
  (the AWS provider for LocalStack, whose endpoints come from the environment, and
  ``variable "name_prefix"``), copied into the working directory as ``providers.tf`` and
  digested as if it lay in the scenario directory. A scenario has no providers.tf of its own
  (it is refused); provider aliases or variables of one scenario go in a file of another name.
* ``name_prefix``: when the configuration declares that variable it is set to the
  scenario name (so scenarios never collide on one LocalStack and a fixture
  regenerated twice names the same things). Name everything with it.
* ``external_modules``: modules from outside this repository, linked into the
  working directory at the given path (``source = "./external/sqs"``) from the
  modules directory (``--modules-dir``, ``$UPDATE_PLANS_MODULES_DIR``, default
  ``../shared/anchors`` beside the repository). They are never copied into the
  repository: only the resulting plan is committed, with the module's content
  digest. When one is absent the scenario is skipped with a message.
* ``lambda_functions``: functions created in LocalStack before the apply, named
  ``<name_prefix>-<entry>``, for event source mappings to point at (LocalStack
  cannot run a function, so ``aws_lambda_function`` cannot be applied; a function
  created through the API exists, in state Failed, and a mapping to it is created
  and enabled).

Queue URLs carry LocalStack's port; it is replaced by LocalStack's default port
(4566) in the saved plan, so a regenerated fixture does not differ by the port
of the instance that made it.

Usage::

    .venv/bin/python -m tooling.update_plans              # every scenario
    .venv/bin/python -m tooling.update_plans raw-queue-*  # by name (glob)
    .venv/bin/python -m tooling.update_plans --stale      # only those whose inputs changed
    .venv/bin/python -m tooling.update_plans --check      # list stale fixtures, exit 1 if any
    .venv/bin/python -m tooling.update_plans --list

Cost: an apply waits ~25 s per queue creation (the AWS provider's propagation
wait; a DLQ and its source make two rounds) and about a minute for an S3 lifecycle
rule; scenarios run in parallel (``--jobs``, default 4) on one LocalStack.
"""
from __future__ import annotations

import argparse
import contextlib
import fnmatch
import hashlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tests.policies import fixture_plans
from tooling.terraform import REPO_ROOT, FixtureProviderError, Terraform, TerraformError, supplied_provider

SCENARIOS = REPO_ROOT / "tests" / "policies" / "updates"
OUT = fixture_plans.UPDATE_PLANS
MODULES_ENV = "UPDATE_PLANS_MODULES_DIR"
# shared/anchors beside the checkout or beside one of its parents (a worktree), as tests/support/behave_stacks.py
DEFAULT_MODULES_DIR = next(
    (p / "shared" / "anchors" for p in REPO_ROOT.parents if (p / "shared" / "anchors").is_dir()), REPO_ROOT.parent / "shared" / "anchors")
PHASES = ("before", "after")
SCENARIO_KEYS = {"description", "before", "after", "external_modules", "lambda_functions"}
PHASE_KEYS = {"variables"}
COMMAND = ".venv/bin/python -m tooling.update_plans"
LOCALSTACK_PORT = 4566  # what the saved plans show instead of the instance's port
# Terraform retries a failed AWS call 25 times by default; against LocalStack a failure is real
AWS_MAX_ATTEMPTS = "3"


class ScenarioError(Exception):
    """A scenario is malformed or could not be planned; the message says which and why."""


@dataclass
class Scenario:
    name: str
    directory: Path
    description: str
    variables: dict[str, dict]
    external: dict[str, str] = field(default_factory=dict)  # mount path -> module directory name
    lambda_functions: list[str] = field(default_factory=list)

    def own_files(self, phase: str) -> list[Path]:
        """The scenario's own *.tf files of one phase: common ones and the phase's own."""
        common = sorted(p for p in self.directory.glob("*.tf"))
        own = sorted((self.directory / phase).glob("*.tf")) if (self.directory / phase).is_dir() else []
        clash = {p.name for p in common} & {p.name for p in own}
        if clash:
            raise ScenarioError(f"{self.name}: {phase}/ repeats common file(s) {sorted(clash)}; rename one")
        return common + own

    def provider(self) -> Path | None:
        """The shared LocalStack provider file (``updates/_provider/providers.tf``) the scenario is
        planned with, as ``providers.tf`` (None for a scenario outside tests/policies/updates)."""
        try:
            return supplied_provider(self.directory)
        except FixtureProviderError as e:
            raise ScenarioError(f"{self.name}: {e}") from None

    def files(self, phase: str) -> list[Path]:
        """The *.tf files one phase is planned with: its own and the shared provider file
        (named ``providers.tf``: each lands in the working directory under its name)."""
        own = self.own_files(phase)
        provider = self.provider()
        if provider is not None and provider.name in {p.name for p in own}:
            raise ScenarioError(f"{self.name}: {phase}/{provider.name} clashes with the shared provider file "
                                f"{provider.relative_to(REPO_ROOT)}; rename it")
        return own + ([provider] if provider is not None else [])

    def declared(self, phase: str) -> set[str]:
        names: set[str] = set()
        for f in self.files(phase):
            names.update(re.findall(r'^\s*variable\s+"([^"]+)"', f.read_text(), flags=re.M))
        return names

    def phase_variables(self, phase: str, name_prefix: str | None = None) -> dict:
        out = {}
        if "name_prefix" in self.declared(phase):
            out["name_prefix"] = name_prefix or self.name
        out.update(self.variables.get(phase, {}))
        return out


def load_scenario(directory: Path) -> Scenario:
    name = directory.name
    spec_path = directory / "scenario.json"
    if not spec_path.exists():
        raise ScenarioError(f"{name}: no scenario.json in {directory}")
    try:
        spec = json.loads(spec_path.read_text())
    except ValueError as e:
        raise ScenarioError(f"{name}: scenario.json is not valid JSON ({e})") from None
    if not isinstance(spec, dict):
        raise ScenarioError(f"{name}: scenario.json must be an object")
    unknown = set(spec) - SCENARIO_KEYS
    if unknown:
        raise ScenarioError(f"{name}: scenario.json has unknown key(s) {sorted(unknown)} (known: {sorted(SCENARIO_KEYS)})")
    if not isinstance(spec.get("description"), str) or not spec["description"].strip():
        raise ScenarioError(f"{name}: scenario.json needs a description (what changes, what the plan must show)")
    variables = {}
    for phase in PHASES:
        p = spec.get(phase) or {}
        if not isinstance(p, dict) or set(p) - PHASE_KEYS:
            raise ScenarioError(f"{name}: scenario.json {phase!r} must be an object with only {sorted(PHASE_KEYS)}")
        v = p.get("variables") or {}
        if not isinstance(v, dict):
            raise ScenarioError(f"{name}: scenario.json {phase}.variables must be an object")
        variables[phase] = v
    ext = spec.get("external_modules") or {}
    if not isinstance(ext, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in ext.items()):
        raise ScenarioError(f"{name}: external_modules must map a path in the working directory to a module directory name")
    fns = spec.get("lambda_functions") or []
    if not isinstance(fns, list) or not all(isinstance(f, str) and f for f in fns):
        raise ScenarioError(f"{name}: lambda_functions must be a list of names")
    sc = Scenario(name, directory, spec["description"].strip(), variables, ext, fns)
    for phase in PHASES:
        if not sc.own_files(phase):
            raise ScenarioError(f"{name}: the {phase} configuration has no *.tf files")
        sc.files(phase)  # refuses a copy of the shared provider file
    return sc


def scenario_dirs() -> list[Path]:
    if not SCENARIOS.is_dir():
        return []
    return sorted(p for p in SCENARIOS.iterdir() if p.is_dir() and (p / "scenario.json").exists())


def scenarios(patterns: list[str] | None = None) -> list[Scenario]:
    found = [load_scenario(d) for d in scenario_dirs()]
    if not patterns:
        return found
    picked = [s for s in found if any(fnmatch.fnmatchcase(s.name, p) for p in patterns)]
    unmatched = [p for p in patterns if not any(fnmatch.fnmatchcase(s.name, p) for s in found)]
    if unmatched:
        raise ScenarioError(f"no scenario matches {unmatched} (scenarios: {', '.join(s.name for s in found)})")
    return picked


def modules_dirs(explicit: str | None = None) -> list[Path]:
    dirs = []
    if explicit:
        dirs.append(Path(explicit))
    if os.environ.get(MODULES_ENV):
        dirs.append(Path(os.environ[MODULES_ENV]))
    dirs.append(DEFAULT_MODULES_DIR)
    return dirs


def find_module(name: str, explicit: str | None = None) -> Path | None:
    for d in modules_dirs(explicit):
        candidate = d / name
        if candidate.is_dir() and list(candidate.glob("*.tf")):
            return candidate.resolve()
    return None


def scenario_files(sc: Scenario) -> list[fixture_plans.Input]:
    """The scenario's own files, the shared provider file as if it lay in the scenario directory
    (``(scenario/providers.tf, updates/_provider/providers.tf)``, see fixture_plans.Input), and
    every file of the local modules its configurations call (sources relative to the scenario
    directory, whichever phase directory the file is in)."""
    own = fixture_plans.tree_files(sc.directory)
    files = set(own)
    for tf in own:
        if tf.suffix == ".tf":
            for d in fixture_plans.local_sources(tf, base=sc.directory):
                if d.is_relative_to(REPO_ROOT):  # an external module's mount does not exist here
                    files.update(fixture_plans.configuration_files(d))
    sc.provider()  # refuses a copy of the shared provider file
    return [*sorted(files), *fixture_plans.supplied_files(sc.directory)]


def tree_digest(directory: Path) -> str:
    """Content digest of an external module (relative paths and bytes of its files)."""
    h = hashlib.sha256()
    for f in fixture_plans.tree_files(directory):
        h.update(str(f.relative_to(directory)).encode() + b"\0" + f.read_bytes() + b"\0")
    return "sha256:" + h.hexdigest()


def inputs(sc: Scenario, modules_dir: str | None = None) -> tuple[list[fixture_plans.Input], dict, dict[str, str | None]]:
    """(files, variables, {external module: content digest, or None when it is absent here})."""
    variables = {p: sc.phase_variables(p) for p in PHASES}
    external = {}
    for mod in sorted(set(sc.external.values())):
        found = find_module(mod, modules_dir)
        external[mod] = tree_digest(found) if found else None
    return scenario_files(sc), variables, external


def _extra(external: dict[str, str | None]) -> str:
    return "".join(f"external {name} {d}\n" for name, d in sorted(external.items()))


def stale_reason(sc: Scenario, modules_dir: str | None = None) -> str | None:
    """Why the scenario's fixture does not match its inputs (None when it does). An external
    module absent here is taken at the digest the manifest records: the rest is still checked."""
    files, variables, external = inputs(sc, modules_dir)
    manifest = fixture_plans.Manifest.load(OUT)
    recorded = (manifest.fixtures.get(sc.name) or {}).get("external") or {}
    external = {n: d if d is not None else recorded.get(n) for n, d in external.items()}
    return manifest.check_inputs(sc.name, files, variables, _extra(external))


def stale(selected: list[Scenario], modules_dir: str | None = None) -> dict[str, str]:
    """{scenario: why} for every fixture that is missing or does not match its inputs."""
    return {sc.name: why for sc in selected if (why := stale_reason(sc, modules_dir))}


# ------------------------------------------------------------------------------------------
# generation
# ------------------------------------------------------------------------------------------
_print_lock = threading.Lock()


def _say(msg: str) -> None:
    with _print_lock:
        print(msg, flush=True)


def _workdir(sc: Scenario) -> Path:
    """A working directory at the scenario's depth below the repository (relative sources resolve)."""
    depth = len(sc.directory.resolve().relative_to(REPO_ROOT).parts)
    base = REPO_ROOT / ".plans"
    for _ in range(depth - 2):
        base = base / "_"
    base.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"update-{sc.name}-", dir=base))


def _use_phase(sc: Scenario, work: Path, phase: str) -> None:
    for f in work.glob("*.tf"):
        f.unlink()
    for f in sc.files(phase):
        shutil.copy2(f, work / f.name)


def _create_functions(sc: Scenario, ls, prefix: str) -> None:
    import boto3

    kw = dict(endpoint_url=ls.endpoint, aws_access_key_id="test", aws_secret_access_key="test", region_name="us-east-1")
    iam, lam = boto3.client("iam", **kw), boto3.client("lambda", **kw)
    role_name = f"{prefix}-fixture-role"[:64]
    with contextlib.suppress(iam.exceptions.EntityAlreadyExistsException):
        iam.create_role(RoleName=role_name, AssumeRolePolicyDocument=json.dumps({
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}))
    role = iam.get_role(RoleName=role_name)["Role"]["Arn"]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("handler.py", "def handler(event, context):\n    return {'batchItemFailures': []}\n")
    for fn in sc.lambda_functions:
        with contextlib.suppress(lam.exceptions.ResourceConflictException):
            lam.create_function(FunctionName=f"{prefix}-{fn}", Runtime="python3.12", Role=role, Handler="handler.handler",
                                Code={"ZipFile": buf.getvalue()}, Timeout=30)


def normalize(text: str, endpoint: str) -> str:
    """Replace the LocalStack instance's port by LocalStack's default one in a plan's JSON text."""
    port = endpoint.rstrip("/").rsplit(":", 1)[-1]
    if not port.isdigit() or int(port) == LOCALSTACK_PORT:
        return text
    return re.sub(rf"(localhost\.localstack\.cloud|127\.0\.0\.1|localhost):{port}\b", rf"\1:{LOCALSTACK_PORT}", text)


@dataclass
class Outcome:
    name: str
    ok: bool
    message: str
    apply_s: float = 0.0
    plan_s: float = 0.0


def generate(sc: Scenario, ls, *, out_dir: Path = OUT, name_prefix: str | None = None, modules_dir: str | None = None,
             destroy: bool = False, keep: bool = False) -> tuple[dict, dict]:
    """Apply the scenario's before configuration, plan the after one, and return
    (plan JSON, made_with). Writes nothing; raises ScenarioError on any failure."""
    prefix = name_prefix or sc.name
    work = _workdir(sc)
    env = {**ls.env(), "AWS_MAX_ATTEMPTS": AWS_MAX_ATTEMPTS}
    tf = None
    try:
        for mount, mod in sc.external.items():
            found = find_module(mod, modules_dir)
            if found is None:
                raise ScenarioError(f"{sc.name}: external module {mod} not found in {[str(d) for d in modules_dirs(modules_dir)]}")
            (work / mount).parent.mkdir(parents=True, exist_ok=True)
            (work / mount).symlink_to(found, target_is_directory=True)
        _use_phase(sc, work, "before")
        tf = Terraform(work, variables=sc.phase_variables("before", prefix), env=env, timeout=900)
        tf.init()
        if sc.lambda_functions:
            _create_functions(sc, ls, prefix)
        t0 = time.monotonic()
        tf.apply()
        t1 = time.monotonic()
        _use_phase(sc, work, "after")
        tf.tf_variables = sc.phase_variables("after", prefix)
        tf.init()
        plan_file = tf.plan(out="update.tfplan")
        doc = tf.show_json(plan_file)
        t2 = time.monotonic()
        if doc.get("errored"):
            raise ScenarioError(f"{sc.name}: the after plan is marked errored")
        if not (doc.get("prior_state") or {}).get("values"):
            raise ScenarioError(f"{sc.name}: the after plan has no prior state (did the before apply create nothing?)")
        made_with = {"localstack": _localstack_version(ls), "apply_seconds": round(t1 - t0, 1),
                     "plan_seconds": round(t2 - t1, 1)}
        return json.loads(normalize(json.dumps(doc), ls.endpoint)), made_with
    except TerraformError as e:
        raise ScenarioError(f"{sc.name}: {e}") from None
    finally:
        if tf is not None and destroy:
            with contextlib.suppress(TerraformError):
                tf.destroy()
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            _say(f"{sc.name}: working directory kept at {work}")


def _localstack_version(ls) -> str | None:
    from tooling.localstack import health

    doc = health(ls.endpoint) or {}
    return str(doc.get("version", "")).split(":")[0] or None


_manifest_lock = threading.Lock()


def write(sc: Scenario, doc: dict, made_with: dict, captured: tuple, environment: dict) -> Path:
    """Save the plan and record what produced it (``captured``: the inputs as they were when
    its generation started)."""
    files, variables, external = captured
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{sc.name}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(fixture_plans.dump(doc))
    tmp.replace(path)
    with _manifest_lock:
        manifest = fixture_plans.Manifest.load(OUT)
        manifest.record(sc.name, files, variables, f"{COMMAND} {sc.name}", environment=environment,
                        extra=_extra(external), external=external, **made_with)
        manifest.save()
    return path


def summary(doc: dict) -> str:
    """One line per managed resource change that is not a no-op (or is a move): the actions
    as the plan shows them."""
    lines = []
    for rc in doc.get("resource_changes") or ():
        acts = rc["change"]["actions"]
        if (acts == ["no-op"] and not rc.get("previous_address")) or rc.get("mode") == "data":
            continue
        extra = []
        if rc.get("action_reason"):
            extra.append(rc["action_reason"])
        if rc["change"].get("replace_paths"):
            extra.append("replace_paths " + json.dumps(rc["change"]["replace_paths"]))
        if rc.get("previous_address"):
            extra.append(f"moved from {rc['previous_address']}")
        lines.append(f"  {'/'.join(acts):<15} {rc['address']}" + (f"  ({'; '.join(extra)})" if extra else ""))
    return "\n".join(lines)


def describe(sc: Scenario) -> str:
    """The scenario, the actions its committed plan shows, and the change rules' findings on it."""
    from resilient_sqs.policy.config import Config
    from resilient_sqs.policy.engine import evaluate
    from resilient_sqs.policy.rules import RULES

    path = fixture_plans.Manifest.load(OUT).path(sc.name)
    if not path.exists():
        return f"{sc.name}: no fixture yet"
    doc = json.loads(path.read_text())
    only_change = Config(enabled={rid: rid.startswith("CHG") for rid in RULES})
    findings = [f for f in evaluate(doc, only_change).findings]
    lines = [f"{sc.name}: {sc.description}", summary(doc) or "  (no changes)"]
    lines += [f"  => {f.rule_id} {f.slug} {f.severity}: {f.address}" for f in findings] or ["  => no change finding"]
    return "\n".join(lines)


def run(selected: list[Scenario], jobs: int, modules_dir: str | None, keep: bool) -> list[Outcome]:
    from tooling.localstack import LocalStackError, acquire_shared, release_shared

    runnable, outcomes = [], []
    for sc in selected:
        missing = [m for m in sc.external.values() if find_module(m, modules_dir) is None]
        if missing:
            msg = (f"skipped: external module(s) {missing} not found in "
                   f"{', '.join(str(d) for d in modules_dirs(modules_dir))} (set --modules-dir or ${MODULES_ENV})")
            _say(f"{sc.name}: {msg}")
            outcomes.append(Outcome(sc.name, True, msg))
        else:
            runnable.append(sc)
    if not runnable:
        return outcomes
    key = f"update-plans-{os.getpid()}"
    try:
        ls = acquire_shared(key, progress=lambda m: _say(f"==> {m}"))
    except LocalStackError as e:
        raise ScenarioError(f"LocalStack could not be started: {e}") from None
    _say(f"==> LocalStack at {ls.endpoint}; {len(runnable)} scenario(s), {jobs} at a time")
    environment = fixture_plans.environment()

    def one(sc: Scenario) -> Outcome:
        _say(f"{sc.name}: applying before, then planning after")
        captured = inputs(sc, modules_dir)  # the inputs as they are when generation starts
        try:
            doc, made_with = generate(sc, ls, modules_dir=modules_dir, destroy=ls.external, keep=keep)
        except ScenarioError as e:
            _say(f"{sc.name}: FAILED\n{e}")
            return Outcome(sc.name, False, str(e))
        path = write(sc, doc, made_with, captured, environment)
        _say(f"{sc.name}: wrote {path.relative_to(REPO_ROOT)} (apply {made_with['apply_seconds']} s, "
             f"plan {made_with['plan_seconds']} s)\n{summary(doc) or '  (no changes)'}")
        return Outcome(sc.name, True, "written", made_with["apply_seconds"], made_with["plan_seconds"])

    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
            outcomes += list(ex.map(one, runnable))
    finally:
        release_shared(key, ls)
    return outcomes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tooling.update_plans", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="scenario names or globs (default: all)")
    ap.add_argument("--jobs", "-j", type=int, default=4, help="scenarios applied at once (default 4)")
    ap.add_argument("--stale", action="store_true", help="only scenarios whose fixture is missing or stale")
    ap.add_argument("--check", action="store_true", help="list stale fixtures and exit 1 if any (no LocalStack)")
    ap.add_argument("--list", action="store_true", help="list the scenarios")
    ap.add_argument("--summary", action="store_true",
                    help="for each committed fixture: the actions the plan shows and the change findings (no LocalStack)")
    ap.add_argument("--modules-dir", help=f"where external modules are found (also ${MODULES_ENV}; default {DEFAULT_MODULES_DIR})")
    ap.add_argument("--keep", action="store_true", help="keep the working directories (state, .terraform) for inspection")
    args = ap.parse_args(argv)
    try:
        selected = scenarios(args.names)
        if args.list:
            for sc in selected:
                print(f"{sc.name:<36} {sc.description}")
            return 0
        if args.summary:
            for sc in selected:
                print(describe(sc))
            return 0
        if args.check or args.stale:
            bad = stale(selected, args.modules_dir)
            if args.check:
                for why in bad.values():
                    print(why)
                print(f"{len(bad)} stale of {len(selected)}")
                return 1 if bad else 0
            selected = [s for s in selected if s.name in bad]
            if not selected:
                print("every update-plan fixture is current")
                return 0
        t0 = time.monotonic()
        outcomes = run(selected, args.jobs, args.modules_dir, args.keep)
    except ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    failed = [o for o in outcomes if not o.ok]
    print(f"{len(outcomes) - len(failed)} done, {len(failed)} failed in {time.monotonic() - t0:.0f} s"
          + (f": {', '.join(o.name for o in failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
