"""sqs-redrive: the operator's native DLQ redrive (SQS message move tasks).

    sqs-redrive start  DLQ [--to QUEUE] [--rate N] [--dry-run] [--no-wait]
    sqs-redrive list   DLQ
    sqs-redrive cancel TASK_HANDLE

DLQ and QUEUE may be a queue URL, ARN or name. ``start`` moves every message of
the DLQ back to its source queue (or ``--to``), at most ``--rate`` messages per
second, and shows progress until the task ends; ``--dry-run`` shows what would
move and changes nothing. Credentials, region and endpoint come from the usual
AWS environment (``AWS_ENDPOINT_URL`` for LocalStack), or --region/--endpoint-url.

Exit codes: 0 done, 1 the task failed or was cancelled, 2 usage or AWS error.
The IAM actions needed are those of modules/iam's redrive-operator policy.
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Callable

MAX_RATE = 500  # SQS limit for MaxNumberOfMessagesPerSecond
TERMINAL = {"COMPLETED", "CANCELLED", "FAILED"}


class UsageError(Exception):
    """Something the operator can fix; printed as one line, exit 2."""


def _client(args: argparse.Namespace, attempts: int = 3):
    import boto3
    from botocore.config import Config

    kwargs: dict[str, Any] = {"config": Config(retries={"total_max_attempts": attempts, "mode": "standard"})}
    if args.region:
        kwargs["region_name"] = args.region
    if args.endpoint_url:
        kwargs["endpoint_url"] = args.endpoint_url
    return boto3.client("sqs", **kwargs)


def resolve(sqs, ref: str) -> tuple[str, str]:
    """(url, arn) of a queue given as URL, ARN or name."""
    from botocore.exceptions import ClientError

    try:
        if ref.startswith("arn:"):
            parts = ref.split(":")
            if len(parts) != 6 or parts[2] != "sqs":
                raise UsageError(f"{ref!r} is not an SQS queue ARN (arn:aws:sqs:REGION:ACCOUNT:NAME)")
            url = sqs.get_queue_url(QueueName=parts[5], QueueOwnerAWSAccountId=parts[4])["QueueUrl"]
        elif ref.startswith(("http://", "https://")):
            url = ref
        else:
            url = sqs.get_queue_url(QueueName=ref)["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        if "NonExistentQueue" in code or "QueueDoesNotExist" in code:
            raise UsageError(f"queue {ref!r} does not exist in this account/region (check --region and the name)") from None
        raise
    return url, arn


def depth(sqs, url: str) -> tuple[int, int]:
    a = sqs.get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    )["Attributes"]
    return int(a.get("ApproximateNumberOfMessages", 0)), int(a.get("ApproximateNumberOfMessagesNotVisible", 0))


def tasks_of(sqs, dlq_arn: str) -> list[dict]:
    """The DLQ's move tasks, most recent first (SQS keeps the last 10)."""
    return sqs.list_message_move_tasks(SourceArn=dlq_arn, MaxResults=10).get("Results", [])


def running_task(sqs, dlq_arn: str) -> dict | None:
    return next((t for t in tasks_of(sqs, dlq_arn) if t.get("Status") == "RUNNING"), None)


def _no_response(exc: BaseException) -> bool:
    from botocore.exceptions import ConnectionClosedError, ReadTimeoutError

    return isinstance(exc, (ReadTimeoutError, ConnectionClosedError))


def cmd_start(sqs, args: argparse.Namespace, out: Callable[[str], None], sleep: Callable[[float], None],
              start_sqs: Any = None) -> int:
    """``start_sqs``: the client for StartMessageMoveTask, without retries (a retried start
    whose first response was lost starts a second task)."""
    if not 1 <= args.rate <= MAX_RATE:
        raise UsageError(f"--rate {args.rate}: must be 1-{MAX_RATE} messages per second (the SQS limit)")
    dlq_url, dlq_arn = resolve(sqs, args.dlq)
    dest_arn = resolve(sqs, args.to)[1] if args.to else None
    visible, in_flight = depth(sqs, dlq_url)
    if dest_arn:
        destination = dest_arn
    else:
        sources = sqs.list_dead_letter_source_queues(QueueUrl=dlq_url).get("queueUrls", [])
        if not sources:
            raise UsageError(
                f"{dlq_arn} is not the DLQ of any queue, so there is no source to return messages to "
                "(was its source queue deleted? recreate it with the DLQ in its redrive policy): give --to QUEUE"
            )
        destination = "the original source queue of each message (" + ", ".join(sources) + ")"
    existing = running_task(sqs, dlq_arn)

    if args.dry_run:
        out("dry run: nothing will be changed")
        out(f"  from         {dlq_arn}")
        out(f"  to           {destination}")
        out(f"  messages     {visible} visible, {in_flight} in flight (in-flight ones move once visible)")
        out(f"  rate         at most {args.rate} messages/s: about {visible / args.rate:.0f} s")
        if existing:
            out(f"  BLOCKED      a move task is already running: {existing['TaskHandle']}")
        return 0

    if existing:
        raise UsageError(
            f"a move task is already running on {dlq_arn} (handle {existing['TaskHandle']}): "
            "wait for it, or `sqs-redrive cancel HANDLE`"
        )
    if visible == 0 and in_flight == 0:
        out(f"{dlq_arn} is empty: nothing to move")
        return 0
    params = {"SourceArn": dlq_arn, "MaxNumberOfMessagesPerSecond": args.rate}
    if dest_arn:
        params["DestinationArn"] = dest_arn
    # tasks are told apart by start time as SQS reports it (no local clock): ours are newer
    # than every task listed before the start
    since = max((t.get("StartedTimestamp", 0) for t in tasks_of(sqs, dlq_arn)), default=0)
    try:
        handle = (start_sqs or sqs).start_message_move_task(**params)["TaskHandle"]
    except Exception as exc:
        if not _no_response(exc):
            raise
        # the start may have happened: look before reporting anything
        if not _ours(tasks_of(sqs, dlq_arn), since):
            raise
        handle = "(response lost; found the task it started)"
    out(f"started move task {handle}: {visible} messages from {dlq_arn} to {destination}, <= {args.rate}/s")
    if args.no_wait:
        return 0
    return watch(sqs, dlq_arn, since, out, sleep, args.poll)


