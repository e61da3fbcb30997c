"""Committed plan fixtures: plan JSONs kept in the repository so the policy engine's
tests run without Terraform, with a manifest that says what produced each one.

Layout (one directory per kind of plan)::

    tests/policies/plans/<name>.json            first-apply plans (this module regenerates them)
    tests/policies/plans/MANIFEST.json
    tests/policies/plans/update/<name>.json     update plans (real prior state), same manifest format
    tests/policies/plans/update/MANIFEST.json

MANIFEST.json::

    {
      "format": 1,
      "fixtures": {
        "<name>": {
          "inputs": "<sha256 of the files and variables that produced it>",
          "files": ["<repo-relative path>", ...],    # what the digest covers, for people
          "variables": {...},
          "environment": {"terraform": "Terraform v1.11.4", "providers": {"<source>": ["<version>"]}},
          "regenerate": "<the command that rewrites this fixture>",
          ...                                        # anything else the producer wants to record
        }
      }
    }

The ``inputs`` digest covers file contents (and repo-relative paths) and variables only,
so a machine without Terraform can tell a fixture is stale (`check_inputs`). The Terraform
and provider versions are recorded beside it and compared where Terraform runs
(`check_environment`). A stale fixture fails with "stale fixture <path>: ... run `<command>`".

``python -m tests.policies.fixture_plans`` (``make fixture-plans``) re-plans every
first-apply fixture (through the shared plan cache) and rewrites the directory; a plan
equal to the committed one apart from its timestamp and list order is left untouched.
"""
from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from tooling.terraform import REPO_ROOT, SUPPLIED_PROVIDER, offline_provider_override, supplied_provider

FORMAT = 1
PLANS = Path(__file__).parent / "plans"
REGENERATE = "make fixture-plans"
# not inputs of a plan
_SKIP_PARTS = {".terraform", "__pycache__", "tests", ".pytest_cache"}
_SKIP_SUFFIXES = {".md", ".tfplan", ".tfstate", ".pyc", ".lock", ".tmp", ".backup"}
_LOCAL_SOURCE = re.compile(r'^\s*source\s*=\s*"(\.{1,2}/[^"]*)"', re.M)


# ------------------------------------------------------------------------------------------
# digests
# ------------------------------------------------------------------------------------------
def _files_of(directory: Path, top_level_only: bool) -> list[Path]:
    if top_level_only:
        return sorted(p for p in directory.glob("*.tf") if p.is_file())
    return sorted(
        p for p in directory.rglob("*")
        if p.is_file() and not (_SKIP_PARTS & set(p.relative_to(directory).parts))
        and p.suffix not in _SKIP_SUFFIXES and p.name != ".terraform.lock.hcl" and not p.name.endswith(".tfstate.backup")
    )


def configuration_files(directory: Path) -> list[Path]:
    """The files a plan of ``directory`` depends on: its own files and, recursively, those of
    every local module it calls (``source = "./..."`` or ``"../..."``). For the repository
    root, which holds everything else too, only its ``*.tf`` files count."""
    seen: set[Path] = set()
    files: list[Path] = []
    todo = [Path(directory).resolve()]
    while todo:
        d = todo.pop()
        if d in seen:
            continue
        seen.add(d)
        own = _files_of(d, top_level_only=(d == REPO_ROOT))
        files += own
        for tf in (f for f in own if f.suffix == ".tf"):
            for src in _LOCAL_SOURCE.findall(tf.read_text()):
                todo.append((tf.parent / src).resolve())
    return sorted(set(files))


# An input file: a path, or ``(where it lands, the file it is copied from)`` for a file the
# planning tooling adds to the configuration (its kind's provider file): digested, and listed
# in the manifest, as if it lay where it lands, so moving a copy out of a fixture directory
# into the shared file changes nothing.
Input = Path | tuple[Path, Path]


def _named(files: list[Input]) -> list[tuple[str, Path]]:
    """(repo-relative name, file to read) of each input, in path order (by path components)."""
    pairs = sorted(((Path(f[0]).resolve(), Path(f[1])) if isinstance(f, tuple) else (Path(f).resolve(), Path(f))
                    for f in files), key=lambda pair: pair[0])
    return [(str(name.relative_to(REPO_ROOT)), src) for name, src in pairs]


def supplied_files(directory: Path) -> list[tuple[Path, Path]]:
    """What the planning tooling adds to ``directory`` (:func:`tooling.terraform.supplied_provider`),
    as inputs: ``[(directory/providers.tf, the shared file)]`` for a fixture configuration, else []."""
    provider = supplied_provider(directory)
    return [(Path(directory).resolve() / SUPPLIED_PROVIDER, provider)] if provider is not None else []


