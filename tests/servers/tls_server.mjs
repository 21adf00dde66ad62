// A read-only HTTPS file server for tests: node's http2 server with HTTP/1.1
// allowed too (ALPN picks), so the log shows which protocol each client
// really spoke. GET and HEAD of the files under --root, with single byte
// ranges (bytes=A-B, A-, -N), a strong ETag and If-Match (412), which is what
// basalt's http(s) backend asks of a server.
//
//   node tls_server.mjs --cert CERT --key KEY --root DIR --log FILE [--port N]
//
// --port 0 (the default) lets the kernel pick; the first stdout line is
// "listening PORT". Each request appends one JSON line to --log:
// {"method","path","range","httpVersion","status","bytes"}.
import fs from 'node:fs';
import http2 from 'node:http2';
import path from 'node:path';

function args(argv) {
  const out = { port: '0' };
  for (let i = 2; i < argv.length; i += 2) {
    const name = argv[i].replace(/^--/, '');
    if (i + 1 >= argv.length) throw new Error(`${argv[i]} needs a value`);
    out[name] = argv[i + 1];
  }
  for (const need of ['cert', 'key', 'root', 'log'])
    if (!out[need]) throw new Error(`--${need} is required`);
  return out;
}

const opt = args(process.argv);
const root = path.resolve(opt.root);
const log = fs.openSync(opt.log, 'a');

// [first, last] of a single range against `size`, null for a header that is
// not one range we serve (then the whole body goes out), 'unsatisfiable'.
function parseRange(header, size) {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header || '');
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let first, last;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    first = Math.max(0, size - n);
    last = size - 1;
  } else {
    first = Number(m[1]);
    last = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (first >= size || first > last) return 'unsatisfiable';
  return [first, last];
}

function handle(req, res) {
  let status = 500;
  let bytes = 0;
  const done = () => {
    fs.writeSync(log, JSON.stringify({
      method: req.method, path: req.url, range: req.headers.range || null,
      httpVersion: req.httpVersion, status, bytes,
    }) + '\n');
  };
  res.on('finish', done);
  const file = path.join(root, decodeURIComponent(req.url.split('?')[0]));
  let st;
  if (!file.startsWith(root + path.sep) || !(st = fs.statSync(file, { throwIfNoEntry: false })) ||
      !st.isFile()) {
    status = 404;
    res.writeHead(status, { 'content-length': 0 });
    return res.end();
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    status = 405;
    res.writeHead(status, { 'content-length': 0 });
    return res.end();
  }
  const etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
  const headers = { etag, 'last-modified': st.mtime.toUTCString(), 'accept-ranges': 'bytes' };
  const ifMatch = req.headers['if-match'];
  if (ifMatch && ifMatch !== '*' && !ifMatch.split(',').map((s) => s.trim()).includes(etag)) {
    status = 412;
    res.writeHead(status, { 'content-length': 0 });
    return res.end();
  }
  const range = parseRange(req.headers.range, st.size);
  if (range === 'unsatisfiable') {
    status = 416;
    res.writeHead(status, { 'content-range': `bytes */${st.size}`, 'content-length': 0 });
    return res.end();
  }
  let first = 0;
  let last = st.size - 1;
  status = 200;
  if (range) {
    [first, last] = range;
    status = 206;
    headers['content-range'] = `bytes ${first}-${last}/${st.size}`;
  }
  headers['content-length'] = st.size === 0 ? 0 : last - first + 1;
  res.writeHead(status, headers);
  if (req.method === 'HEAD' || st.size === 0) return res.end();
  bytes = last - first + 1;
  fs.createReadStream(file, { start: first, end: last }).pipe(res);
}

const server = http2.createSecureServer({
  allowHTTP1: true,
  cert: fs.readFileSync(opt.cert),
  key: fs.readFileSync(opt.key),
}, handle);
// A client that refuses the certificate ends the handshake: not a server error.
server.on('tlsClientError', () => {});
server.listen(Number(opt.port), '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
