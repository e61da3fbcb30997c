"""Every attribute of an entry of the root module's `queues`, declared once.

A queue attribute travels through several files: the root module's `queues` (and, for a
setting, `queue_defaults`), internal/inputs (which refuses attributes it does not know,
checks each value's type and resolves a setting's precedence), the root module's call of
modules/queue, and modules/queue's variable. Written by hand, one left out of a
pass-through was accepted and then dropped without a word. Here each attribute is
declared once, and ``python -m tooling.plumbing`` (``make plumbing``) writes every place
Terraform needs it spelled out (see that module for the list);
``tests/tooling/test_plumbing.py`` fails while a generated file is stale, and
``tests/root_module/test_every_queue_attribute.py`` sets every attribute declared here through
the root module and finds each in a real plan.

What stays hand-written, by design: what an attribute *does* (its use in
modules/queue/main.tf, where it meets the aws_sqs_queue), its bounds (the `validation`
blocks on modules/queue's `name`, and the checks in internal/inputs that read values),
the hand-written inputs of modules/queue (`name`, which carries every validation, `tags`,
and the module's own `account_id`, `partition`, `region`, `input_names`).

To add a queue setting: add an :class:`Attribute` here (``defaults=True`` for a scalar
setting), run ``make plumbing`` and ``make docs``, use ``var.<name>`` in
modules/queue/main.tf, add its validation (and a refusal run) if it has bounds, and give
it a value in ``tests/root_module/test_every_queue_attribute.py`` (which fails until it does).
"""
from __future__ import annotations

from dataclasses import dataclass

#: ``Attribute.variable`` of an attribute whose modules/queue variable is written by hand
HAND = "hand"


@dataclass(frozen=True)
class Variable:
    """modules/queue's variable for an attribute; its block in variables.tf is written from this.

    ``type`` and ``default`` are HCL as ``terraform fmt`` writes it. A variable whose default
    is ``null`` takes null as "not given"; any other default is ``nullable = false``."""
    description: str
    type: str = "number"
    default: str = "null"

    @property
    def nullable(self) -> bool:
        return self.default == "null"


@dataclass(frozen=True)
class Attribute:
    """One attribute of a `queues` entry.

    ``group``: where it is listed (a key of :data:`GROUPS`). ``variable``: modules/queue's
    variable (a :class:`Variable`), :data:`HAND` when that variable is written by hand, or
    None for an attribute the root module handles itself (internal/inputs checks it; it is
    not passed to modules/queue). ``check``: the type internal/inputs checks a value against
    before it reaches a submodule (``bool``, ``number``, ``string``, ``list`` of strings,
    ``map`` of strings; None: checked elsewhere), by default the variable's own.
    ``defaults``: a setting `queue_defaults` may give too (the queue's own value wins).
    ``doc``: the note after its name in the root module's `queues` description ("" none,
    None: not listed there). ``root``: the expression the root module passes to
    modules/queue (default ``each.value.settings.<name>`` for a setting, else
    ``each.value.<name>``: internal/inputs' output). ``dlq_only``: configures a DLQ the
    module creates (refused with an existing DLQ, `dlq_arn`). ``fifo_only``: SQS takes it
    on FIFO queues only (refused on a standard pair)."""
    name: str
    group: str
    variable: Variable | str | None
    check: str | None = ""
    defaults: bool = False
    doc: str | None = ""
    root: str | None = ""
    dlq_only: bool = False
    fifo_only: bool = False

    @property
    def value_type(self) -> str | None:
        """The type internal/inputs checks a value of this attribute against."""
        if self.check != "":
            return self.check
        t = self.variable.type if isinstance(self.variable, Variable) else None
        return {"bool": "bool", "number": "number", "string": "string", "list(string)": "list", "map(string)": "map"}.get(t)

    @property
    def root_expression(self) -> str | None:
        """What the root module passes to modules/queue's variable (None: not passed)."""
        if self.variable is None:
            return None
        if self.root:
            return self.root
        return f"each.value.settings.{self.name}" if self.defaults else f"each.value.{self.name}"


