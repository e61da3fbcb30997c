"""Committed plan fixtures and the manifests that say what produced them.

Plan JSONs the policy tests read without running Terraform live under
``tests/policies/plans/``:

* ``plans/<name>.json``: first-apply plans (of ``tests/policies/configs/<name>``);
* ``plans/update/<name>.json``: update plans, made by ``tooling/update_plans.py``
  against LocalStack, so ``prior_state`` is real (see that module).

Each directory holds a ``MANIFEST.json``::

    {
      "format": 1,
      "fixtures": {
        "<name>": {
          "digest": "sha256:<hex>",          # of inputs + settings + external, below
          "inputs": {"<repo-relative path>": "<sha256 of the file, 16 hex>", ...},
          "settings": {...},                 # variables and anything else that shapes the plan
          "external": {"<module dir name>": "sha256:<hex>" | null},
          "made_with": {"terraform": "1.11.4", "providers": {...}, ...},
          "regenerate": "<the command that remakes this fixture>"
        }
      }
    }

``inputs`` are the configuration's files and every file of the local modules it
reaches (``source = "./..."`` / ``"../..."``, followed recursively: their ``*.tf``
files and the files they name with ``${path.module}/...``). ``external`` are
modules from outside the repository (content digest; never copied in).
``made_with`` records the Terraform, provider and LocalStack versions that made the
plan; it is informative and not part of the digest (the fixture is a record of
what those versions planned; a different local Terraform does not make it wrong).

A fixture is *stale* when the digest recomputed from the files now differs from
the manifest's: :func:`check` then names the files that changed and the command
that regenerates it. An external module that is absent here cannot be checked
and is reported as such by :func:`external_status` (its pinned digest stays in
the manifest).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooling.terraform import REPO_ROOT

PLANS = Path(__file__).resolve().parent / "plans"
UPDATE_PLANS = PLANS / "update"
MANIFEST = "MANIFEST.json"
FORMAT = 1

_IGNORED_PARTS = {".terraform", "__pycache__", ".pytest_cache", ".git"}
_IGNORED_SUFFIXES = {".tfplan", ".tfstate", ".pyc", ".lock", ".tmp", ".backup"}
_TF_SUFFIXES = (".tf", ".tf.json")
_SOURCE = re.compile(r'^\s*source\s*=\s*"(\.{1,2}/[^"]*)"', re.M)
_PATH_MODULE = re.compile(r'\$\{path\.module\}/([^"$}*?\[\]]+)')


class StaleFixture(AssertionError):
    """A committed fixture no longer matches what produces it."""


def file_digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def _config_files(directory: Path) -> list[Path]:
    """Every file of a configuration directory that can change its plan (recursively)."""
    return sorted(
        p for p in directory.rglob("*")
        if p.is_file() and not (_IGNORED_PARTS & set(p.relative_to(directory).parts))
        and p.suffix not in _IGNORED_SUFFIXES and p.name != ".terraform.lock.hcl"
    )


def _module_files(directory: Path) -> list[Path]:
    """A module's Terraform files and the files it reads through ``${path.module}/...``."""
    files = sorted(p for p in directory.iterdir() if p.is_file() and p.name.endswith(_TF_SUFFIXES))
    extra = set()
    for f in files:
        for rel in _PATH_MODULE.findall(f.read_text(errors="replace")):
            target = (directory / rel).resolve()
            if target.is_file():
                extra.add(target)
            elif target.is_dir():
                extra.update(_config_files(target))
    return sorted(set(files) | extra)


def local_sources(tf_files: list[Path], base: Path | None = None) -> list[Path]:
    """Directories named by local module sources (``./x``, ``../y``) in these files, that exist.
    Sources are relative to ``base`` (default: each file's directory)."""
    out = []
    for f in tf_files:
        if not f.name.endswith(_TF_SUFFIXES):
            continue
        for src in _SOURCE.findall(f.read_text(errors="replace")):
            d = ((base or f.parent) / src.split("//")[0]).resolve()
            if d.is_dir():
                out.append(d)
    return out


def terraform_inputs(directory: Path, extra_files: list[Path] = ()) -> list[Path]:
    """The configuration's files plus every file of the local modules it reaches.

    Every ``*.tf`` file found under ``directory`` (subdirectories included: a
    scenario keeps per-phase files there) is read as part of the configuration
    rooted at ``directory``: its module sources are relative to it."""
    directory = Path(directory).resolve()
    files = set(_config_files(directory)) | {Path(p).resolve() for p in extra_files}
    todo = local_sources(sorted(files), base=directory)
    seen: set[Path] = set()
    while todo:
        d = todo.pop()
        if d in seen or d == directory:
            continue
        seen.add(d)
        mod = _module_files(d)
        files.update(mod)
        todo.extend(local_sources(mod))
    return sorted(files)


def tree_digest(directory: Path) -> str:
    """Content digest of a directory tree (relative paths and bytes)."""
    directory = Path(directory)
    h = hashlib.sha256()
    for f in _config_files(directory):
        h.update(str(f.relative_to(directory)).encode() + b"\0")
        h.update(f.read_bytes())
    return "sha256:" + h.hexdigest()


def _rel(path: Path) -> str:
    path = Path(path).resolve()
    try:
        return str(path.relative_to(REPO_ROOT))
    except ValueError:
        raise ValueError(f"{path} is outside the repository: pass it as an external module") from None


