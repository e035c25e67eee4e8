# boto3 against a Slipway started with a credentials file: good, wrong and unknown keys on the
# SageMaker and S3 APIs, IAM denials, and presigned URLs (valid, tampered, expired).
# Usage: auth_boto3.py <endpoint> <account>   (keys: test/support/credentials.ts)
import sys
import time
import urllib.error
import urllib.request

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

endpoint, account = sys.argv[1], sys.argv[2]
ALICE = ("AKIAALICE00000000001", "alice-secret-access-key")
BOB = ("AKIABOB0000000000002", "bob-secret-access-key")
UNKNOWN = ("AKIANOBODY0000000009", "nobody-secret-key")


def client(service, creds):
    return boto3.client(
        service,
        endpoint_url=endpoint,
        region_name="us-west-2",
        aws_access_key_id=creds[0],
        aws_secret_access_key=creds[1],
        # Debian's botocore (1.29) still presigns S3 URLs with SigV2 unless told; Slipway speaks SigV4 only.
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}, signature_version="s3v4" if service == "s3" else None),
    )


def error(fn, **kw):
    try:
        fn(**kw)
    except ClientError as e:
        return e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"], e.response["Error"].get("Message")
    raise AssertionError("expected an error from %s" % fn.__name__)


# SageMaker
client("sagemaker", ALICE).list_models()
assert error(client("sagemaker", UNKNOWN).list_models)[:2] == ("UnrecognizedClientException", 400)
assert error(client("sagemaker", (ALICE[0], "wrong-secret-key")).list_models)[:2] == ("InvalidSignatureException", 403)
code, status, message = error(
    client("sagemaker", BOB).create_endpoint, EndpointName="bobs", EndpointConfigName="cfg"
)
assert (code, status) == ("AccessDeniedException", 400), (code, status)
assert message == (
    "User: arn:aws:iam::%s:user/bob is not authorized to perform: sagemaker:CreateEndpoint on resource: "
    "arn:aws:sagemaker:us-west-2:%s:endpoint/bobs because no identity-based policy allows the sagemaker:CreateEndpoint action"
) % (account, account), message

# S3
s3 = client("s3", ALICE)
s3.create_bucket(Bucket="boto-auth", CreateBucketConfiguration={"LocationConstraint": "us-west-2"})
s3.put_object(Bucket="boto-auth", Key="dir/a b+c.txt", Body=b"hello from boto3")
assert s3.get_object(Bucket="boto-auth", Key="dir/a b+c.txt")["Body"].read() == b"hello from boto3"
assert [o["Key"] for o in s3.list_objects_v2(Bucket="boto-auth", Prefix="dir/")["Contents"]] == ["dir/a b+c.txt"]
assert error(client("s3", UNKNOWN).list_buckets)[:2] == ("InvalidAccessKeyId", 403)
assert error(client("s3", (ALICE[0], "wrong-secret-key")).list_buckets)[:2] == ("SignatureDoesNotMatch", 403)
assert error(client("s3", BOB).put_object, Bucket="boto-auth", Key="x", Body=b"x")[:2] == ("AccessDenied", 403)


def fetch(url):
    try:
        with urllib.request.urlopen(url) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


url = s3.generate_presigned_url("get_object", Params={"Bucket": "boto-auth", "Key": "dir/a b+c.txt"}, ExpiresIn=300)
assert fetch(url) == (200, b"hello from boto3"), fetch(url)
status, body = fetch(url.replace("a%20b", "a%20c"))
assert status == 403 and b"<Code>SignatureDoesNotMatch</Code>" in body, body
short = s3.generate_presigned_url("get_object", Params={"Bucket": "boto-auth", "Key": "dir/a b+c.txt"}, ExpiresIn=1)
time.sleep(2.1)
status, body = fetch(short)
assert status == 403 and b"<Message>Request has expired</Message>" in body, body
print("ok")
