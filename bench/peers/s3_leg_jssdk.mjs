// One leg of bench/objectstore.sh: the AWS SDK for JavaScript v3 moving one
// object, so that the process's CPU time can be compared with basalt's.
//
//   node s3_leg_jssdk.mjs get|put ENDPOINT BUCKET KEY [FILE]
//
// get streams the body to the end and drops it; put uploads FILE with
// @aws-sdk/lib-storage's Upload (8 MiB parts, 4 at once). Credentials come
// from the AWS_* environment.
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../package.json'));
const { S3Client, GetObjectCommand } = require('@aws-sdk/client-s3');
const { Upload } = require('@aws-sdk/lib-storage');

const [op, endpoint, bucket, key, file] = process.argv.slice(2);
const client = new S3Client({ endpoint, forcePathStyle: true, region: process.env.AWS_REGION || 'us-east-1' });
if (op === 'get') {
  const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  let total = 0;
  for await (const chunk of res.Body) total += chunk.length;
  console.log(total);
} else if (op === 'put') {
  const up = new Upload({ client, params: { Bucket: bucket, Key: key, Body: createReadStream(file) },
                          partSize: 8 << 20, queueSize: 4 });
  await up.done();
} else {
  console.error(`unknown op ${op}`);
  process.exit(2);
}
