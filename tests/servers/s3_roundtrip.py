"""Test scaffolding for tests/servers (not part of basalt).

s3_roundtrip.py ENDPOINT BUCKET

boto3 with the credentials of $S3_ACCESS_KEY_ID / $S3_SECRET_ACCESS_KEY,
SigV4 signed for ENDPOINT's host and port: PUT an object (with
Expect: 100-continue, as boto3 sends it), a suffix range GET, a middle range
GET, HEAD, LIST and DELETE, each checked. Used straight against moto and
through fault_proxy (which must forward the Host header unchanged for the
signatures to verify). Prints one line "ok N requests"; exits 1 otherwise.
"""
import os
import sys

import boto3
import botocore
from botocore.config import Config


def main():
    endpoint, bucket = sys.argv[1], sys.argv[2]
    cfg = Config(retries={"max_attempts": 1, "mode": "standard"},
                 s3={"addressing_style": "path"}, connect_timeout=30, read_timeout=60)
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name=os.environ.get("S3_REGION", "us-east-1"),
                      aws_access_key_id=os.environ["S3_ACCESS_KEY_ID"],
                      aws_secret_access_key=os.environ["S3_SECRET_ACCESS_KEY"], config=cfg)
    data = bytes((i * 7 + (i >> 8)) & 0xFF for i in range(300_000))
    key = "roundtrip/object.bin"
    # moto 5.2 verifies SigV4 wrongly when a query value holds "/" or " "
    # (a prefix "roundtrip/", a delimiter "/"): it answers
    # SignatureDoesNotMatch to a correct signature. So the prefix has none.
    s3.put_object(Bucket=bucket, Key=key, Body=data)
    got = s3.get_object(Bucket=bucket, Key=key, Range="bytes=-8")
    assert got["ResponseMetadata"]["HTTPStatusCode"] == 206, got["ResponseMetadata"]
    assert got["Body"].read() == data[-8:], "suffix range"
    got = s3.get_object(Bucket=bucket, Key=key, Range="bytes=10-19")
    assert got["Body"].read() == data[10:20], "middle range"
    assert s3.head_object(Bucket=bucket, Key=key)["ContentLength"] == len(data)
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix="roundtrip").get("Contents", [])]
    assert keys == [key], keys
    assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == data, "whole object"
    s3.delete_object(Bucket=bucket, Key=key)
    print("ok 7 requests")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        sys.exit(f"s3_roundtrip: wrong answer: {e}")
    except botocore.exceptions.ClientError as e:
        sys.exit(f"s3_roundtrip: {e.response['Error'].get('Code')}: {e.response['Error'].get('Message')}")
    except botocore.exceptions.BotoCoreError as e:
        sys.exit(f"s3_roundtrip: {type(e).__name__}: {e}")
