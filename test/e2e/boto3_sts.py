"""STS with boto3 (Debian's python3-boto3) against a server with a credentials file whose roles
carry trust policies: GetCallerIdentity, AssumeRole (trust, identity policy, session policy, role
chaining, MaxSessionDuration), GetSessionToken, and the temporary credentials on SageMaker, S3 and
CloudWatch, authorized as the role. Prints the credentials of one session for the caller to use
after a restart or on another replica.

Usage: boto3_sts.py ENDPOINT ACCOUNT   (principals and roles: test/e2e/sts.test.ts)
"""
import datetime
import json
import sys

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

endpoint, account = sys.argv[1], sys.argv[2]
ALICE = ("AKIAALICE00000000001", "alice-secret-access-key")
BOB = ("AKIABOB0000000000002", "bob-secret-access-key")
RUNNER = "arn:aws:iam::%s:role/runner" % account
WIDE = "arn:aws:iam::%s:role/wide" % account


def client(service, key, secret, token=None):
    return boto3.client(service, endpoint_url=endpoint, region_name="us-west-2", aws_access_key_id=key,
                        aws_secret_access_key=secret, aws_session_token=token,
                        config=Config(retries={"max_attempts": 1}, s3={"addressing_style": "path"}))


def creds(c):
    return c["AccessKeyId"], c["SecretAccessKey"], c["SessionToken"]


def error(fn, **kw):
    try:
        fn(**kw)
    except ClientError as e:
        return e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"], e.response["Error"]["Message"]
    raise AssertionError("expected an error from %s" % fn.__name__)


me = client("sts", *ALICE).get_caller_identity()
assert me["Arn"] == "arn:aws:iam::%s:user/alice" % account and me["Account"] == account, me
assert me["UserId"].startswith("AIDA") and len(me["UserId"]) == 21, me

# The runner role trusts bob by name: bob needs no sts:AssumeRole of his own; alice is refused.
assert error(client("sts", *ALICE).assume_role, RoleArn=RUNNER, RoleSessionName="alice") == (
    "AccessDenied", 403,
    "User: arn:aws:iam::%s:user/alice is not authorized to perform: sts:AssumeRole on resource: %s" % (account, RUNNER))
r = client("sts", *BOB).assume_role(RoleArn=RUNNER, RoleSessionName="nightly", DurationSeconds=7200)
assert r["AssumedRoleUser"]["Arn"] == "arn:aws:sts::%s:assumed-role/runner/nightly" % account, r["AssumedRoleUser"]
assert r["AssumedRoleUser"]["AssumedRoleId"].startswith("AROA") and r["AssumedRoleUser"]["AssumedRoleId"].endswith(":nightly")
c = r["Credentials"]
assert c["AccessKeyId"].startswith("ASIA") and len(c["AccessKeyId"]) == 20 and len(c["SecretAccessKey"]) == 40, c
lifetime = (c["Expiration"] - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
assert 7100 < lifetime <= 7200, lifetime
runner = creds(c)
assert client("sts", *runner).get_caller_identity()["Arn"] == r["AssumedRoleUser"]["Arn"]
assert error(client("sts", *BOB).assume_role, RoleArn=RUNNER, RoleSessionName="long", DurationSeconds=10800)[2] == \
    "The requested DurationSeconds exceeds the MaxSessionDuration set for this role."

# The session has the role's policy, in the assumed role's name.
client("sagemaker", *runner).list_models()
code, status, message = error(client("sagemaker", *runner).create_experiment, ExperimentName="nope")
assert (code, status) == ("AccessDeniedException", 400), (code, status)
assert message.startswith("User: arn:aws:sts::%s:assumed-role/runner/nightly is not authorized to perform: "
                          "sagemaker:CreateExperiment" % account), message
s3 = client("s3", *runner)
s3.create_bucket(Bucket="runner-bucket")
assert "runner-bucket" in [b["Name"] for b in s3.list_buckets()["Buckets"]]
cw = client("cloudwatch", *runner)
cw.put_metric_data(Namespace="Runner", MetricData=[{"MetricName": "Runs", "Value": 1}])
assert [m["MetricName"] for m in cw.list_metrics(Namespace="Runner")["Metrics"]] == ["Runs"]

# A wrong token, or none, is not these credentials.
assert error(client("sts", runner[0], runner[1], "not-the-token").get_caller_identity)[:2] == ("InvalidClientTokenId", 403)
assert error(client("sagemaker", runner[0], runner[1]).list_models)[:2] == ("UnrecognizedClientException", 400)

# The wide role trusts the account: the caller's own policy decides (alice: *, bob: no sts:AssumeRole).
assert error(client("sts", *BOB).assume_role, RoleArn=WIDE, RoleSessionName="bob")[2].endswith(
    "because no identity-based policy allows the sts:AssumeRole action")
# Role chaining: the runner session may assume wide, for an hour at most.
assert error(client("sts", *runner).assume_role, RoleArn=WIDE, RoleSessionName="chain", DurationSeconds=7200)[2] == \
    "The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining."
chained = creds(client("sts", *runner).assume_role(RoleArn=WIDE, RoleSessionName="chain")["Credentials"])
assert client("sts", *chained).get_caller_identity()["Arn"] == "arn:aws:sts::%s:assumed-role/wide/chain" % account
client("sagemaker", *chained).create_experiment(ExperimentName="by-chain")

# A session policy narrows the role.
policy = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sagemaker:ListExperiments", "Resource": "*"}]})
narrow = client("sts", *ALICE).assume_role(RoleArn=WIDE, RoleSessionName="narrow", Policy=policy)
assert narrow["PackedPolicySize"] > 0
narrow = creds(narrow["Credentials"])
assert [e["ExperimentName"] for e in client("sagemaker", *narrow).list_experiments()["ExperimentSummaries"]] == ["by-chain"]
assert error(client("sagemaker", *narrow).list_models)[2].endswith("because no session policy allows the sagemaker:ListModels action")
assert error(client("sts", *ALICE).assume_role, RoleArn=WIDE, RoleSessionName="bad", Policy="{not json")[0] == "MalformedPolicyDocument"

# GetSessionToken: the user's own identity and policy; not from session credentials.
session = creds(client("sts", *BOB).get_session_token(DurationSeconds=900)["Credentials"])
assert client("sts", *session).get_caller_identity()["Arn"] == "arn:aws:iam::%s:user/bob" % account
assert error(client("sts", *runner).get_session_token) == ("AccessDenied", 403, "Cannot call GetSessionToken with session credentials")
assert client("sts", *ALICE).get_access_key_info(AccessKeyId=runner[0])["Account"] == account

print(json.dumps({"AccessKeyId": runner[0], "SecretAccessKey": runner[1], "SessionToken": runner[2]}))
print("ok")
