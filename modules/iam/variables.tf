variable "producer_queue_arns" {
  description = "Queues the producer sends to: sqs:SendMessage (which also authorizes SendMessageBatch) on exactly these ARNs."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "consumer_queue_arns" {
  description = "Queues the consumer reads: sqs:ReceiveMessage, DeleteMessage, ChangeMessageVisibility and GetQueueAttributes (what a Lambda event source mapping or a polling worker needs) on exactly these ARNs."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "consumer_dlq_arns" {
  description = "DLQs the consumer may send a record to when it fails for good (resilient_sqs.consumer.redrive_guard's permanent-failure routing, with the reason in x-failure-reason): sqs:SendMessage on exactly these ARNs, usually the DLQs of consumer_queue_arns."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "redrive" {
  description = "DLQ/source pairs the redrive operator may move messages between: on the DLQ sqs:StartMessageMoveTask, ListMessageMoveTasks, CancelMessageMoveTask and what the move reads (ReceiveMessage, DeleteMessage, GetQueueAttributes, ListDeadLetterSourceQueues); on the source sqs:SendMessage and GetQueueAttributes."
  type = list(object({
    dlq_arn          = string
    source_queue_arn = string
  }))
  default  = []
  nullable = false
}

variable "payload_bucket_arn" {
  description = "Claim-check bucket ARN (arn:aws:s3:::<name>). The producer gets s3:PutObject and the consumer s3:GetObject on `<bucket>/<payload_prefix>*` only. Null: no S3 statements."
  type        = string
  default     = null
}

variable "payload_prefix" {
  description = "Key prefix of the payload objects in the bucket (\"\" = whole bucket)."
  type        = string
  default     = "payloads/"
  nullable    = false
}

variable "idempotency_table_arn" {
  description = "Idempotency table ARN. The consumer gets dynamodb:GetItem, PutItem, UpdateItem and DeleteItem on it (what Powertools' DynamoDBPersistenceLayer calls). Null: no DynamoDB statement."
  type        = string
  default     = null
}

variable "kms_key_arns" {
  description = "Customer-managed KMS keys protecting the queues, bucket or table. The producer gets kms:GenerateDataKey and kms:Decrypt, the consumer kms:Decrypt, the redrive operator both. AWS-managed keys (alias/aws/...) need no grant and must not be listed."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "create_managed_policies" {
  description = "Also create customer-managed IAM policies from the documents (named `<name>-producer`, `<name>-consumer`, `<name>-redrive-operator`). Default false: only the JSON documents are output, to attach where you like. A policy over IAM's 6,144 characters (whitespace not counted) is refused at plan."
  type        = bool
  default     = false
  nullable    = false
}

variable "name" {
  description = "Base name of the managed policies. Required when `create_managed_policies` is true."
  type        = string
  default     = null

  # Every input's bounds are validated here, on `name`, as in modules/queue:
  # Terraform requires each condition to name var.name (`var.name == var.name`
  # is always true), and records one validated variable per module instance
  # in the plan instead of ten (the root module calls this module per queue).
  validation { # producer_queue_arns
    condition     = var.name == var.name && (alltrue([for a in var.producer_queue_arns : can(regex("^arn:[a-z-]+:sqs:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,80}(\\.fifo)?$", a))]))
    error_message = "producer_queue_arns: every entry must be a full SQS queue ARN (arn:aws:sqs:<region>:<account>:<name>); wildcards and queue URLs are refused, so the policy names exactly the queues it grants."
  }

  validation { # consumer_queue_arns
    condition     = var.name == var.name && (alltrue([for a in var.consumer_queue_arns : can(regex("^arn:[a-z-]+:sqs:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,80}(\\.fifo)?$", a))]))
    error_message = "consumer_queue_arns: every entry must be a full SQS queue ARN (arn:aws:sqs:<region>:<account>:<name>); wildcards and queue URLs are refused."
  }

  validation { # consumer_dlq_arns
    condition     = var.name == var.name && (alltrue([for a in var.consumer_dlq_arns : can(regex("^arn:[a-z-]+:sqs:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,80}(\\.fifo)?$", a))]))
    error_message = "consumer_dlq_arns: every entry must be a full SQS queue ARN (arn:aws:sqs:<region>:<account>:<name>); wildcards and queue URLs are refused."
  }

  validation { # redrive
    condition = var.name == var.name && (alltrue([for p in var.redrive : alltrue([
      for a in [p.dlq_arn, p.source_queue_arn] : can(regex("^arn:[a-z-]+:sqs:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,80}(\\.fifo)?$", a))
    ])]))
    error_message = "redrive: dlq_arn and source_queue_arn must be full SQS queue ARNs (arn:aws:sqs:<region>:<account>:<name>); wildcards are refused."
  }

  validation { # payload_bucket_arn
    condition     = var.name == var.name && (var.payload_bucket_arn == null || can(regex("^arn:[a-z-]+:s3:::[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$", coalesce(var.payload_bucket_arn, "x"))))
    error_message = "payload_bucket_arn: must be a bucket ARN (arn:aws:s3:::<bucket>) without a key part or wildcard; the object prefix comes from payload_prefix."
  }

  validation { # payload_prefix
    condition     = var.name == var.name && (can(regex("^([A-Za-z0-9._-]+/)*$", var.payload_prefix)))
    error_message = "payload_prefix: must be \"\" or path segments of letters, digits, '.', '_' or '-', each ending in \"/\" (e.g. \"payloads/\"); wildcards are refused."
  }

  validation { # idempotency_table_arn
    condition     = var.name == var.name && (var.idempotency_table_arn == null || can(regex("^arn:[a-z-]+:dynamodb:[a-z0-9-]+:[0-9]{12}:table/[A-Za-z0-9_.-]{3,255}$", coalesce(var.idempotency_table_arn, "x"))))
    error_message = "idempotency_table_arn: must be a DynamoDB table ARN (arn:aws:dynamodb:<region>:<account>:table/<name>) without wildcards."
  }

  validation { # kms_key_arns
    condition     = var.name == var.name && (alltrue([for a in var.kms_key_arns : can(regex("^arn:[a-z-]+:kms:[a-z0-9-]+:[0-9]{12}:key/[A-Za-z0-9-]+$", a))]))
    error_message = "kms_key_arns: every entry must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>). Aliases, alias ARNs and bare key IDs are refused: an IAM grant on an alias does not authorize use of the key behind it."
  }

  validation { # name
    condition     = var.name == null || can(regex("^[A-Za-z0-9+=,.@_-]{1,110}$", coalesce(var.name, "x")))
    error_message = "${lookup(var.input_names, "name", "name")}: the policy base name ${jsonencode(var.name)} must be 1-110 characters of letters, digits and +=,.@_- (IAM policy names allow 128; the module appends up to 17, as in \"-redrive-operator\"). Use only those characters, and shorten it if it is longer."
  }

  validation { # path
    condition     = var.name == var.name && (can(regex("^/([A-Za-z0-9+=,.@_-]+/)*$", var.path)))
    error_message = "${var.input_prefix}path: ${jsonencode(var.path)} must begin and end with \"/\" (e.g. \"/\" or \"/messaging/\")."
  }
}

variable "path" {
  description = "IAM path of the managed policies."
  type        = string
  default     = "/"
  nullable    = false
}

variable "tags" {
  description = "Tags for the managed policies."
  type        = map(string)
  default     = {}
  nullable    = false
}

variable "input_names" {
  description = "How refusal messages name inputs that the caller builds from its own: a map from this module's variable name to the caller's words for it (the root module passes `{ name = \"iam.name_prefix \\\"<prefix>\\\" + the name of queues[\\\"<key>\\\"]\" }`). Variables not listed are named as themselves."
  type        = map(string)
  default     = {}
  nullable    = false
}

variable "input_prefix" {
  description = "Put in front of an input's name in refusal messages: the root module passes \"iam.\" so that they name the input as the user wrote it (`iam.<name>`)."
  type        = string
  default     = ""
  nullable    = false
}
