"""`--dist loadgroup` really groups: tests marked ``xdist_group`` run on one worker.

The suite relies on it (the tests of one `terraform test` or of one replay share a
module-scoped result and must not be split across workers), and when it stops
working nothing fails: the tests are only scheduled round-robin and each worker
pays for the shared work again. pytest 9.2 with pytest-xdist 3.8 is such a pair
(pytest-dev/pytest-xdist#1386: xdist marks a group by rewriting ``item._nodeid``,
which pytest 9.2 no longer reads); requirements.txt pins a pair that works. This
test runs the pinned pytest and xdist on a small tree and fails if they stop grouping.
"""
from __future__ import annotations

import re
import subprocess
import sys

TESTS = '''
import pytest

@pytest.mark.xdist_group("shared")
@pytest.mark.parametrize("i", range(4))
def test_grouped(i):
    pass

@pytest.mark.parametrize("i", range(4))
def test_free(i):
    pass
'''


def test_loadgroup_runs_a_group_on_one_worker(tmp_path):
    for name in ("test_a.py", "test_b.py"):
        (tmp_path / name).write_text(TESTS)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    ran = re.findall(r"\[(gw\d+)\] \[ *\d+%\] PASSED \S*::(test_\w+)\[", result.stdout)
    assert len(ran) == 16, f"expected 16 passed tests in the verbose report:\n{result.stdout[-3000:]}"
    grouped = {worker for worker, test in ran if test == "test_grouped"}
    assert len(grouped) == 1, f"the xdist_group was split across workers {sorted(grouped)}: loadgroup does not group\n{result.stdout[-3000:]}"
    # and the run had two workers to split it over
    assert {worker for worker, _ in ran} == {"gw0", "gw1"}, result.stdout[-3000:]
