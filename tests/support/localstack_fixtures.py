"""Fixtures of the LocalStack tier (tests marked ``localstack``, in the folders of their subjects),
a pytest plugin that tests/conftest.py loads for the whole suite.

* ``localstack``: ONE LocalStack for the whole test run, shared by all pytest-xdist
  workers. The first worker that needs it starts it (under a file lock, keyed by
  xdist's test-run id); each worker registers its PID; the last worker to finish
  stops it. If the run is killed, the instance notices that its workers are gone
  and stops itself. With ``LOCALSTACK_ENDPOINT`` (or an ``AWS_ENDPOINT_URL`` that
  answers as LocalStack) that LocalStack is used and nothing is started.
* ``applied``: ``applied("basic")`` applies ``examples/basic`` (a copy, with a
  unique ``name_prefix``) once per worker and hands the same applied copy to every
  test that asks; the copies are destroyed at the end of the session. Tests on
  one example carry ``example_group(<example>)`` (tests/support/localstack.py:
  ``xdist_group("localstack-<example>")``) so they all land on the worker that applied
  it, whichever folder they are in; different examples apply in parallel.
* Tests named ``test_destroy_leaves_nothing_behind`` run after every other test
  (their group's behaviour tests need the applied example first).
"""
from __future__ import annotations

import uuid

import pytest

from tests.support.helpers import EXAMPLES
from tests.support.localstack import ALARM_TAGS_DROPPED, AppliedExample, alarm_tags_dropped, session
from tooling.localstack import LocalStackError, acquire_shared, release_shared

DESTROY_TEST = "test_destroy_leaves_nothing_behind"


def pytest_collection_modifyitems(config, items):
    # stable sort: destroy tests move to the end, everything else keeps its order
    items.sort(key=lambda item: getattr(item, "originalname", item.name) == DESTROY_TEST)


def _run_key(config) -> str:
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        return f"pytest-{workerinput['testrunuid']}"
    if not hasattr(config, "_localstack_run_key"):
        config._localstack_run_key = f"pytest-{uuid.uuid4().hex}"
    return config._localstack_run_key


@pytest.fixture(scope="session")
def localstack(request):
    key = _run_key(request.config)
    try:
        ls = acquire_shared(key)
    except LocalStackError as exc:
        pytest.fail(f"LocalStack could not be started: {exc}", pytrace=False)
    yield ls
    release_shared(key, ls)


@pytest.fixture(scope="session")
def aws(localstack):
    """localstack-client session with LocalStack's default ("test") credentials."""
    return session(localstack)


@pytest.fixture(scope="session")
def known_differences(aws):
    """The LocalStack defects a re-plan may show: only those the running LocalStack has (probed)."""
    return (ALARM_TAGS_DROPPED,) if alarm_tags_dropped(aws) else ()


@pytest.fixture(scope="session")
def applied(localstack):
    cache: dict[str, AppliedExample] = {}
    failures: dict[str, BaseException] = {}

    def get(name: str) -> AppliedExample:
        if name in failures:
            pytest.fail(f"examples/{name} failed to apply earlier in this session: {failures[name]}", pytrace=False)
        if name not in cache:
            ex = AppliedExample(EXAMPLES / name, localstack)
            cache[name] = ex
            try:
                ex.apply()
            except Exception as exc:
                failures[name] = exc
                raise
        return cache[name]

    yield get
    for ex in cache.values():
        ex.close()
