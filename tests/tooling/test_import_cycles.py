"""The project's Python packages import each other without cycles (issue 36 §2), as
tooling.import_cycles reads them; and that reader finds a cycle when there is one."""
from __future__ import annotations

from pathlib import Path

from tooling import import_cycles

REPO = Path(__file__).resolve().parents[2]


def test_the_packages_have_no_import_cycle():
    assert import_cycles.cycles(import_cycles.graph(REPO)) == []


def test_a_cycle_is_found_through_relative_imports_aliases_and_type_checking(tmp_path):
    (tmp_path / "policies" / "model").mkdir(parents=True)
    (tmp_path / "resilient_sqs").mkdir()
    (tmp_path / "tooling").mkdir()
    for d in ("policies", "policies/model", "resilient_sqs", "tooling"):
        (tmp_path / d / "__init__.py").write_text("")
    (tmp_path / "policies" / "engine.py").write_text("from .model import queues\n")
    (tmp_path / "policies" / "model" / "queues.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from resilient_sqs.policy.engine import x\n")
    (tmp_path / "tooling" / "a.py").write_text("def f():\n    from tooling import b\n")
    (tmp_path / "tooling" / "b.py").write_text("import tooling.a\n")
    found = import_cycles.cycles(import_cycles.graph(tmp_path))
    assert found == [["policies.engine", "policies.model.queues"], ["tooling.a", "tooling.b"]]
    assert import_cycles.cycles(import_cycles.graph(tmp_path, runtime=True)) == [["tooling.a", "tooling.b"]]
    assert import_cycles.cycles(import_cycles.graph(tmp_path, top_level=True)) == []
