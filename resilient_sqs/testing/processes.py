"""Process control shared by the embedded emulators: a process is named by its PID and its start
time (Linux ``/proc``), so a reused PID is never mistaken for ours; its descendants; the
processes still running from an instance's files; an exclusive file lock; atomic JSON writes."""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import time
from pathlib import Path
from typing import Iterator


def _proc_stat(pid: int) -> list[str] | None:
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes().decode("ascii", "replace")
    except OSError:
        return None
    return data[data.rfind(")") + 2 :].split()  # fields from "state" on (comm may hold spaces)


def process_start_time(pid: int) -> str | None:
    """The process's start time (clock ticks since boot) or None when it is gone or a zombie."""
    fields = _proc_stat(pid)
    if not fields:
        if not Path("/proc/self/stat").exists():  # no /proc (macOS): fall back to the pid alone
            try:
                os.kill(pid, 0)
                return "0"
            except ProcessLookupError:
                return None
            except PermissionError:
                return "0"
        return None
    if fields[0] == "Z":
        return None
    return fields[19]


def process_alive(pid: int, start_time: str | None = None) -> bool:
    current = process_start_time(pid)
    return current is not None and (start_time is None or start_time == "0" or current == start_time)


def _children_map() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return out
    for entry in proc.iterdir():
        if entry.name.isdigit():
            fields = _proc_stat(int(entry.name))
            if fields:
                out.setdefault(int(fields[1]), []).append(int(entry.name))
    return out


def descendants(pid: int) -> list[int]:
    children, out, todo = _children_map(), [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def processes_mentioning(text: str) -> list[int]:
    """PIDs whose command line contains ``text`` (finds an instance's orphaned Java child)."""
    found = []
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    needle = text.encode()
    for entry in proc.iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if needle in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def send_signal(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, sig)


def user_entry(pid: int) -> str:
    return f"{pid}-{process_start_time(pid) or '0'}"


def entry_alive(name: str) -> bool:
    pid_s, _, start = name.partition("-")
    return pid_s.isdigit() and process_alive(int(pid_s), start)


@contextlib.contextmanager
def flock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    tmp.replace(path)




def terminate(pids: list[int], grace: float = 3.0) -> None:
    """SIGTERM ``pids``, SIGKILL those still alive after ``grace`` seconds."""
    send_signal(pids, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(process_start_time(p) for p in pids):
        time.sleep(0.1)
    send_signal([p for p in pids if process_start_time(p)], signal.SIGKILL)
