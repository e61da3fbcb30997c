"""Remediations in terms of this project's module inputs.

A finding on a resource that this project's Terraform module created is fixed by
changing a module input, not the resource attribute the rule reads (the module
writes the attribute). The module is recognised in the plan's configuration by
its shape (the resources and input variables of its queue and claim-check-bucket
submodules, and of the root module that composes them), whatever its source
address (a registry, a Git URL, a local path).
"""
from __future__ import annotations

import json
import re

from .graph import Plan, parse_module_address

# submodule -> (resources it declares, inputs it declares, its call name in the root
# module, how the root module's input names it, {(resource local name, attribute): input}).
# A declared copy of the modules' source (the checker reads plans, not the modules):
# tests/modules/test_declared_copies.py proves each entry against modules/ and main.tf.
SUBMODULES = {
    "queue": (
        {"aws_sqs_queue.this", "aws_sqs_queue.dlq"},
        {"max_receive_count", "dlq_message_retention_seconds", "receive_wait_time_seconds", "allow_short_polling"},
        "queue", "queues[{key}].{var}",
        {
            ("aws_sqs_queue.this", "maxReceiveCount"): "max_receive_count",
            ("aws_sqs_queue.this", "message_retention_seconds"): "message_retention_seconds",
            ("aws_sqs_queue.dlq", "message_retention_seconds"): "dlq_message_retention_seconds",
            ("aws_sqs_queue.this", "receive_wait_time_seconds"): "receive_wait_time_seconds",
            ("aws_sqs_queue.dlq", "receive_wait_time_seconds"): "dlq_receive_wait_time_seconds",
            ("aws_sqs_queue.this", "visibility_timeout_seconds"): "visibility_timeout_seconds",
        },
    ),
    "claim-check-bucket": (
        {"aws_s3_bucket.this", "aws_s3_bucket_lifecycle_configuration.this"},
        {"expiration_days", "dlq_retention_seconds", "payload_prefix"},
        "claim_check_bucket", "claim_check_bucket.{var}",
        {("aws_s3_bucket_lifecycle_configuration.this", "expiration.days"): "expiration_days"},
    ),
}
ROOT_INPUTS = {"queues", "queue_defaults", "claim_check_bucket"}

# the phrase of a remediation that tells to change attribute ATTR ("Set X", "lower X of
# <address>", "Set X ... in the lifecycle rule of <address>"): the attribute comes from the
# finding (what the rule judged), the phrase is where the module input replaces it
_PHRASE = (r"\b((?:[Ss]et|[Rr]aise|[Ll]ower)(?: the queue's)? )({attr})\b(?: (?:of|in the lifecycle rule of) (\S+?))?"
           r"(?=[ ,;]|\.(?:\s|$)|$)")


class ModuleInputs:
    """Which module instances of the plan are this project's submodules, and the module
    input that sets a resource attribute of theirs."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self._memo: dict[str, tuple | None] = {}

    def _kind(self, module_addr: str) -> tuple | None:
        """(submodule kind, input path format, module call address) for a module instance
        that is one of this project's submodules, else None."""
        if module_addr in self._memo:
            return self._memo[module_addr]
        got = None
        try:
            segs = parse_module_address(module_addr) if module_addr else ()
        except ValueError:
            segs = ()
        cfg = self.plan.module_config(module_addr) if segs else None
        if cfg is not None:
            for kind, (resources, inputs, call, root_fmt, _map) in SUBMODULES.items():
                if resources <= set(cfg.resources) and inputs <= set(cfg.variables):
                    name, key = segs[-1]
                    parent = module_addr[: module_addr.rfind(".module.")] if ".module." in module_addr else ""
                    pcfg = self.plan.module_config(parent)
                    if name == call and pcfg is not None and ROOT_INPUTS <= set(pcfg.variables):
                        k = json.dumps(key) if isinstance(key, str) else (str(key) if key is not None else None)
                        fmt = root_fmt.replace("[{key}]", f"[{k}]" if k is not None else "")
                        got = (kind, fmt, parent)
                    else:
                        got = (kind, "{var}", module_addr)
                    break
        self._memo[module_addr] = got
        return got

    def rewrite(self, address: str, remediation: str, judged=()) -> str:
        """The remediation of a finding on ``address`` with each attribute the rule judged
        (``judged``: (address, attribute) pairs, rules.Result.judged) that this project's
        module sets replaced by the module input to change."""
        for attr in dict.fromkeys(a for _, a in judged):
            targets = {t for t, a in judged if a == attr}

            def repl(m: re.Match, targets=targets) -> str:
                verb, attr, target = m.group(1), m.group(2), (m.group(3) or address)
                res = self.plan.by_address.get(target)
                if res is None or target not in targets:
                    return m.group(0)
                kind = self._kind(res.module)
                if kind is None:
                    return m.group(0)
                var = SUBMODULES[kind[0]][4].get((res.local, attr))
                if var is None:
                    return m.group(0)
                where = f"{verb.replace(' the queue' + chr(39) + 's', '')}the module input {kind[1].format(var=var)}"
                return where + (f" of {kind[2]}" if kind[2] else " (a variable of this root configuration)")

            remediation = re.sub(_PHRASE.format(attr=re.escape(attr)), repl, remediation)
        return remediation
