"""``sqs-policy run-task serve``: the checker as an HCP Terraform / Terraform Enterprise run task.

HCP Terraform POSTs a JSON payload to the task's URL at the post-plan (or pre-apply) stage,
signed with the task's HMAC key (``X-TFC-Task-Signature``: the hex HMAC-SHA512 of the body).
The service:

1. refuses a request without a valid signature (401), a body over ``MAX_REQUEST_BYTES`` (413),
   one that is not a JSON object (400);
2. answers the endpoint verification HCP Terraform sends when the task is created or edited
   (``access_token`` ``"test-token"``) with 200 and nothing else;
3. answers 200 at once (HCP Terraform retries a request that gets no 200) and checks the run on
   a worker thread; with ``--workers`` busy and ``--queue`` full it answers 503 (HCP Terraform
   retries later);
4. fetches the plan JSON from ``plan_json_api_url`` with the run's ``access_token`` (redirects
   followed; the token is sent only to the host it was given for), within ``--max-plan-mib`` and
   ``--fetch-timeout``;
5. checks it (the rules, ``--config``, no configuration source: the service has none) and
   PATCHes ``task_result_callback_url`` with the result (formats/hcp_run_task.py): ``passed``
   or ``failed``, the summary, one outcome per finding with Status and Severity tags. A plan
   that cannot be fetched or read is ``failed`` with the reason as the message. A callback
   that fails (a connection error, 429, 5xx) is retried ``--callback-retries`` times with
   exponential backoff; a 4xx other than 429 is not retried (the token expired, the run moved on).

URLs in a payload are used only when they are HTTPS on a host of ``--tfe-host`` (default
``app.terraform.io``), so a signed payload cannot send the run's token elsewhere; ``--allow-http``
admits plain HTTP (a test server, a TFE behind a TLS-terminating proxy on a private network).
Logs are one line per event on standard error, escaped; the token is never logged.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .errors import InputError

SIGNATURE_HEADER = "X-TFC-Task-Signature"
VERIFICATION_TOKEN = "test-token"  # HashiCorp's endpoint verification payload carries this token
JSON_API = "application/vnd.api+json"
MAX_REQUEST_BYTES = 1 << 20  # a run task request is a few KiB
KEY_ENV = "SQS_POLICY_RUN_TASK_HMAC_KEY"
KEY_FILE_ENV = "SQS_POLICY_RUN_TASK_HMAC_KEY_FILE"
MiB = 1 << 20


@dataclass
class Settings:
    key: bytes
    hosts: tuple = ("app.terraform.io",)
    allow_http: bool = False
    max_plan_bytes: int = 64 * MiB
    fetch_timeout: float = 60.0
    callback_timeout: float = 30.0
    callback_retries: int = 5
    retry_base: float = 1.0  # seconds before the first retry; doubled each time
    workers: int = 2
    queue: int = 32
    config: object = None  # config.Config
    strict: bool = False
    fail_on: str = "error"
    results_url: str | None = None
    log: object = field(default=None, repr=False)  # a callable taking one line (default: standard error)


def signature(key: bytes, body: bytes) -> str:
    """The X-TFC-Task-Signature of ``body``: hex HMAC-SHA512 with the task's key."""
    return hmac.new(key, body, hashlib.sha512).hexdigest()


def read_key(key_file: str | None) -> bytes:
    """The HMAC key: ``--hmac-key-file``, else ``$SQS_POLICY_RUN_TASK_HMAC_KEY_FILE``, else
    ``$SQS_POLICY_RUN_TASK_HMAC_KEY`` (a trailing line break of a file is not part of it)."""
    from .files import Refused, read_regular

    path = key_file or os.environ.get(KEY_FILE_ENV)
    if path:
        try:
            key = read_regular(path, 4096, label=f"HMAC key file {path}").rstrip(b"\r\n")
        except Refused as e:
            raise InputError(f"{e}; write the run task's HMAC key in it") from None
        where = f"HMAC key file {path}"
    else:
        key = os.environ.get(KEY_ENV, "").encode()
        where = f"${KEY_ENV}"
    if not key:
        raise InputError(f"no HMAC key: {where} is empty or unset; set {KEY_ENV} (or --hmac-key-file FILE) to the "
                         "HMAC key of the run task in HCP Terraform (Organization settings > Run tasks); the service "
                         "accepts only signed requests")
    if len(key) < 16:
        raise InputError(f"{where}: the HMAC key is {len(key)} characters; use at least 16 (HCP Terraform takes any "
                         "length: e.g. `openssl rand -hex 32`)")
    return key


class RunTaskServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def __init__(self, address, settings: Settings):
        super().__init__(address, _Handler)
        self.settings = settings
        self._slots = threading.BoundedSemaphore(settings.workers + settings.queue)
        self._pool = _Pool(settings.workers)
        self.results: list = []  # (run_id, status or error) of each run checked, for tests and logs

    def log(self, text: str) -> None:
        from .terminal import line

        out = line(f"sqs-policy run-task: {' '.join(text.split())}")[:1000]
        if self.settings.log is not None:
            self.settings.log(out)
            return
        try:
            sys.stderr.write(out + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

    def submit(self, payload: dict) -> bool:
        if not self._slots.acquire(blocking=False):
            return False

        def job():
            try:
                self.handle_run(payload)
            finally:
                self._slots.release()

        self._pool.submit(job)
        return True

    def handle_run(self, payload: dict) -> None:
        run = str(payload.get("run_id") or "?")[:100]
        callback = payload.get("task_result_callback_url")
        token = payload.get("access_token")
        try:
            body = self.check_run(payload)
        except InputError as e:
            body = _failure(str(e), self.settings.results_url)
        except Exception as e:  # noqa: BLE001 - a bug: the run gets a failed result, the service goes on
            body = _failure(f"internal error: {type(e).__name__}: {str(e)[:300]} (please report it)",
                            self.settings.results_url)
        status = body["data"]["attributes"]["status"]
        self.log(f"run {run}: {status}: {body['data']['attributes'].get('message', '')}")
        try:
            self._callback(callback, token, body, run)
            self.results.append((run, status))
        except InputError as e:
            self.log(f"run {run}: the result was not delivered: {e}")
            self.results.append((run, f"undelivered: {e}"))

    def check_run(self, payload: dict) -> dict:
        """The callback body for one run (InputError: why it could not be checked)."""
        from . import loader
        from .engine import evaluate
        from .formats import FORMATS, Context

        stage = payload.get("stage")
        url = payload.get("plan_json_api_url")
        if not isinstance(url, str) or not url:
            raise InputError(f"the run task ran at the {stage!r} stage, which has no plan; attach it at the "
                             "post-plan (or pre-apply) stage")
        raw = self._fetch(url, payload.get("access_token"))
        name = f"the plan JSON of run {payload.get('run_id', '?')}"
        doc = loader.parse(loader.decode_bytes(raw, name), name)
        del raw
        s = self.settings
        report = evaluate(doc, s.config, strict=s.strict, keep_passes=False)
        ctx = Context(report, doc, "plan.json", ".", fail_on=s.fail_on)
        # the format's own rendering (escaped, neutralized) is what is sent
        out = json.loads(FORMATS["hcp-run-task"].render(ctx))
        if s.results_url:
            out["data"]["attributes"]["url"] = s.results_url
        return out

    # -- HTTP to HCP Terraform ------------------------------------------------------------
    def _allowed(self, url, what: str) -> str:
        if not isinstance(url, str):
            raise InputError(f"{what} is missing from the run task payload")
        u = urllib.parse.urlsplit(url)
        if u.scheme != "https" and not (u.scheme == "http" and self.settings.allow_http):
            raise InputError(f"{what} {_short(url)} is not HTTPS; only HTTPS URLs of --tfe-host are used "
                             "(--allow-http admits plain HTTP)")
        if u.netloc.lower() not in self.settings.hosts:
            raise InputError(f"{what} {_short(url)} is not on a --tfe-host ({', '.join(self.settings.hosts)}); the "
                             "run's token is sent only there; add the host with --tfe-host")
        return url

    def _fetch(self, url, token) -> bytes:
        s = self.settings
        url = self._allowed(url, "plan_json_api_url")
        req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})
        deadline = time.monotonic() + s.fetch_timeout
        try:
            with _opener().open(req, timeout=s.fetch_timeout) as resp:
                length = resp.headers.get("Content-Length")
                if length and length.isdigit() and int(length) > s.max_plan_bytes:
                    raise InputError(_too_big(int(length), s.max_plan_bytes))
                chunks, size = [], 0
                while True:
                    if time.monotonic() > deadline:
                        raise InputError(f"fetching the plan JSON took over {s.fetch_timeout:g} s (--fetch-timeout); "
                                         f"{size:,} bytes had arrived")
                    chunk = resp.read(min(MiB, s.max_plan_bytes + 1 - size))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > s.max_plan_bytes:
                        raise InputError(_too_big(size, s.max_plan_bytes))
                return b"".join(chunks)
        except urllib.error.HTTPError as e:
            raise InputError(f"fetching the plan JSON from {_short(url)} failed: HTTP {e.code} {e.reason}") from None
        except (urllib.error.URLError, OSError) as e:
            why = getattr(e, "reason", None) or e
            if isinstance(why, TimeoutError) or "timed out" in str(why):
                why = f"no answer within {s.fetch_timeout:g} s (--fetch-timeout)"
            raise InputError(f"fetching the plan JSON from {_short(url)} failed: {why}") from None

    def _callback(self, url, token, body: dict, run: str) -> None:
        s = self.settings
        url = self._allowed(url, "task_result_callback_url")
        data = json.dumps(body).encode()
        delay = s.retry_base
        for attempt in range(s.callback_retries + 1):
            req = urllib.request.Request(url, data=data, method="PATCH", headers={
                "Authorization": f"Bearer {token}", "Content-Type": JSON_API})
            try:
                with _opener().open(req, timeout=s.callback_timeout) as resp:
                    resp.read(65536)
                    return
            except urllib.error.HTTPError as e:
                why, retry = f"HTTP {e.code} {e.reason}", e.code == 429 or e.code >= 500
            except (urllib.error.URLError, OSError) as e:
                why, retry = str(getattr(e, "reason", None) or e), True
            if not retry:
                raise InputError(f"the callback answered {why}; not retried")
            if attempt == s.callback_retries:
                raise InputError(f"the callback failed {attempt + 1} times, last: {why} (--callback-retries "
                                 f"{s.callback_retries})")
            self.log(f"run {run}: callback failed ({why}); retry {attempt + 1} of {s.callback_retries} in "
                     f"{delay:g} s")
            time.sleep(delay)
            delay *= 2


