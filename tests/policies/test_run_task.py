"""`sqs-policy run-task serve` against a fake HCP Terraform (policies/run_task.py).

The fake speaks the run-task protocol as HashiCorp documents it: the plan JSON at
`plan_json_api_url` behind the run's bearer token, answered with a redirect to a temporary
download URL on another host (as HCP Terraform's archivist), and the result PATCHed as JSON:API
to `task_result_callback_url`. Requests are signed as HCP Terraform signs them: the hex
HMAC-SHA512 of the body in X-TFC-Task-Signature."""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from resilient_sqs.policy import run_task
from tests.support.helpers import REPO_ROOT, sqs_policy_in_process

KEY = b"0123456789abcdef-run-task-key"
TOKEN = "run-token-abc"
FAILING, CLEAN = "config:claim-check-bad", "bench:3"  # bench-3: every rule passes, also without source


class FakeHCP:
    """HCP Terraform's side: the plan JSON (behind the token, redirected to a download host)
    and the callback; ``delay``: seconds before the plan is sent; ``fail_callbacks``: answer
    that many callbacks with ``fail_code`` first."""

    def __init__(self):
        self.plan = b"{}"
        self.delay = 0.0
        self.fail_callbacks = 0
        self.fail_code = 503
        self.callbacks: list[dict] = []
        self.requests: list[tuple] = []  # (server, method, path, Authorization)
        self.download = self._server("download", self._download)
        self.api = self._server("api", self._api)

    def _server(self, name, handle):
        fake = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                fake.requests.append((name, "GET", self.path, self.headers.get("Authorization")))
                handle(self)

            def do_PATCH(self):
                fake.requests.append((name, "PATCH", self.path, self.headers.get("Authorization")))
                handle(self)

        srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
        srv.daemon_threads = True
        threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return srv

    def host(self, srv=None) -> str:
        return "127.0.0.1:%d" % (srv or self.api).server_address[1]

    def _api(self, h):
        if h.headers.get("Authorization") != f"Bearer {TOKEN}":
            h.send_response(401)
            h.end_headers()
            return
        if h.command == "GET" and h.path == "/api/v2/plans/plan-1/json-output":
            h.send_response(307)
            h.send_header("Location", f"http://{self.host(self.download)}/archivist/plan-1")
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        if h.command == "PATCH" and h.path == "/api/v2/task-results/tr-1/callback":
            body = h.rfile.read(int(h.headers["Content-Length"]))
            if self.fail_callbacks > 0:
                self.fail_callbacks -= 1
                h.send_response(self.fail_code)
                h.send_header("Content-Length", "0")
                h.end_headers()
                return
            self.callbacks.append({"body": json.loads(body), "content_type": h.headers.get("Content-Type")})
            h.send_response(200)
            h.send_header("Content-Length", "2")
            h.end_headers()
            h.wfile.write(b"{}")
            return
        h.send_response(404)
        h.end_headers()

    def _download(self, h):
        time.sleep(self.delay)
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(self.plan)))
        h.end_headers()
        try:
            h.wfile.write(self.plan)
        except OSError:
            pass

    def payload(self, **over) -> dict:
        base = f"http://{self.host()}"
        p = {"payload_version": 1, "stage": "post_plan", "access_token": TOKEN, "is_speculative": False,
             "organization_name": "acme", "workspace_name": "prod", "workspace_id": "ws-1", "run_id": "run-1",
             "run_message": "Queued manually", "task_result_id": "tr-1", "task_result_enforcement_level": "mandatory",
             "task_result_callback_url": f"{base}/api/v2/task-results/tr-1/callback",
             "plan_json_api_url": f"{base}/api/v2/plans/plan-1/json-output"}
        p.update(over)
        return p

    def close(self):
        for s in (self.api, self.download):
            s.shutdown()
            s.server_close()


@pytest.fixture
def hcp():
    fake = FakeHCP()
    yield fake
    fake.close()


@pytest.fixture
def service(hcp):
    logs: list[str] = []

    def start(**over):
        settings = run_task.Settings(key=KEY, hosts=(hcp.host(),), allow_http=True, retry_base=0.01,
                                     log=logs.append, **over)
        srv = run_task.RunTaskServer(("127.0.0.1", 0), settings)
        threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        started.append(srv)
        return srv

    started: list = []
    start.logs = logs
    yield start
    for s in started:
        s.shutdown()
        s.server_close()


