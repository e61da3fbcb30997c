"""Plan-feature fixtures: one real plan per Terraform plan feature, for the plan reader.

The checker reads any stack's plan, so every shape ``terraform show -json`` writes must be
read: updates, replacements and deletions, ``-replace``/``-destroy``/``-refresh-only``/
``-target`` plans, ``moved``, ``removed`` (with ``destroy = false``: the ``forget`` action),
``import`` blocks, ``check`` blocks, data sources, ``terraform_data``,
``replace_triggered_by``, sensitive values, ``count = 0``, modules with ``for_each``,
write-only attributes and ephemeral values, deposed objects and errored plans. Each feature
is a small configuration under ``tests/policies/features/<name>/``; this script runs the real
``terraform`` binary and the mirrored AWS provider through the feature's steps (apply a
*before* configuration for prior state, run a Terraform command, plan with options) and
saves ``terraform show -json`` of the final plan as
``tests/policies/plans/features/<name>.json``, recording in that directory's
``MANIFEST.json`` the digest of everything that produced it
(``tests/policies/fixture_plans.py``). Nothing in a fixture is written by hand.

Feature directory ``tests/policies/features/<name>/``::

    feature.json   description, provider, steps (below)
    *.tf, */       files and module directories common to every step
    <phase>/*.tf   files only in one phase's configuration (``before/``, ``after/``, ...)

``feature.json``::

    {
      "description": "what the plan shows",
      "provider": "offline",          # or "localstack": prior state of real AWS resources
      "variables": {...},             # given to every step (optional)
      "steps": [                      # default: [{"plan": ""}] (the common files only)
        {"apply": "before"},                          # apply phase before/ (common files + before/*.tf)
        {"apply": "fail", "exit": 1},                 # an apply that is expected to fail
        {"terraform": ["state", "rm", "aws_sqs_queue.q"]},
        {"state": "save"}, {"state": "restore"},      # keep / put back terraform.tfstate
        {"plan": "after", "args": ["-replace=terraform_data.a"], "exit": 0}   # last, once
      ]
    }

Every step may carry ``args`` (extra command-line arguments), ``variables`` (added to the
feature's) and ``exit`` (the exit code Terraform must return; default 0). The plan step
always writes a plan file (``-out``): a failed plan (``"exit": 1``) whose file Terraform
still writes is an errored plan, and the fixture records the exit code.

Providers: ``offline`` configurations get ``tests/policies/configs/_provider/providers.tf``
(dummy credentials, no AWS calls: only ``terraform_data``, built-in and plan-only AWS
features); ``localstack`` ones ``tests/policies/updates/_provider/providers.tf`` and run
against the embedded LocalStack (``name_prefix`` is set to the feature's name), for prior
state of AWS resources. A feature has no providers.tf of its own.

Usage::

    .venv/bin/python -m tooling.plan_features             # every feature
    .venv/bin/python -m tooling.plan_features 'removed-*'  # by name (glob)
    .venv/bin/python -m tooling.plan_features --stale     # only missing or stale fixtures
    .venv/bin/python -m tooling.plan_features --check     # list stale fixtures; exit 1 if any
    .venv/bin/python -m tooling.plan_features --list
"""
from __future__ import annotations

import argparse
import contextlib
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tests.policies import fixture_plans
from tooling.terraform import REPO_ROOT, terraform_bin, terraform_env

FEATURES = REPO_ROOT / "tests" / "policies" / "features"
OUT = fixture_plans.PLANS / "features"
COMMAND = ".venv/bin/python -m tooling.plan_features"
PROVIDERS = {
    "offline": REPO_ROOT / "tests" / "policies" / "configs" / "_provider" / "providers.tf",
    "localstack": REPO_ROOT / "tests" / "policies" / "updates" / "_provider" / "providers.tf",
}
FEATURE_KEYS = {"description", "provider", "variables", "steps"}
STEP_KINDS = ("apply", "plan", "terraform", "state")
STEP_KEYS = {*STEP_KINDS, "args", "variables", "exit"}
PLAN_FILE = "feature.tfplan"
LOCALSTACK_PORT = 4566
# Terraform retries a failed AWS call 25 times by default; against LocalStack a failure is real
AWS_MAX_ATTEMPTS = "3"
# Terraform's own flags a step may not take: the tool sets them
_OWN_FLAGS = ("-out", "-input", "-auto-approve", "-no-color", "-var-file", "-json")