#: group -> (the comment heading it in modules/queue/variables.tf, its lead-in in the root
#: module's `queues` description); groups are listed in this order
GROUPS: dict[str, tuple[str | None, str | None]] = {
    "queue": (None, ""),
    "dlq": ("# --- the dead-letter queue's own settings (terraform-aws-modules/sqs names) ------------", "for the DLQ "),
    "policies": ("# --- queue policies ------------------------------------------------------------------", "policies: "),
    "other": (None, ""),
}

#: the root module's `queues` description: before and after the attribute list
QUEUES_DESCRIPTION = (
    (
        "Queue/DLQ pairs to create, keyed by queue name (the key is the source queue's name unless `name` is "
        "given; `name_prefix` is put in front). Every attribute is optional; an unknown attribute is refused. "
        "Settings resolve as: the queue's own value, then (visibility timeout only) the value its `consumer` "
        "derives, then `queue_defaults`, then the module default. Attributes (see modules/queue for the meaning "
        "and bounds of each): "
    ),
    (
        ". `consumer`: `timeout_seconds` (required: the consumer function's timeout) and "
        "`maximum_batching_window_seconds` (0) derive the visibility timeout (6 x timeout + window); the event "
        "source mapping's `batch_size` (10), `maximum_concurrency` (10), `filter_patterns` ([]), "
        "`report_batch_item_failures` (true), `enabled` (true), `provisioned_poller_config` (null: standard mode; "
        "`{ minimum_pollers, maximum_pollers }` for provisioned mode, bounded by `maximum_pollers` instead of "
        "`maximum_concurrency`, which is then refused); `function_name` names an existing function (a "
        "function of the same stack goes in `consumer_functions`)."
    ),
)

