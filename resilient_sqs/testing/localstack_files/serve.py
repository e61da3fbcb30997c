"""Start LocalStack's runtime for resilient_sqs/testing/localstack.py (runs inside the LocalStack venv).

Not meant to be called by hand: the launcher does it.
What this adds to ``python -m localstack.runtime.main``:

* **The port is bound here, before LocalStack starts**, and handed to its
  hypercorn server as an inherited socket (``fd://``). Port 0 lets the kernel
  pick a free port atomically, so two instances on one machine can never race
  for the same port; a taken port fails here with exit code 3. (LocalStack on
  its own prints "Ready." and keeps running when its port is taken, so a health
  check would then talk to somebody else's instance.)
* **S3 object data goes to this instance's directory.** LocalStack 4.9.2 puts it
  in a fixed ``/tmp/localstack-s3-storage`` shared by every instance on the
  machine (deleting a bucket removes ``/tmp/localstack-s3-storage/<bucket>``);
  the module constant is replaced when LocalStack imports it.
* **Python temp files go to this instance's directory** (``tempfile.tempdir``;
  the TMPDIR variable is avoided because LocalStack warns that it is deprecated).
* **Shutdown does not hang**: LocalStack's hypercorn server stops its event loop
  from another thread without waking it, so a stop sometimes hangs for ever;
  the loop is woken after the stop.
* **A watchdog** (``--users-dir``): the directory holds one file per process
  using this instance, named ``<pid>-<start time>``. When none of them is alive
  any more (a test run killed with SIGKILL, say) LocalStack shuts itself down,
  so an interrupted run never leaves it running.

Exit codes: 3 port taken, 4 LocalStack not importable (broken venv), 5 bad arguments.
"""
from __future__ import annotations

import argparse
import errno
import faulthandler
import importlib.abc
import json
import os
import signal
import socket
import sys
import tempfile
import threading
import time

EXIT_PORT_TAKEN = 3
EXIT_BROKEN_VENV = 4
EXIT_USAGE = 5

_LISTENER: socket.socket | None = None  # kept referenced: closing it would close the fd LocalStack serves on


def _say(msg: str) -> None:
    sys.stdout.write(f"[serve] {msg}\n")
    sys.stdout.flush()


# -- process liveness (pid + start time, so a reused pid does not count) ---------------------
def _start_time(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read().decode("ascii", "replace")
    except FileNotFoundError:
        return None
    except OSError:
        return None
    fields = data[data.rfind(")") + 2 :].split()
    if fields and fields[0] == "Z":  # zombie: exited, not yet reaped
        return None
    return fields[19] if len(fields) > 19 else None


def _user_alive(entry: str) -> bool:
    pid_s, _, start = entry.partition("-")
    try:
        pid = int(pid_s)
    except ValueError:
        return False
    if os.path.exists("/proc/self/stat"):
        return _start_time(pid) == start
    try:  # no /proc (macOS): pid only
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                data = fh.read().decode("ascii", "replace")
        except OSError:
            continue
        ppid = int(data[data.rfind(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _watch_users(users_dir: str, interval: float) -> None:
    misses = 0
    while True:
        time.sleep(interval)
        try:
            live = [e for e in os.listdir(users_dir) if _user_alive(e)]
        except FileNotFoundError:
            live = []
        if live:
            misses = 0
            continue
        misses += 1
        if misses < 3:
            continue
        _say(f"no live process uses this instance any more ({users_dir} is empty or stale): shutting down")
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(30)  # LocalStack normally exits within seconds; if not, do not linger
        _say("graceful shutdown did not finish in 30 s: killing")
        for child in _descendants(os.getpid()):
            try:
                os.kill(child, signal.SIGKILL)
            except OSError:
                pass
        os._exit(1)


# -- patching LocalStack modules as they are imported -----------------------------------------
class _AfterImport(importlib.abc.MetaPathFinder):
    """Run a function on a module right after it is first imported (the import stays lazy)."""

    def __init__(self, patches):
        self.patches = patches

    def find_spec(self, name, path, target=None):
        patch = self.patches.get(name)
        if patch is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        original = spec.loader.exec_module

        def exec_module(module):
            original(module)
            patch(module)

        spec.loader.exec_module = exec_module
        return spec


def _patch_hypercorn_server(module) -> None:
    base = module.Config
    fd = _LISTENER.fileno()

    class Config(base):  # every bind LocalStack configures becomes our pre-bound socket
        def __setattr__(self, name, value):
            if name == "bind":
                value = [f"fd://{fd}"]
            super().__setattr__(name, value)

    module.Config = Config

    # LocalStack stops the event loop with loop.stop() from its shutdown thread. That only sets a
    # flag: a loop blocked in select() with nothing scheduled never looks at it, and the process
    # hangs after "Stopping all services" (seen in about 1 of 5 stops once SQS had been used).
    # Waking the loop after the stop lets it exit.
    server = module.HypercornRuntimeServer
    original_shutdown = server.shutdown

    def shutdown(self):
        original_shutdown(self)
        try:
            self.loop.call_soon_threadsafe(lambda: None)
        except RuntimeError:  # loop already closed
            pass

    server.shutdown = shutdown


def main(argv: list[str] | None = None) -> int:
    global _LISTENER
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0: let the kernel pick a free port")
    ap.add_argument("--ready-file", required=True, help="written (JSON: port, pid) once the port is bound")
    ap.add_argument("--s3-dir", required=True)
    ap.add_argument("--tmp-dir", required=True)
    ap.add_argument("--users-dir", default="", help="stop when no process listed here is alive")
    ap.add_argument("--watch-interval", type=float, default=1.0)
    try:
        args = ap.parse_args(argv)
    except SystemExit:
        return EXIT_USAGE

    # `kill -USR1 <pid>` writes every thread's stack to the log (to see where a shutdown hangs)
    faulthandler.register(signal.SIGUSR1, all_threads=True)

    if args.users_dir:
        threading.Thread(target=_watch_users, args=(args.users_dir, args.watch_interval), daemon=True).start()

    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            _say(f"PORT-TAKEN {args.host}:{args.port} is already in use")
            return EXIT_PORT_TAKEN
        raise
    sock.listen(1024)
    sock.set_inheritable(True)
    _LISTENER = sock
    port = sock.getsockname()[1]

    os.makedirs(args.s3_dir, exist_ok=True)
    os.makedirs(args.tmp_dir, exist_ok=True)
    tempfile.tempdir = args.tmp_dir
    os.environ["GATEWAY_LISTEN"] = f"{args.host}:{port}"

    sys.meta_path.insert(
        0,
        _AfterImport(
            {
                "localstack.runtime.server.hypercorn": _patch_hypercorn_server,
                "localstack.services.s3.provider": lambda m: setattr(m, "DEFAULT_S3_TMP_DIR", args.s3_dir),
            }
        ),
    )
    try:
        from localstack.runtime import main as runtime_main
    except Exception as exc:  # noqa: BLE001 - any import failure means the venv is unusable
        _say(f"BROKEN-VENV cannot import LocalStack with {sys.executable}: {type(exc).__name__}: {exc}")
        return EXIT_BROKEN_VENV

    tmp = args.ready_file + ".tmp"
    with open(tmp, "w") as fh:
        json.dump({"port": port, "pid": os.getpid()}, fh)
    os.replace(tmp, args.ready_file)
    _say(f"listening on {args.host}:{port}; starting LocalStack")
    runtime_main.main()  # exits through sys.exit
    return 0


if __name__ == "__main__":
    sys.exit(main())
