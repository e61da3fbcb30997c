"""Claim-check bucket and idempotency table checks (S3001, S3002, DDB001, DDB003)."""
from __future__ import annotations

import re

from checkov.common.models.enums import CheckCategories, CheckResult
from checkov.terraform.checks.resource.base_resource_check import BaseResourceCheck

from _common import get, opaque_scalar, truthy, unresolved  # _common beside it: checkov loads these checks by path
from _facts import IDEMPOTENCY_EXPIRY_ATTRIBUTE, IDEMPOTENCY_TABLE_PATTERN  # generated: tooling/facts.py

PAB = ("block_public_acls", "block_public_policy", "ignore_public_acls", "restrict_public_buckets")
IDEMPOTENCY = re.compile(IDEMPOTENCY_TABLE_PATTERN)


class BucketPublicAccessBlock(BaseResourceCheck):
    def __init__(self):
        super().__init__(name="S3 public access block has all four flags on [S3002]",
                         id="CKV_RSQS_S3002", categories=(CheckCategories.NETWORKING,),
                         supported_resources=("aws_s3_bucket_public_access_block",))

    def scan_resource_conf(self, conf):
        vals = [get(conf, f) for f in PAB]
        if any(unresolved(v) or opaque_scalar(v) for v in vals):
            return CheckResult.UNKNOWN
        return CheckResult.PASSED if all(truthy(v) is True for v in vals) else CheckResult.FAILED


class BucketEncryption(BaseResourceCheck):
    def __init__(self):
        super().__init__(name="S3 server-side encryption configuration names an algorithm [S3001]",
                         id="CKV_RSQS_S3001", categories=(CheckCategories.ENCRYPTION,),
                         supported_resources=("aws_s3_bucket_server_side_encryption_configuration",))

    def scan_resource_conf(self, conf):
        alg = get(conf, "rule", "apply_server_side_encryption_by_default", "sse_algorithm")
        if unresolved(alg):
            return CheckResult.UNKNOWN
        return CheckResult.PASSED if alg in ("AES256", "aws:kms", "aws:kms:dsse") else CheckResult.FAILED


def _idempotency(conf) -> bool:
    name = get(conf, "name")
    return isinstance(name, str) and bool(IDEMPOTENCY.search(name))


class IdempotencyTTL(BaseResourceCheck):
    def __init__(self):
        super().__init__(name=f"Idempotency table has TTL enabled on `{IDEMPOTENCY_EXPIRY_ATTRIBUTE}` [DDB001]",
                         id="CKV_RSQS_DDB001", categories=(CheckCategories.GENERAL_SECURITY,),
                         supported_resources=("aws_dynamodb_table",))

    def scan_resource_conf(self, conf):
        if not _idempotency(conf):
            return CheckResult.UNKNOWN
        enabled, attr = get(conf, "ttl", "enabled"), get(conf, "ttl", "attribute_name")
        if unresolved(enabled) or opaque_scalar(enabled) or unresolved(attr):
            return CheckResult.UNKNOWN
        return CheckResult.PASSED if truthy(enabled) is True and attr == IDEMPOTENCY_EXPIRY_ATTRIBUTE else CheckResult.FAILED


class IdempotencyPITR(BaseResourceCheck):
    def __init__(self):
        super().__init__(name="Idempotency table has point-in-time recovery [DDB003]",
                         id="CKV_RSQS_DDB003", categories=(CheckCategories.BACKUP_AND_RECOVERY,),
                         supported_resources=("aws_dynamodb_table",))

    def scan_resource_conf(self, conf):
        if not _idempotency(conf):
            return CheckResult.UNKNOWN
        v = get(conf, "point_in_time_recovery", "enabled")
        if unresolved(v) or opaque_scalar(v):
            return CheckResult.UNKNOWN
        return CheckResult.PASSED if truthy(v) is True else CheckResult.FAILED


check_pab = BucketPublicAccessBlock()
check_sse = BucketEncryption()
check_ttl = IdempotencyTTL()
check_pitr = IdempotencyPITR()
