"""The messaging model the rules read: queues and their DLQs, consumers, claim-check
buckets, idempotency tables, alarms and policy documents, linked from the plan graph.

One module per area; each stage is a function (or class) that receives the plan, the
resolver (policies/resolve.py: every value a link follows is read through it) and the
results of the stages before it, and returns its own:

- ``values``: reading planned values (ARNs, URLs, numbers AWS accepts, places) and ``Link``,
  what following a link came to;
- ``queues``: stage 1, ``link_queues`` -> ``QueueIndex``: queues, their separate resources,
  redrive (``redrive``: ``read_redrive``, one reading of a redrive policy), other services' DLQs;
- ``consumers``: stage 2, ``Consumers``: functions and event source mappings (queues from stage 1);
- ``alarms``: stage 3, ``link_alarms``: alarms and the queues they watch (stage 1);
- ``storage``: stage 4, ``link_storage``: claim-check buckets and tables (stages 1 and 2, documents);
- ``producers``: stage 5, ``link_producers``: SNS subscriptions, EventBridge targets and S3
  notifications delivering to the queues (stage 1), and what queue and key policies say of them;
  ``link_senders``: Lambda destinations, Scheduler, Pipes and API Gateway sending with a role;
- ``documents``: ``Documents``, policy documents, read on demand.

No module of the model imports one that comes after it, nor the configuration source.
"""
from __future__ import annotations

from ..graph import Plan
from ..resolve import Resolver
from .alarms import Alarm, link_alarms
from .consumers import ESM, Consumers, Function
from .documents import ATTACHMENTS, POLICY_ATTRS, Documents, PolicyDoc
from .queues import SERVICE_DLQS, Queue, QueueIndex, link_queues
from .redrive import Redrive
from .producers import Delivery, Sender, link_producers, link_senders
from .storage import Bucket, link_storage, opt_in
from .values import (AWS_DEFAULT_RETENTION, AWS_DEFAULT_VISIBILITY, ESM_DEFAULT_BATCH_SQS, LAMBDA_DEFAULT_TIMEOUT,
                     Invalid, Link, flag, invalid_of, lambda_function_name, loads, number, parse_arn, parse_sqs_arn,
                     parse_sqs_url, place_mismatch, receive_count, same_place, show, str_list)

__all__ = ["ATTACHMENTS", "AWS_DEFAULT_RETENTION", "AWS_DEFAULT_VISIBILITY", "Alarm", "Bucket", "Consumers", "Delivery", "Sender",
           "Documents", "ESM", "ESM_DEFAULT_BATCH_SQS", "Function", "Invalid", "LAMBDA_DEFAULT_TIMEOUT", "Link",
           "Model", "POLICY_ATTRS", "PolicyDoc", "Queue", "QueueIndex", "Redrive", "SERVICE_DLQS", "flag",
           "invalid_of", "lambda_function_name", "opt_in", "loads", "number", "parse_arn", "parse_sqs_arn", "parse_sqs_url",
           "place_mismatch", "receive_count", "same_place", "show", "str_list"]


class Model:
    """The plan's messaging resources, linked. ``source``: the configuration source
    (source.Source) when the check reads one; every link asks ``resolve`` (resolve.Resolver).

    The stages' results, as the rules read them: ``index`` (queues.QueueIndex: ``queues`` is
    its list, ``queue_by_res`` its map), ``consumers`` (consumers.Consumers: ``esms``,
    ``functions``), ``alarms``, ``buckets``, ``tables`` and ``producers``, and ``documents``
    (documents.Documents)."""

    def __init__(self, plan: Plan, source=None):
        self.plan = plan
        self.source = source
        self.resolve = resolve = Resolver(plan, source)
        self.documents = Documents(plan, resolve)  # read on demand (the IAM rules, stage 4)
        # the stages, in the order each needs what the ones before it linked
        self.index = link_queues(plan, resolve)                    # 1. queues, redrive, other services' DLQs
        self.consumers = Consumers(plan, resolve, self.index)      # 2. functions and event source mappings
        self.alarms = link_alarms(plan, resolve, self.index)       # 3. alarms and the queues they watch
        self.buckets, self.tables = link_storage(plan, resolve, self.index, self.consumers,
                                                 self.documents)   # 4. buckets and tables
        self.producers = link_producers(plan, resolve, self.index)  # 5. producers into the queues,
        self.senders = link_senders(plan, resolve, self.index)      # and the senders acting through a role
        self.queues = self.index.all
        self.queue_by_res = self.index.by_res
        self.esms = self.consumers.esms
        self.functions = self.consumers.functions