def _too_big(size: int, limit: int) -> str:
    return (f"the plan JSON is over {limit / MiB:g} MiB ({size:,} bytes so far), the --max-plan-mib limit; raise "
            "--max-plan-mib (a plan of 1,000 queue pairs is about 25 MiB)")


def _short(url: str) -> str:
    u = urllib.parse.urlsplit(url)
    return f"{u.scheme}://{u.netloc}{u.path}"[:200]


def _failure(message: str, url: str | None) -> dict:
    from .terminal import escape

    attrs = {"status": "failed", "message": escape(" ".join(message.split()))[:500]}
    if url:
        attrs["url"] = url
    return {"data": {"type": "task-results", "attributes": attrs}}


class _NoAuthAcrossHosts(urllib.request.HTTPRedirectHandler):
    """Follow redirects (HCP Terraform answers the plan JSON with one to a temporary download
    URL), without the run's token when the redirect leaves the host it was given for."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and urllib.parse.urlsplit(newurl).netloc != urllib.parse.urlsplit(req.full_url).netloc:
            new.headers.pop("Authorization", None)
            new.unredirected_hdrs.pop("Authorization", None)
        return new


def _opener():
    return urllib.request.build_opener(_NoAuthAcrossHosts)


class _Pool:
    """``n`` daemon worker threads taking jobs from a queue (the server bounds how many wait)."""

    def __init__(self, n: int):
        import queue

        self._q = queue.Queue()
        for _ in range(max(1, n)):
            threading.Thread(target=self._work, daemon=True).start()

    def submit(self, job) -> None:
        self._q.put(job)

    def _work(self) -> None:
        while True:
            job = self._q.get()
            try:
                job()
            except Exception:  # noqa: BLE001 - handle_run logs its own failures; a worker never dies
                pass


class _Handler(BaseHTTPRequestHandler):
    server: RunTaskServer
    timeout = 30  # seconds a client may take to send its request
    server_version = "sqs-policy-run-task"

    def log_message(self, format, *args):
        pass  # one line per run instead (RunTaskServer.log)

    def _reply(self, code: int, text: str = "") -> None:
        data = (text + "\n").encode() if text else b""
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data:
            self.wfile.write(data)

    def do_GET(self):
        if self.path in ("/healthz", "/health"):
            self._reply(200, "ok")
        else:
            self._reply(404, "POST run task requests to this service; GET /healthz for its health")

    def do_POST(self):
        length = self.headers.get("Content-Length")
        if not length or not length.isdigit():
            self._reply(411, "a Content-Length is required")
            return
        if int(length) > MAX_REQUEST_BYTES:
            self._reply(413, f"a run task request is at most {MAX_REQUEST_BYTES} bytes")
            self.close_connection = True
            return
        raw = self.rfile.read(int(length))
        given = self.headers.get(SIGNATURE_HEADER, "")
        if not given or not hmac.compare_digest(given.strip().lower(), signature(self.server.settings.key, raw)):
            self.server.log(f"refused a request from {self.client_address[0]}: "
                            f"{'no' if not given else 'a wrong'} {SIGNATURE_HEADER} (401)")
            self._reply(401, "the request's signature does not match the run task's HMAC key")
            return
        try:
            payload = json.loads(raw)
        except (ValueError, RecursionError):
            payload = None
        if not isinstance(payload, dict):
            self._reply(400, "the body is not a JSON object")
            return
        if payload.get("access_token") == VERIFICATION_TOKEN:
            self.server.log("answered HCP Terraform's endpoint verification (200)")
            self._reply(200)
            return
        if not self.server.submit(payload):
            self.server.log(f"run {str(payload.get('run_id'))[:100]}: busy (503): every worker and queue slot is taken")
            self._reply(503, "busy: every worker and queue slot is taken; retry later")
            return
        self._reply(200)


def serve(host: str, port: int, settings: Settings, ready=None) -> None:
    """Serve until interrupted; ``ready`` is called with the bound (host, port)."""
    srv = RunTaskServer((host, port), settings)
    h, p = srv.server_address[:2]
    srv.log(f"listening on http://{h}:{p}/ (hosts: {', '.join(settings.hosts)}; workers {settings.workers})")
    if ready is not None:
        ready((h, p))
    try:
        srv.serve_forever()
    finally:
        srv.server_close()
