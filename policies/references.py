"""Public references the rules cite (`explain`, SARIF helpUri): title and URL."""
from __future__ import annotations

SQS = "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/"
LAMBDA = "https://docs.aws.amazon.com/lambda/latest/dg/"
S3 = "https://docs.aws.amazon.com/AmazonS3/latest/userguide/"
DDB = "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/"
POWERTOOLS = "https://docs.powertools.aws.dev/lambda/python/latest/utilities/"

REFERENCES: dict[str, tuple[str, str]] = {
    "sqs-sse": ("Encryption at rest in Amazon SQS", SQS + "sqs-server-side-encryption.html"),
    "sqs-dlq": ("Using dead-letter queues in Amazon SQS", SQS + "sqs-dead-letter-queues.html"),
    "sqs-dlq-retention": ("Setting-up dead-letter queue retention in Amazon SQS",
                          SQS + "setting-up-dead-letter-queue-retention.html"),
    "sqs-dlq-alarms": ("Creating alarms for dead-letter queues using Amazon CloudWatch",
                       SQS + "dead-letter-queues-alarms-cloudwatch.html"),
    "sqs-set-attributes": ("SetQueueAttributes (RedrivePolicy, RedriveAllowPolicy), Amazon SQS API Reference",
                           "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SetQueueAttributes.html"),
    "sqs-polling": ("Amazon SQS short and long polling", SQS + "sqs-short-and-long-polling.html"),
    "sqs-visibility": ("Amazon SQS visibility timeout", SQS + "sqs-visibility-timeout.html"),
    "sqs-security": ("Amazon SQS security best practices", SQS + "sqs-security-best-practices.html"),
    "sqs-metrics": ("Available CloudWatch metrics for Amazon SQS", SQS + "sqs-available-cloudwatch-metrics.html"),
    "sqs-large-messages": ("Managing large Amazon SQS messages using Amazon S3", SQS + "sqs-s3-messages.html"),
    "lambda-sqs-configure": ("Creating and configuring an Amazon SQS event source mapping (AWS Lambda)",
                             LAMBDA + "services-sqs-configure.html"),
    "lambda-sqs-errors": ("Handling errors for an SQS event source in Lambda", LAMBDA + "services-sqs-errorhandling.html"),
    "lambda-sqs-scaling": ("Configuring scaling behavior for SQS event source mappings (AWS Lambda)",
                           LAMBDA + "services-sqs-scaling.html"),
    "s3-encryption": ("Setting default server-side encryption behavior for Amazon S3 buckets", S3 + "bucket-encryption.html"),
    "s3-public-access": ("Blocking public access to your Amazon S3 storage", S3 + "access-control-block-public-access.html"),
    "s3-security": ("Security best practices for Amazon S3", S3 + "security-best-practices.html"),
    "s3-lifecycle-expiration": ("Expiring objects (Amazon S3 Lifecycle)", S3 + "lifecycle-expire-general-considerations.html"),
    "ddb-ttl": ("Using time to live (TTL) in DynamoDB", DDB + "TTL.html"),
    "ddb-pitr": ("Point-in-time recovery for DynamoDB", DDB + "PointInTimeRecovery.html"),
    "powertools-idempotency": ("Idempotency, Powertools for AWS Lambda (Python)", POWERTOOLS + "idempotency/"),
    "powertools-batch": ("Batch Processing, Powertools for AWS Lambda (Python)", POWERTOOLS + "batch/"),
    "iam-best-practices": ("Security best practices in IAM", "https://docs.aws.amazon.com/IAM/latest/UserGuide/best-practices.html"),
    "iam-resource": ("IAM JSON policy elements: Resource",
                     "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_resource.html"),
    "sqs-api-permissions": ("Amazon SQS API permissions: Actions and resource reference",
                            SQS + "sqs-api-permissions-reference.html"),
    "tf-json": ("Terraform, JSON Output Format", "https://developer.hashicorp.com/terraform/internals/json-format"),
    "tf-moved": ("Terraform, Refactoring: moved blocks",
                 "https://developer.hashicorp.com/terraform/language/modules/develop/refactoring"),
    "sqs-delete-queue": ("DeleteQueue, Amazon SQS API Reference",
                         "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_DeleteQueue.html"),
    "s3-lifecycle": ("Managing the lifecycle of objects (Amazon S3)", S3 + "object-lifecycle-mgmt.html"),
    "s3-versioning": ("Retaining multiple versions of objects with S3 Versioning", S3 + "Versioning.html"),
    "ddb-deletion-protection": ("Using deletion protection (Amazon DynamoDB)",
                                DDB + "WorkingWithTables.Basics.html#WorkingWithTables.Basics.DeletionProtection"),
    "kms-delete": ("Delete an AWS KMS key", "https://docs.aws.amazon.com/kms/latest/developerguide/deleting-keys.html"),
    "lambda-sqs": ("Using Lambda with Amazon SQS", LAMBDA + "with-sqs.html"),
    "sarif-suppressions": ("SARIF 2.1.0, suppressions (OASIS standard)",
                           "https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html"),
}
