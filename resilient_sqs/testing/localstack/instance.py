"""One embedded LocalStack instance: start it (a free port, its own directory, a watchdog on the
processes using it), find a running one, stop it by PID, clean up stale ones; and LocalStack's
health check for an endpoint started elsewhere."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..env import endpoint_env
from ..processes import (descendants, entry_alive, process_alive, process_start_time, processes_mentioning,
                         send_signal, terminate, user_entry, write_json)
from .installer import find_jdk, install
from .settings import (HEALTH_PATH, HOST, LOCALSTACK_VERSION, REGION, SERVE_SCRIPT, LocalStackError, Settings,
                       port_from_env)

# exit codes of serve.py
_EXIT_PORT_TAKEN = 3
_EXIT_BROKEN_VENV = 4

Progress = Callable[[str], None]


def _quiet(_msg: str) -> None:
    pass


def health(endpoint: str, timeout: float = 2.0) -> dict | None:
    """LocalStack's health document, or None when nothing (or not LocalStack) answers."""
    try:
        with urllib.request.urlopen(endpoint.rstrip("/") + HEALTH_PATH, timeout=timeout) as resp:
            if resp.status != 200:
                return None
            doc = json.loads(resp.read().decode() or "{}")
    except (urllib.error.URLError, OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and "services" in doc else None


def external_endpoint() -> str | None:
    """A running LocalStack named by LOCALSTACK_ENDPOINT or AWS_ENDPOINT_URL, or None.

    LOCALSTACK_ENDPOINT is an explicit request: if it does not answer, that is an
    error. AWS_ENDPOINT_URL may point anywhere (a proxy, real AWS): it is used
    only when it answers LocalStack's health check.
    """
    explicit = os.environ.get("LOCALSTACK_ENDPOINT", "").strip()
    if explicit:
        if health(explicit) is None:
            raise LocalStackError(
                f"LOCALSTACK_ENDPOINT={explicit} does not answer {HEALTH_PATH}. Start that LocalStack "
                "(docker compose up -d), or unset LOCALSTACK_ENDPOINT to use the embedded one."
            )
        return explicit.rstrip("/")
    generic = os.environ.get("AWS_ENDPOINT_URL", "").strip()
    if generic and health(generic) is not None:
        return generic.rstrip("/")
    return None


# =============================================================================================
# instances
# =============================================================================================
@dataclass
class LocalStack:
    """A LocalStack endpoint: one this module started (``instance_dir`` set) or an external one."""

    endpoint: str
    instance_dir: Path | None = None
    pid: int | None = None
    pid_start: str | None = None
    _popen: subprocess.Popen | None = field(default=None, repr=False, compare=False)

    @property
    def external(self) -> bool:
        return self.instance_dir is None

    @property
    def port(self) -> int:
        return int(self.endpoint.rsplit(":", 1)[1].split("/")[0])

    @property
    def log_file(self) -> Path | None:
        return self.instance_dir / "localstack.log" if self.instance_dir else None

    def env(self) -> dict[str, str]:
        """Environment for Terraform, the AWS CLI and boto3 to talk to this LocalStack."""
        return endpoint_env(self.endpoint, REGION)

    def healthy(self) -> bool:
        return health(self.endpoint) is not None

    def running(self) -> bool:
        if self.external:
            return self.healthy()
        return self.pid is not None and process_alive(self.pid, self.pid_start)

    def stop(self, grace: float = 15.0) -> None:
        """Stop an instance this module started (SIGTERM, SIGKILL after ``grace`` s) and remove its files.

        Does nothing for an external LocalStack.
        """
        if self.external:
            return
        _stop_instance(self.instance_dir, self.pid, self.pid_start, grace, self._popen)


def _read_state(instance_dir: Path) -> dict | None:
    try:
        return json.loads((instance_dir / "state.json").read_text())
    except (OSError, ValueError):
        return None


def _stop_instance(instance_dir: Path, pid: int | None, pid_start: str | None, grace: float,
                   popen: subprocess.Popen | None = None) -> None:
    tree: list[int] = []
    if pid is not None and process_alive(pid, pid_start):
        tree = descendants(pid)  # recorded now: the Java child is re-parented once LocalStack exits
        send_signal([pid], signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if popen is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    popen.wait(timeout=0.2)
            else:
                time.sleep(0.2)
            if not process_alive(pid, pid_start):
                break
        if process_alive(pid, pid_start):
            send_signal([pid], signal.SIGKILL)
    if popen is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            popen.wait(timeout=5)
    # children that outlived LocalStack, and any process still running from this instance's files
    leftovers = [p for p in tree if process_start_time(p) is not None] + processes_mentioning(str(instance_dir))
    if leftovers:
        terminate(leftovers, grace=3)
    shutil.rmtree(instance_dir, ignore_errors=True)


def _log_tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join("    " + line for line in text.splitlines()[-lines:])


def _launch_env(instance_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}  # never point LocalStack at itself
    for k in ("LOCALSTACK_HOST", "GATEWAY_LISTEN", "EDGE_PORT", "PERSISTENCE", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"):
        env.pop(k, None)
    env.update(
        {
            "GATEWAY_SERVER": "hypercorn",  # the default server ignores the host and binds 0.0.0.0
            "FILESYSTEM_ROOT": str(instance_dir / "root"),
            "OVERRIDE_IN_DOCKER": "0",  # /.dockerenv exists on some hosts; LocalStack would use /var/lib/localstack
            "DNS_ADDRESS": "0",  # no DNS server on port 53
            "SKIP_SSL_CERT_DOWNLOAD": "1",
            "DISABLE_EVENTS": "1",  # no analytics calls
            # SQS publishes its queue-depth metrics to CloudWatch every 10 s instead of 60 s, so
            # an alarm on them (60 s periods, evaluated every period) reacts within about a minute
            "SQS_CLOUDWATCH_METRICS_REPORT_INTERVAL": "10",
            # message retention enforced, as on AWS (LocalStack keeps expired messages otherwise)
            "SQS_ENABLE_MESSAGE_RETENTION_PERIOD": "1",
            "JAVA_TOOL_OPTIONS": f"-Djava.io.tmpdir={instance_dir / 'tmp'} -XX:-UsePerfData",
        }
    )
    return env


def cleanup_stale(settings: Settings, progress: Progress = _quiet) -> list[Path]:
    """Stop and remove instances whose users are all dead or whose LocalStack died. Returns what was removed."""
    removed = []
    if not settings.state_root.is_dir():
        return removed
    for inst in sorted(settings.state_root.iterdir()):
        if not inst.is_dir() or inst.name.startswith(("runs", ".")):
            continue
        state = _read_state(inst)
        if state is None or state.get("pid") is None:
            # being created right now, or a crash before the launch: only old ones are stale
            if time.time() - inst.stat().st_mtime > 600:
                _stop_instance(inst, None, None, grace=0)
                removed.append(inst)
            continue
        pid, start = state.get("pid"), state.get("pid_start")
        alive = pid is not None and process_alive(pid, start)
        users_dir = inst / "users"
        users_alive = True
        if state.get("watch_users"):
            users_alive = users_dir.is_dir() and any(entry_alive(e.name) for e in users_dir.iterdir())
        if alive and users_alive:
            continue
        progress(f"removing stale LocalStack instance {inst.name} (pid {pid} {'alive' if alive else 'gone'})")
        _stop_instance(inst, pid if alive else None, start, grace=10)
        removed.append(inst)
    # records of shared runs whose instance is gone (a killed test run)
    for record in settings.runs_dir.glob("*.json"):
        with contextlib.suppress(OSError, ValueError, KeyError):
            if not Path(json.loads(record.read_text())["instance_dir"]).exists():
                record.unlink()
                record.with_suffix(".lock").unlink(missing_ok=True)
    return removed


def start(
    settings: Settings,
    port: int | None = None,
    users: list[int] | None = None,
    timeout: float = 120.0,
    progress: Progress = _quiet,
) -> LocalStack:
    """Start an embedded LocalStack and wait until it is healthy.

    settings: where LocalStack is installed and its instances live.
    port: None → ``$LOCALSTACK_PORT`` if set, else a free port picked by the kernel (0: a free port).
    users: PIDs of the processes using it; when all of them have exited the
    instance stops itself. None: it runs until :meth:`LocalStack.stop` (or the CLI's ``stop``).
    On any failure nothing is left running and a :class:`LocalStackError` says why.
    """
    if port is None:
        port = port_from_env()
    inst = install(settings, progress=progress)
    jdk = find_jdk()
    cleanup_stale(settings, progress)

    settings.state_root.mkdir(parents=True, exist_ok=True)
    instance_dir = settings.state_root / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    instance_dir.mkdir()
    # LocalStack's lib dir: Java and DynamoDB Local are links to the machine's JDK and the seed
    lib = instance_dir / "root" / "var" / "lib" / "localstack" / "lib"
    (lib / "java").mkdir(parents=True)
    (lib / "dynamodb-local").mkdir()
    (lib / "java" / "21").symlink_to(jdk)  # the only JDK version LocalStack looks for; 17+ runs DynamoDB Local
    (lib / "dynamodb-local" / "2").symlink_to(inst.dynamodb_local)
    tmp_dir = instance_dir / "tmp"
    tmp_dir.mkdir()
    users_dir = instance_dir / "users"
    if users:
        users_dir.mkdir()
        for pid in users:
            (users_dir / user_entry(pid)).touch()
    ready_file = instance_dir / "ready.json"
    log_file = instance_dir / "localstack.log"
    state = {
        "pid": None, "pid_start": None, "endpoint": None, "requested_port": port or 0,
        "watch_users": bool(users), "started_by": os.getpid(), "version": LOCALSTACK_VERSION,
        "started_at": time.time(),
    }
    write_json(instance_dir / "state.json", state)

    cmd = [
        str(inst.python), str(SERVE_SCRIPT), "--host", HOST, "--port", str(port or 0),
        "--ready-file", str(ready_file), "--s3-dir", str(tmp_dir / "s3-storage"), "--tmp-dir", str(tmp_dir),
    ]
    if users:
        cmd += ["--users-dir", str(users_dir)]
    progress(f"starting LocalStack {LOCALSTACK_VERSION} on {HOST}:{port or '<free port>'}")
    t0 = time.monotonic()
    with open(log_file, "ab") as log:
        try:
            popen = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                cwd=instance_dir, env=_launch_env(instance_dir), start_new_session=True,
            )
        except OSError as exc:
            shutil.rmtree(instance_dir, ignore_errors=True)
            raise LocalStackError(
                f"cannot run {inst.python}: {exc}. The LocalStack venv looks broken: "
                f"run `{settings.cli_name} install --force`."
            ) from None
    ls = LocalStack(endpoint="", instance_dir=instance_dir, pid=popen.pid, _popen=popen)
    ls.pid_start = process_start_time(popen.pid)
    state.update(pid=popen.pid, pid_start=ls.pid_start)
    write_json(instance_dir / "state.json", state)

    def fail(reason: str) -> LocalStackError:
        tail = _log_tail(log_file)
        keep = settings.state_root / "last-failed-start.log"
        with contextlib.suppress(OSError):
            shutil.copyfile(log_file, keep)
        _stop_instance(instance_dir, popen.pid, ls.pid_start, grace=5, popen=popen)
        return LocalStackError(f"{reason}\nLast lines of LocalStack's log (full log: {keep}):\n{tail}", instance_dir)

    deadline = t0 + timeout
    try:
        while True:
            code = popen.poll()
            if code is not None:
                if code == _EXIT_PORT_TAKEN:
                    raise fail(
                        f"port {HOST}:{port} is already in use (LOCALSTACK_PORT?). Free it, choose another "
                        "LOCALSTACK_PORT, or unset LOCALSTACK_PORT to let a free port be picked."
                    )
                if code == _EXIT_BROKEN_VENV:
                    raise fail(
                        f"the LocalStack venv {inst.venv} is broken (LocalStack cannot be imported). "
                        f"Rebuild it: {settings.cli_name} install --force"
                    )
                raise fail(f"LocalStack exited during startup with code {code}.")
            if not ls.endpoint and ready_file.exists():
                with contextlib.suppress(ValueError, KeyError, OSError):
                    ls.endpoint = f"http://{HOST}:{json.loads(ready_file.read_text())['port']}"
                    state["endpoint"] = ls.endpoint
                    write_json(instance_dir / "state.json", state)
            if ls.endpoint:
                # the port is bound before LocalStack is imported, so a request waits for it: bound the wait
                doc = health(ls.endpoint, timeout=min(1.0, max(0.05, deadline - time.monotonic())))
                if doc is not None:
                    if doc.get("version", LOCALSTACK_VERSION).split(":")[0] != LOCALSTACK_VERSION:
                        raise fail(f"{ls.endpoint} answers as LocalStack {doc.get('version')}, not ours ({LOCALSTACK_VERSION}).")
                    break
            if time.monotonic() > deadline:
                raise fail(f"LocalStack did not become healthy within {timeout:.0f} s.")
            time.sleep(0.1)
    except LocalStackError:
        raise
    except BaseException:  # Ctrl-C, or anything unexpected: leave nothing running
        _stop_instance(instance_dir, popen.pid, ls.pid_start, grace=5, popen=popen)
        raise
    progress(f"LocalStack ready at {ls.endpoint} in {time.monotonic() - t0:.1f} s")
    return ls


def attach(instance_dir: Path) -> LocalStack | None:
    """A LocalStack handle for a running instance directory (None when it is not running)."""
    state = _read_state(instance_dir)
    if not state or not state.get("endpoint") or not state.get("pid"):
        return None
    ls = LocalStack(endpoint=state["endpoint"], instance_dir=instance_dir, pid=state["pid"], pid_start=state.get("pid_start"))
    return ls if ls.running() else None


def add_user(ls: LocalStack, pid: int) -> None:
    if ls.instance_dir is not None and (ls.instance_dir / "users").is_dir():
        (ls.instance_dir / "users" / user_entry(pid)).touch()


def remove_user(ls: LocalStack, pid: int) -> bool:
    """Unregister ``pid``; True when no live user is left."""
    if ls.instance_dir is None:
        return False
    users_dir = ls.instance_dir / "users"
    with contextlib.suppress(FileNotFoundError):
        (users_dir / user_entry(pid)).unlink()
    try:
        return not any(entry_alive(e.name) for e in users_dir.iterdir())
    except FileNotFoundError:
        return True


