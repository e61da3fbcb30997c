"""The messaging model the rules read: queues and their DLQs, consumers, claim-check
buckets, idempotency tables, alarms and policy documents, linked from the plan graph.

One module per area, each linking its resources from values the resolver (policies/
resolve.py) gives; :class:`Model` runs the areas' stages in the one order they need:

- ``values``: reading planned values (ARNs, URLs, numbers AWS accepts, places);
- ``queues``: queues, their separate resources, redrive, other services' DLQs (stage 1);
- ``consumers``: functions and event source mappings (stage 2);
- ``alarms``: CloudWatch alarms and the queues they watch (stage 3);
- ``storage``: claim-check buckets and tables (stage 4);
- ``documents``: policy documents, read on demand.
"""
from __future__ import annotations

from ..graph import Plan
from ..resolve import Resolver
from .alarms import Alarm, AlarmLinks
from .consumers import ESM, ConsumerLinks, Function
from .documents import ATTACHMENTS, POLICY_ATTRS, DocumentLinks, PolicyDoc
from .queues import SERVICE_DLQS, Link, Queue, QueueLinks
from .storage import Bucket, StorageLinks
from .values import (AWS_DEFAULT_RETENTION, AWS_DEFAULT_VISIBILITY, ESM_DEFAULT_BATCH_SQS, LAMBDA_DEFAULT_TIMEOUT,
                     Invalid, flag, invalid_of, lambda_function_name, loads, number, parse_arn, parse_sqs_arn,
                     parse_sqs_url, place_mismatch, receive_count, same_place, show, str_list)

__all__ = ["ATTACHMENTS", "AWS_DEFAULT_RETENTION", "AWS_DEFAULT_VISIBILITY", "Alarm", "Bucket", "ESM",
           "ESM_DEFAULT_BATCH_SQS", "Function", "Invalid", "LAMBDA_DEFAULT_TIMEOUT", "Link", "Model", "POLICY_ATTRS",
           "PolicyDoc", "Queue", "SERVICE_DLQS", "flag", "invalid_of", "lambda_function_name", "loads", "number",
           "parse_arn", "parse_sqs_arn", "parse_sqs_url", "place_mismatch", "receive_count", "same_place", "show",
           "str_list"]


class Model(QueueLinks, ConsumerLinks, AlarmLinks, StorageLinks, DocumentLinks):
    """The plan's messaging resources, linked. ``source``: the configuration source
    (source.Source) when the check reads one; every link asks ``resolve`` (resolve.Resolver)."""

    def __init__(self, plan: Plan, source=None):
        self.plan = plan
        self.source = source
        self.resolve = Resolver(plan, source)
        self.default_region = plan.region()
        self._documents_on_demand()
        # the stages, in the order each needs what the ones before it linked
        self._link_queues()      # 1. queues, their separate resources, redrive, other services' DLQs
        self._link_consumers()   # 2. functions and event source mappings (their queues: stage 1)
        self._link_alarms()      # 3. alarms (the queues they watch: stage 1)
        self._link_storage()     # 4. buckets and tables (their queues: stages 1 and 2)