def digest(files: list[Input], variables: dict | None = None, extra: str = "") -> str:
    """sha256 over each file's repo-relative path and bytes, the variables and ``extra``."""
    h = hashlib.sha256()
    for name, src in _named(files):
        h.update(name.encode() + b"\0")
        h.update(src.read_bytes() + b"\0")
    h.update(json.dumps(variables or {}, sort_keys=True).encode() + b"\0")
    h.update(extra.encode())
    return "sha256:" + h.hexdigest()


def environment() -> dict:
    """Terraform's version and the providers of the local mirror (runs `terraform version`)."""
    import subprocess

    from tooling.terraform import MIRROR_DIR, mirrored_providers, terraform_bin, terraform_env

    version = subprocess.run([terraform_bin(), "version"], capture_output=True, text=True,
                             env=terraform_env()).stdout.split("\n")[0].strip()
    providers = {p: sorted(x.name for x in (MIRROR_DIR / p).iterdir()) for p in mirrored_providers()}
    return {"terraform": version, "providers": providers}


# ------------------------------------------------------------------------------------------
# plans compared as plans
# ------------------------------------------------------------------------------------------
def normalized(plan: dict) -> dict:
    """A plan without what differs between two plans of the same inputs: its timestamp,
    and the order of lists of objects (Terraform lists module resources in varying order)."""

    def norm(v):
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items()}
        if isinstance(v, list):
            items = [norm(x) for x in v]
            if items and all(isinstance(x, dict) for x in items):
                items.sort(key=lambda x: json.dumps(x, sort_keys=True))
            return items
        return v

    return norm({k: v for k, v in plan.items() if k != "timestamp"})


