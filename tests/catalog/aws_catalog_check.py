"""boto3's view of the Glue and S3 Tables catalogs on moto, for the catalog
tests (independent of basalt). Endpoint and keys come from AWS_ENDPOINT_URL,
AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION.

    aws_catalog_check.py bucket NAME           create an S3 bucket
    aws_catalog_check.py table-bucket NAME     create a table bucket, print its ARN
    aws_catalog_check.py version-check         prove the launcher refuses a stale
                                               or unknown VersionId (prints "ok")
    aws_catalog_check.py token-check ARN       prove UpdateTableMetadataLocation
                                               refuses a stale version token
                                               (prints "ok")
    aws_catalog_check.py glue-table DB NAME    the table's VersionId, TableType,
                                               table_type, metadata_location,
                                               previous_metadata_location, Location
    aws_catalog_check.py history glue DB NAME | s3tables ARN NS NAME
        reads the table's current metadata file from S3 and checks that its
        snapshots form one chain whose sequence numbers rise strictly by
        one; prints "SNAPSHOTS TOTAL_RECORDS" of the newest
    aws_catalog_check.py keys URI_PREFIX       the S3 keys under a prefix, sorted
"""
import json
import os
import sys

import boto3
import botocore


def client(service):
    return boto3.client(service, endpoint_url=os.environ["AWS_ENDPOINT_URL"],
                        region_name=os.environ.get("AWS_REGION", "us-east-1"))


def split_s3(uri):
    rest = uri.split("://", 1)[1]
    bucket, _, key = rest.partition("/")
    return bucket, key


def version_check():
    glue = client("glue")
    glue.create_database(DatabaseInput={"Name": "vcheck"})
    table = {"Name": "t", "TableType": "EXTERNAL_TABLE",
             "Parameters": {"table_type": "ICEBERG", "metadata_location": "s3://b/m1"}}
    glue.create_table(DatabaseName="vcheck", TableInput=table)
    v1 = glue.get_table(DatabaseName="vcheck", Name="t")["Table"]["VersionId"]
    table["Parameters"]["metadata_location"] = "s3://b/m2"
    glue.update_table(DatabaseName="vcheck", TableInput=table, VersionId=v1)
    for stale in (v1, "999"):
        table["Parameters"]["metadata_location"] = "s3://b/stale"
        try:
            glue.update_table(DatabaseName="vcheck", TableInput=table, VersionId=stale)
        except botocore.exceptions.ClientError as e:
            code = e.response["Error"]["Code"]
            if code != "ConcurrentModificationException":
                sys.exit(f"VersionId {stale}: {code}, not ConcurrentModificationException")
        else:
            sys.exit(f"an UpdateTable with VersionId {stale} was accepted")
    now = glue.get_table(DatabaseName="vcheck", Name="t")["Table"]
    if now["Parameters"]["metadata_location"] != "s3://b/m2":
        sys.exit("a refused update changed the table")
    glue.delete_database(Name="vcheck")
    print("ok")


def token_check(arn):
    s3t = client("s3tables")
    s3t.create_namespace(tableBucketARN=arn, namespace=["tokencheck"])
    s3t.create_table(tableBucketARN=arn, namespace="tokencheck", name="t", format="ICEBERG")
    got = s3t.get_table_metadata_location(tableBucketARN=arn, namespace="tokencheck", name="t")
    wh, token = got["warehouseLocation"], got["versionToken"]
    s3t.update_table_metadata_location(tableBucketARN=arn, namespace="tokencheck", name="t",
                                       versionToken=token, metadataLocation=wh + "/m1")
    try:
        s3t.update_table_metadata_location(tableBucketARN=arn, namespace="tokencheck", name="t",
                                           versionToken=token, metadataLocation=wh + "/m2")
    except botocore.exceptions.ClientError as e:
        code = e.response["Error"]["Code"]
        status = e.response["ResponseMetadata"]["HTTPStatusCode"]
        if (code, status) != ("ConflictException", 409):
            sys.exit(f"a stale token: {status} {code}, not 409 ConflictException")
    else:
        sys.exit("an update with a stale version token was accepted")
    s3t.delete_table(tableBucketARN=arn, namespace="tokencheck", name="t")
    s3t.delete_namespace(tableBucketARN=arn, namespace="tokencheck")
    print("ok")


def history(args):
    if args[0] == "glue":
        t = client("glue").get_table(DatabaseName=args[1], Name=args[2])["Table"]
        location = t["Parameters"]["metadata_location"]
    else:
        location = client("s3tables").get_table_metadata_location(
            tableBucketARN=args[1], namespace=args[2], name=args[3])["metadataLocation"]
    bucket, key = split_s3(location)
    meta = json.loads(client("s3").get_object(Bucket=bucket, Key=key)["Body"].read())
    snaps = {s["snapshot-id"]: s for s in meta.get("snapshots", [])}
    chain = []
    sid = meta.get("current-snapshot-id")
    while sid is not None and sid != -1:
        s = snaps[sid]
        chain.append(s)
        sid = s.get("parent-snapshot-id")
    chain.reverse()
    if len(chain) != len(snaps):
        sys.exit(f"{len(snaps)} snapshots, {len(chain)} in the current chain")
    seqs = [s["sequence-number"] for s in chain]
    if seqs != list(range(1, len(chain) + 1)):
        sys.exit(f"sequence numbers along the chain: {seqs}")
    if meta.get("last-sequence-number") != len(chain):
        sys.exit(f"last-sequence-number {meta.get('last-sequence-number')}, {len(chain)} snapshots")
    total = chain[-1]["summary"].get("total-records") if chain else "0"
    print(len(chain), total)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "bucket":
        client("s3").create_bucket(Bucket=args[0])
    elif cmd == "table-bucket":
        print(client("s3tables").create_table_bucket(name=args[0])["arn"])
    elif cmd == "version-check":
        version_check()
    elif cmd == "token-check":
        token_check(args[0])
    elif cmd == "glue-table":
        t = client("glue").get_table(DatabaseName=args[0], Name=args[1])["Table"]
        p = t.get("Parameters", {})
        print(t["VersionId"], t["TableType"], p.get("table_type"), p.get("metadata_location"),
              p.get("previous_metadata_location", "-"), t["StorageDescriptor"].get("Location"))
    elif cmd == "history":
        history(args)
    elif cmd == "keys":
        bucket, prefix = split_s3(args[0])
        keys = []
        for page in client("s3").get_paginator("list_objects_v2").paginate(Bucket=bucket,
                                                                          Prefix=prefix):
            keys += [o["Key"] for o in page.get("Contents", [])]
        print("\n".join(sorted(keys)))
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