def _ours(tasks: list[dict], since: int) -> list[dict]:
    return [t for t in tasks if t.get("StartedTimestamp", 0) > since]


def watch(sqs, dlq_arn: str, since: int, out: Callable[[str], None], sleep: Callable[[float], None], poll: float) -> int:
    """Follow every task started after ``since`` until all have ended; report their sums."""
    last = None
    while True:
        ours = _ours(tasks_of(sqs, dlq_arn), since)
        if not ours:
            out("the move task is no longer listed")
            return 1
        moved = sum(t.get("ApproximateNumberOfMessagesMoved", 0) for t in ours)
        totals = [t.get("ApproximateNumberOfMessagesToMove") for t in ours]
        total = sum(totals) if None not in totals else None
        running = [t for t in ours if t.get("Status") not in TERMINAL]
        status = "RUNNING" if running else ours[0].get("Status")
        line = f"{status}: moved {moved}" + (f" of {total}" if total is not None else "")
        if len(ours) > 1:
            line += f" ({len(ours)} move tasks)"
        if line != last:
            out(line)
            last = line
        if not running:
            bad = [t for t in ours if t.get("Status") != "COMPLETED"]
            for t in bad:
                out(f"move task ended {t.get('Status')}" + (f": {t['FailureReason']}" if t.get("FailureReason") else ""))
            return 1 if bad else 0
        sleep(poll)


def cmd_list(sqs, args: argparse.Namespace, out: Callable[[str], None]) -> int:
    _, dlq_arn = resolve(sqs, args.dlq)
    tasks = sqs.list_message_move_tasks(SourceArn=dlq_arn, MaxResults=10).get("Results", [])
    if not tasks:
        out(f"no move tasks for {dlq_arn}")
    for t in tasks:
        out(
            f"{t.get('Status'):<10} moved {t.get('ApproximateNumberOfMessagesMoved', 0)}"
            f" of {t.get('ApproximateNumberOfMessagesToMove', '?')}"
            f" -> {t.get('DestinationArn', 'original sources')}"
            + (f"  handle {t['TaskHandle']}" if t.get("TaskHandle") else "")
        )
    return 0


def cmd_cancel(sqs, args: argparse.Namespace, out: Callable[[str], None]) -> int:
    resp = sqs.cancel_message_move_task(TaskHandle=args.task_handle)
    out(f"cancelled; {resp.get('ApproximateNumberOfMessagesMoved', 0)} messages had been moved")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="sqs-redrive", description=__doc__.split("\n\n")[0])
    p.add_argument("--region", help="AWS region (default: from the environment)")
    p.add_argument("--endpoint-url", help="SQS endpoint (default: AWS_ENDPOINT_URL or AWS)")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("start", help="move the DLQ's messages back (native redrive)")
    s.add_argument("dlq", help="the dead-letter queue: URL, ARN or name")
    s.add_argument("--to", help="destination queue (default: each message's original source)")
    s.add_argument("--rate", type=int, default=10, help=f"max messages per second, 1-{MAX_RATE} (default 10)")
    s.add_argument("--dry-run", action="store_true", help="show what would move; change nothing")
    s.add_argument("--no-wait", action="store_true", help="start the task and return")
    s.add_argument("--poll", type=float, default=2.0, help="seconds between progress checks (default 2)")
    ls = sub.add_parser("list", help="list the DLQ's move tasks")
    ls.add_argument("dlq")
    c = sub.add_parser("cancel", help="cancel a running move task")
    c.add_argument("task_handle")
    return p


def main(argv: list[str] | None = None, out: Callable[[str], None] = print, sleep: Callable[[float], None] = time.sleep) -> int:
    args = parser().parse_args(argv)
    try:
        from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError
    except ImportError:  # the plain install ships only the plan checker
        print("sqs-redrive: boto3 is not installed; install the runtime extra: pip install 'resilient-sqs[runtime]'",
              file=sys.stderr)
        return 2
    try:
        sqs = _client(args)
        if args.command == "start":
            return cmd_start(sqs, args, out, sleep, start_sqs=_client(args, attempts=1))
        if args.command == "list":
            return cmd_list(sqs, args, out)
        return cmd_cancel(sqs, args, out)
    except UsageError as exc:
        print(f"sqs-redrive: {exc}", file=sys.stderr)
        return 2
    except NoCredentialsError:
        print("sqs-redrive: no AWS credentials found (set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY)", file=sys.stderr)
        return 2
    except ClientError as exc:
        err = exc.response.get("Error", {})
        hint = ""
        if err.get("Code") in ("AccessDenied", "AccessDeniedException"):
            hint = " (the caller needs the redrive-operator policy from modules/iam)"
        # name the queues: which one refused is the first thing an operator needs
        where = "".join(f" {label} {value}" for label, value in (("on", getattr(args, "dlq", None)), ("to", getattr(args, "to", None))) if value)
        print(f"sqs-redrive: {exc.operation_name}{where} failed: {err.get('Code')}: {err.get('Message')}{hint}", file=sys.stderr)
        return 2
    except BotoCoreError as exc:
        print(f"sqs-redrive: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
