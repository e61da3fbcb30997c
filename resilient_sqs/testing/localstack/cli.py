"""``python -m resilient_sqs.testing.localstack install|start|stop|status|env|cleanup``."""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from ..processes import process_alive, write_json
from .installer import install
from .instance import LocalStack, _read_state, attach, cleanup_stale, external_endpoint, start
from .settings import LOCALSTACK_VERSION, LocalStackError, Settings


def _cli_instance(settings: Settings) -> LocalStack | None:
    try:
        return attach(Path(json.loads(settings.cli_record.read_text())["instance_dir"]))
    except (OSError, ValueError, KeyError):
        return None


def _print_env(ls: LocalStack) -> None:
    for k, v in ls.env().items():
        print(f"export {k}={v}")


def main(argv: list[str] | None = None, settings: Settings | None = None) -> int:
    """The CLI; ``settings``: where LocalStack is installed and its instances live (default: the
    per-user cache, :meth:`Settings.for_user`)."""
    settings = settings or Settings.for_user()
    ap = argparse.ArgumentParser(prog=settings.cli_name, description="Embedded LocalStack (no Docker).")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("install", help="create the LocalStack venv and the DynamoDB seed (idempotent)")
    p.add_argument("--force", action="store_true", help="rebuild even if the stamp says it is current")
    p = sub.add_parser("start", help="start an instance that runs until `stop` (prints its endpoint)")
    p.add_argument("--port", type=int, default=None, help="default: $LOCALSTACK_PORT, else a free port")
    sub.add_parser("stop", help="stop the instance started with `start`")
    sub.add_parser("status", help="list embedded instances and any external LocalStack")
    sub.add_parser("env", help="print export lines for the running instance (eval \"$(... env)\")")
    sub.add_parser("cleanup", help="stop and remove instances whose users have exited")
    args = ap.parse_args(argv)
    say = lambda m: print(f"==> {m}", file=sys.stderr, flush=True)  # noqa: E731
    try:
        if args.cmd == "install":
            inst = install(settings, force=args.force, progress=say)
            print(f"LocalStack {LOCALSTACK_VERSION} installed in {inst.venv}")
        elif args.cmd == "start":
            ext = external_endpoint()
            if ext:
                print(f"a LocalStack is already running at {ext} (LOCALSTACK_ENDPOINT/AWS_ENDPOINT_URL); not starting another")
                return 0
            running = _cli_instance(settings)
            if running:
                print(f"already running at {running.endpoint} (pid {running.pid}); `stop` it first")
                return 0
            ls = start(settings, port=args.port, progress=say)
            write_json(settings.cli_record, {"instance_dir": str(ls.instance_dir), "endpoint": ls.endpoint})
            print(f"LocalStack {LOCALSTACK_VERSION} running at {ls.endpoint} (pid {ls.pid}, log {ls.log_file})")
            print(f"Use it from this shell with:  eval \"$({settings.cli_name} env)\"")
        elif args.cmd == "stop":
            ls = _cli_instance(settings)
            if ls is None:
                print("no instance started with `start` is running")
                settings.cli_record.unlink(missing_ok=True)
                return 0
            ls.stop()
            settings.cli_record.unlink(missing_ok=True)
            print(f"stopped LocalStack at {ls.endpoint}")
        elif args.cmd == "env":
            ls = _cli_instance(settings)
            if ls is None:
                ext = external_endpoint()
                if not ext:
                    print(f"no LocalStack running: `{settings.cli_name} start` first", file=sys.stderr)
                    return 1
                ls = LocalStack(endpoint=ext)
            _print_env(ls)
        elif args.cmd == "status":
            with contextlib.suppress(LocalStackError):
                ext = external_endpoint()
                if ext:
                    print(f"external LocalStack at {ext}")
            found = False
            for inst in sorted(settings.state_root.iterdir()) if settings.state_root.is_dir() else []:
                state = _read_state(inst) if inst.is_dir() else None
                if not state:
                    continue
                found = True
                alive = state.get("pid") and process_alive(state["pid"], state.get("pid_start"))
                users = sorted(e.name for e in (inst / "users").iterdir()) if (inst / "users").is_dir() else []
                kind = f"users {', '.join(users)}" if state.get("watch_users") else "detached (CLI)"
                print(f"{inst.name}: {state.get('endpoint')} pid {state.get('pid')} "
                      f"{'running' if alive else 'NOT running'}; {kind}")
            if not found:
                print(f"no embedded instance in {settings.state_root}")
        elif args.cmd == "cleanup":
            removed = cleanup_stale(settings, progress=say)
            print(f"removed {len(removed)} stale instance(s)")
    except LocalStackError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0

