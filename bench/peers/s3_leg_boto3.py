"""One leg of bench/objectstore.sh: boto3 (the AWS SDK for Python) moving one
object, so that the process's CPU time can be compared with basalt's.

    python3 s3_leg_boto3.py get|put ENDPOINT BUCKET KEY [FILE]

get reads the object's body to the end (8 MiB reads, thrown away); put
uploads FILE with boto3's managed transfer (multipart above 8 MiB, 10
threads, as boto3 ships). Credentials come from the AWS_* environment."""
import sys

import boto3
from boto3.s3.transfer import TransferConfig


def main():
    op, endpoint, bucket, key = sys.argv[1:5]
    s3 = boto3.client("s3", endpoint_url=endpoint)
    if op == "get":
        body = s3.get_object(Bucket=bucket, Key=key)["Body"]
        total = 0
        while True:
            chunk = body.read(8 << 20)
            if not chunk:
                break
            total += len(chunk)
        print(total)
    elif op == "put":
        s3.upload_file(sys.argv[5], bucket, key, Config=TransferConfig())
    else:
        sys.exit("unknown op " + op)


main()
