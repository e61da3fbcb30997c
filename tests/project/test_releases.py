"""Releases: the documentation pins only refs that exist, and the version is one.

A module source in the documentation either shows a placeholder (`<release tag
or commit>`, `v<version>`) or names a tag of this repository; a documented
`?ref=v0.1.0` that was never tagged made `terraform init` fail for whoever copied it.
"""
from __future__ import annotations

import re
import subprocess

from tests.support.helpers import REPO_ROOT
from tooling import docs

REF = re.compile(r"[?&]ref=([^\"'\s)`]+)")


def _tags() -> set[str]:
    out = subprocess.run(["git", "tag", "--list"], cwd=REPO_ROOT, capture_output=True, text=True)
    return set(out.stdout.split()) if out.returncode == 0 else set()


def test_documented_refs_exist_or_are_placeholders():
    tags = _tags()
    bad = []
    for md in docs.doc_files():
        for n, line in enumerate(md.read_text().splitlines(), 1):
            for ref in REF.findall(line):
                if "<" in ref or ref in ("…", "...") or ref in tags:
                    continue
                bad.append(f"{md.relative_to(REPO_ROOT)}:{n}: ref={ref} is not a tag of this repository")
    assert bad == [], "documented refs that do not exist (use a placeholder such as <release tag or commit>):\n" + "\n".join(bad)


def test_the_ref_check_sees_a_missing_tag(tmp_path):
    """The check is not vacuous: a made-up version is not among the tags."""
    assert REF.findall('source = "git::https://x/resilient-sqs.git?ref=v99.0.0"') == ["v99.0.0"]
    assert "v99.0.0" not in _tags()


USES = re.compile(r"resilient-sqs@([^\"'\s)`]+)")
REV = re.compile(r"^\s*rev:\s*([^\s#]+)")


def test_documented_action_and_hook_pins_exist_or_are_placeholders():
    """`uses: <owner>/resilient-sqs@REF` and a pre-commit `rev: REF` name a tag or a placeholder
    (a documented @v0.1.0 that was never tagged failed for whoever copied it)."""
    tags = _tags()
    bad = []
    for md in docs.doc_files():
        for n, line in enumerate(md.read_text().splitlines(), 1):
            for ref in USES.findall(line) + REV.findall(line):
                if ref.startswith("<") or ref in tags:
                    continue
                bad.append(f"{md.relative_to(REPO_ROOT)}:{n}: {ref} is not a tag of this repository")
    assert bad == [], "documented pins that do not exist (write a placeholder such as <release tag or full commit SHA>):\n" + "\n".join(bad)
    assert USES.findall("uses: example/resilient-sqs@v99.0.0") == ["v99.0.0"] and "v99.0.0" not in tags
