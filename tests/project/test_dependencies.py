"""What `pip install resilient-sqs` puts into site-packages: the checker's dependency closure
and the top-level import names each distribution installs.

A generic top-level name (``cli``, ``utils``...) collides with any other distribution or
project that has one. python-hcl2 8.1.x installs a top-level ``cli`` package (its console
scripts); upstream moved it to ``hcl2.cli`` (amplify-education/python-hcl2#359, for 8.2.0);
python-hcl2 7.x lacks it but also the parser API the source reader uses. So it is allowed
here, documented in README.md, and any other new top-level name fails this test until someone
looks at it.
"""
from __future__ import annotations

import importlib.metadata as md
import re

from packaging.requirements import Requirement

from tests.support.helpers import REPO_ROOT

# distribution -> the top-level names it may install
ALLOWED = {
    "attrs": {"attr", "attrs"},
    "google-re2": {"re2"},
    "jsonschema": {"jsonschema"},
    "jsonschema-specifications": {"jsonschema_specifications"},
    "lark": {"lark"},
    "python-hcl2": {"hcl2", "cli"},  # cli: until python-hcl2 8.2.0 (see above)
    "pyyaml": {"yaml", "_yaml"},
    "referencing": {"referencing"},
    "regex": {"regex"},
    "rpds-py": {"rpds"},
    "typing-extensions": {"typing_extensions"},
}
GENERIC = {"cli", "utils", "util", "common", "test", "tests", "lib", "src", "helpers", "core", "scripts", "tools",
           "docs", "examples", "main", "app", "config", "bin", "models", "api"}


def _closure(name: str, seen: dict) -> dict:
    d = md.distribution(name)
    key = d.metadata["Name"].lower().replace("_", "-")
    if key not in seen:
        seen[key] = d
        for r in d.requires or ():
            req = Requirement(r)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                _closure(req.name, seen)
    return seen


def _top_level(d) -> set[str]:
    return {f.parts[0].removesuffix(".py") for f in (d.files or ())
            if f.parts and f.parts[0] != ".." and not f.parts[0].endswith((".dist-info", ".data"))
            and not f.parts[0].startswith("__")}


def test_install_brings_exactly_the_documented_dependencies():
    deps = _closure("resilient-sqs", {})
    deps.pop("resilient-sqs")
    assert set(deps) == set(ALLOWED), (
        f"the checker's dependency closure changed: {sorted(set(deps) ^ set(ALLOWED))}; "
        "review the new ones' top-level names and update README.md (Plan policy checks) and ALLOWED")


def test_no_dependency_installs_an_unexpected_top_level_name():
    for key, d in _closure("resilient-sqs", {}).items():
        if key == "resilient-sqs":
            continue
        extra = _top_level(d) - ALLOWED.get(key, set())
        assert not extra, f"{key} {d.version} installs top-level {sorted(extra)}" + (
            " (a generic name that collides with other projects)" if extra & GENERIC else "")


def test_generic_names_installed_are_the_documented_ones():
    """The generic top-level names the installed closure really brings are the ones docs/policy.md
    ("Installing") warns about: a new one needs the warning, and one that goes (python-hcl2 8.2.0
    moves `cli` to `hcl2.cli`) takes its warning and its ALLOWED entry with it."""
    installed = {n for key, d in _closure("resilient-sqs", {}).items() if key != "resilient-sqs"
                 for n in _top_level(d) & GENERIC}
    installing = (REPO_ROOT / "docs" / "policy.md").read_text().split("## Installing", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"installs a top-level package named `(\w+)`", " ".join(installing.split())))
    assert installed == documented, f"installed generic top-level names {sorted(installed)}, documented {sorted(documented)}"
