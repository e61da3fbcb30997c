"""A fault-injecting HTTP proxy on 127.0.0.1 in front of LocalStack.

Clients pointed at ``proxy.endpoint`` reach LocalStack through it, with botocore's real
timeouts and retries. A rule decides, per request, what happens to it:

* ``"pass"``: forwarded, response returned;
* ``("hold", seconds)``: forwarded (LocalStack applies it), then the response is held back
  for ``seconds`` (or until the proxy closes): a hung call whose work was done;
* ``"drop"``: forwarded, then the connection is closed without a response (a lost response);
* ``("error", status, code)``: not forwarded; an AWS error response with that HTTP status.

Rules are ``(operation, action, times)``: the first ``times`` requests for ``operation``
("SendMessageBatch", "ReceiveMessage", "StartMessageMoveTask", "s3:PutObject"...) get
``action``. Every request is logged in ``proxy.seen`` as (operation, action taken).
"""
from __future__ import annotations

import http.client
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse


def _operation(handler: BaseHTTPRequestHandler) -> str:
    target = handler.headers.get("X-Amz-Target", "")
    if target:  # JSON protocol (SQS, DynamoDB): "AmazonSQS.SendMessageBatch"
        return target.rsplit(".", 1)[-1]
    auth = handler.headers.get("Authorization", "")
    service = auth.split("Credential=", 1)[1].split("/")[3] if "Credential=" in auth else "?"
    return f"{service}:{handler.command}"


class FaultProxy:
    def __init__(self, upstream: str):
        self.upstream = urlparse(upstream)
        self.rules: list[list] = []  # [operation, action, times left]
        self.seen: list[tuple[str, str]] = []
        self._released = threading.Event()
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _any(self):
                proxy._handle(self)

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "FaultProxy":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._released.set()
        self.server.shutdown()
        self.server.server_close()

    def on(self, operation: str, action, times: int = 1) -> "FaultProxy":
        with self._lock:
            self.rules.append([operation, action, times])
        return self

    def count(self, operation: str) -> int:
        return sum(1 for op, _ in self.seen if op == operation)

    def _action(self, op: str):
        with self._lock:
            for rule in self.rules:
                if rule[0] == op and rule[2] > 0:
                    rule[2] -= 1
                    return rule[1]
        return "pass"

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        body = h.rfile.read(int(h.headers.get("Content-Length") or 0))
        op = _operation(h)
        action = self._action(op)
        kind = action if isinstance(action, str) else action[0]
        self.seen.append((op, kind))
        if kind == "error":
            _, status, code = action
            payload = json.dumps({"__type": code, "message": "injected fault"}).encode()
            h.send_response(status)
            h.send_header("Content-Type", "application/x-amz-json-1.0")
            h.send_header("Content-Length", str(len(payload)))
            h.end_headers()
            h.wfile.write(payload)
            return
        conn = http.client.HTTPConnection(self.upstream.hostname, self.upstream.port, timeout=60)
        headers = {k: v for k, v in h.headers.items() if k.lower() not in ("host", "connection")}
        headers["Host"] = self.upstream.netloc
        conn.request(h.command, h.path, body=body, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        if kind == "drop":
            h.close_connection = True
            h.connection.close()
            return
        if kind == "hold":
            self._released.wait(action[1])
        try:
            h.send_response(resp.status)
            for k, v in resp.getheaders():
                if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                    h.send_header(k, v)
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
        except OSError:  # the client gave up on a held response
            h.close_connection = True


class FakeContext:
    """A Lambda context whose deadline is ``seconds`` from now (real time)."""

    def __init__(self, seconds: float):
        self.deadline = time.monotonic() + seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.deadline - time.monotonic()) * 1000))
