"""One LocalStack shared by several processes (pytest-xdist workers), under a file lock."""
from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from typing import Callable

from ..processes import flock, write_json
from .instance import LocalStack, add_user, attach, external_endpoint, remove_user, start
from .settings import Settings

Progress = Callable[[str], None]


def _quiet(_msg: str) -> None:
    pass


def _run_paths(settings: Settings, key: str) -> tuple[Path, Path]:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", key)
    runs = settings.runs_dir
    return runs / f"{safe}.lock", runs / f"{safe}.json"


def acquire_shared(settings: Settings, key: str, progress: Progress = _quiet, **start_kwargs) -> LocalStack:
    """The LocalStack shared by every process passing the same ``key``; the first caller starts it.

    An external LocalStack (see :func:`external_endpoint`) is returned as is.
    Each caller registers its PID; :func:`release_shared` from the last one stops it,
    and if every caller dies without releasing, the instance stops itself.
    """
    ext = external_endpoint()
    if ext:
        return LocalStack(endpoint=ext)
    lock, record = _run_paths(settings, key)
    with flock(lock):
        if record.exists():
            with contextlib.suppress(OSError, ValueError, KeyError):
                ls = attach(Path(json.loads(record.read_text())["instance_dir"]))
                if ls is not None and ls.healthy():
                    add_user(ls, os.getpid())
                    return ls
        ls = start(settings, users=[os.getpid()], progress=progress, **start_kwargs)
        write_json(record, {"instance_dir": str(ls.instance_dir), "endpoint": ls.endpoint})
        return ls


def release_shared(settings: Settings, key: str, ls: LocalStack, grace: float = 15.0) -> bool:
    """Unregister this process; stop the instance if it was the last user. True when stopped."""
    if ls.external:
        return False
    lock, record = _run_paths(settings, key)
    with flock(lock):
        if remove_user(ls, os.getpid()):
            if ls._popen is None:
                ls = attach(ls.instance_dir) or ls
            ls.stop(grace=grace)
            record.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                lock.unlink()
            return True
    return False