class FeatureError(Exception):
    """A feature is malformed or could not be planned; the message says which and why."""


@dataclass
class Feature:
    name: str
    directory: Path
    description: str
    provider: str
    variables: dict
    steps: list[dict] = field(default_factory=list)

    def phases(self) -> set[str]:
        return {s[k] for s in self.steps for k in ("apply", "plan") if k in s and s[k]}

    def provider_file(self) -> Path:
        return PROVIDERS[self.provider]

    def files(self) -> list[fixture_plans.Input]:
        """Every input of the fixture: the feature's files and the provider file as if it lay
        in the feature directory (see fixture_plans.Input)."""
        return [*fixture_plans.tree_files(self.directory), (self.directory / "providers.tf", self.provider_file())]

    def step_variables(self, step: dict) -> dict:
        out = dict(self.variables)
        if self.provider == "localstack":
            out.setdefault("name_prefix", self.name)
        out.update(step.get("variables") or {})
        return out


def load_feature(directory: Path) -> Feature:
    name = directory.name
    spec_path = directory / "feature.json"
    if not spec_path.exists():
        raise FeatureError(f"{name}: no feature.json in {directory}")
    try:
        spec = json.loads(spec_path.read_text())
    except ValueError as e:
        raise FeatureError(f"{name}: feature.json is not valid JSON ({e})") from None
    if not isinstance(spec, dict):
        raise FeatureError(f"{name}: feature.json must be an object")
    unknown = set(spec) - FEATURE_KEYS
    if unknown:
        raise FeatureError(f"{name}: feature.json has unknown key(s) {sorted(unknown)} (known: {sorted(FEATURE_KEYS)})")
    if not isinstance(spec.get("description"), str) or not spec["description"].strip():
        raise FeatureError(f"{name}: feature.json needs a description (what the plan shows)")
    provider = spec.get("provider", "offline")
    if provider not in PROVIDERS:
        raise FeatureError(f"{name}: provider {provider!r} is not one of {sorted(PROVIDERS)}")
    variables = spec.get("variables") or {}
    if not isinstance(variables, dict):
        raise FeatureError(f"{name}: variables must be an object")
    steps = spec.get("steps") or [{"plan": ""}]
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        raise FeatureError(f"{name}: steps must be a list of objects")
    for i, s in enumerate(steps):
        kinds = [k for k in STEP_KINDS if k in s]
        if len(kinds) != 1:
            raise FeatureError(f"{name}: steps[{i}] must have exactly one of {list(STEP_KINDS)}")
        if set(s) - STEP_KEYS:
            raise FeatureError(f"{name}: steps[{i}] has unknown key(s) {sorted(set(s) - STEP_KEYS)}")
        args = s.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise FeatureError(f"{name}: steps[{i}].args must be a list of strings")
        if any(a.split("=")[0] in _OWN_FLAGS for a in args):
            raise FeatureError(f"{name}: steps[{i}].args may not set {', '.join(_OWN_FLAGS)} (the tool sets them)")
        if kinds[0] == "terraform" and (not isinstance(s["terraform"], list) or not s["terraform"]):
            raise FeatureError(f"{name}: steps[{i}].terraform must be a non-empty list of arguments")
        if kinds[0] == "state" and s["state"] not in ("save", "restore"):
            raise FeatureError(f"{name}: steps[{i}].state must be save or restore")
        if kinds[0] in ("apply", "plan") and not isinstance(s[kinds[0]], str):
            raise FeatureError(f"{name}: steps[{i}].{kinds[0]} must name a phase directory ('' for the common files)")
    plans = [i for i, s in enumerate(steps) if "plan" in s]
    if plans != [len(steps) - 1]:
        raise FeatureError(f"{name}: the last step, and only it, must be a plan step")
    own = directory / "providers.tf"
    if own.exists():
        raise FeatureError(f"{name}: has a providers.tf of its own; features get "
                           f"{PROVIDERS[provider].relative_to(REPO_ROOT)}: put provider aliases in another file")
    ft = Feature(name, directory, spec["description"].strip(), provider, variables, steps)
    for phase in ft.phases():
        if not (directory / phase).is_dir():
            raise FeatureError(f"{name}: phase directory {phase}/ does not exist")
    return ft


