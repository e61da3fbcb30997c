"""This repository's embedded LocalStack: the shipped launcher (``resilient_sqs/testing/localstack.py``)
with the repository's directories: the venv ``.venv-localstack`` (or ``$LOCALSTACK_VENV``) and
the instances in ``.localstack/`` (or ``$LOCALSTACK_STATE_DIR``).

``tooling.localstack`` IS the shipped module (one launcher, not two): importing this module
configures it and hands it back, so ``tooling.localstack.start`` and a monkeypatched
``tooling.localstack.STATE_ROOT`` are the shipped ones.

CLI: ``python -m tooling.localstack install|start|stop|status|env|cleanup`` (the Makefile's
``make localstack`` runs ``install``).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from resilient_sqs.testing import localstack as _shipped

REPO_ROOT = Path(__file__).resolve().parent.parent

# configured once, by the first import (the test session's fixtures may change them afterwards)
if not getattr(_shipped, "_configured_for_repo", False):
    _shipped.VENV_DIR = Path(os.environ.get("LOCALSTACK_VENV") or REPO_ROOT / ".venv-localstack")
    _shipped.STATE_ROOT = Path(os.environ.get("LOCALSTACK_STATE_DIR") or REPO_ROOT / ".localstack")
    _shipped.CLI_NAME = "python -m tooling.localstack"
    _shipped.REPO_ROOT = REPO_ROOT
    _shipped._configured_for_repo = True

if __name__ == "__main__":
    sys.exit(_shipped.main())
else:
    sys.modules[__name__] = _shipped
