"""Test scaffolding for tests/servers/servers.bash (not part of basalt).

moto_setup.py ENDPOINT BUCKET

Against a moto_server started with INITIAL_NO_AUTH_ACTION_COUNT=3, spends
the three unauthenticated actions on an IAM user, its access key and an
allow-all user policy; from then on moto verifies SigV4. Then proves it: a
request signed with a wrong secret must be refused, one with the right
secret creates BUCKET. Prints "ACCESS_KEY_ID SECRET WRONG_SECRET_CODE" on
stdout; exits 1 with one line on stderr otherwise. Never prints the secret
anywhere else.
"""
import json
import sys

import boto3
import botocore
from botocore.config import Config

# The codes moto may answer a wrong secret with; which one it was is
# reported, SignatureDoesNotMatch is what AWS answers.
REFUSALS = {"SignatureDoesNotMatch", "AccessDenied", "InvalidClientTokenId"}


def main():
    endpoint, bucket = sys.argv[1], sys.argv[2]
    # No retries: a retried IAM call would spend an unauthenticated action.
    cfg = Config(retries={"max_attempts": 1, "mode": "standard"},
                 s3={"addressing_style": "path"}, connect_timeout=30, read_timeout=60)
    iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1",
                       aws_access_key_id="bootstrap", aws_secret_access_key="bootstrap", config=cfg)
    user = "basalt-test"
    iam.create_user(UserName=user)
    key = iam.create_access_key(UserName=user)["AccessKey"]
    iam.put_user_policy(UserName=user, PolicyName="allow-all", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
    akid, secret = key["AccessKeyId"], key["SecretAccessKey"]

    def s3(sec):
        return boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                            aws_access_key_id=akid, aws_secret_access_key=sec, config=cfg)

    wrong = secret[:-4] + ("AAAA" if not secret.endswith("AAAA") else "BBBB")
    try:
        s3(wrong).create_bucket(Bucket=bucket)
    except botocore.exceptions.ClientError as e:
        code = e.response["Error"]["Code"]
        status = e.response["ResponseMetadata"]["HTTPStatusCode"]
        if code not in REFUSALS or status != 403:
            sys.exit(f"moto_setup: a wrong secret got {status} {code}, not a 403 refusal")
    else:
        sys.exit("moto_setup: a request signed with a wrong secret was accepted: SigV4 checks are off")
    s3(secret).create_bucket(Bucket=bucket)
    s3(secret).head_bucket(Bucket=bucket)
    print(akid, secret, code)


if __name__ == "__main__":
    try:
        main()
    except botocore.exceptions.BotoCoreError as e:
        sys.exit(f"moto_setup: {type(e).__name__}: {e}")
    except botocore.exceptions.ClientError as e:
        sys.exit(f"moto_setup: {e.response['Error'].get('Code')}: {e.response['Error'].get('Message')}")