def post(srv, payload, key=KEY, signature=None):
    body = json.dumps(payload).encode()
    sig = signature if signature is not None else hmac.new(key, body, hashlib.sha512).hexdigest()
    req = urllib.request.Request(f"http://127.0.0.1:{srv.server_address[1]}/", data=body, method="POST",
                                 headers={"Content-Type": "application/json",
                                          **({run_task.SIGNATURE_HEADER: sig} if sig else {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def wait_for(cond, seconds=20.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return False


def test_the_verification_request_gets_200_and_nothing_else(hcp, service):
    srv = service()
    assert post(srv, hcp.payload(access_token="test-token")) == 200
    time.sleep(0.2)
    assert hcp.requests == [] and srv.results == []


@pytest.mark.parametrize("how", ["wrong key", "no signature", "tampered body"])
def test_a_request_without_the_right_signature_is_refused(hcp, service, how):
    srv = service()
    p = hcp.payload()
    if how == "wrong key":
        code = post(srv, p, key=b"another-key-of-16+chars")
    elif how == "no signature":
        code = post(srv, p, signature="")
    else:
        good = hmac.new(KEY, json.dumps(p).encode(), hashlib.sha512).hexdigest()
        code = post(srv, {**p, "run_id": "run-2"}, signature=good)
    assert code == 401
    time.sleep(0.2)
    assert hcp.requests == []  # nothing fetched, no token used
    assert any("401" in line and "Signature" in line for line in service.logs)


def _expected(plan_files, subject, tmp_path):
    """What `sqs-policy check --format json` says of the same plan."""
    p = sqs_policy_in_process("check", str(plan_files[subject]), "--no-source", "--format", "json", cwd=tmp_path)
    return json.loads(p.stdout)


def test_a_failing_plan_gets_a_failed_result_with_one_outcome_per_finding(hcp, service, plan_files, tmp_path):
    hcp.plan = plan_files[FAILING].read_bytes()
    srv = service()
    assert post(srv, hcp.payload()) == 200
    assert wait_for(lambda: hcp.callbacks), service.logs
    cb = hcp.callbacks[0]
    assert cb["content_type"] == "application/vnd.api+json"
    data = cb["body"]["data"]
    assert data["type"] == "task-results" and data["attributes"]["status"] == "failed"
    want = _expected(plan_files, FAILING, tmp_path)
    counted = [f for f in want["findings"] if f["status"] != "pass" and "waiver" not in f]
    outcomes = data["relationships"]["outcomes"]["data"]
    assert sorted(o["attributes"]["outcome-id"] for o in outcomes) == sorted(
        f"{f['rule_id']}:{f['address']}" for f in counted)
    assert f"{want['summary']['errors']} error(s)" in data["attributes"]["message"]
    for o in outcomes:
        a = o["attributes"]
        assert o["type"] == "task-result-outcomes"
        assert set(a["tags"]) == {"Status", "Severity"}
        assert a["tags"]["Severity"][0]["level"] in ("error", "warning", "info")
        assert "**Fix:**" in a["body"]
    errors = [o for o in outcomes if o["attributes"]["tags"]["Severity"][0]["label"] == "Error"]
    assert len(errors) == want["summary"]["errors"]
    assert all(o["attributes"]["tags"]["Status"][0] == {"label": "Failed", "level": "error"} for o in errors)
    # the token went to the API host only; the download host got the redirect without it
    assert ("api", "GET", "/api/v2/plans/plan-1/json-output", f"Bearer {TOKEN}") in hcp.requests
    assert ("download", "GET", "/archivist/plan-1", None) in hcp.requests
    assert wait_for(lambda: srv.results)  # recorded once the callback has answered
    assert srv.results == [("run-1", "failed")]


def test_a_clean_plan_passes_and_the_results_url_is_sent(hcp, service, plan_files):
    hcp.plan = plan_files[CLEAN].read_bytes()
    srv = service(results_url="https://example.org/sqs-policy")
    assert post(srv, hcp.payload()) == 200
    assert wait_for(lambda: hcp.callbacks)
    attrs = hcp.callbacks[0]["body"]["data"]["attributes"]
    assert attrs["status"] == "passed" and attrs["url"] == "https://example.org/sqs-policy"
    assert hcp.callbacks[0]["body"]["data"]["relationships"]["outcomes"]["data"] == []


def test_a_slow_fetch_fails_the_run_with_the_timeout(hcp, service, plan_files):
    hcp.plan, hcp.delay = plan_files[CLEAN].read_bytes(), 3.0
    srv = service(fetch_timeout=0.5)
    assert post(srv, hcp.payload()) == 200
    assert hcp.callbacks == []  # answered before the plan arrived: checked afterwards
    assert wait_for(lambda: hcp.callbacks)
    attrs = hcp.callbacks[0]["body"]["data"]["attributes"]
    assert attrs["status"] == "failed" and "0.5 s (--fetch-timeout)" in attrs["message"], attrs


def test_a_plan_over_the_limit_is_refused_without_reading_it(hcp, service, plan_files):
    hcp.plan = plan_files[FAILING].read_bytes()
    srv = service(max_plan_bytes=10_000)
    assert post(srv, hcp.payload()) == 200
    assert wait_for(lambda: hcp.callbacks)
    attrs = hcp.callbacks[0]["body"]["data"]["attributes"]
    assert attrs["status"] == "failed" and "--max-plan-mib" in attrs["message"], attrs


def test_not_a_plan_fails_the_run_naming_it(hcp, service):
    hcp.plan = b'{"terraform_version": "1.11.4"}'
    srv = service()
    assert post(srv, hcp.payload()) == 200
    assert wait_for(lambda: hcp.callbacks)
    attrs = hcp.callbacks[0]["body"]["data"]["attributes"]
    assert attrs["status"] == "failed" and "the plan JSON of run run-1" in attrs["message"]


def test_a_failed_callback_is_retried_with_backoff(hcp, service, plan_files):
    hcp.plan, hcp.fail_callbacks = plan_files[CLEAN].read_bytes(), 2
    srv = service()
    assert post(srv, hcp.payload()) == 200
    assert wait_for(lambda: hcp.callbacks)
    patches = [r for r in hcp.requests if r[1] == "PATCH"]
    assert len(patches) == 3 and len(hcp.callbacks) == 1
    retries = [x for x in service.logs if "callback failed (HTTP 503" in x]
    assert [x.split("retry ")[1].split(" in ")[0] for x in retries] == ["1 of 5", "2 of 5"]
    assert "in 0.01 s" in retries[0] and "in 0.02 s" in retries[1]  # the wait doubles
    assert wait_for(lambda: srv.results)  # recorded once the callback has answered
    assert srv.results == [("run-1", "passed")]


def test_a_callback_refused_with_4xx_is_not_retried(hcp, service, plan_files):
    hcp.plan, hcp.fail_callbacks, hcp.fail_code = plan_files[CLEAN].read_bytes(), 5, 403
    srv = service()
    assert post(srv, hcp.payload()) == 200
    assert wait_for(lambda: srv.results)
    assert len([r for r in hcp.requests if r[1] == "PATCH"]) == 1
    assert srv.results[0][1].startswith("undelivered: the callback answered HTTP 403")


def test_the_token_is_never_sent_to_another_host(hcp, service):
    evil = FakeHCP()
    try:
        srv = service()
        p = hcp.payload(plan_json_api_url=f"http://{evil.host()}/api/v2/plans/plan-1/json-output")
        assert post(srv, p) == 200
        assert wait_for(lambda: hcp.callbacks)
        attrs = hcp.callbacks[0]["body"]["data"]["attributes"]
        assert attrs["status"] == "failed" and "--tfe-host" in attrs["message"]
        assert evil.requests == []
    finally:
        evil.close()


def test_a_full_queue_answers_503(hcp, service, plan_files):
    hcp.plan, hcp.delay = plan_files[CLEAN].read_bytes(), 1.0
    srv = service(workers=1, queue=0)
    assert post(srv, hcp.payload()) == 200
    assert post(srv, hcp.payload(run_id="run-2")) == 503  # HCP Terraform retries it later
    assert wait_for(lambda: srv.results)


def test_serve_through_the_cli(tmp_path):
    """The console entry: refuses to start without a key; with one, listens and answers the
    verification request."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQS_POLICY_RUN_TASK")}
    p = sqs_policy_in_process("run-task", "serve", "--hmac-key-file", str(tmp_path / "absent"), cwd=tmp_path)
    assert p.returncode == 2 and b"HMAC key file" in p.stderr and b"no such file" in p.stderr
    (tmp_path / "key").write_bytes(KEY + b"\n")
    proc = subprocess.Popen([sys.executable, "-m", "resilient_sqs.policy", "run-task", "serve", "--port", "0",
                             "--hmac-key-file", str(tmp_path / "key")], cwd=REPO_ROOT, env=env,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert "listening on http://127.0.0.1:" in line, line
        port = int(line.split("127.0.0.1:")[1].split("/")[0])
        body = json.dumps({"payload_version": 1, "access_token": "test-token"}).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{port}/", data=body, method="POST", headers={
            run_task.SIGNATURE_HEADER: hmac.new(KEY, body, hashlib.sha512).hexdigest()})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert r.status == 200
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as r:
            assert r.read() == b"ok\n"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_short_key_is_refused(monkeypatch):
    monkeypatch.delenv(run_task.KEY_FILE_ENV, raising=False)
    monkeypatch.setenv(run_task.KEY_ENV, "short")
    with pytest.raises(run_task.InputError, match="at least 16"):
        run_task.read_key(None)
    monkeypatch.setenv(run_task.KEY_ENV, "")
    with pytest.raises(run_task.InputError, match="no HMAC key"):
        run_task.read_key(None)


def test_a_task_attached_before_the_plan_says_where_to_attach_it(hcp, service):
    srv = service()
    p = hcp.payload(stage="pre_plan")
    del p["plan_json_api_url"]
    assert post(srv, p) == 200
    assert wait_for(lambda: hcp.callbacks)
    attrs = hcp.callbacks[0]["body"]["data"]["attributes"]
    assert attrs["status"] == "failed" and "'pre_plan' stage" in attrs["message"] and "post-plan" in attrs["message"]
    assert not [r for r in hcp.requests if r[1] == "GET"]
