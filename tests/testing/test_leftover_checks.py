"""The destroy test's leftover checks see what is really there (so "nothing left" means something)."""
from __future__ import annotations

import json

import pytest

from tests.support.localstack import leftovers, named_leftovers, unique_prefix

pytestmark = pytest.mark.localstack


def test_leftover_checks_find_every_kind_of_resource(aws):
    prefix = unique_prefix("left")
    sqs, s3, ddb = aws.client("sqs"), aws.client("s3"), aws.client("dynamodb")
    cw, sns, kms, iam = aws.client("cloudwatch"), aws.client("sns"), aws.client("kms"), aws.client("iam")

    queue = f"{prefix}-q"
    sqs.create_queue(QueueName=queue)
    bucket = f"{prefix}-b"
    s3.create_bucket(Bucket=bucket)
    table = f"{prefix}-t"
    ddb.create_table(TableName=table, KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
    alarm = f"sqs-dlq-not-empty-{prefix}-q"
    cw.put_metric_alarm(AlarmName=alarm, Namespace="AWS/SQS", MetricName="ApproximateNumberOfMessagesVisible",
                        Statistic="Maximum", Period=60, EvaluationPeriods=1, Threshold=0,
                        ComparisonOperator="GreaterThanThreshold")
    topic = sns.create_topic(Name=f"sqs-alarms-{prefix}")["TopicArn"]
    key = kms.create_key(Description=f"Encrypts the SNS topic sqs-alarms-{prefix}")["KeyMetadata"]["KeyId"]
    policy = iam.create_policy(PolicyName=f"{prefix}-producer", Path=f"/{prefix}/", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": "*"}]}))["Policy"]["Arn"]
    role = f"{prefix}-consumer"
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"Service": "lambda.amazonaws.com"}}]}))
    iam.put_role_policy(RoleName=role, PolicyName="consume", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sqs:ReceiveMessage", "Resource": "*"}]}))
    iam.attach_role_policy(RoleName=role, PolicyArn=policy)
    state = [
        {"address": "q", "type": "aws_sqs_queue", "values": {"name": queue}},
        {"address": "b", "type": "aws_s3_bucket", "values": {"bucket": bucket}},
        {"address": "l", "type": "aws_s3_bucket_lifecycle_configuration", "values": {"bucket": bucket}},
        {"address": "t", "type": "aws_dynamodb_table", "values": {"name": table}},
        {"address": "a", "type": "aws_cloudwatch_metric_alarm", "values": {"alarm_name": alarm}},
        {"address": "s", "type": "aws_sns_topic", "values": {"arn": topic}},
        {"address": "k", "type": "aws_kms_key", "values": {"key_id": key}},
        {"address": "p", "type": "aws_iam_policy", "values": {"arn": policy}},
        {"address": "r", "type": "aws_iam_role", "values": {"name": role}},
        {"address": "rp", "type": "aws_iam_role_policy", "values": {"role": role, "name": "consume"}},
        {"address": "ra", "type": "aws_iam_role_policy_attachment", "values": {"role": role, "policy_arn": policy}},
        {"address": "x", "type": "aws_lambda_function", "values": {"function_name": "f"}},
    ]
    try:
        found = leftovers(aws, state)
        assert [line.split(":")[0] for line in found] == ["q", "b", "l", "t", "a", "s", "k", "p", "r", "rp", "ra", "x"]
        assert "no leftover check for resource type aws_lambda_function" in found[-1]
        named = named_leftovers(aws, prefix)
        assert len(named) == 8, named  # queue, bucket, table, alarm, topic, key, policy, role
    finally:
        iam.detach_role_policy(RoleName=role, PolicyArn=policy)
        iam.delete_role_policy(RoleName=role, PolicyName="consume")
        iam.delete_role(RoleName=role)
        sqs.delete_queue(QueueUrl=sqs.get_queue_url(QueueName=queue)["QueueUrl"])
        s3.delete_bucket(Bucket=bucket)
        ddb.delete_table(TableName=table)
        cw.delete_alarms(AlarmNames=[alarm])
        sns.delete_topic(TopicArn=topic)
        kms.schedule_key_deletion(KeyId=key, PendingWindowInDays=7)
        iam.delete_policy(PolicyArn=policy)
    # gone, or (the key) pending deletion: nothing reported
    assert leftovers(aws, state[:-1]) == []
    assert named_leftovers(aws, prefix) == []