def entry(inputs: list[Path], settings: dict, external: dict[str, str | None], regenerate: str) -> dict:
    """A manifest entry (without ``made_with``) for a fixture produced from these inputs."""
    files = {_rel(p): file_digest(p) for p in inputs}
    return {
        "digest": combined_digest(files, settings, external),
        "inputs": dict(sorted(files.items())),
        "settings": settings,
        "external": dict(sorted(external.items())),
        "regenerate": regenerate,
    }


def combined_digest(files: dict[str, str], settings: dict, external: dict[str, str | None]) -> str:
    h = hashlib.sha256()
    h.update(f"format {FORMAT}\n".encode())
    for path, d in sorted(files.items()):
        h.update(f"{path}\0{d}\n".encode())
    h.update(json.dumps(settings, sort_keys=True).encode() + b"\n")
    for name, d in sorted(external.items()):
        h.update(f"external {name}\0{d}\n".encode())
    return "sha256:" + h.hexdigest()


@dataclass
class Manifest:
    directory: Path
    fixtures: dict[str, dict]

    @classmethod
    def load(cls, directory: Path) -> "Manifest":
        path = Path(directory) / MANIFEST
        if not path.exists():
            return cls(Path(directory), {})
        data = json.loads(path.read_text())
        if data.get("format") != FORMAT:
            raise StaleFixture(f"{path}: manifest format {data.get('format')!r}, expected {FORMAT}; regenerate the fixtures")
        return cls(Path(directory), data.get("fixtures") or {})

    def save(self) -> None:
        path = self.directory / MANIFEST
        self.directory.mkdir(parents=True, exist_ok=True)
        body = {"format": FORMAT, "fixtures": dict(sorted(self.fixtures.items()))}
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(body, indent=2) + "\n")
        tmp.replace(path)

    def plan_path(self, name: str) -> Path:
        return self.directory / f"{name}.json"


def stale_reason(recorded: dict | None, current: dict, where: str) -> str | None:
    """Why the recorded manifest entry does not match ``current`` (None when it does)."""
    how = f"run `{current['regenerate']}`"
    if recorded is None:
        return f"{where}: no fixture recorded in {MANIFEST}; {how}"
    if recorded.get("digest") == current["digest"]:
        return None
    old, new = recorded.get("inputs") or {}, current["inputs"]
    changed = sorted(p for p in new if p in old and old[p] != new[p])
    added = sorted(set(new) - set(old))
    removed = sorted(set(old) - set(new))
    parts = []
    if changed:
        parts.append(f"changed: {', '.join(changed)}")
    if added:
        parts.append(f"new: {', '.join(added)}")
    if removed:
        parts.append(f"gone: {', '.join(removed)}")
    if recorded.get("settings") != current["settings"]:
        parts.append("settings changed")
    for name, d in current["external"].items():
        was = (recorded.get("external") or {}).get(name)
        if d is not None and was != d:
            parts.append(f"external module {name} changed")
    if set(current["external"]) != set(recorded.get("external") or {}):
        parts.append("external modules changed")
    return f"stale fixture {where} ({'; '.join(parts) or 'digest differs'}): {how}"


def reconcile_external(recorded: dict | None, current: dict) -> dict:
    """``current`` with the recorded digest of each external module that is absent here.

    An absent external module cannot be read, so its part of the digest is taken
    from the manifest: the rest of the inputs are still checked.
    """
    ext = dict(current["external"])
    for name, d in ext.items():
        if d is None:
            ext[name] = ((recorded or {}).get("external") or {}).get(name)
    files = current["inputs"]
    return {**current, "external": ext, "digest": combined_digest(files, current["settings"], ext)}


def external_status(current: dict) -> list[str]:
    """External modules that are not present here (their content could not be checked)."""
    return sorted(n for n, d in current["external"].items() if d is None)


def check(directory: Path, name: str, current: dict) -> Path:
    """The fixture's path if it exists and matches ``current``; else :class:`StaleFixture`."""
    manifest = Manifest.load(directory)
    recorded = manifest.fixtures.get(name)
    where = f"{Path(directory).relative_to(REPO_ROOT)}/{name}.json"
    reason = stale_reason(recorded, reconcile_external(recorded, current), where)
    if reason:
        raise StaleFixture(reason)
    path = manifest.plan_path(name)
    if not path.exists():
        raise StaleFixture(f"{where} is listed in {MANIFEST} but missing; run `{current['regenerate']}`")
    return path


def load(directory: Path, name: str, current: dict) -> dict[str, Any]:
    """The fixture's plan JSON, after checking that it is not stale."""
    return json.loads(check(directory, name, current).read_text())


def update_plan_names() -> list[str]:
    """Names of the update-plan scenarios (tests/policies/updates/*), each with a fixture."""
    from tooling import update_plans

    return [p.name for p in update_plans.scenario_dirs()]


def update_plan(name: str) -> dict[str, Any]:
    """The update-plan fixture of scenario ``name``, checked against its inputs first
    (:class:`StaleFixture` names what changed and the command that regenerates it)."""
    from tooling import update_plans

    sc = update_plans.load_scenario(update_plans.SCENARIOS / name)
    return load(UPDATE_PLANS, name, update_plans.manifest_entry(sc))