def feature_dirs() -> list[Path]:
    if not FEATURES.is_dir():
        return []
    return sorted(p for p in FEATURES.iterdir() if p.is_dir() and (p / "feature.json").exists())


def features(patterns: list[str] | None = None) -> list[Feature]:
    found = [load_feature(d) for d in feature_dirs()]
    if not patterns:
        return found
    picked = [f for f in found if any(fnmatch.fnmatchcase(f.name, p) for p in patterns)]
    unmatched = [p for p in patterns if not any(fnmatch.fnmatchcase(f.name, p) for f in found)]
    if unmatched:
        raise FeatureError(f"no feature matches {unmatched} (features: {', '.join(f.name for f in found)})")
    return picked


def _variables_digest(ft: Feature) -> dict:
    return {"feature": ft.variables, "steps": [s.get("variables") or {} for s in ft.steps]}


def stale_reason(ft: Feature) -> str | None:
    manifest = fixture_plans.Manifest.load(OUT)
    return manifest.check_inputs(ft.name, ft.files(), _variables_digest(ft), ft.provider)


def stale(selected: list[Feature]) -> dict[str, str]:
    out = {ft.name: why for ft in selected if (why := stale_reason(ft))}
    manifest = fixture_plans.Manifest.load(OUT)
    if len(selected) == len(feature_dirs()):
        known = {ft.name for ft in selected}
        for name in sorted(set(manifest.fixtures) - known):
            out[name] = f"stale fixture {manifest._rel(name)}: no feature produces it any more; run `{COMMAND} --stale`"
    return out


# ------------------------------------------------------------------------------------------
# generation
# ------------------------------------------------------------------------------------------
_print_lock = threading.Lock()


def _say(msg: str) -> None:
    with _print_lock:
        print(msg, flush=True)


def _use_phase(ft: Feature, work: Path, phase: str) -> None:
    """Lay out the working directory as phase ``phase`` sees it: every common file and module
    directory of the feature, that phase's files on top, and the provider file."""
    for f in work.iterdir():
        if f.name.startswith(".terraform") or f.name.startswith("terraform.tfstate") or f.name in (PLAN_FILE, "saved.tfstate"):
            continue
        shutil.rmtree(f) if f.is_dir() and not f.is_symlink() else f.unlink()
    phases = ft.phases()
    for f in ft.directory.iterdir():
        if f.name == "feature.json" or f.name in phases:
            continue
        if f.is_dir():
            shutil.copytree(f, work / f.name)
        else:
            shutil.copy2(f, work / f.name)
    if phase:
        for f in (ft.directory / phase).iterdir():
            if (work / f.name).exists():
                raise FeatureError(f"{ft.name}: {phase}/{f.name} repeats a common file; rename one")
            shutil.copytree(f, work / f.name) if f.is_dir() else shutil.copy2(f, work / f.name)
    shutil.copy2(ft.provider_file(), work / "providers.tf")