#: every attribute of a `queues` entry, in the order modules/queue and the docs list them
ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute(
        "name", "queue",
        variable=HAND,
        check="string",
    ),
    Attribute(
        "dlq_name", "queue",
        variable=Variable(
            (
                "Name of the dead-letter queue. Default: `<name>-dlq` (plus `.fifo` for a FIFO pair). Must differ "
                "from `name`."
            ),
            type="string",
        ),
        dlq_only=True,
    ),
    Attribute(
        "dlq_arn", "queue",
        variable=Variable(
            (
                "ARN of an existing queue to use as the dead-letter queue instead of creating one (a DLQ shared "
                "by several queues, or owned by another stack). It must be in the same account and region, and "
                "FIFO exactly when this queue is (both checked at plan when the ARN is known). Its retention, "
                "policy and redrive-allow policy are not managed here: its redrive-allow policy must admit this "
                "queue. Empty (default) or null: the module creates the DLQ."
            ),
            type="string",
            default="\"\"",
        ),
        defaults=True,
        doc="use an existing DLQ instead of creating one",
    ),
    Attribute(
        "create_dlq", "queue",
        variable=Variable(
            (
                "Whether the module creates the DLQ. Null (default): it does unless `dlq_arn` is given. Set false "
                "with `dlq_arn` when that ARN is known only after apply (a queue created elsewhere in the same "
                "stack): Terraform must know at plan whether the DLQ resource exists, and an unknown ARN cannot "
                "tell it (terraform-aws-modules/sqs asks the same with its `create_dlq`)."
            ),
            type="bool",
        ),
        defaults=True,
        doc=(
            "false with `dlq_arn` when that ARN is known only after apply, e.g. a queue of the same stack: "
            "Terraform must know at plan whether the DLQ exists"
        ),
        root="each.value.dlq_own",
    ),
    Attribute(
        "fifo", "queue",
        variable=Variable(
            "Create a FIFO pair. The DLQ is FIFO exactly when the source is (SQS requires it).",
            type="bool",
            default="false",
        ),
        defaults=True,
    ),
    Attribute(
        "visibility_timeout_seconds", "queue",
        variable=Variable(
            (
                "Visibility timeout of the source queue, 0-43200 s. Default: 6 x consumer timeout + batching "
                "window when `consumer` is set, else 30 s. An explicit value below that consumer bound is "
                "refused."
            ),
            type="number",
        ),
        defaults=True,
    ),
    Attribute(
        "consumer", "queue",
        variable=Variable(
            (
                "The Lambda consumer of the source queue, if any: `timeout_seconds` (the function timeout, 1-900 "
                "s) and `maximum_batching_window_seconds` (0-300 s). Used to derive the visibility timeout: 6 x "
                "timeout + window (AWS guidance, so a batch can be retried before a message is redelivered)."
            ),
            type=(
                "object({\n"
                "    timeout_seconds                 = number\n"
                "    maximum_batching_window_seconds = optional(number, 0)\n"
                "  })"
            ),
        ),
        doc=None,
    ),
    Attribute(
        "message_retention_seconds", "queue",
        variable=Variable(
            (
                "How long the source queue keeps a message, 86400-1209600 s. Default 4 days (345600, the AWS "
                "default). Less than 1 day is refused: an outage over a weekend night would silently delete work. "
                "It must be above `delay_seconds` + `max_receive_count` x the visibility timeout, or a message "
                "that fails every receive is deleted before it reaches the DLQ (refused, with the numbers)."
            ),
            type="number",
            default="345600",
        ),
        defaults=True,
    ),
    Attribute(
        "dlq_message_retention_seconds", "queue",
        variable=Variable(
            (
                "How long the DLQ keeps a message, 60-1209600 s, and strictly more than "
                "`message_retention_seconds`. Default 14 days (the SQS maximum). On a standard queue a message "
                "keeps its original enqueue time when it moves to the DLQ, so a DLQ retention not above the "
                "source's deletes failed messages before anyone can look at them. Not used with `dlq_arn`."
            ),
            type="number",
            default="1209600",
        ),
        defaults=True,
        dlq_only=True,
    ),
    Attribute(
        "max_receive_count", "queue",
        variable=Variable(
            (
                "Receives before a message moves to the DLQ (the redrive policy's maxReceiveCount), 2-1000. "
                "Default 5. 1 is refused: a single timeout or a console peek would send a good message to the "
                "DLQ. `delay_seconds` + max_receive_count x the visibility timeout must stay below "
                "`message_retention_seconds` (see there)."
            ),
            type="number",
            default="5",
        ),
        defaults=True,
    ),
    Attribute(
        "receive_wait_time_seconds", "queue",
        variable=Variable(
            (
                "Long-polling wait of the source queue, 1-20 s. Default 20. 0 (short polling: empty receives, "
                "cost, false-empty reads) is refused unless `allow_short_polling` is true."
            ),
            type="number",
            default="20",
        ),
        defaults=True,
    ),
    Attribute(
        "allow_short_polling", "queue",
        variable=Variable(
            (
                "Opt-out that permits `receive_wait_time_seconds = 0` (and `dlq_receive_wait_time_seconds = 0`). "
                "Short polling samples a subset of SQS servers, so receives can come back empty while messages "
                "wait, and every empty receive is billed. Only for consumers that must never block."
            ),
            type="bool",
            default="false",
        ),
        defaults=True,
    ),
    Attribute(
        "delay_seconds", "queue",
        variable=Variable(
            "Delivery delay of the source queue, 0-900 s.",
            type="number",
            default="0",
        ),
        defaults=True,
    ),
    Attribute(
        "max_message_size", "queue",
        variable=Variable(
            (
                "Maximum message size of both queues in bytes, 1024-1048576. Default null: the AWS provider's "
                "default, 262144 (256 KiB), not SQS's own default of 1 MiB: a queue created without it takes "
                "256 KiB. SQS has accepted up to 1048576 since August 2025; the AWS provider in use decides above "
                "262144: 6.8.0 and later accept it, 5.x and 6.0-6.7 refuse it at plan with their own error "
                "(`expected max_message_size to be in the range (1024 - 262144)`). Larger payloads belong in the "
                "claim-check bucket."
            ),
            type="number",
        ),
        defaults=True,
    ),
    Attribute(
        "kms_master_key_id", "queue",
        variable=Variable(
            (
                "KMS key (ID, ARN or alias) for SSE-KMS on both queues. Null means SSE-SQS (SQS-managed keys). "
                "Encryption is always on; there is no way to turn it off."
            ),
            type="string",
        ),
        defaults=True,
    ),
    Attribute(
        "kms_data_key_reuse_period_seconds", "queue",
        variable=Variable(
            "How long SQS reuses a data key before calling KMS again, 60-86400 s (SSE-KMS only). Default 300.",
            type="number",
            default="300",
        ),
        defaults=True,
    ),
    Attribute(
        "sqs_managed_sse_enabled", "queue",
        variable=None,
        check="bool",
        defaults=True,
        doc="true only: encryption is always on",
    ),
    Attribute(
        "content_based_deduplication", "queue",
        variable=Variable(
            "FIFO only: use a SHA-256 of the body as the deduplication ID.",
            type="bool",
            default="false",
        ),
        defaults=True,
        fifo_only=True,
    ),
    Attribute(
        "deduplication_scope", "queue",
        variable=Variable(
            "FIFO only: `queue` or `messageGroup`. Null leaves the AWS default (`queue`).",
            type="string",
        ),
        defaults=True,
        fifo_only=True,
    ),
    Attribute(
        "fifo_throughput_limit", "queue",
        variable=Variable(
            (
                "FIFO only: `perQueue` or `perMessageGroupId` (high-throughput FIFO; requires "
                "`deduplication_scope = \"messageGroup\"`). Null leaves the AWS default (`perQueue`)."
            ),
            type="string",
        ),
        defaults=True,
        fifo_only=True,
    ),
    Attribute(
        "dlq_visibility_timeout_seconds", "dlq",
        variable=Variable(
            (
                "Visibility timeout of the DLQ, 0-43200 s (how long a message taken for inspection or redrive "
                "stays hidden). Null: the AWS default (30 s)."
            ),
            type="number",
        ),
        defaults=True,
        dlq_only=True,
    ),
    Attribute(
        "dlq_delay_seconds", "dlq",
        variable=Variable(
            "Delivery delay of the DLQ, 0-900 s. Null: the AWS default (0).",
            type="number",
        ),
        defaults=True,
        dlq_only=True,
    ),
    Attribute(
        "dlq_receive_wait_time_seconds", "dlq",
        variable=Variable(
            (
                "Long-polling wait of the DLQ, 1-20 s. Default 20. 0 is refused unless `allow_short_polling` is "
                "true."
            ),
            type="number",
            default="20",
        ),
        defaults=True,
        dlq_only=True,
    ),
    Attribute(
        "dlq_kms_master_key_id", "dlq",
        variable=Variable(
            (
                "KMS key (ID, ARN or alias) for SSE-KMS on the DLQ. Null: the same as `kms_master_key_id` "
                "(SSE-SQS when that is null too)."
            ),
            type="string",
        ),
        defaults=True,
        dlq_only=True,
    ),
    Attribute(
        "dlq_kms_data_key_reuse_period_seconds", "dlq",
        variable=Variable(
            (
                "Data key reuse period of the DLQ, 60-86400 s (SSE-KMS only). Null: the same as "
                "`kms_data_key_reuse_period_seconds`."
            ),
            type="number",
        ),
        defaults=True,
        dlq_only=True,
    ),
    Attribute(
        "dlq_sqs_managed_sse_enabled", "dlq",
        variable=None,
        check="bool",
        defaults=True,
    ),
    Attribute(
        "dlq_content_based_deduplication", "dlq",
        variable=Variable(
            (
                "FIFO only: content-based deduplication on the DLQ (for messages sent to it directly; moved "
                "messages keep their IDs). Null: not set (false)."
            ),
            type="bool",
        ),
        defaults=True,
        dlq_only=True,
        fifo_only=True,
    ),
    Attribute(
        "dlq_deduplication_scope", "dlq",
        variable=Variable(
            "FIFO only: `queue` or `messageGroup` on the DLQ. Null: the AWS default (`queue`).",
            type="string",
        ),
        defaults=True,
        dlq_only=True,
        fifo_only=True,
    ),
    Attribute(
        "dlq_fifo_throughput_limit", "dlq",
        variable=Variable(
            (
                "FIFO only: `perQueue` or `perMessageGroupId` on the DLQ (the latter requires "
                "`dlq_deduplication_scope = \"messageGroup\"`). Null: the AWS default (`perQueue`)."
            ),
            type="string",
        ),
        defaults=True,
        dlq_only=True,
        fifo_only=True,
    ),
    Attribute(
        "dlq_redrive_allow_policy", "dlq",
        variable=Variable(
            (
                "The DLQ's redrive-allow policy, in SQS's own keys: `redrivePermission` `byQueue` (default) or "
                "`allowAll`, and `sourceQueueArns`: queues besides this one that may use the DLQ (byQueue only; "
                "this queue is always included; at most 10 in all, the SQS limit). `denyAll` is refused: this "
                "queue could not use its own DLQ. Null: byQueue naming this queue alone."
            ),
            type=(
                "object({\n"
                "    redrivePermission = optional(string, \"byQueue\")\n"
                "    sourceQueueArns   = optional(list(string), [])\n"
                "  })"
            ),
        ),
        dlq_only=True,
    ),
    Attribute(
        "dlq_tags", "dlq",
        variable=Variable(
            "Extra tags for the DLQ, merged over `tags`.",
            type="map(string)",
            default="{}",
        ),
        dlq_only=True,
    ),
    Attribute(
        "queue_policy_statements", "policies",
        variable=Variable(
            (
                "Extra statements for the source queue's policy (for example SNS or EventBridge as sender), in "
                "the shape of aws_iam_policy_document's `statement`: `sid`, `effect` (Allow), `actions` or "
                "`not_actions`, `principals` or `not_principals` (each `{ type, identifiers }`), `conditions` or "
                "`condition` (each `{ test, variable, values }`; both spellings are used). The resource is always "
                "the source queue, so `resources`/`not_resources` are refused. `not_actions` and `not_principals` "
                "are accepted in Deny statements only (in an Allow they grant everything else). Wildcard actions "
                "in an Allow are refused. The TLS-only deny statement is always present."
            ),
            type=(
                "list(object({\n"
                "    sid            = optional(string)\n"
                "    effect         = optional(string, \"Allow\")\n"
                "    actions        = optional(list(string))\n"
                "    not_actions    = optional(list(string))\n"
                "    principals     = optional(list(object({ type = string, identifiers = list(string) })), [])\n"
                "    not_principals = optional(list(object({ type = string, identifiers = list(string) })), [])\n"
                "    conditions     = optional(list(object({ test = string, variable = string, values = list(string) })), [])\n"
                "    condition      = optional(list(object({ test = string, variable = string, values = list(string) })), [])\n"
                "    resources      = optional(list(string))\n"
                "    not_resources  = optional(list(string))\n"
                "  }))"
            ),
            default="[]",
        ),
    ),
    Attribute(
        "dlq_policy_statements", "policies",
        variable=Variable(
            (
                "Extra statements for the DLQ's policy, same shape and rules as `queue_policy_statements`. The "
                "resource is always the DLQ."
            ),
            type=(
                "list(object({\n"
                "    sid            = optional(string)\n"
                "    effect         = optional(string, \"Allow\")\n"
                "    actions        = optional(list(string))\n"
                "    not_actions    = optional(list(string))\n"
                "    principals     = optional(list(object({ type = string, identifiers = list(string) })), [])\n"
                "    not_principals = optional(list(object({ type = string, identifiers = list(string) })), [])\n"
                "    conditions     = optional(list(object({ test = string, variable = string, values = list(string) })), [])\n"
                "    condition      = optional(list(object({ test = string, variable = string, values = list(string) })), [])\n"
                "    resources      = optional(list(string))\n"
                "    not_resources  = optional(list(string))\n"
                "  }))"
            ),
            default="[]",
        ),
        doc=(
            "a list, or a map keyed by name; each statement `sid`, `effect`, `actions`/`not_actions`, "
            "`principals`/`not_principals`, `conditions`/`condition`"
        ),
        dlq_only=True,
    ),
    Attribute(
        "source_queue_policy_documents", "policies",
        variable=Variable(
            (
                "Whole IAM policy documents (JSON, e.g. `data.aws_iam_policy_document.x.json`) merged into the "
                "source queue's policy, under the module's statements (a statement with the same `Sid` in "
                "`queue_policy_statements` wins). A statement without `Resource` gets the source queue's ARN. The "
                "same rules apply as to statements (no Allow to `*` without a condition, no wildcard or NotAction "
                "Allow, no NotPrincipal Allow), checked at plan when the documents are known."
            ),
            type="list(string)",
            default="[]",
        ),
    ),
    Attribute(
        "override_queue_policy_documents", "policies",
        variable=Variable(
            (
                "Whole IAM policy documents merged over the source queue's policy: a statement whose `Sid` "
                "matches one of the module's statements replaces it, except the TLS-only deny "
                "(`DenyInsecureTransport`), which always stays. A statement without `Resource` gets the source "
                "queue's ARN. Same rules as `source_queue_policy_documents`."
            ),
            type="list(string)",
            default="[]",
        ),
    ),
    Attribute(
        "source_dlq_queue_policy_documents", "policies",
        variable=Variable(
            "Like `source_queue_policy_documents`, for the DLQ's policy (the default Resource is the DLQ).",
            type="list(string)",
            default="[]",
        ),
        dlq_only=True,
    ),
    Attribute(
        "override_dlq_queue_policy_documents", "policies",
        variable=Variable(
            "Like `override_queue_policy_documents`, for the DLQ's policy.",
            type="list(string)",
            default="[]",
        ),
        dlq_only=True,
    ),
    Attribute(
        "alarm_thresholds", "other",
        variable=None,
        check=None,
        doc="overrides `alarms.thresholds`",
    ),
    Attribute(
        "prevent_destroy", "other",
        variable=Variable(
            (
                "Refuse, at plan time, every plan that deletes or replaces the queue or its DLQ (and so their "
                "messages): renaming either, switching `fifo`, or removing the pair fails with Terraform's "
                "\"Instance cannot be destroyed\" naming this module's `terraform_data.prevent_destroy[0]` "
                "(`terraform_data.prevent_destroy_queue[0]` with `dlq_arn`, which guards the queue alone). "
                "In-place changes plan as usual. To lift it for a planned removal: set it false and run "
                "`terraform state rm` on that guard (it holds no infrastructure), then plan again. Default false."
            ),
            type="bool",
            default="false",
        ),
        defaults=True,
        doc=(
            "default false: true makes any plan that deletes or replaces the pair, such as a new `name`, "
            "`dlq_name` or `fifo` or a removed or renamed key, fail at plan time; see modules/queue"
        ),
    ),
    Attribute(
        "tags", "other",
        variable=HAND,
        check="map",
        root="merge(var.tags, each.value.tags)",
    ),
)
