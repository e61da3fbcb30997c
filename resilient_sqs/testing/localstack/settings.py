"""Where the embedded LocalStack is installed and where its instances live, as one value passed to
every function that needs it (nothing is read from module globals).

:meth:`Settings.for_user` is what ``sqs-behave`` and the pytest plugin use: a per-user cache
(``$XDG_CACHE_HOME/resilient-sqs``, by default ``~/.cache/resilient-sqs``). This repository's
``tooling/localstack.py`` builds its own (``.venv-localstack`` and ``.localstack`` in the checkout).
``$LOCALSTACK_VENV`` and ``$LOCALSTACK_STATE_DIR`` override either, read when the settings are made.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

FILES = Path(__file__).resolve().parent.parent / "localstack_files"

LOCALSTACK_VERSION = "4.9.2"
PIP_REQUIREMENT = f"localstack-core[runtime]=={LOCALSTACK_VERSION}"
CONSTRAINTS = FILES / f"constraints-{LOCALSTACK_VERSION}.txt"
SERVE_SCRIPT = FILES / "serve.py"
NOOP_AGENT_SOURCE = FILES / "NoopAgent.java"

HOST = "127.0.0.1"
HEALTH_PATH = "/_localstack/health"
REGION = "us-east-1"
ACCOUNT_ID = "000000000000"  # LocalStack's account for the "test" access key


def user_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """This package's per-user cache: ``$XDG_CACHE_HOME/resilient-sqs`` (default ``~/.cache/resilient-sqs``)."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".cache") / "resilient-sqs"


@dataclass(frozen=True)
class Settings:
    venv: Path  # LocalStack's own virtualenv (its pins clash with current boto3)
    state_root: Path  # one directory per instance, plus shared-run records and the CLI's record
    cli_name: str = "python -m resilient_sqs.testing.localstack"  # how the CLI is invoked, in messages

    @classmethod
    def from_env(cls, venv: Path, state_root: Path, cli_name: str | None = None,
                 environ: Mapping[str, str] | None = None) -> "Settings":
        """``venv`` and ``state_root`` unless ``$LOCALSTACK_VENV`` / ``$LOCALSTACK_STATE_DIR`` say otherwise."""
        environ = os.environ if environ is None else environ
        return cls(venv=Path(environ.get("LOCALSTACK_VENV") or venv),
                   state_root=Path(environ.get("LOCALSTACK_STATE_DIR") or state_root),
                   **({"cli_name": cli_name} if cli_name else {}))

    @classmethod
    def for_user(cls, environ: Mapping[str, str] | None = None) -> "Settings":
        cache = user_cache_dir(environ)
        return cls.from_env(cache / f"localstack-{LOCALSTACK_VERSION}", cache / "instances", environ=environ)

    @property
    def runs_dir(self) -> Path:
        return self.state_root / "runs"

    @property
    def cli_record(self) -> Path:
        return self.state_root / "cli.json"


class LocalStackError(RuntimeError):
    """LocalStack could not be installed, started or reached. The message says why and what to do.

    ``instance_dir``: the (already removed) directory of an instance that failed to start, if any.
    """

    def __init__(self, message: str, instance_dir: Path | None = None):
        super().__init__(message)
        self.instance_dir = instance_dir


def port_from_env(environ: Mapping[str, str] | None = None) -> int | None:
    """``$LOCALSTACK_PORT`` as a port number (None when unset); a bad value is an error saying so."""
    environ = os.environ if environ is None else environ
    raw = environ.get("LOCALSTACK_PORT", "").strip()
    if not raw:
        return None
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise LocalStackError(f"LOCALSTACK_PORT={raw!r} is not a port number (1-65535); unset it to pick a free port.")
    return int(raw)
