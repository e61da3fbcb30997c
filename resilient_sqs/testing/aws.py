"""Clients for the endpoint (localstack-client for LocalStack, plain boto3 for real AWS or an
https endpoint) and the SQS helpers the scenarios and this project's tests share."""
from __future__ import annotations

import os
import threading
import time
import uuid
from urllib.parse import urlparse

import boto3

REGION = "us-east-1"


class Clients:
    """Thread-safe AWS client factory for one endpoint (None: real AWS, credentials and
    region from the environment)."""

    def __init__(self, endpoint: str | None, region: str | None = None, access_key: str = "test",
                 secret_key: str = "test"):
        self.endpoint = endpoint.rstrip("/") if endpoint else None
        self.region = region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or REGION
        self.access_key, self.secret_key = access_key, secret_key
        self._lock = threading.Lock()
        self._session = session_for(self.endpoint, access_key, secret_key, self.region) if self.endpoint else \
            boto3.session.Session(region_name=self.region)

    def client(self, service: str, **kwargs):
        with self._lock:  # botocore's client creation is not thread-safe on a shared session
            return self._session.client(service, **kwargs)

    def kwargs(self) -> dict:
        """Keyword arguments that make another library's client talk to the same endpoint."""
        if not self.endpoint:
            return {"region_name": self.region}
        return {"endpoint_url": self.endpoint, "region_name": self.region, "aws_access_key_id": self.access_key,
                "aws_secret_access_key": self.secret_key}


def session_for(endpoint: str, access_key: str = "test", secret_key: str = "test", region: str = REGION):
    """A localstack-client session for a LocalStack endpoint (boto3 clients with its endpoint)."""
    url = urlparse(endpoint)
    env_endpoint = os.environ.get("AWS_ENDPOINT_URL", "").strip().rstrip("/")
    # localstack-client builds http URLs (unless USE_SSL is set) and prefers $AWS_ENDPOINT_URL
    # over the host it is given: fall back to plain boto3 when either would pick the wrong endpoint
    if url.scheme == "https" or (env_endpoint and env_endpoint != endpoint.rstrip("/")):
        return _Boto3Session(endpoint, access_key, secret_key, region)
    from localstack_client.session import Session

    return Session(aws_access_key_id=access_key, aws_secret_access_key=secret_key, aws_session_token=None,
                   region_name=region, localstack_host=url.netloc)


class _Boto3Session:
    def __init__(self, endpoint: str, access_key: str, secret_key: str, region: str = REGION):
        self._kw = dict(endpoint_url=endpoint, aws_access_key_id=access_key, aws_secret_access_key=secret_key,
                        region_name=region)

    def client(self, service: str, **kwargs):
        return boto3.client(service, **{**kwargs, **self._kw})


# ------------------------------------------------------------------------------------------
# SQS
# ------------------------------------------------------------------------------------------
def depth(sqs, url: str) -> tuple[int, int]:
    """(visible, in flight) messages of a queue."""
    a = sqs.get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    )["Attributes"]
    return int(a["ApproximateNumberOfMessages"]), int(a["ApproximateNumberOfMessagesNotVisible"])


def receive(sqs, url: str, *, wait: int = 0, max_n: int = 10, visibility: int | None = None) -> list[dict]:
    kwargs = dict(QueueUrl=url, MaxNumberOfMessages=max_n, WaitTimeSeconds=wait, AttributeNames=["All"],
                  MessageAttributeNames=["All"])
    if visibility is not None:
        kwargs["VisibilityTimeout"] = visibility
    return sqs.receive_message(**kwargs).get("Messages", [])


def drain(sqs, url: str, timeout: float = 120) -> list[dict]:
    """Receive and delete until the queue reports nothing visible or in flight; returns the messages."""
    got: list[dict] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msgs = receive(sqs, url, wait=1, visibility=60)
        if msgs:
            got.extend(msgs)
            for i in range(0, len(msgs), 10):
                sqs.delete_message_batch(
                    QueueUrl=url,
                    Entries=[{"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(msgs[i : i + 10])],
                )
        elif depth(sqs, url) == (0, 0):
            return got
    raise AssertionError(f"{url} still not empty after {timeout} s")


def delete_all(sqs, url: str, timeout: float = 30) -> None:
    """Best-effort cleanup: receive (visibility 0 first, so in-flight test messages come back) and delete."""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            msgs = receive(sqs, url, wait=0, visibility=30)
            for m in msgs:
                sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
            if not msgs:
                visible, in_flight = depth(sqs, url)
                if visible == 0 and in_flight == 0:
                    return
                if visible == 0:
                    time.sleep(0.5)
    except Exception:  # noqa: BLE001 - cleanup never hides the scenario's own outcome
        return


def send_batch(sqs, url: str, bodies: list[str], fifo: bool = False, **extra) -> None:
    for i in range(0, len(bodies), 10):
        entries = []
        for n, b in enumerate(bodies[i : i + 10]):
            e = {"Id": str(n), "MessageBody": b, **extra}
            if fifo:
                e.setdefault("MessageGroupId", "sqs-behave")
                e.setdefault("MessageDeduplicationId", uuid.uuid4().hex)
            entries.append(e)
        resp = sqs.send_message_batch(QueueUrl=url, Entries=entries)
        if resp.get("Failed"):
            raise AssertionError(f"send_message_batch to {url} failed: {resp['Failed'][:3]}")
