"""python-hcl2's parser tables where its own cache cannot be written (policies/source/tree.py).

A read-only install (a container image, a shared virtualenv) made every check with
--source-dir build the LALR tables again: 2.4 s of a 0.2 s check (tooling/bench_batch.py).
The tables are then kept in the user's cache directory instead."""
from __future__ import annotations

import os

import pytest

from resilient_sqs.policy.source import tree

TEXT = '''resource "aws_sqs_queue" "q" {
  name = "${var.prefix}-q"
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 5 })
  tags = { for k, v in var.tags : k => v if v != null }
}
'''


@pytest.fixture
def read_only_install(monkeypatch, tmp_path):
    import hcl2.parser

    hcl2.parser.parser()  # python-hcl2's own parser, from its own cache, before the install turns read-only
    monkeypatch.setattr(hcl2.parser, "PARSER_FILE", tmp_path / "absent-dir" / ".lark_cache.bin")
    monkeypatch.setattr(tree, "_PARSER", None)
    cache = tmp_path / "cache"
    monkeypatch.setenv("SQS_POLICY_CACHE_DIR", str(cache))
    return cache


def test_tables_are_cached_in_the_user_cache_dir(read_only_install):
    """Built once (the seconds a check paid every time before), written to the cache
    directory, loaded by the next check; the parser is python-hcl2's own."""
    from hcl2.api import parses_to_tree

    parse = tree._parser()
    assert parse is not parses_to_tree
    cached = list(read_only_install.glob("hcl2-*.lark"))
    assert len(cached) == 1 and cached[0].stat().st_size > 100_000
    assert read_only_install.stat().st_mode & 0o777 == 0o700
    assert parse(TEXT) == parses_to_tree(TEXT)  # the same parser: the same tree, positions included
    tree._PARSER = None  # the next check
    mtime = cached[0].stat().st_mtime_ns
    assert tree._parser()(TEXT) == parses_to_tree(TEXT)
    assert cached[0].stat().st_mtime_ns == mtime  # loaded, not built and written again


def test_a_cache_dir_others_may_write_is_not_used(read_only_install, monkeypatch):
    from hcl2.api import parses_to_tree

    read_only_install.mkdir(mode=0o777)
    os.chmod(read_only_install, 0o777)  # a pickle from there could be anyone's
    assert tree.cache_dir() is None
    assert tree._parser() is parses_to_tree  # python-hcl2 as it is: slower, never unsafe
    assert not list(read_only_install.iterdir())
    not_a_dir = read_only_install.parent / "file"
    not_a_dir.write_text("")
    monkeypatch.setenv("SQS_POLICY_CACHE_DIR", str(not_a_dir))
    assert tree.cache_dir() is None


def test_a_writable_install_keeps_python_hcl2s_own_cache(monkeypatch, tmp_path):
    import hcl2.parser
    from hcl2.api import parses_to_tree

    monkeypatch.setattr(hcl2.parser, "PARSER_FILE", tmp_path / ".lark_cache.bin")  # a writable directory
    monkeypatch.setenv("SQS_POLICY_CACHE_DIR", str(tmp_path / "cache"))
    assert tree._parser() is parses_to_tree
    assert not (tmp_path / "cache").exists()
