"""Embedded ministack (``sqs-behave --embedded ministack``): the second emulator, no Docker, no JDK.

ministack (PyPI, MIT) is installed into its own virtualenv in the per-user cache
(``$XDG_CACHE_HOME/resilient-sqs/ministack-<version>``; ``$MINISTACK_VENV`` to choose), started
on a free port bound to 127.0.0.1, stopped by PID (SIGTERM, then SIGKILL for its process group).
An instance started for a run watches the run's process and stops itself when it is gone; every
start first removes stale instances (the LocalStack launcher's instance directories and cleanup,
:func:`resilient_sqs.testing.localstack.instance.cleanup_stale`, serve both).

What it can show is decided by probing it (:mod:`resilient_sqs.testing.probes`): it has no
``StartMessageMoveTask`` and publishes no SQS metrics, so ``redrive-conserves`` and
``dlq-alarm-fires`` skip there with the probe's reason; it runs Python Lambda functions with their
event source mappings without Docker.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .localstack.instance import _stop_instance, cleanup_stale
from .localstack.settings import HOST, LocalStackError, Settings, user_cache_dir
from .processes import flock, process_alive, process_start_time, user_entry, write_json

MINISTACK_VERSION = "1.5.33"
PIP_REQUIREMENT = f"ministack=={MINISTACK_VERSION}"
HEALTH_PATH = "/_ministack/health"
WATCH_SCRIPT = Path(__file__).resolve().parent / "localstack_files" / "serve_ministack.py"

Progress = Callable[[str], None]


def _quiet(_msg: str) -> None:
    pass


class MiniStackError(LocalStackError):
    """ministack could not be installed or started; the message says why and what to do."""


def venv_dir() -> Path:
    return Path(os.environ.get("MINISTACK_VENV") or user_cache_dir() / f"ministack-{MINISTACK_VERSION}")


def install(venv: Path | None = None, progress: Progress = _quiet) -> Path:
    """ministack in its own venv (idempotent: a stamp records the version). Returns its python."""
    venv = venv or venv_dir()
    python = venv / "bin" / "python"
    stamp = venv / ".installed.json"
    with flock(venv.parent / f"{venv.name}.lock"):
        try:
            if json.loads(stamp.read_text()).get("requirement") == PIP_REQUIREMENT and python.exists():
                return python
        except (OSError, ValueError):
            pass
        if venv.exists():
            shutil.rmtree(venv)
        t0 = time.monotonic()
        progress(f"creating {venv} ({PIP_REQUIREMENT}; about 30 s and 90 MB, once)")
        base = getattr(sys, "_base_executable", None) or sys.executable
        for cmd, what in (([base, "-m", "venv", str(venv)], "python -m venv"),
                          ([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                            PIP_REQUIREMENT], f"pip install {PIP_REQUIREMENT}")):
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
            if proc.returncode != 0:
                tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
                raise MiniStackError(f"{what} failed (exit {proc.returncode}):\n{tail}\nCheck that PyPI is reachable "
                                     "and retry (the venv is rebuilt on the next run).")
        write_json(stamp, {"requirement": PIP_REQUIREMENT})
        progress(f"ministack ready in {time.monotonic() - t0:.0f} s")
        return python


def health(endpoint: str, timeout: float = 2.0) -> dict | None:
    try:
        with urllib.request.urlopen(endpoint.rstrip("/") + HEALTH_PATH, timeout=timeout) as resp:
            doc = json.loads(resp.read().decode() or "{}")
    except (urllib.error.URLError, OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@dataclass
class MiniStack:
    endpoint: str
    instance_dir: Path
    pid: int
    pid_start: str | None = None
    _popen: subprocess.Popen | None = field(default=None, repr=False)

    def running(self) -> bool:
        return process_alive(self.pid, self.pid_start)

    def stop(self, grace: float = 10.0) -> None:
        _stop_instance(self.instance_dir, self.pid, self.pid_start, grace, self._popen)


def start(settings: Settings | None = None, users: list[int] | None = None, timeout: float = 60.0,
          progress: Progress = _quiet) -> MiniStack:
    """Start ministack on a free port of 127.0.0.1 and wait for its health route. ``users``: PIDs
    whose end stops it. On any failure nothing is left running and a MiniStackError says why."""
    settings = settings or Settings.for_user()
    python = install(progress=progress)
    cleanup_stale(settings, progress)
    settings.state_root.mkdir(parents=True, exist_ok=True)
    last = ""
    for _attempt in range(3):  # a free port can be taken between picking and binding it: pick again
        port = _free_port()
        inst = settings.state_root / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-ministack-{uuid.uuid4().hex[:6]}"
        (inst / "users").mkdir(parents=True)
        (inst / "tmp").mkdir()
        for pid in users or []:
            (inst / "users" / user_entry(pid)).touch()
        state = {"pid": None, "pid_start": None, "endpoint": f"http://{HOST}:{port}", "watch_users": bool(users),
                 "started_by": os.getpid(), "version": f"ministack {MINISTACK_VERSION}", "started_at": time.time()}
        write_json(inst / "state.json", state)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "LOCALSTACK_", "MINISTACK_"))}
        env.update({"GATEWAY_PORT": str(port), "BIND_HOST": HOST, "TMPDIR": str(inst / "tmp"), "LOG_LEVEL": "WARNING"})
        cmd = [str(python), str(WATCH_SCRIPT), "--users-dir", str(inst / "users") if users else ""]
        progress(f"starting ministack {MINISTACK_VERSION} on {HOST}:{port}")
        log = open(inst / "ministack.log", "ab")  # handed to the child, closed here after the start
        popen = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=inst, env=env,
                                 start_new_session=True)
        log.close()
        ms = MiniStack(endpoint=f"http://{HOST}:{port}", instance_dir=inst, pid=popen.pid,
                       pid_start=process_start_time(popen.pid), _popen=popen)
        state.update(pid=popen.pid, pid_start=ms.pid_start)
        write_json(inst / "state.json", state)
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                if popen.poll() is not None:
                    break
                if health(ms.endpoint, timeout=1.0) is not None:
                    progress(f"ministack ready at {ms.endpoint}")
                    return ms
                time.sleep(0.2)
        except BaseException:
            ms.stop(grace=3)
            raise
        last = (inst / "ministack.log").read_text(errors="replace")[-2000:]
        ms.stop(grace=3)
        if "already in use" not in last:
            break
    raise MiniStackError(f"ministack did not become healthy within {timeout:.0f} s. Its log:\n{last}")