def _run(ft: Feature, work: Path, env: dict, args: list[str], expect: int, what: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([terraform_bin(), *args], cwd=work, env=env, capture_output=True, text=True, timeout=900)
    if proc.returncode != expect:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-25:])
        raise FeatureError(f"{ft.name}: {what} exited {proc.returncode}, expected {expect}:\n{tail}")
    return proc


def _var_file(work: Path, variables: dict) -> list[str]:
    if not variables:
        return []
    path = work / "feature-vars.json"
    path.write_text(json.dumps(variables))
    return [f"-var-file={path.name}"]


def normalize(text: str, endpoint: str | None) -> str:
    """Replace the LocalStack instance's port by LocalStack's default one in a plan's JSON text."""
    if not endpoint:
        return text
    port = endpoint.rstrip("/").rsplit(":", 1)[-1]
    if not port.isdigit() or int(port) == LOCALSTACK_PORT:
        return text
    return re.sub(rf"(localhost\.localstack\.cloud|127\.0\.0\.1|localhost):{port}\b", rf"\1:{LOCALSTACK_PORT}", text)


def generate(ft: Feature, ls=None, keep: bool = False) -> tuple[dict, dict]:
    """Run the feature's steps in a fresh working directory; return (plan JSON, made_with)."""
    base = REPO_ROOT / ".plans"
    base.mkdir(exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"feature-{ft.name}-", dir=base))
    env = terraform_env({"TF_CLI_ARGS": ""})
    if ls is not None:
        env.update(ls.env())
        env["AWS_MAX_ATTEMPTS"] = AWS_MAX_ATTEMPTS
    initialized_for: str | None = None
    made_with: dict = {}
    try:
        for i, step in enumerate(ft.steps):
            kind = next(k for k in STEP_KINDS if k in step)
            expect = int(step.get("exit", 0))
            args = list(step.get("args") or [])
            if kind in ("apply", "plan"):
                phase = step[kind]
                if phase != initialized_for:
                    _use_phase(ft, work, phase)
                    _run(ft, work, env, ["init", "-input=false", "-no-color"], 0, f"steps[{i}] init ({phase or 'common'})")
                    initialized_for = phase
                var_args = _var_file(work, ft.step_variables(step))
                if kind == "apply":
                    _run(ft, work, env, ["apply", "-input=false", "-no-color", "-auto-approve", *var_args, *args], expect,
                         f"steps[{i}] apply {phase}")
                else:
                    proc = _run(ft, work, env, ["plan", "-input=false", "-no-color", f"-out={PLAN_FILE}", *var_args, *args],
                                expect, f"steps[{i}] plan {phase}")
                    made_with["plan_exit"] = proc.returncode
                    if not (work / PLAN_FILE).exists():
                        raise FeatureError(f"{ft.name}: the plan exited {proc.returncode} without writing a plan file")
                    shown = _run(ft, work, env, ["show", "-json", "-no-color", PLAN_FILE], 0, "show -json")
                    text = normalize(shown.stdout, ls.endpoint if ls is not None else None)
                    return json.loads(text), made_with
            elif kind == "terraform":
                var_args = _var_file(work, ft.step_variables(step)) if step["terraform"][0] in ("import",) else []
                _run(ft, work, env, [*step["terraform"], *var_args, *args], expect, f"steps[{i}] terraform {step['terraform'][0]}")
            else:
                state, saved = work / "terraform.tfstate", work / "saved.tfstate"
                if step["state"] == "save":
                    shutil.copy2(state, saved)
                else:
                    shutil.copy2(saved, state)
        raise FeatureError(f"{ft.name}: no plan step ran")
    finally:
        if ls is not None and ft.provider == "localstack":
            with contextlib.suppress(FeatureError, subprocess.SubprocessError):
                if (work / "terraform.tfstate").exists() and ls.external:
                    _run(ft, work, env, ["destroy", "-auto-approve", "-input=false", "-no-color",
                                         *_var_file(work, ft.step_variables({}))], 0, "destroy")
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            _say(f"{ft.name}: working directory kept at {work}")


