"""The behaviour scenarios are files of one package (resilient_sqs/testing/scenarios/), each with
one Scenario record; the runner, the CLI's table and the documentation's tables read them."""
from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

import pytest

from resilient_sqs import facts
from resilient_sqs.testing import scenarios as S

PACKAGE = Path(S.__file__).parent


def test_every_module_of_the_package_is_one_scenario_in_the_catalog():
    modules = sorted(m.name for m in pkgutil.iter_modules([str(PACKAGE)]) if not m.name.startswith("_"))
    assert modules, "no scenario modules found"
    by_module = {m: S.by_name(m.replace("_", "-")) for m in modules}
    assert sorted(s.name for s in S.catalog()) == sorted(by_module[m].name for m in modules)
    assert [s.order for s in S.catalog()] == sorted(s.order for s in S.catalog())
    for s in S.catalog():
        assert s.summary and s.needs and callable(s.run), s.name


def test_a_new_scenario_file_is_discovered_and_appears_in_the_tables(tmp_path, monkeypatch):
    """Adding a scenario is adding a file: the catalog and both tables pick it up."""
    pkg = tmp_path / "scn"
    pkg.mkdir()
    for f in PACKAGE.glob("*.py"):
        (pkg / f.name).write_text(f.read_text())
    (pkg / "zz_new_check.py").write_text(
        "from . import PAIR, USES_SOURCE, Scenario\n\n"
        "SCENARIO = Scenario(name='zz-new-check', subject=PAIR, order=999, uses=USES_SOURCE,\n"
        "                    summary='a new promise | kept', needs='a queue', probes='', run=lambda ctx, p: 'ok')\n")
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("resilient_sqs.testing.zz_scn", pkg / "__init__.py",
                                                  submodule_search_locations=[str(pkg)])
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "resilient_sqs.testing.zz_scn", mod)
    spec.loader.exec_module(mod)
    assert mod.names()[-1] == "zz-new-check"
    assert "| `zz-new-check` | a new promise \\| kept |" in mod.table_rows()
    assert "| `zz-new-check` | queue | a new promise \\| kept | a queue | - |" in mod.table_rows(detail=True)


def test_a_module_without_a_record_is_refused(tmp_path, monkeypatch):
    pkg = tmp_path / "scn2"
    pkg.mkdir()
    for f in PACKAGE.glob("*.py"):
        (pkg / f.name).write_text(f.read_text())
    (pkg / "stray.py").write_text("X = 1\n")
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("resilient_sqs.testing.zz_scn2", pkg / "__init__.py",
                                                  submodule_search_locations=[str(pkg)])
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "resilient_sqs.testing.zz_scn2", mod)
    spec.loader.exec_module(mod)
    with pytest.raises(TypeError, match="stray: a scenario module holds one Scenario record named SCENARIO"):
        mod.catalog()


def test_bad_record_fields_are_refused():
    with pytest.raises(ValueError, match="uses 'queue' is not one of"):
        S.Scenario(name="x", subject=S.PAIR, needs="", order=0, summary="", probes="", uses="queue", run=print)
    with pytest.raises(ValueError, match="subject 'bucket'"):
        S.Scenario(name="x", subject="bucket", needs="", order=0, summary="", probes="", uses=S.USES_DLQ, run=print)


def _string_literals(path: Path) -> set[str]:
    return {n.value for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


@pytest.mark.parametrize("value", [facts.IDEMPOTENCY_EXPIRY_ATTRIBUTE, facts.IDEMPOTENCY_TABLE_PATTERN])
def test_facts_are_imported_not_restated(value):
    holders = [p.name for p in [*PACKAGE.glob("*.py"), PACKAGE.parent / "discover.py"] if value in _string_literals(p)]
    assert holders == [], f"{value!r} written as a literal in {holders}: import it from resilient_sqs.facts"


def test_the_tables_state_the_facts():
    assert f"TTL attribute `{facts.IDEMPOTENCY_EXPIRY_ATTRIBUTE}`" in S.table_rows()
    assert f"over {facts.SQS_MAX_MESSAGE_BYTES // 1024} KiB" in S.table_rows()
    assert f"`{facts.IDEMPOTENCY_TABLE_PATTERN}`" in S.table_rows(detail=True)
