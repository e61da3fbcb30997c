"""SQS queue checks: SSE, long polling, maxReceiveCount range (rules SQS001, SQS007, SQS003)."""
from __future__ import annotations

from checkov.common.models.enums import CheckCategories, CheckResult
from checkov.terraform.checks.resource.base_resource_check import BaseResourceCheck

from _common import get, json_object, number, opaque_scalar, truthy, unresolved  # _common beside it: checkov loads these checks by path
from _facts import MAX_RECEIVE_COUNT_RECOMMENDED_MAX, MAX_RECEIVE_COUNT_RECOMMENDED_MIN  # generated: tooling/facts.py


class QueueEncrypted(BaseResourceCheck):
    def __init__(self):
        super().__init__(name="SQS queue is encrypted at rest (SSE-SQS or SSE-KMS) [SQS001]",
                         id="CKV_RSQS_SQS001", categories=(CheckCategories.ENCRYPTION,),
                         supported_resources=("aws_sqs_queue",))

    def scan_resource_conf(self, conf):
        kms = get(conf, "kms_master_key_id")
        sse = get(conf, "sqs_managed_sse_enabled")
        if isinstance(kms, str) and kms.strip():
            return CheckResult.PASSED  # a key id, ARN, alias or a reference to one
        if truthy(sse) is True:
            return CheckResult.PASSED
        if unresolved(sse) or opaque_scalar(sse) or unresolved(kms):
            return CheckResult.UNKNOWN
        return CheckResult.FAILED


class LongPolling(BaseResourceCheck):
    def __init__(self):
        super().__init__(name="SQS queue uses long polling: receive_wait_time_seconds > 0 [SQS007]",
                         id="CKV_RSQS_SQS007", categories=(CheckCategories.GENERAL_SECURITY,),
                         supported_resources=("aws_sqs_queue",))

    def scan_resource_conf(self, conf):
        w = get(conf, "receive_wait_time_seconds")
        if unresolved(w) or opaque_scalar(w):
            return CheckResult.UNKNOWN
        n = number(w)
        return CheckResult.PASSED if n is not None and n > 0 else CheckResult.FAILED


class MaxReceiveCount(BaseResourceCheck):
    def __init__(self):
        super().__init__(name=f"Redrive policy maxReceiveCount within {MAX_RECEIVE_COUNT_RECOMMENDED_MIN}..{MAX_RECEIVE_COUNT_RECOMMENDED_MAX} [SQS003]",
                         id="CKV_RSQS_SQS003", categories=(CheckCategories.GENERAL_SECURITY,),
                         supported_resources=("aws_sqs_queue", "aws_sqs_queue_redrive_policy"))

    def scan_resource_conf(self, conf):
        raw = get(conf, "redrive_policy")
        if raw is None:
            return CheckResult.UNKNOWN  # no redrive here: the graph rule SQS002 decides
        pol = json_object(raw)
        if pol is None:
            return CheckResult.UNKNOWN  # computed at apply (embeds a new DLQ's ARN)
        mrc = pol.get("maxReceiveCount")
        if unresolved(mrc) or opaque_scalar(mrc):
            return CheckResult.UNKNOWN
        n = number(mrc)
        return CheckResult.PASSED if n is not None and MAX_RECEIVE_COUNT_RECOMMENDED_MIN <= n <= MAX_RECEIVE_COUNT_RECOMMENDED_MAX else CheckResult.FAILED


check_sse = QueueEncrypted()
check_polling = LongPolling()
check_mrc = MaxReceiveCount()