def dump(plan: dict) -> str:
    """How a plan is committed: Terraform's key order, one value per line (readable diffs)."""
    return json.dumps(plan, indent=1, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------------------------------
# the manifest
# ------------------------------------------------------------------------------------------
@dataclass
class Manifest:
    directory: Path
    fixtures: dict[str, dict]

    @classmethod
    def load(cls, directory: Path) -> "Manifest":
        path = Path(directory) / "MANIFEST.json"
        if not path.exists():
            return cls(Path(directory), {})
        doc = json.loads(path.read_text())
        if doc.get("format") != FORMAT:
            raise ValueError(f"{path}: manifest format {doc.get('format')!r}, expected {FORMAT}")
        return cls(Path(directory), doc["fixtures"])

    def save(self) -> None:
        doc = {"format": FORMAT, "fixtures": {k: self.fixtures[k] for k in sorted(self.fixtures)}}
        (self.directory / "MANIFEST.json").write_text(json.dumps(doc, indent=2) + "\n")

    def path(self, name: str) -> Path:
        return self.directory / f"{name}.json"

    def record(self, name: str, files: list[Input], variables: dict | None, regenerate: str,
               environment: dict | None = None, extra: str = "", **more) -> None:
        self.fixtures[name] = {
            "inputs": digest(files, variables, extra),
            "files": [n for n, _ in _named(files)],
            "variables": variables or {},
            **({"environment": environment} if environment is not None else {}),
            "regenerate": regenerate,
            **more,
        }

    def _rel(self, name: str) -> str:
        return str(self.path(name).relative_to(REPO_ROOT))

    def check_inputs(self, name: str, files: list[Input], variables: dict | None, extra: str = "") -> str | None:
        """None when the fixture exists and its inputs are unchanged, else why it is stale."""
        entry = self.fixtures.get(name)
        command = entry.get("regenerate", REGENERATE) if entry else REGENERATE
        if entry is None or not self.path(name).exists():
            return f"stale fixture {self._rel(name)}: not committed yet; run `{command}`"
        if entry["inputs"] != digest(files, variables, extra):
            now = {n for n, _ in _named(files)}
            was = set(entry.get("files", []))
            changed = sorted(now ^ was) or ["file contents or variables"]
            return f"stale fixture {self._rel(name)}: its inputs changed ({', '.join(changed[:5])}); run `{command}`"
        return None

    def check_environment(self, name: str, env: dict) -> str | None:
        entry = self.fixtures.get(name) or {}
        if entry.get("environment") not in (None, env):
            return (f"stale fixture {self._rel(name)}: planned with {entry['environment']}, this machine has {env}; "
                    f"run `{entry.get('regenerate', REGENERATE)}`")
        return None


# ------------------------------------------------------------------------------------------
# the first-apply fixtures of tests/policies/plans
# ------------------------------------------------------------------------------------------
def fixture_name(subject: str) -> str:
    """``config:<name>`` -> ``<name>`` (the convention for tests/policies/configs); other
    subjects get their kind as a prefix: ``example:basic`` -> ``example-basic``."""
    kind, _, rest = subject.partition(":")
    return rest if kind == "config" else f"{kind}-{rest}".replace(":", "-")


def inputs_of(subject: str) -> tuple[list[Input], dict, str]:
    from tests.policies import plans

    directory, variables, offline = plans.subjects()[subject]
    return ([*configuration_files(directory), *supplied_files(directory)], variables,
            offline_provider_override() if offline else "")


def regenerate(subjects: list[str] | None = None) -> list[str]:
    """Re-plan (through the plan cache) and rewrite the committed fixtures; return the
    names whose files changed. Fixtures of subjects that no longer exist are removed."""
    from tests.policies import plans

    every = plans.subjects()
    names = {fixture_name(s): s for s in every}
    assert len(names) == len(every), f"two subjects share a fixture name: {sorted(every)}"
    PLANS.mkdir(exist_ok=True)
    manifest = Manifest.load(PLANS)
    env = environment()
    changed = []
    chosen = subjects or list(every)
    fresh = plans.ensure_fresh(chosen)
    for subject in chosen:
        name = fixture_name(subject)
        doc = json.loads(fresh[subject].read_text())
        path = manifest.path(name)
        old = json.loads(path.read_text()) if path.exists() else None
        if old is None or normalized(old) != normalized(doc):
            path.write_text(dump(doc))
            changed.append(name)
        files, variables, extra = inputs_of(subject)
        manifest.record(name, files, variables, REGENERATE, environment=env, extra=extra, subject=subject)
    if subjects is None:
        for name in set(manifest.fixtures) - set(names):
            manifest.fixtures.pop(name)
            manifest.path(name).unlink(missing_ok=True)
            changed.append(name)
    manifest.save()
    return changed


def stale() -> list[str]:
    """Why each first-apply fixture is stale (empty when all are current); no Terraform needed."""
    from tests.policies import plans

    manifest = Manifest.load(PLANS)
    problems = []
    for subject in plans.subjects():
        files, variables, extra = inputs_of(subject)
        problem = manifest.check_inputs(fixture_name(subject), files, variables, extra)
        if problem:
            problems.append(problem)
    known = {fixture_name(s) for s in plans.subjects()}
    for name in sorted(set(manifest.fixtures) - known):
        problems.append(f"stale fixture {manifest._rel(name)}: no subject produces it any more; run `{REGENERATE}`")
    committed = {p.stem for p in PLANS.glob("*.json") if p.name != "MANIFEST.json"}
    for name in sorted(committed - set(manifest.fixtures)):
        problems.append(f"stale fixture {manifest._rel(name)}: not in MANIFEST.json; run `{REGENERATE}`")
    return problems


# ------------------------------------------------------------------------------------------
# the update plans of tests/policies/plans/update (real prior state; tooling/update_plans.py)
# ------------------------------------------------------------------------------------------
UPDATE_PLANS = PLANS / "update"


class StaleFixture(AssertionError):
    """A committed fixture no longer matches what produces it (the message says how to fix it)."""


def tree_files(directory: Path) -> list[Path]:
    """Every file of a configuration directory that can change its plan (recursively)."""
    return _files_of(Path(directory), top_level_only=False)


def local_sources(tf_file: Path, base: Path | None = None) -> list[Path]:
    """Existing directories named by the local module sources of one ``*.tf`` file, relative
    to ``base`` (default: the file's directory)."""
    out = []
    for src in _LOCAL_SOURCE.findall(Path(tf_file).read_text()):
        d = ((base or Path(tf_file).parent) / src).resolve()
        if d.is_dir():
            out.append(d)
    return out


def update_plan_names() -> list[str]:
    """The update-plan scenarios (tests/policies/updates/*), one fixture each."""
    from tooling import update_plans

    return [p.name for p in update_plans.scenario_dirs()]


def update_plan(name: str) -> dict:
    """The update-plan fixture of scenario ``name``, after checking its inputs' digest
    (:class:`StaleFixture` names what changed and the command that regenerates it)."""
    from tooling import update_plans

    problem = update_plans.stale_reason(update_plans.load_scenario(update_plans.SCENARIOS / name))
    if problem:
        raise StaleFixture(problem)
    return json.loads(Manifest.load(UPDATE_PLANS).path(name).read_text())


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Regenerate the committed plan fixtures (tests/policies/plans).")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a fixture is stale")
    parser.add_argument("subjects", nargs="*", help="only these subjects (e.g. config:queue-bad); default: all")
    args = parser.parse_args(argv)
    if args.check:
        problems = stale()
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    changed = regenerate(args.subjects or None)
    print(f"{len(changed)} fixture(s) rewritten: {', '.join(changed) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
