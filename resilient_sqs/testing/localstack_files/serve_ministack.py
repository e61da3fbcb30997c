"""Run ministack for resilient_sqs/testing/ministack.py (inside the ministack venv), with a watchdog:
``--users-dir`` holds one file per process using this instance (``<pid>-<start time>``); when none
of them is alive any more (a run killed with SIGKILL), ministack is stopped, so an interrupted run
never leaves it running. Not meant to be called by hand."""
from __future__ import annotations

import os
import runpy
import signal
import sys
import threading
import time


def _alive(entry: str) -> bool:
    pid_s, _, start = entry.partition("-")
    try:
        with open(f"/proc/{int(pid_s)}/stat", "rb") as fh:
            data = fh.read().decode("ascii", "replace")
    except (OSError, ValueError):
        return False
    fields = data[data.rfind(")") + 2:].split()
    return bool(fields) and fields[0] != "Z" and fields[19] == start


def _watch(users_dir: str) -> None:
    misses = 0
    while True:
        time.sleep(1.0)
        try:
            live = [e for e in os.listdir(users_dir) if _alive(e)]
        except FileNotFoundError:
            live = []
        misses = 0 if live else misses + 1
        if misses >= 3:
            print("[serve] no live process uses this instance any more: shutting down", flush=True)
            os.killpg(os.getpgid(0), signal.SIGTERM)
            time.sleep(10)
            os.killpg(os.getpgid(0), signal.SIGKILL)


def main() -> None:
    args = sys.argv[1:]
    users = args[args.index("--users-dir") + 1] if "--users-dir" in args else ""
    if users:
        threading.Thread(target=_watch, args=(users,), daemon=True).start()
    sys.argv = ["ministack"]
    runpy.run_module("ministack", run_name="__main__")


if __name__ == "__main__":
    main()
