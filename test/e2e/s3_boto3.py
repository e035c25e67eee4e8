# boto3 against Slipway's embedded S3 API: upload_file/download_file of a 100 MiB file (multipart),
# paginated listings with delimiters, ranged gets and S3 errors. Usage: s3_boto3.py <endpoint>
# https://boto3.amazonaws.com/v1/documentation/api/latest/guide/s3.html
import hashlib
import os
import sys
import tempfile

import boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import ClientError

endpoint = sys.argv[1]
s3 = boto3.client(
    "s3",
    endpoint_url=endpoint,
    region_name="us-west-2",
    aws_access_key_id="AKIDSLIPWAYTEST",
    aws_secret_access_key="secret",
    config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
)


def error_code(fn, **kw):
    try:
        fn(**kw)
    except ClientError as e:
        return e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"]
    raise AssertionError("expected an error from %s" % fn.__name__)


s3.create_bucket(Bucket="boto", CreateBucketConfiguration={"LocationConstraint": "us-west-2"})
assert error_code(s3.create_bucket, Bucket="boto", CreateBucketConfiguration={"LocationConstraint": "us-west-2"}) == (
    "BucketAlreadyOwnedByYou",
    409,
)
assert s3.get_bucket_location(Bucket="boto")["LocationConstraint"] == "us-west-2"

MiB = 1024 * 1024
with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(tmp, "model.tar.gz")
    digest = hashlib.sha256()
    with open(src, "wb") as f:
        for _ in range(100):
            block = os.urandom(MiB)
            digest.update(block)
            f.write(block)
    config = TransferConfig(multipart_threshold=8 * MiB, multipart_chunksize=8 * MiB, max_concurrency=4)
    s3.upload_file(src, "boto", "models/big/model.tar.gz", ExtraArgs={"ContentType": "application/gzip", "Metadata": {"stage": "prod"}}, Config=config)
    head = s3.head_object(Bucket="boto", Key="models/big/model.tar.gz")
    assert head["ContentLength"] == 100 * MiB, head
    assert head["ETag"].endswith('-13"'), head["ETag"]
    assert head["ContentType"] == "application/gzip", head
    assert head["Metadata"] == {"stage": "prod"}, head
    dst = os.path.join(tmp, "downloaded.tar.gz")
    s3.download_file("boto", "models/big/model.tar.gz", dst, Config=config)
    back = hashlib.sha256()
    with open(dst, "rb") as f:
        for block in iter(lambda: f.read(MiB), b""):
            back.update(block)
    assert back.hexdigest() == digest.hexdigest(), "download differs from upload"

# Ranged get.
s3.put_object(Bucket="boto", Key="models/small.txt", Body=b"0123456789")
r = s3.get_object(Bucket="boto", Key="models/small.txt", Range="bytes=2-5")
assert r["Body"].read() == b"2345" and r["ContentRange"] == "bytes 2-5/10", r
assert error_code(s3.get_object, Bucket="boto", Key="models/small.txt", Range="bytes=50-60") == ("InvalidRange", 416)

# Listing with a delimiter, paginated (boto3 asks for encoding-type=url and decodes).
for key in ["models/a/1", "models/a/2", "models/b/1", "models/c", "models/d e+f", "other/x"]:
    s3.put_object(Bucket="boto", Key=key, Body=key.encode())
pages = s3.get_paginator("list_objects_v2").paginate(Bucket="boto", Prefix="models/", Delimiter="/", PaginationConfig={"PageSize": 2})
keys, prefixes = [], []
for page in pages:
    keys += [o["Key"] for o in page.get("Contents", [])]
    prefixes += [p["Prefix"] for p in page.get("CommonPrefixes", [])]
assert keys == ["models/c", "models/d e+f", "models/small.txt"], keys
assert prefixes == ["models/a/", "models/b/", "models/big/"], prefixes
v1 = [o["Key"] for page in s3.get_paginator("list_objects").paginate(Bucket="boto", PaginationConfig={"PageSize": 3}) for o in page.get("Contents", [])]
assert v1 == sorted(v1) and len(v1) == 8, v1

# Errors as S3 sends them.
assert error_code(s3.get_object, Bucket="boto", Key="missing") == ("NoSuchKey", 404)
assert error_code(s3.head_object, Bucket="boto", Key="missing") == ("404", 404)
assert error_code(s3.list_objects_v2, Bucket="nobucket") == ("NoSuchBucket", 404)
assert error_code(s3.put_object, Bucket="boto", Key="bad", Body=b"abc", ContentMD5="1B2M2Y8AsgTpgAmY7PhCfg==") == ("BadDigest", 400)
assert error_code(s3.delete_bucket, Bucket="boto") == ("BucketNotEmpty", 409)

deleted = s3.delete_objects(Bucket="boto", Delete={"Objects": [{"Key": k} for k in v1]})
assert len(deleted["Deleted"]) == 8, deleted
s3.delete_bucket(Bucket="boto")
print("ok")