_manifest_lock = threading.Lock()


def write(ft: Feature, doc: dict, made_with: dict, captured: list, environment: dict) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{ft.name}.json"
    old = json.loads(path.read_text()) if path.exists() else None
    if old is None or fixture_plans.normalized(old) != fixture_plans.normalized(doc):
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(fixture_plans.dump(doc))
        tmp.replace(path)
    with _manifest_lock:
        manifest = fixture_plans.Manifest.load(OUT)
        manifest.record(ft.name, captured, _variables_digest(ft), f"{COMMAND} {ft.name}", environment=environment,
                        extra=ft.provider, provider=ft.provider, description=ft.description, **made_with)
        manifest.save()
    return path


def summary(doc: dict) -> str:
    lines = []
    for rc in doc.get("resource_changes") or ():
        acts = "/".join(rc["change"]["actions"])
        extra = [x for x in (rc.get("action_reason"), rc.get("previous_address") and f"from {rc['previous_address']}",
                             rc.get("deposed") and f"deposed {rc['deposed']}", rc.get("importing") and "importing") if x]
        lines.append(f"  {acts:<14} {rc['address']}" + (f"  ({'; '.join(extra)})" if extra else ""))
    if doc.get("errored"):
        lines.append("  (errored)")
    return "\n".join(lines)


def run(selected: list[Feature], jobs: int, keep: bool) -> list[tuple[str, bool, str]]:
    environment = fixture_plans.environment()
    ls, key = None, f"plan-features-{os.getpid()}"
    if any(ft.provider == "localstack" for ft in selected):
        from tooling.localstack import LocalStackError, acquire_shared

        try:
            ls = acquire_shared(key, progress=lambda m: _say(f"==> {m}"))
        except LocalStackError as e:
            raise FeatureError(f"LocalStack could not be started: {e}") from None

    def one(ft: Feature) -> tuple[str, bool, str]:
        captured = ft.files()
        t0 = time.monotonic()
        try:
            doc, made_with = generate(ft, ls if ft.provider == "localstack" else None, keep)
        except FeatureError as e:
            _say(f"{ft.name}: FAILED\n{e}")
            return ft.name, False, str(e)
        path = write(ft, doc, made_with, captured, environment)
        _say(f"{ft.name}: wrote {path.relative_to(REPO_ROOT)} in {time.monotonic() - t0:.0f} s\n{summary(doc) or '  (no changes)'}")
        return ft.name, True, "written"

    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
            return list(ex.map(one, selected))
    finally:
        if ls is not None:
            from tooling.localstack import release_shared

            release_shared(key, ls)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tooling.plan_features", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="feature names or globs (default: all)")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="features planned at once (default 2)")
    ap.add_argument("--stale", action="store_true", help="only features whose fixture is missing or stale")
    ap.add_argument("--check", action="store_true", help="list stale fixtures and exit 1 if any (no Terraform)")
    ap.add_argument("--list", action="store_true", help="list the features")
    ap.add_argument("--keep", action="store_true", help="keep the working directories for inspection")
    args = ap.parse_args(argv)
    try:
        selected = features(args.names)
        if args.list:
            for ft in selected:
                print(f"{ft.name:<28} {ft.provider:<10} {ft.description}")
            return 0
        if args.check or args.stale:
            bad = stale(selected)
            if args.check:
                for why in bad.values():
                    print(why)
                print(f"{len(bad)} stale of {len(selected)}")
                return 1 if bad else 0
            selected = [f for f in selected if f.name in bad]
            if not selected:
                print("every plan-feature fixture is current")
                return 0
        t0 = time.monotonic()
        outcomes = run(selected, args.jobs, args.keep)
    except FeatureError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    failed = [n for n, ok, _ in outcomes if not ok]
    print(f"{len(outcomes) - len(failed)} done, {len(failed)} failed in {time.monotonic() - t0:.0f} s"
          + (f": {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
