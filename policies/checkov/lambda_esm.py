"""Event source mapping checks: partial batch responses, bounded concurrency (ESM002, ESM003)."""
from __future__ import annotations

from checkov.common.models.enums import CheckCategories, CheckResult
from checkov.terraform.checks.resource.base_resource_check import BaseResourceCheck

from _common import get, number, opaque_scalar, unresolved  # _common beside it: checkov loads these checks by path
from _facts import MAXIMUM_CONCURRENCY_MIN  # generated: tooling/facts.py


def _not_sqs(conf) -> bool:
    arn = get(conf, "event_source_arn")
    return isinstance(arn, str) and arn.startswith("arn:") and ":sqs:" not in arn


class PartialBatchResponses(BaseResourceCheck):
    def __init__(self):
        super().__init__(name="Event source mapping reports partial batch failures (ReportBatchItemFailures) [ESM002]",
                         id="CKV_RSQS_ESM002", categories=(CheckCategories.GENERAL_SECURITY,),
                         supported_resources=("aws_lambda_event_source_mapping",))

    def scan_resource_conf(self, conf):
        if _not_sqs(conf):
            return CheckResult.UNKNOWN
        types = conf.get("function_response_types")
        flat = []
        for v in types or ():
            flat.extend(v if isinstance(v, list) else [v])
        if any(unresolved(v) for v in flat):
            return CheckResult.UNKNOWN
        return CheckResult.PASSED if "ReportBatchItemFailures" in flat else CheckResult.FAILED


class BoundedConcurrency(BaseResourceCheck):
    def __init__(self):
        super().__init__(name="SQS event source mapping sets scaling_config.maximum_concurrency (or provisioned_poller_config.maximum_pollers) [ESM003]",
                         id="CKV_RSQS_ESM003", categories=(CheckCategories.GENERAL_SECURITY,),
                         supported_resources=("aws_lambda_event_source_mapping",))

    def scan_resource_conf(self, conf):
        if _not_sqs(conf):
            return CheckResult.UNKNOWN
        v = get(conf, "scaling_config", "maximum_concurrency")
        if unresolved(v) or opaque_scalar(v):
            return CheckResult.UNKNOWN
        n = number(v)
        if n is not None:
            return CheckResult.PASSED if n >= MAXIMUM_CONCURRENCY_MIN else CheckResult.FAILED
        # provisioned mode (no scaling_config there: Lambda refuses both): its maximum_pollers bounds it
        p = get(conf, "provisioned_poller_config", "maximum_pollers")
        if unresolved(p) or opaque_scalar(p):
            return CheckResult.UNKNOWN
        return CheckResult.PASSED if number(p) is not None else CheckResult.FAILED


check_partial = PartialBatchResponses()
check_concurrency = BoundedConcurrency()
