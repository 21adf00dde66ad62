// Test scaffolding for tests/servers (not part of basalt): one Azure Blob
// request signed with Shared Key by hand (node's crypto, no SDK), so the
// tests can prove that azurite checks signatures.
//
//   node azure_blob.mjs METHOD PATH_AND_QUERY [--key BASE64] [--range bytes=A-B]
//                       [--body-file FILE] [--out FILE] [--header name:value]...
//
// PATH_AND_QUERY is relative to $AZURE_BLOB_ENDPOINT (which names the
// account, path style: http://127.0.0.1:PORT/devstoreaccount1). The key
// defaults to $AZURE_STORAGE_KEY. Prints "STATUS ERROR_CODE" (ERROR_CODE is
// x-ms-error-code or "-") and writes the response body to --out.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';

const args = process.argv.slice(2);
if (args.length < 2) {
  console.error('usage: azure_blob.mjs METHOD PATH_AND_QUERY [--key K] [--range R] [--body-file F] [--out F] [--header n:v]');
  process.exit(2);
}
const [method, rel] = args;
let key = process.env.AZURE_STORAGE_KEY;
let range = null, bodyFile = null, out = null;
const extra = {};
for (let i = 2; i < args.length; i += 2) {
  const v = args[i + 1];
  if (args[i] === '--key') key = v;
  else if (args[i] === '--range') range = v;
  else if (args[i] === '--body-file') bodyFile = v;
  else if (args[i] === '--out') out = v;
  else if (args[i] === '--header') { const c = v.indexOf(':'); extra[v.slice(0, c).toLowerCase()] = v.slice(c + 1); }
  else { console.error(`azure_blob.mjs: unknown flag ${args[i]}`); process.exit(2); }
}
const endpoint = new URL(process.env.AZURE_BLOB_ENDPOINT);
const account = process.env.AZURE_STORAGE_ACCOUNT;
const url = new URL(endpoint.pathname.replace(/\/$/, '') + '/' + rel.replace(/^\//, ''), endpoint);
const body = bodyFile ? fs.readFileSync(bodyFile) : Buffer.alloc(0);

const headers = {
  'x-ms-date': new Date().toUTCString(),
  'x-ms-version': '2021-08-06',
  ...extra,
};
if (range) headers['range'] = range;
if (body.length > 0 || method === 'PUT') headers['content-length'] = String(body.length);

// https://learn.microsoft.com/rest/api/storageservices/authorize-with-shared-key
const h = (n) => headers[n] ?? '';
const canonHeaders = Object.keys(headers).filter((n) => n.startsWith('x-ms-')).sort()
  .map((n) => `${n}:${String(headers[n]).trim()}\n`).join('');
let canonResource = `/${account}${decodeURIComponent(url.pathname)}`;
const params = {};
for (const [k, v] of url.searchParams) (params[k.toLowerCase()] ??= []).push(v);
for (const k of Object.keys(params).sort()) canonResource += `\n${k}:${params[k].sort().join(',')}`;
const contentLength = h('content-length') === '0' ? '' : h('content-length');
const stringToSign = [method, h('content-encoding'), h('content-language'), contentLength, h('content-md5'),
  h('content-type'), '', h('if-modified-since'), h('if-match'), h('if-none-match'),
  h('if-unmodified-since'), h('range')].join('\n') + '\n' + canonHeaders + canonResource;
const signature = crypto.createHmac('sha256', Buffer.from(key, 'base64')).update(stringToSign, 'utf8').digest('base64');
headers['authorization'] = `SharedKey ${account}:${signature}`;

const req = http.request(url, { method, headers }, (res) => {
  const chunks = [];
  res.on('data', (c) => chunks.push(c));
  res.on('end', () => {
    if (out) fs.writeFileSync(out, Buffer.concat(chunks));
    console.log(`${res.statusCode} ${res.headers['x-ms-error-code'] ?? '-'}`);
  });
});
req.on('error', (e) => { console.error(`azure_blob.mjs: ${e.message}`); process.exit(1); });
req.end(body);
