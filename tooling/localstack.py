"""This repository's embedded LocalStack: the shipped launcher (``resilient_sqs.testing.localstack``)
with the repository's settings: the venv ``.venv-localstack`` (or ``$LOCALSTACK_VENV``) and the
instances in ``.localstack/`` (or ``$LOCALSTACK_STATE_DIR``).

``SETTINGS`` is passed to the shipped functions (``LAUNCHER`` holds them bound to it); a test that
needs other directories builds its own ``Launcher(dataclasses.replace(SETTINGS, ...))``.

CLI: ``python -m tooling.localstack install|start|stop|status|env|cleanup`` (the Makefile's
``make localstack`` runs ``install``).
"""
from __future__ import annotations

import sys
from pathlib import Path

from resilient_sqs.testing.localstack import (  # noqa: F401 - re-exported for the tests and scripts
    ACCOUNT_ID,
    LOCALSTACK_VERSION,
    REGION,
    Launcher,
    LocalStack,
    LocalStackError,
    Settings,
    external_endpoint,
    health,
)
from resilient_sqs.testing.localstack.settings import CONSTRAINTS  # noqa: F401

REPO_ROOT = Path(__file__).resolve().parent.parent

SETTINGS = Settings.from_env(REPO_ROOT / ".venv-localstack", REPO_ROOT / ".localstack", cli_name="python -m tooling.localstack")
LAUNCHER = Launcher(SETTINGS)

install = LAUNCHER.install
start = LAUNCHER.start
cleanup_stale = LAUNCHER.cleanup_stale
acquire_shared = LAUNCHER.acquire_shared
release_shared = LAUNCHER.release_shared

if __name__ == "__main__":
    sys.exit(LAUNCHER.main())
