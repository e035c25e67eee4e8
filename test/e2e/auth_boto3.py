# boto3 against a Slipway started with a credentials file: good, wrong and unknown keys on the
# SageMaker and S3 APIs, IAM denials, and presigned URLs (valid, tampered, expired), in SigV4 and in
# the SigV2 query form Debian's botocore (1.29) presigns S3 URLs with by default.
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


def client(service, creds, v4=True):
    return boto3.client(
        service,
        endpoint_url=endpoint,
        region_name="us-west-2",
        aws_access_key_id=creds[0],
        aws_secret_access_key=creds[1],
        # v4=False: the client as Debian's botocore makes it, which presigns S3 URLs with SigV2.
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1},
                      signature_version="s3v4" if service == "s3" and v4 else None),
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

# SigV2 presigned URLs (AWSAccessKeyId, Signature, Expires), as this botocore makes them by default.
s3v2 = client("s3", ALICE, v4=False)
url = s3v2.generate_presigned_url("get_object", Params={"Bucket": "boto-auth", "Key": "dir/a b+c.txt"}, ExpiresIn=300)
assert "AWSAccessKeyId=" in url and "Signature=" in url and "Expires=" in url and "X-Amz-" not in url, url
assert fetch(url) == (200, b"hello from boto3"), fetch(url)
status, body = fetch(url.replace("a%20b", "a%20c"))
assert status == 403 and b"<Code>SignatureDoesNotMatch</Code>" in body and b"<StringToSign>GET\n" in body, body
later = url.replace("Expires=", "Expires=1")  # a longer life than was signed
status, body = fetch(later)
assert status == 403 and b"<Code>SignatureDoesNotMatch</Code>" in body, body
# A sub-resource (a response-* override) is part of what was signed, and S3 applies it.
disposition = s3v2.generate_presigned_url("get_object", ExpiresIn=300, Params={
    "Bucket": "boto-auth", "Key": "dir/a b+c.txt", "ResponseContentDisposition": "attachment; filename=x.txt"})
with urllib.request.urlopen(disposition) as r:
    assert r.headers["Content-Disposition"] == "attachment; filename=x.txt", dict(r.headers)
status, body = fetch(disposition.replace("filename%3Dx.txt", "filename%3Dy.txt"))
assert status == 403 and b"SignatureDoesNotMatch" in body, body
# A presigned PUT: what S3 stores is the body sent to it. Content-Type is signed (empty here), so
# the request must not invent one (urllib would add application/x-www-form-urlencoded).
put = s3v2.generate_presigned_url("put_object", Params={"Bucket": "boto-auth", "Key": "dir/v2.txt"}, ExpiresIn=300)
with urllib.request.urlopen(urllib.request.Request(put, data=b"sent with sigv2", method="PUT",
                                                   headers={"Content-Type": ""})) as r:
    assert r.status == 200
status, body = fetch(urllib.request.Request(put, data=b"x", method="PUT", headers={"Content-Type": "text/plain"}))
assert status == 403 and b"SignatureDoesNotMatch" in body, body
assert s3.get_object(Bucket="boto-auth", Key="dir/v2.txt")["Body"].read() == b"sent with sigv2"
# Bob may read models/ only: a URL he signs for this bucket is refused as his own request would be.
bob = client("s3", BOB, v4=False).generate_presigned_url("get_object", Params={"Bucket": "boto-auth", "Key": "dir/a b+c.txt"})
status, body = fetch(bob)
assert status == 403 and b"<Code>AccessDenied</Code>" in body, body
unknown = client("s3", UNKNOWN, v4=False).generate_presigned_url("get_object", Params={"Bucket": "boto-auth", "Key": "dir/a b+c.txt"})
status, body = fetch(unknown)
assert status == 403 and b"<Code>InvalidAccessKeyId</Code>" in body, body
short = s3v2.generate_presigned_url("get_object", Params={"Bucket": "boto-auth", "Key": "dir/a b+c.txt"}, ExpiresIn=1)
time.sleep(2.1)
status, body = fetch(short)
assert status == 403 and b"<Message>Request has expired</Message>" in body, body
print("ok")
